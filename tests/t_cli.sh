#!/bin/sh
# t_cli.sh -- the warpex command line: exit codes, located errors, outputs
# (.aut, CSR, JSON) cross-checked against each other and against a second
# exploration, checks and traces, limits, and "nothing written half".
cd "$(dirname "$0")/.." || exit 2
TAG=cli
. tests/lib.sh

EX=examples/philosophers/philosophers_n5.exp
expect_rc "no arguments is a usage error" 2 "$W"
expect_rc "unknown command" 2 "$W" frobnicate x
expect_rc "unknown option" 2 "$W" explore "$EX" --frob
grep -q "unknown option '--frob'" "$T/err" && pass "unknown option named" || fail "unknown option not named: $(cat "$T/err")"
# Each command takes its own options: an explore option given to info or
# convert --to gpf, or --to given to explore, is refused, not ignored.
for opt in --backend=gpu --json --deadlock --por --scc --prop=x --mdp-out=o --hash-memory=1M; do
    expect_rc "info refuses ${opt%%=*}" 2 "$W" info "$EX" $(echo "$opt" | tr = ' ')
    grep -q "info does not take '${opt%%=*}'" "$T/err" && pass "info: ${opt%%=*} named" ||
        fail "info ${opt%%=*}: $(cat "$T/err")"
    expect_rc "convert --to gpf refuses ${opt%%=*}" 2 "$W" convert "$EX" "$T/o.gpf" $(echo "$opt" | tr = ' ')
    [ ! -e "$T/o.gpf" ] && pass "convert ${opt%%=*}: nothing written" || fail "convert ${opt%%=*} wrote $T/o.gpf"
done
expect_rc "info takes the network options" 0 "$W" info "$EX" -q -v --hidden i --case
expect_rc "convert --to aut refuses --aut" 2 "$W" convert "$EX" "$T/o.aut" --aut "$T/p.aut"
[ ! -e "$T/o.aut" ] && [ ! -e "$T/p.aut" ] && pass "convert --aut: nothing written" || fail "convert --aut wrote"
expect_rc "convert --to aut takes explore options" 0 "$W" convert "$EX" "$T/o.aut" --backend seq -q
head -1 "$T/o.aut" | grep -q '^des (0, 8770, 2163) *$' && pass "convert --backend seq: the LTS" ||
    fail "convert --backend seq: $(head -1 "$T/o.aut")"
expect_rc "explore refuses --to" 2 "$W" explore "$EX" --to aut
expect_rc "bad --threads value" 2 "$W" explore "$EX" --threads zero
# --threads: 0 (all cores) to 256 (WX_POOL_MAX), the same range for explore and check
expect_rc "--threads 257" 2 "$W" explore "$EX" --threads 257
grep -q "threads takes 0 (all cores) to 256, not '257'" "$T/err" && [ "$(wc -l < "$T/err")" -eq 1 ] \
    && pass "--threads 257: the range named, one line" || fail "--threads 257: $(cat "$T/err")"
expect_rc "--threads -1" 2 "$W" explore "$EX" --threads -1
expect_rc "--threads 0 (all cores)" 0 "$W" explore "$EX" --backend cpu --threads 0 --json --quiet
expect_json "--threads 0: all cores, the usual counts" states=2163 transitions=8770
expect_rc "--threads 256" 0 "$W" explore "$EX" --backend cpu --threads 256 --json --quiet
expect_json "--threads 256: the usual counts" states=2163 transitions=8770 threads=256
expect_rc "bad --memory value" 2 "$W" explore "$EX" --memory 12Q
expect_rc "missing input file" 2 "$W" explore "$T/none.exp"
expect_rc "help" 0 "$W" help
expect_rc "version" 0 "$W" --version

# Located error for a malformed .exp, one line, and nothing written.
printf 'par using\n  a * b -> c\nin "x.aut" || \n' > "$T/bad.exp"
expect_rc "malformed exp" 2 "$W" explore "$T/bad.exp" --aut "$T/bad_out.aut" --csr "$T/bad_out.csr"
if grep -q "bad.exp:[0-9]*:[0-9]*: " "$T/err" && [ "$(wc -l < "$T/err")" -eq 1 ]; then
    pass "malformed exp: one located error line"; else fail "malformed exp message: $(cat "$T/err")"; fi
