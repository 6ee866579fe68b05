#!/bin/sh
# t_check_rewards.sh -- named reward structures in `warpex check`:
# R{"name"} and R{N} select among several structures, PRISM .srew/.trew files
# pair up by the name in their '# Reward structure "NAME"' header, a Storm
# .drn file keeps all its reward models, and unknown names or indices stop
# with a located error (exit 2) before any output.
cd "$(dirname "$0")/.." || exit 2
TAG=check-rewards
. tests/lib.sh

# The k-th property's value at the (only) initial state.
value_of() { tr '{' '\n' < "$T/out" | sed -n 's/^"state": [0-9]*, "value": \([^,]*\),.*/\1/p' | sed -n "${1}p"; }

# DTMC: 0 -> {1: 1/2, 0: 1/2}, 1 -> 2, 2 goal (self-loop).
#   "time": state reward 1 at 0 and 1       -> E = 2 + 1 = 3
#   "cost": state reward 5 at 1, transition reward 4 on 0 -> 1
#           -> 5 + (1/2 * 4) * 2 = 9 (two visits of 0 on average)
printf '3 4\n0 1 0.5\n0 0 0.5\n1 2 1\n2 2 1\n' > "$T/d.tra"
printf '0="init" 1="deadlock" 2="goal"\n0: 0\n2: 2\n' > "$T/d.lab"
printf '# Reward structure "time"\n# State rewards\n3 2\n0 1\n1 1\n' > "$T/d1.srew"
printf '# Reward structure "cost"\n# State rewards\n3 1\n1 5\n' > "$T/d2.srew"
printf '# Reward structure "cost"\n# Transition rewards\n3 1\n0 1 4\n' > "$T/d2.trew"
# given out of order: structures are ordered by first appearance (srew
# files first): "cost" (1), "time" (2)
expect_rc "tra, three structures" 0 "$W" check "$T/d.tra" --lab "$T/d.lab" \
    --srew "$T/d2.srew" --trew "$T/d2.trew" --srew "$T/d1.srew" \
    --prop 'R{"time"}min=? [ F "goal" ]' --prop 'R{"cost"}max=? [ F "goal" ]' \
    --prop 'R{2}min=? [ F "goal" ]' --prop 'Rmin=? [ F "goal" ]' --json
near 'R{"time"}' "$(value_of 1)" 3 1e-6
near 'R{"cost"} (srew + trew paired by name)' "$(value_of 2)" 9 1e-6
near 'R{2} = "time"' "$(value_of 3)" 3 1e-6
near 'Rmin = the first structure, "cost"' "$(value_of 4)" 9 1e-6
grep -q '"reward_structure": "time"' "$T/out" && pass "json names the structure" \
    || fail "json lacks reward_structure: $(cat "$T/out")"
expect_rc "text output names the structure" 0 "$W" check "$T/d.tra" --lab "$T/d.lab" \
    --srew "$T/d1.srew" --prop 'R{"time"}min=? [ F "goal" ]'
grep -q 'rewards: structure "time"' "$T/out" && pass "text names the structure" \
    || fail "text lacks the structure: $(cat "$T/out")"

# The same DTMC as .drn with two reward models.
cat > "$T/d.drn" <<'X'
@type: DTMC
@parameters

@reward_models
time cost
@nr_states
3
@model
state 0 [1, 0] init
action 0 [0, 2]
	1 : 0.5
	0 : 0.5
state 1 [1, 5]
action 0 [0, 0]
	2 : 1
state 2 [0, 0] goal
action 0 [0, 0]
	2 : 1
X
expect_rc "drn, two models" 0 "$W" check "$T/d.drn" --prop 'R{"cost"}min=? [ F "goal" ]' \
    --prop 'R{1}min=? [ F "goal" ]' --prop 'Rmax=? [ F "goal" ]' --json
near 'drn R{"cost"}' "$(value_of 1)" 9 1e-6
near 'drn R{1} = "time"' "$(value_of 2)" 3 1e-6
near 'drn Rmax = "time"' "$(value_of 3)" 3 1e-6

# Errors: located, exit 2, nothing on stdout.
expect_rc "unknown name" 2 "$W" check "$T/d.drn" --prop 'Rmin=? [ F "goal" ]' --prop 'R{"nope"}min=? [ F "goal" ]'
grep -q -- '--prop:2:3: no reward structure named "nope" (the model has "time", "cost")' "$T/err" \
    && [ ! -s "$T/out" ] && pass "unknown name located, no output" || fail "unknown name: $(cat "$T/err") / $(cat "$T/out")"
expect_rc "index out of range" 2 "$W" check "$T/d.tra" --lab "$T/d.lab" --srew "$T/d1.srew" --prop 'R{2}min=? [ F "goal" ]'
grep -q -- '--prop:1:3: reward structure 2 asked for, the model has 1' "$T/err" \
    && pass "index out of range located" || fail "index: $(cat "$T/err")"
expect_rc "P with a structure" 2 "$W" check "$T/d.drn" --prop 'P{"time"}min=? [ F "goal" ]'
grep -q -- '--prop:1:2: expected' "$T/err" && pass "P{..} rejected at the brace" || fail "P{}: $(cat "$T/err")"
expect_rc "empty name" 2 "$W" check "$T/d.drn" --prop 'R{""}min=? [ F "goal" ]'
expect_rc "index 0" 2 "$W" check "$T/d.drn" --prop 'R{0}min=? [ F "goal" ]'
expect_rc "unclosed" 2 "$W" check "$T/d.drn" --prop 'R{"time"min=? [ F "goal" ]'
expect_rc "two srew for one structure" 2 "$W" check "$T/d.tra" --lab "$T/d.lab" --srew "$T/d1.srew" --srew "$T/d1.srew" --prop 'Rmin=? [ F "goal" ]'
grep -q 'a second --srew file for the reward structure "time"' "$T/err" && pass "duplicate srew named" || fail "dup: $(cat "$T/err")"

# A PRISM export with three named structures (tests/data/mdp).
R=tests/data/mdp/resource-gathering-B200-G15-Gem15
[ -d "$R" ] || fail "PRISM instance $R missing"
{
    B="$R/resource-gathering-B200-G15-Gem15"
    expect_rc "resource-gathering, three structures" 0 "$W" check "$B.tra" --lab "$B.lab" \
        --srew "${B}1.srew" --trew "${B}1.trew" --srew "${B}2.srew" --trew "${B}2.trew" \
        --srew "${B}3.srew" --trew "${B}3.trew" --prop 'R{"rew_gem"}min=? [ F "success" ]' \
        --prop 'R{"attacks"}min=? [ F "success" ]' --json
    grep -q '"reward_structure": "rew_gem"' "$T/out" && grep -q '"reward_structure": "attacks"' "$T/out" \
        && pass "resource-gathering structures by name" || fail "resource-gathering: $(cat "$T/out")"
}
