#!/bin/sh
# t_mec_cli.sh -- `warpex mec` end to end: summary and JSON counts on small
# MDPs and a DTMC, --mec-out contents, a PRISM instance when the shared data
# is present, usage errors, and located errors (exit 2, one line, no
# --mec-out file) for malformed .tra files.
cd "$(dirname "$0")/.." || exit 2
TAG=mec-cli
. tests/lib.sh

# 0 <-> 1 by choices that stay inside {0,1}; 1 also has a choice that may
# leave to 2.  2 -> 3 only; 3 has a self-loop choice and one to 4; 4 -> 2 or
# 4 self-loop at 0.5 each.  5 -> 0.  MECs: {0,1} (choices 0.0, 1.0), {2,3,4}
# (2.0, 3.0, 3.1, 4.0); 5 in none.
cat > "$T/m.tra" <<'EOF'
# Transitions (MDP)
6 8 11
0 0 1 1 a
1 0 0 1
1 1 0 0.5 b
1 1 2 0.5 b
2 0 3 1
3 0 3 1
3 1 4 1
4 0 2 0.5
4 0 4 0.5
5 0 0 0.25
5 0 5 0.75
EOF
expect_rc "mdp" 0 "$W" mec "$T/m.tra" --json
expect_json "mdp counts" states=6 choices=8 transitions=11 dtmc=false mecs=2 states_in_mecs=5 \
    choices_in_mecs=6 largest_mec=3 singleton_mecs=0
expect_rc "text summary" 0 "$W" mec "$T/m.tra" --quiet
grep -q '^MDP: 6 states, 8 choices, 11 transitions' "$T/out" && grep -q '^MECs: 2 (0 of one state) covering 5 states and 6 choices' "$T/out" \
    && grep -q '^largest MEC: 3 states' "$T/out" && [ ! -s "$T/err" ] \
    && pass "text summary lines, nothing on stderr with --quiet" || fail "text summary: $(cat "$T/out" "$T/err")"
expect_rc "--mec-out" 0 "$W" mec "$T/m.tra" --mec-out "$T/mec.txt"
printf '0\n0\n1\n1\n1\n-1\n' | cmp -s - "$T/mec.txt" && pass "--mec-out: canonical ids, -1 outside" \
    || fail "--mec-out contents: $(tr '\n' ' ' < "$T/mec.txt")"
no_temps "$T" && pass "no temporary file left behind" || fail ".tmp left behind"

# A DTMC: the MECs are the bottom SCCs ({1,2} here, and the absorbing 3).
printf '# DTMC\n4 6\n0 1 0.5\n0 3 0.5\n1 2 1\n2 1 0.5\n2 2 0.5\n3 3 1\n' > "$T/d.tra"
expect_rc "dtmc" 0 "$W" mec "$T/d.tra" --json
expect_json "dtmc counts" states=4 choices=4 dtmc=true mecs=2 states_in_mecs=3 largest_mec=2 singleton_mecs=1

# A PRISM instance (tests/data/mdp).
S=tests/data/mdp/resource-gathering-B200-G15-Gem15
[ -f "$S/resource-gathering-B200-G15-Gem15.tra" ] || fail "PRISM instance $S missing"
expect_rc "prism resource-gathering" 0 "$W" mec "$S/resource-gathering-B200-G15-Gem15.tra" --json
expect_json "resource-gathering (reference.json: 256 / 24064 / 94, 75107 choices)" \
    states=24064 mecs=256 states_in_mecs=24064 largest_mec=94 choices_in_mecs=75107

# Usage errors.
expect_rc "mec without FILE" 2 "$W" mec
expect_rc "mec unknown option" 2 "$W" mec "$T/m.tra" --frob
grep -q "unknown option '--frob' for mec" "$T/err" && pass "unknown option named" || fail "unknown option: $(cat "$T/err")"
expect_rc "mec --mec-out without FILE" 2 "$W" mec "$T/m.tra" --mec-out
expect_rc "mec two files" 2 "$W" mec "$T/m.tra" "$T/d.tra"
expect_rc "mec missing file" 2 "$W" mec "$T/none.tra"
grep -q "none.tra: cannot open" "$T/err" && pass "missing file named" || fail "missing file: $(cat "$T/err")"
"$W" help | grep -q '^  mec FILE ' && pass "help lists mec" || fail "help does not list mec"

# Malformed files: exit 2, one located line, no --mec-out file.
located() { # NAME FILE PATTERN
    expect_rc "$1" 2 "$W" mec "$2" --mec-out "$T/bad_mec.txt"
    if grep -q "$3" "$T/err" && [ "$(wc -l < "$T/err")" -eq 1 ]; then pass "$1: located: $(cat "$T/err")"
    else fail "$1: expected '$3', found: $(cat "$T/err")"; fi
    [ ! -e "$T/bad_mec.txt" ] && no_temps "$T" || fail "$1: --mec-out written after an error"
}
printf '2 1 1\n0 0 5 1\n' > "$T/range.tra"
located "state out of range" "$T/range.tra" "range.tra:2:5: state 5 out of range"
printf '2 2 3\n0 0 0 0.5\n0 0 1 0.4\n1 0 1 1\n' > "$T/sum.tra"
located "choice not summing to 1" "$T/sum.tra" "sum.tra:2:1: the probabilities of choice 0 of state 0 sum to 0.9"
printf '1 1 1\n0 0 0 0\n' > "$T/zero.tra"
located "zero probability" "$T/zero.tra" "zero.tra:2:7: probability 0 is not in (0, 1]"
printf '2 2 2\n1 0 1 1\n0 0 0 1\n' > "$T/order.tra"
located "states out of order" "$T/order.tra" "order.tra:3:1: state 0 after state 1"
printf '1 2 2\n0 0 0 1\n0 2 0 1\n' > "$T/choice.tra"
located "choice skipped" "$T/choice.tra" "choice.tra:3:3: choice 2 of state 0 after choice 0"
printf '# c\n2 3 2\n0 0 0 1\n1 0 1 1\n' > "$T/count.tra"
located "choice count mismatch" "$T/count.tra" "count.tra:2:3: the header declares 3 choices"
printf '2 2 5\n0 0 0 1\n1 0 1 1\n' > "$T/short.tra"
located "transition count mismatch" "$T/short.tra" "short.tra:1:5: the header declares 5 transition lines"
printf 'x y z\n' > "$T/hdr.tra"
located "bad header" "$T/hdr.tra" "hdr.tra:1:1: expected a number"
printf '\0\0\0' > "$T/bin.tra"
located "binary junk" "$T/bin.tra" "bin.tra:1:1: expected a number"