[ ! -e "$T/bad_out.aut" ] && [ ! -e "$T/bad_out.csr" ] && pass "no output written after an input error" \
    || fail "output file created after an input error"

# A full run with every output; the JSON, .aut and CSR must agree.
expect_rc "explore with outputs" 0 "$W" explore examples/milner/milner_n5.exp --json --quiet \
    --aut "$T/m.aut" --csr "$T/m.csr"
states=$(json_field states); trans=$(json_field transitions)
[ "$(json_field complete)" = true ] && pass "json complete" || fail "json complete: $(cat "$T/out")"
[ "$states" = 240 ] && [ "$trans" = 720 ] && pass "milner n=5 counts 240/720 (3n*2^(n-1) states)" \
    || fail "milner n=5: expected 240/720, found $states/$trans"
head -1 "$T/m.aut" | grep -q "^des (0, $trans, $states) *$" && pass "aut header has the counts" \
    || fail "aut header: $(head -1 "$T/m.aut")"
[ "$(($(wc -l < "$T/m.aut") - 1))" -eq "$trans" ] && pass "aut has one line per transition" \
    || fail "aut line count"
# Re-exploring the written product LTS as a single component gives the same counts.
expect_rc "explore the written .aut" 0 "$W" explore "$T/m.aut" --json --quiet
[ "$(json_field states)" = "$states" ] && [ "$(json_field transitions)" = "$trans" ] \
    && pass "product .aut re-explores to the same counts" \
    || fail "product .aut re-explored: $(cat "$T/out")"
# CSR and .aut describe the same edge set (python3 decodes the binary).
if command -v python3 >/dev/null; then
    python3 - "$T/m.csr" "$T/m.aut" > "$T/py" 2>&1 <<'PY'
import struct, sys, re
b = open(sys.argv[1], 'rb').read()
assert b[:8] == b'WXCSR\0\0\0', 'magic'
ver, flags, nv, ne, nl, init = struct.unpack_from('<IIQQII', b, 8)
at, names = 40, []
for _ in range(nl):
    (n,) = struct.unpack_from('<I', b, at); names.append(b[at+4:at+4+n].decode()); at += 4 + n
at += (-at) % 8
off = struct.unpack_from('<%dQ' % (nv + 1), b, at); at += 8 * (nv + 1)
tgt = struct.unpack_from('<%dI' % ne, b, at); at += 4 * ne
lab = struct.unpack_from('<%dI' % ne, b, at); at += 4 * ne
assert at == len(b), 'trailing bytes'
csr = {(v, names[lab[i]], tgt[i]) for v in range(nv) for i in range(off[v], off[v+1])}
assert len(csr) == ne
lines = open(sys.argv[2]).read().splitlines()
aut = set()
for l in lines[1:]:
    m = re.match(r'\((\d+),(.*),(\d+)\)$', l)
    lbl = m.group(2)
    if lbl.startswith('"'): lbl = lbl[1:-1]
    aut.add((int(m.group(1)), lbl, int(m.group(3))))
print('same' if aut == csr and ver == 1 and flags == 1 and init == 0 else 'differ')
PY
    grep -q '^same$' "$T/py" && pass "CSR binary and .aut output hold the same edges" \
        || fail "CSR vs aut: $(cat "$T/py")"
fi

# Backends agree (seq vs cpu on several thread counts).
for b in "--backend seq" "--backend cpu --threads 1" "--backend cpu --threads 3"; do
    expect_rc "milner $b" 0 "$W" explore examples/milner/milner_n5.exp --json --quiet $b
    [ "$(json_field states)/$(json_field transitions)" = "$states/$trans" ] && pass "$b agrees" \
        || fail "$b: $(cat "$T/out")"
done

# Deadlock: philosophers deadlock; the shortest trace has 10 steps for n=5
# (5 hidden moves to hungry, then 5 left forks).
expect_rc "deadlock found" 1 "$W" explore "$EX" --deadlock --trace --quiet
grep -q "^deadlock:" "$T/out" && pass "deadlock reported" || fail "deadlock report: $(cat "$T/out")"
grep -q "^trace (10 steps, shortest):" "$T/out" && pass "deadlock trace has 10 steps" \
    || fail "trace: $(grep trace "$T/out")"
