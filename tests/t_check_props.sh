#!/bin/sh
# t_check_props.sh -- PRISM's property forms end to end in `warpex check`
# (and `explore --prop`): comparisons with their answer and exit status
# (0 true, 1 false, 3 undecided), the refinement of epsilon, PRISM's reading
# of P without min/max, P=? refused on an MDP, step bounds F<=k / U<=k /
# G<=k / C<=k with values worked out by hand, G by complement, several
# initial states (range and "true at all"), DTMCs, --values, and the refusals
# (--backend gpu with a step bound, --method vi with a comparison,
# --scheduler with a step bound).
cd "$(dirname "$0")/.." || exit 2
TAG=check-props
. tests/lib.sh

# M: 0 -a-> {1: 1/2, 2: 1/2} | -b-> 3;  1 goal (self-loop);  2 -a-> {0: 1/2,
# 3: 1/2} | -b-> 2;  3 sink.  Pmax(F goal) = 2/3 at 0, 1/3 at 2; Pmin = 0.
# Pmax(F<=k goal) at 0: k=1 1/2, k=2 1/2, k=3 5/8 (0 -a-> 2 -a-> 0 -a-> 1).
cat > "$T/m.tra" <<'X'
4 6 8
0 0 1 0.5
0 0 2 0.5
0 1 3 1
1 0 1 1
2 0 0 0.5
2 0 3 0.5
2 1 2 1
3 0 3 1
X
printf '0="init" 1="deadlock" 2="goal" 3="sink"\n0: 0\n1: 2\n3: 3\n' > "$T/m.lab"
# the same with two initial states, 0 and 2
printf '0="init" 1="deadlock" 2="goal" 3="sink"\n0: 0\n1: 2\n2: 0\n3: 3\n' > "$T/m2.lab"
printf '4 2\n0 1\n2 2\n' > "$T/m.srew"
M="$T/m.tra --lab $T/m.lab"
# json_all KEY: every value of KEY in the last JSON output, one per line
json_all() { tr ',' '\n' < "$T/out" | sed -n "s/.*\"$1\": \([^}]*\).*/\1/p" | tr -d ' '; }

# step bounds: exact values (dyadic: the bounds are equal)
expect_rc "F<=k values" 0 "$W" check $M --json -q --prop 'Pmax=? [ F<=1 "goal" ]' \
    --prop 'Pmax=? [ F<=3 "goal" ]' --prop 'Pmax=? [ F<4 "goal" ]' --prop 'Pmax=? [ F<=0 "goal" ]' \
    --prop 'Pmax=? [ !"sink" U<=3 "goal" ]'
[ "$(json_all value | tr '\n' ' ')" = "0.5 0.625 0.625 0 0.625 " ] && pass "F<=1, F<=3, F<4, F<=0, U<=3: 1/2 5/8 5/8 0 5/8" \
    || fail "F<=k values: $(json_all value | tr '\n' ' ')"
[ "$(json_all step_bound | tr '\n' ' ')" = "1 3 3 0 3 " ] && pass "JSON step_bound (F<4 is F<=3)" || fail "step_bound: $(json_all step_bound)"
# G: Pmin(G !goal) = 1 - Pmax(F goal) = 1/3; G<=3 = 3/8
expect_rc "G" 0 "$W" check $M --json -q --prop 'Pmin=? [ G !"goal" ]' --prop 'Pmin=? [ G<=3 !"goal" ]'
near "Pmin=? [ G !goal ] = 1/3" "$(json_all value | sed -n 1p)" 0.3333333333 1e-6
near "Pmin=? [ G<=3 !goal ] = 3/8" "$(json_all value | sed -n 2p)" 0.375 0
# C<=k: state rewards 1 at 0, 2 at 2; Rmax: 0 -a-> 2 -b-> 2 ... = 1 + 0.5 (2 + 2 + ...)
expect_rc "C<=k" 0 "$W" check $M --srew "$T/m.srew" --json -q --prop 'Rmax=? [ C<=5 ]' \
    --prop 'Rmin=? [ C<=5 ]' --prop 'Rmax=? [ C<=0 ]'
[ "$(json_all value | tr '\n' ' ')" = "5 1 0 " ] && pass "C<=5 max 5, min 1, C<=0 0 (Storm's too)" \
    || fail "C<=k: $(json_all value | tr '\n' ' ')"

