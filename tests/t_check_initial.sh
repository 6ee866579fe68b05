#!/bin/sh
# t_check_initial.sh -- `warpex check` solves for the initial states only
# (docs/valiter.md#solving-for-the-initial-states): on the PRISM consensus
# instances a value decided by the precomputation takes no sweep and no
# system (value 0 and value 1 at the initial state), the other values agree
# with --all-states and with PRISM's references within 1e-6, the JSON says
# what the interval holds for ("solved_for"), --values and --scheduler
# solve every state, and 1, 2 and 3 threads print the same.
cd "$(dirname "$0")/.." || exit 2
TAG=check-initial
. tests/lib.sh

S=tests/data/mdp
D=$S/consensus-N4-K2
B=$D/consensus-N4-K2
[ -f "$B.tra" ] || { fail "missing $B.tra"; exit 1; }
first() { sed -n "s/.*\"initial\": \[{[^}]*\"$1\": \([^,}]*\).*/\1/p" "$T/out" | head -1; }

# value 0 (Pmin disagree: Prob0E) and value 1 (Pmax finished and agree:
# Prob1E), each with thousands of maybe states left unsolved
for pv in 'Pmin=? [ F "finished"&!"agree" ]=0' 'Pmax=? [ F "finished"&"agree" ]=1'; do
    p=${pv%=*}; val=${pv##*=}
    expect_rc "$p" 0 "$W" check "$B.tra" --lab "$B.lab" --prop "$p" --backend cpu --json
    expect_json "$p: decided by the precomputation" iterations=0 system_states=0 relevant_states=0 \
        solved_for='"initial"'
    [ "$(first value)" = "$val" ] && [ "$(first lo)" = "$val" ] && [ "$(first hi)" = "$val" ] &&
        pass "$p: value $val exactly" || fail "$p: $(first value) [$(first lo), $(first hi)], expected $val"
    grep -q '"maybe_states": [1-9]' "$T/out" && pass "$p: there were maybe states to skip" ||
        fail "$p: no maybe state at all (the test would not show the early stop)"
done
expect_rc "text output names the early stop" 0 "$W" check "$B.tra" --lab "$B.lab" \
    --prop 'Pmin=? [ F "finished"&!"agree" ]' --backend cpu
grep -q 'the initial states are decided by the precomputation' "$T/out" && grep -q 'iterations: 0' "$T/out" &&
    pass "text: decided by the precomputation, 0 iterations" || fail "text: $(cat "$T/out")"

# a value that needs sweeps: the same as --all-states and PRISM's
p='Pmax=? [ F "finished"&!"agree" ]'
ref=0.29443185428958624 # reference.json (PRISM -exact: 170112531/577765376)
grep -q "$ref" "$D/reference.json" || fail "reference value $ref not in $D/reference.json"
expect_rc "$p, initial only" 0 "$W" check "$B.tra" --lab "$B.lab" --prop "$p" --backend cpu --json
expect_json "$p: solved for the initial state" solved_for='"initial"'
v1=$(first value); lo1=$(first lo); hi1=$(first hi)
i1=$(json_field iterations)
near "$p: initial only vs PRISM" "$v1" "$ref" 1e-6
awk -v l="$lo1" -v h="$hi1" -v w="$ref" 'BEGIN { exit !(l <= w + 1e-9 && w <= h + 1e-9 && h - l <= 1e-6) }' &&
    pass "$p: [$lo1, $hi1] holds PRISM's value, at most 1e-6 wide" || fail "$p: [$lo1, $hi1] vs $ref"
expect_rc "$p, --all-states" 0 "$W" check "$B.tra" --lab "$B.lab" --prop "$p" --backend cpu --json --all-states
expect_json "$p: --all-states solves for all" solved_for='"all"'
near "$p: initial only vs --all-states" "$v1" "$(first value)" 1e-6
awk -v a="$i1" -v b="$(json_field iterations)" 'BEGIN { exit !(a + 0 > 0 && a <= b) }' &&
    pass "$p: $i1 sweeps, at most --all-states' $(json_field iterations)" ||
    fail "$p: $i1 sweeps against --all-states' $(json_field iterations)"
expect_rc "$p, --values" 0 "$W" check "$B.tra" --lab "$B.lab" --prop "$p" --backend cpu --json --values "$T/v"
expect_json "$p: --values solves for all states" solved_for='"all"'
[ "$(wc -l < "$T/v")" -eq 22656 ] && pass "--values: every state" || fail "--values: $(wc -l < "$T/v") lines"
expect_rc "$p, --scheduler" 0 "$W" check "$B.tra" --lab "$B.lab" --prop "$p" --backend cpu --json --scheduler "$T/s"
expect_json "$p: --scheduler solves for all states" solved_for='"all"'

# the same output for 1, 2 and 3 threads, Jacobi and Gauss-Seidel
for solver in jacobi gs; do
    for t in 1 2 3; do
        "$W" check "$B.tra" --lab "$B.lab" --props "$D/consensus.props" --backend cpu --json \
            --solver $solver --threads $t 2>/dev/null |
            grep -o '"initial": \[[^]]*\]\|"iterations": [0-9]*' > "$T/th$t"
    done
    [ -s "$T/th1" ] && cmp -s "$T/th1" "$T/th2" && cmp -s "$T/th1" "$T/th3" &&
        pass "--solver $solver: 1, 2 and 3 threads print the same values and sweeps" ||
        fail "--solver $solver: thread counts differ: $(diff "$T/th1" "$T/th3" | head -3)"
done

# rewards: Rmin steps at the initial state, the same as --all-states
expect_rc "Rmin steps" 0 "$W" check "$B.tra" --lab "$B.lab" --srew "$B.srew" --prop 'Rmin=? [ F "finished" ]' --backend cpu --json
v1=$(first value)
expect_json "Rmin steps: solved for the initial state" solved_for='"initial"'
expect_rc "Rmin steps, --all-states" 0 "$W" check "$B.tra" --lab "$B.lab" --srew "$B.srew" --prop 'Rmin=? [ F "finished" ]' --backend cpu --json --all-states
near "Rmin steps: initial only vs --all-states" "$v1" "$(first value)" 2e-6