expect_rc "no deadlock in milner" 0 "$W" explore examples/milner/milner_n5.exp --deadlock --quiet
grep -q "no violation" "$T/out" && pass "no-violation result line" || fail "no result line"
expect_rc "--stop-at-first with outputs writes nothing" 1 "$W" explore "$EX" --deadlock --stop-at-first --quiet \
    --aut "$T/d.aut"
[ ! -e "$T/d.aut" ] && pass "stopped exploration leaves no .aut" || fail ".aut left after a stop"

# Actions: reachable, unreachable, bad regex; JSON trace ends with the action.
expect_rc "action reachable" 1 "$W" explore "$EX" --action '^EAT' --trace --json --quiet
grep -q '"violation": "action"' "$T/out" && grep -q '"label": "EAT[^"]*"}]' "$T/out" \
    && pass "action trace ends with the matching label" || fail "action json: $(cat "$T/out")"
expect_rc "action unreachable" 0 "$W" explore "$EX" --action '^NOSUCH' --quiet
expect_rc "bad action regex" 2 "$W" explore "$EX" --action '(' --quiet
expect_rc "trace states" 1 "$W" explore "$EX" --deadlock --trace-states --quiet
grep -q "GET !4 !4  (" "$T/out" && pass "trace shows state vectors" || fail "trace-states: $(tail -2 "$T/out")"

# Limits: a tiny memory budget must stop with exit 3 and no count as a result.
"$W" explore examples/buffers/buffers_n16_d1.exp --memory 64K --quiet --aut "$T/l.aut" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 3 ] && pass "memory limit exit 3" || fail "memory limit: exit $rc, $(cat "$T/err")"
grep -q "incomplete" "$T/err" && pass "limit message says incomplete" || fail "limit message: $(cat "$T/err")"
[ ! -e "$T/l.aut" ] && pass "no .aut after a limit stop" || fail ".aut left after limit"

# GPU choice: without a usable GPU, auto runs on the CPU and gpu is an error
# (every command: tests/t_gpu_choice.sh).
"$W" explore "$EX" --json > "$T/out" 2> "$T/err"
if [ "$(json_field backend)" != '"gpu"' ]; then
    expect_rc "--backend gpu without a GPU" 2 "$W" explore "$EX" --backend gpu
    grep -q "no usable CUDA device\|built without CUDA" "$T/err" && pass "gpu error message" \
        || fail "gpu message: $(cat "$T/err")"
else
    pass "a GPU is present: auto used it"
fi

# convert: gpf round trip keeps the state count; info describes the network.
expect_rc "convert to gpf" 0 "$W" convert examples/milner/milner_n5.exp --to gpf "$T/m.gpf"
expect_rc "explore gpf" 0 "$W" explore "$T/m.gpf" --json --quiet
[ "$(json_field states)" = "$states" ] && pass "exp -> gpf -> explore: same state count" \
    || fail "gpf states: $(cat "$T/out")"
expect_rc "convert to aut" 0 "$W" convert examples/milner/milner_n5.exp --to aut "$T/c.aut" --quiet
# State numbering within a BFS level may differ between parallel runs: compare
# the header counts and the multiset of labels.
[ "$(head -1 "$T/c.aut")" = "$(head -1 "$T/m.aut")" ] \
    && [ "$(sed 1d "$T/c.aut" | sed 's/^([0-9]*,\(.*\),[0-9]*)$/\1/' | sort | uniq -c)" = \
         "$(sed 1d "$T/m.aut" | sed 's/^([0-9]*,\(.*\),[0-9]*)$/\1/' | sort | uniq -c)" ] \
    && pass "convert --to aut gives the product LTS (counts and label multiset)" \
    || fail "convert --to aut differs from explore --aut"
expect_rc "info" 0 "$W" info examples/milner/milner_n5.exp
[ -s "$T/out" ] && pass "info prints the network" || fail "info printed nothing"
# -v reports duplicate lines of an .aut component.
printf 'des (0, 3, 2)\n(0, a, 1)\n(0, "a", 1)\n(1, b, 0)\n' > "$T/dup.aut"
expect_rc "verbose duplicates" 0 "$W" explore "$T/dup.aut" -v --quiet
grep -q "1 duplicate transition line dropped" "$T/err" && pass "-v reports dropped duplicates" \
    || fail "-v: $(cat "$T/err")"