# comparisons: the answer, the value that decided it, the exit status
expect_rc "true comparison" 0 "$W" check $M -q --prop 'Pmax>=0.6 [ F "goal" ]'
grep -q '^  result: true at state 0: Pmax = 0.666.* in \[.*\] >= 0.6$' "$T/out" && pass "true: the line gives the value and bound" \
    || fail "true comparison output: $(cat "$T/out")"
expect_rc "false comparison: exit 1" 1 "$W" check $M -q --prop 'Pmax>=0.6 [ F "goal" ]' --prop 'Pmax<0.6 [ F "goal" ]'
grep -q 'result: false at state 0: Pmax' "$T/out" && grep -q 'property is false (the first: property 2)' "$T/err" \
    && pass "false: said on stdout and stderr" || fail "false comparison: $(cat "$T/out" "$T/err")"
# without min/max on an MDP: >= takes the minimum (0 here), < the maximum
expect_rc "P>=p is the minimum" 1 "$W" check $M -q --prop 'P>=0.1 [ F "goal" ]'
grep -q 'result: false at state 0: Pmin = 0 in \[0, 0\] >= 0.1' "$T/out" && pass "P>=0.1 decided on Pmin" || fail "P>=p: $(cat "$T/out")"
expect_rc "P<p is the maximum" 0 "$W" check $M -q --prop 'P<0.7 [ F "goal" ]'
grep -q 'result: true at state 0: Pmax' "$T/out" && pass "P<0.7 decided on Pmax" || fail "P<p: $(cat "$T/out")"
expect_rc "P=? on an MDP" 2 "$W" check $M --prop 'P=? [ F "goal" ]'
grep -q '^warpex: --prop:1:1: P=? needs Pmin=? or Pmax=? on an MDP' "$T/err" && pass "P=? on an MDP: located" || fail "P=?: $(cat "$T/err")"
# refinement: 2/3 - 1e-8 needs a smaller epsilon than 1e-6
expect_rc "refined comparison" 0 "$W" check $M --prop 'Pmax>=0.66666665 [ F "goal" ]'
grep -q 'decided with epsilon 1e-08 (2 solves' "$T/out" && pass "refined to epsilon 1e-8" || fail "refinement: $(cat "$T/out")"
expect_rc "refined comparison, JSON" 0 "$W" check $M --json -q --prop 'Pmax>=0.66666665 [ F "goal" ]'
expect_json "JSON of a comparison" comparison='">="' result=true tries=2 holds=true
# undecided: the bound is the value's double (2/3 is not one); exit 3, loud
expect_rc "undecided: exit 3" 3 "$W" check $M --prop 'Pmax>=0.66666666666666663 [ F "goal" ]'
grep -q 'result: UNDECIDED at state 0' "$T/out" && grep -q 'UNDECIDED: the bound lies within' "$T/out" \
    && grep -q 'undecided (the first: property 1)' "$T/err" && pass "undecided said on stdout and stderr" \
    || fail "undecided: $(cat "$T/out" "$T/err")"
expect_rc "undecided, JSON" 3 "$W" check $M --json -q --prop 'Pmax>=0.66666666666666663 [ F "goal" ]'
expect_json "JSON of an undecided comparison" result='"undecided"' holds=null
# a step-bounded comparison at equality is decided (exact dyadic value)
expect_rc "F<=3 at equality" 0 "$W" check $M -q --prop 'Pmax>=0.625 [ F<=3 "goal" ]'
# rewards
expect_rc "R<=r" 1 "$W" check $M --srew "$T/m.srew" -q --prop 'R<=4 [ C<=5 ]'
grep -q 'result: false at state 0: Rmax = 5 in \[5, 5\] <= 4' "$T/out" && pass "R<=4 [ C<=5 ]: Rmax 5" || fail "R<=r: $(cat "$T/out")"

# several initial states: a value's range, a comparison true only at all
expect_rc "two initial states" 0 "$W" check "$T/m.tra" --lab "$T/m2.lab" -q --prop 'Pmax=? [ F "goal" ]'
grep -q '^  range over the 2 initial states: least 0.333.*, greatest 0.666' "$T/out" && pass "range over the initial states" \
    || fail "range: $(cat "$T/out")"
expect_rc "two initial states: true at one only" 1 "$W" check "$T/m.tra" --lab "$T/m2.lab" -q --prop 'Pmax>=0.5 [ F "goal" ]'
grep -q 'result: false over the 2 initial states (true where it holds at all: 1 true, 1 false, 0 undecided)' "$T/out" \
    && pass "false over the initial states (PRISM's forall)" || fail "forall: $(cat "$T/out")"
