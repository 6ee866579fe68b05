#!/bin/sh
# t_scc_cli.sh -- `warpex scc` end to end: summary and JSON counts on small
# graphs in every input format, --scc-out contents, usage errors, and located
# errors (exit 2, one line) for malformed files.
cd "$(dirname "$0")/.." || exit 2
TAG=scc-cli
. tests/lib.sh

# 0->1->2->0 (one SCC), 2->3 (3 is a deadlock), 4 with a self-loop, 5 isolated
# via 5->5? no: 5->4.  SCCs {0,1,2} {3} {4} {5}: trivial {3} {5}; bottom {3} {4}.
printf '# test\n0 1\n1 2\n2 0\n2 3\n4 4\n5 4\n' > "$T/g.txt"
expect_rc "edge list" 0 "$W" scc "$T/g.txt" --json
expect_json "edge list counts" vertices=6 edges=6 sccs=4 trivial_sccs=2 nontrivial_sccs=2 \
    largest_scc=3 bottom_sccs=2 bottom_trivial_sccs=1 bottom_nontrivial_sccs=1
expect_rc "text summary" 0 "$W" scc "$T/g.txt" --quiet
grep -q '^SCCs: 4 (2 trivial' "$T/out" && grep -q '^largest SCC: 3 vertices' "$T/out" \
    && grep -q '^bottom SCCs: 2 ' "$T/out" && [ ! -s "$T/err" ] \
    && pass "text summary lines, nothing on stderr with --quiet" || fail "text summary: $(cat "$T/out" "$T/err")"

expect_rc "--scc-out" 0 "$W" scc "$T/g.txt" --scc-out "$T/comp.txt"
printf '0\n0\n0\n1\n2\n3\n' | cmp -s - "$T/comp.txt" && pass "--scc-out: canonical ids by smallest vertex" \
    || fail "--scc-out contents: $(tr '\n' ' ' < "$T/comp.txt")"
no_temps "$T" && pass "no temporary file left behind" || fail ".tmp left behind"

# The same graph as Matrix Market (1-based), PRISM .tra and .aut.
{ echo '%%MatrixMarket matrix coordinate pattern general'; echo '% c'; echo '6 6 6'
  echo '1 2'; echo '2 3'; echo '3 1'; echo '3 4'; echo '5 5'; echo '6 5'; } > "$T/g.mtx"
expect_rc "mtx" 0 "$W" scc "$T/g.mtx" --json
expect_json "mtx counts" vertices=6 sccs=4 trivial_sccs=2 largest_scc=3 bottom_sccs=2
{ echo '# Transitions (MDP)'; echo '6 6 7'; echo '0 0 1 1'; echo '1 0 2 1'; echo '2 0 0 0.5'
  echo '2 0 3 0.5 go'; echo '3 0 3 1'; echo '4 0 4 1'; echo '5 0 4 1'; } > "$T/g.tra"
expect_rc "tra" 0 "$W" scc "$T/g.tra" --json
expect_json "tra counts (3 has a self-loop there)" vertices=6 sccs=4 trivial_sccs=1 \
    bottom_sccs=2 bottom_nontrivial_sccs=2
printf 'des (0, 6, 6)\n(0, a, 1)\n(1, b, 2)\n(2, "c d", 0)\n(2, tau, 3)\n(4, a, 4)\n(5, a, 4)\n' > "$T/g.aut"
expect_rc "aut" 0 "$W" scc "$T/g.aut" --json
expect_json "aut counts" vertices=6 sccs=4 trivial_sccs=2 largest_scc=3 bottom_sccs=2
# CSR binary written by explore, against its .aut twin.
expect_rc "explore writes csr and aut" 0 "$W" explore examples/milner/milner_n5.exp --quiet \
    --csr "$T/m.csr" --aut "$T/m.aut"
"$W" scc "$T/m.csr" --json > "$T/csr.json" 2>/dev/null; "$W" scc "$T/m.aut" --json > "$T/aut.json" 2>/dev/null
sed 's/, "read_seconds.*//' "$T/csr.json" > "$T/a"; sed 's/, "read_seconds.*//' "$T/aut.json" > "$T/b"
cmp -s "$T/a" "$T/b" && grep -q '"vertices": 240' "$T/a" && pass "csr and aut of milner n=5 agree: $(cat "$T/a")" \
    || fail "csr vs aut: $(cat "$T/csr.json" "$T/aut.json")"

# Usage errors.
expect_rc "scc without FILE" 2 "$W" scc
expect_rc "scc unknown option" 2 "$W" scc "$T/g.txt" --frob
grep -q "unknown option '--frob'" "$T/err" && pass "unknown option named" || fail "unknown option: $(cat "$T/err")"
expect_rc "scc --scc-out without FILE" 2 "$W" scc "$T/g.txt" --scc-out
expect_rc "scc missing file" 2 "$W" scc "$T/none.txt"
grep -q "none.txt: cannot open" "$T/err" && pass "missing file named" || fail "missing file: $(cat "$T/err")"

# Malformed files: exit 2, one located line, no --scc-out file.
located() { # NAME FILE PATTERN
    expect_rc "$1" 2 "$W" scc "$2" --scc-out "$T/bad_comp.txt"
    if grep -q "$3" "$T/err" && [ "$(wc -l < "$T/err")" -eq 1 ]; then pass "$1: located: $(cat "$T/err")"
    else fail "$1: expected '$3', found: $(cat "$T/err")"; fi
    [ ! -e "$T/bad_comp.txt" ] || fail "$1: --scc-out written after an error"
}
printf '0 1\n1 two\n' > "$T/bad.txt"
located "edge list with a word" "$T/bad.txt" "bad.txt:2:3: expected target vertex, found 'two'"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n' > "$T/bad.mtx"
located "mtx index out of range" "$T/bad.mtx" "bad.mtx:3:3: column index 3"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n' > "$T/short.mtx"
located "mtx with missing entries" "$T/short.mtx" "short.mtx:2:5: the size line declares 3 entries"
printf '2 1 1\n0 0 5 1\n' > "$T/bad.tra"
located "tra state out of range" "$T/bad.tra" "bad.tra:2:5: state 5 out of range"
printf 'des (0, 1, 2)\n(0, a 1)\n' > "$T/bad.aut"
located "malformed aut" "$T/bad.aut" "bad.aut:2:"
printf 'WXCSR\0\0\0garbage' > "$T/bad.csr"
expect_rc "truncated csr" 2 "$W" scc "$T/bad.csr"
printf '\0\0\0' > "$T/bin.txt"
located "binary junk as an edge list" "$T/bin.txt" "bin.txt:1:1: NUL byte (0x00): not a text file"