# Trace vectors name the components' states as numbered in their files, even
# when the initial state is not 0 and unreachable states were dropped.
printf 'des (5, 4, 6)\n(5, a, 3)\n(3, b, 5)\n(0, c, 1)\n(1, d, 2)\n' > "$T/orig.aut"
expect_rc "trace on a non-zero initial state" 1 "$W" explore "$T/orig.aut" --action '^b$' --trace-states --quiet --json
grep -q '"trace": \[{"state": 0, "vector": \[5\]}, {"state": 1, "label": "a", "vector": \[3\]}, {"state": 0, "label": "b", "vector": \[5\]}\]' "$T/out" \
    && pass "trace vectors use the file's state numbers (5 -a-> 3 -b-> 5)" || fail "trace vectors: $(cat "$T/out")"

# Components using both hidden-label conventions get a note.
printf 'des (0, 2, 2)\n(0, i, 1)\n(1, tau, 0)\n' > "$T/it.aut"
expect_rc "i and tau" 0 "$W" explore "$T/it.aut"
grep -q "both 'i' and 'tau'; only 'i' is hidden" "$T/err" && pass "note on i and tau" || fail "i/tau note: $(cat "$T/err")"

# Every malformed input of tests/bad/ through the CLI: the exit status the
# manifest gives (2 unless it says otherwise), exactly one stderr line that
# starts with the file's location when the manifest has one, and no output.
bad_total=0; bad_ok=0; bad_first=""
for kind in aut exp gpf; do
    grep -v '^#' "tests/bad/$kind/EXPECT" | while read -r f line col rest; do
        [ -n "$f" ] || continue
        p=tests/bad/$kind/$f
        [ -f "$p" ] || p=$p.$kind
        want=2
        [ "$kind" = aut ] && want=${rest%% *}
        rm -f "$T/bad.out"
        "$W" explore "$p" --quiet --aut "$T/bad.out" > /dev/null 2> "$T/err"
        rc=$?
        ok=1
        [ "$rc" -eq "$want" ] || ok=0
        [ "$(wc -l < "$T/err")" -eq 1 ] || ok=0
        if [ "$line" -gt 0 ] 2>/dev/null; then
            grep -q "^warpex: $p:$line:$col: " "$T/err" || ok=0
        fi
        [ ! -e "$T/bad.out" ] || ok=0
        if [ $ok = 1 ]; then echo ok; else echo "bad $p: exit $rc (want $want), stderr: $(head -c 200 "$T/err")"; fi
    done
done > "$T/badlist"
bad_total=$(wc -l < "$T/badlist"); bad_ok=$(grep -c '^ok$' "$T/badlist")
if [ "$bad_total" -ge 50 ] && [ "$bad_total" -eq "$bad_ok" ]; then
    pass "$bad_total malformed .aut/.exp/.gpf files: manifest exit code, one located line, no output"
else
    fail "malformed inputs via the CLI: $bad_ok of $bad_total as expected; first: $(grep -v '^ok$' "$T/badlist" | head -3)"
fi

# explore --scc decomposes the explored graph in the same run; it must agree
# with `warpex scc` on the CSR file written by the same exploration.
for m in examples/milner/milner_n5.exp examples/philosophers/philosophers_n5.exp examples/abp/abp_d2.exp; do
    expect_rc "explore --scc $m" 0 "$W" explore "$m" --scc --json --quiet --csr "$T/s.csr"
    a="$(json_field sccs)/$(json_field trivial_sccs)/$(json_field largest_scc)/$(json_field bottom_sccs)"
    expect_rc "scc on the CSR of $m" 0 "$W" scc "$T/s.csr" --json --quiet
    b="$(json_field sccs)/$(json_field trivial_sccs)/$(json_field largest_scc)/$(json_field bottom_sccs)"
    [ -n "$(echo "$a" | tr -d /)" ] && [ "$a" = "$b" ] && pass "explore --scc = scc on its CSR for $m ($a)" \
        || fail "explore --scc $a vs scc $b for $m"
done
expect_rc "milner is one SCC" 0 "$W" explore examples/milner/milner_n5.exp --scc --json --quiet
[ "$(json_field sccs)/$(json_field largest_scc)/$(json_field bottom_sccs)" = "1/240/1" ] \
    && pass "Milner's scheduler n=5 is strongly connected (1 SCC of 240 states)" || fail "milner scc: $(cat "$T/out")"