expect_rc "two initial states, JSON" 1 "$W" check "$T/m.tra" --lab "$T/m2.lab" --json -q --prop 'Pmax>=0.5 [ F "goal" ]'
[ "$(json_all holds | tr '\n' ' ')" = "true false " ] && pass "JSON holds per initial state" || fail "holds: $(cat "$T/out")"

# DTMC: 0 -> 1 (0.3) | 2 (0.7), 2 -> 0, 1 goal; P(F<=k goal) = 1 - 0.7^ceil(k/2)
printf '3 4\n0 1 0.3\n0 2 0.7\n1 1 1\n2 0 1\n' > "$T/d.tra"
printf '0="init" 1="deadlock" 2="goal"\n0: 0\n1: 2\n' > "$T/d.lab"
printf '3 2\n0 1\n2 1\n' > "$T/d.srew"
expect_rc "DTMC" 0 "$W" check "$T/d.tra" --lab "$T/d.lab" --srew "$T/d.srew" --json -q \
    --prop 'P=? [ F<=4 "goal" ]' --prop 'P=? [ F "goal" ]' --prop 'R=? [ C<=3 ]' --prop 'P>0.99 [ F "goal" ]'
[ "$(json_all value | sed -n 1p)" = "0.51000000000000001" ] && pass "DTMC P=? [ F<=4 goal ] = 0.51" || fail "DTMC F<=4: $(json_all value)"
near "DTMC P=? [ F goal ] = 1" "$(json_all value | sed -n 2p)" 1 0
near "DTMC R=? [ C<=3 ] = 1 + 0.7 + 0.7" "$(json_all value | sed -n 3p)" 2.4 1e-12

# --values of a step-bounded property: every state's bounds
expect_rc "--values with F<=3" 0 "$W" check $M -q --prop 'Pmax=? [ F<=3 "goal" ]' --values "$T/v"
[ "$(cat "$T/v")" = "0 0.625 0.625 0.625
1 1 1 1
2 0.25 0.25 0.25
3 0 0 0" ] && pass "--values: F<=3 at every state" || fail "--values: $(cat "$T/v")"

# refusals, before any output
expect_rc "--method vi with a comparison" 2 "$W" check $M --method vi --prop 'Pmax>=0.5 [ F "goal" ]'
grep -q 'plain value iteration (--method vi) gives none' "$T/err" && pass "vi refused for a comparison" || fail "vi: $(cat "$T/err")"
expect_rc "--scheduler with F<=k" 2 "$W" check $M --prop 'Pmax=? [ F<=3 "goal" ]' --scheduler "$T/s"
grep -q 'no memoryless optimal scheduler' "$T/err" && pass "--scheduler refused for a step bound" || fail "scheduler: $(cat "$T/err")"
expect_rc "C<=k on P" 2 "$W" check $M --prop 'Pmax=? [ C<=3 ]'
expect_rc "F<=k on R" 2 "$W" check $M --prop 'Rmax=? [ F<=3 "goal" ]'

# the Knuth-Yao die (tests/data/dtmc/die): 1/6, 1/2, 11/3 coin flips
D=tests/data/dtmc/die
expect_rc "die" 0 "$W" check $D/die.tra --lab $D/die.lab --srew $D/die.srew --trew $D/die.trew \
    --props $D/die.props --json -q --epsilon 1e-9
near "die: P=? [ F six ] = 1/6" "$(json_all value | sed -n 1p)" 0.16666666667 1e-9
near "die: R{coin_flips}=? [ F done ] = 11/3" "$(json_all value | sed -n 3p)" 3.66666666667 1e-8

# explore --prop takes the same forms (consensus N=2: Pmax disagree = 13/120)
sh examples/gen_consensus.sh 2 2 "$T/c" > /dev/null
expect_rc "explore --prop comparison" 0 "$W" explore "$T/c/consensus_N2_K2.exp" --quiet \
    --prop 'Pmax<0.11 [ F "disagree" ]' --prop 'Pmax=? [ F<=20 "disagree" ]'
grep -q 'result: true at the initial state\|result: true at state 0: Pmax = 0.1083' "$T/out" \
    && grep -q 'steps of exact backups' "$T/out" && pass "explore: comparison and step bound" \
    || fail "explore --prop: $(cat "$T/out")"
expect_rc "explore --prop false: exit 1" 1 "$W" explore "$T/c/consensus_N2_K2.exp" --quiet \
    --prop 'Pmax>=0.11 [ F "disagree" ]'
