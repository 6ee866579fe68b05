#!/bin/sh
# t_prob_rewards.sh -- action rewards on explored probabilistic networks
# (explore --reward [NAME:]REGEX=VALUE with Rmin/Rmax properties):
#   - expected steps of the consensus network against PRISM's own model of
#     the same protocol (bench/consensus_gen.c, byte-identical to PRISM's
#     exports, whose "steps" structure is a state reward of 1), checked by
#     `warpex check` -- two independent routes to one number;
#   - a closed form: a fair coin flipped until heads takes 2 flips;
#   - structures by name and by number, sums of items, infinite rewards;
#   - the .trew export read back by `warpex check` gives the same values;
#   - malformed items and missing structures: exit 2, located, nothing written.
cd "$(dirname "$0")/.." || exit 2
TAG=prob-rewards
. tests/lib.sh

# the value / lo / hi of the N-th property in the last JSON output
prop_field() { sed 's/"properties": \[/\n/' "$T/out" | tail -1 | tr '{' '\n' | grep "\"$2\"" | sed -n "${1}p" | sed "s/.*\"$2\": \([^,}]*\).*/\1/"; }
initial_value() { sed 's/"initial": \[{/\n/g' "$T/out" | sed -n "$(($1 + 1))p" | sed 's/^"state": [0-9]*, "value": \([^,]*\),.*/\1/'; }

G=$T/consensus_gen
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror bench/consensus_gen.c -o "$G" 2> "$T/cc.err" || {
    fail "consensus_gen does not build: $(head -c 300 "$T/cc.err")"; exit 1; }

FIN='"agree_heads"|"agree_tails"|"disagree"'
for nk in "2 2" "4 2"; do
    set -- $nk
    sh examples/gen_consensus.sh "$1" "$2" "$T/c" > /dev/null || fail "gen_consensus.sh $1 $2"
    "$G" "$1" "$2" "$T/p$1$2" > /dev/null || fail "consensus_gen $1 $2"
    for mm in min max; do
        expect_rc "N$1 K$2 R${mm} steps, network" 0 "$W" explore "$T/c/consensus_N$1_K$2.exp" --json --quiet \
            --backend cpu --reward 'steps:.*=1' --prop "R{\"steps\"}${mm}=? [ F $FIN ]"
        a=$(prop_field 1 value)
        expect_json "N$1 K$2 R${mm}: structure reported" reward_structure='"steps"'
        expect_rc "N$1 K$2 R${mm} steps, PRISM model" 0 "$W" check "$T/p$1$2.tra" --lab "$T/p$1$2.lab" \
            --srew "$T/p$1$2.srew" --json --quiet --backend cpu --prop "R${mm}=? [ F \"finished\" ]"
        b=$(initial_value 1)
        near "N$1 K$2 R${mm} expected steps: network = PRISM model" "$a" "$b" 2e-5
    done
done

# a fair coin flipped until heads: 2 flips in expectation (closed form);
# flips weigh 3, so R = 6; a tail also pays 1 ("tails" items add up).
printf 'des (0, 3, 3)\n(0, "flip", 0 1/2 1)\n(1, "heads", 2)\n(2, "heads", 2)\n' > "$T/coin.aut"
expect_rc "coin: Rmin/Rmax" 0 "$W" explore "$T/coin.aut" --json --quiet --backend cpu --epsilon 1e-9 \
    --reward 'fl=3' --reward 'cost:flip=1' --reward 'cost:^f=2' \
    --prop 'Rmin=? [ F "heads" ]' --prop 'R{1}max=? [ F "heads" ]' --prop 'R{"cost"}min=? [ F "heads" ]' \
    --prop 'R{2}max=? [ F "heads" ]'
near "coin: Rmin (3 per flip) = 6" "$(prop_field 1 value)" 6 1e-8
near "coin: R{1}max = 6" "$(prop_field 2 value)" 6 1e-8
near "coin: R{\"cost\"} (1 + 2 per flip) = 6" "$(prop_field 3 value)" 6 1e-8
near "coin: R{2} = R{\"cost\"}" "$(prop_field 4 value)" 6 1e-8
lo=$(prop_field 1 lo); hi=$(prop_field 1 hi)
awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(l <= 6 && 6 <= h) }' && pass "coin: 6 inside [$lo, $hi]" \
    || fail "coin: 6 not inside [$lo, $hi]"

# a choice between a cheap loop that may never stop and a paid exit:
# Rmin picks the exit (5), Rmax the loop which never reaches the target
# almost surely -> infinity (PRISM's convention)
printf 'des (0, 4, 3)\n(0, "exit", 1)\n(0, "spin", 0 1/2 2)\n(1, "done", 1)\n(2, "spin", 2)\n' > "$T/trap.aut"
expect_rc "trap: Rmin/Rmax" 0 "$W" explore "$T/trap.aut" --json --quiet --backend cpu --epsilon 1e-9 \
    --reward 'exit=5' --reward 'spin=1' --prop 'Rmin=? [ F "done" ]' --prop 'Rmax=? [ F "done" ]'
near "trap: Rmin = 5" "$(prop_field 1 value)" 5 1e-8
[ "$(prop_field 2 value)" = '"inf"' ] && pass "trap: Rmax = inf" || fail "trap: Rmax '$(prop_field 2 value)', expected inf"

# --mdp-out writes the structures; warpex check reads them back
expect_rc "export two structures" 0 "$W" explore "$T/c/consensus_N2_K2.exp" --json --quiet --backend cpu \
    --reward 'steps:.*=1' --reward 'votes:^(agree|disagree)=0.5' --reward 'votes:flip=2' \
    --prop "Rmax=? [ F $FIN ]" --prop "R{\"votes\"}min=? [ F $FIN ]" --mdp-out "$T/x"
v1=$(prop_field 1 value); v2=$(prop_field 2 value)
[ -e "$T/x1.trew" ] && [ -e "$T/x2.trew" ] && [ ! -e "$T/x.trew" ] && pass "two structures: x1.trew and x2.trew" \
    || fail "two structures: files $(ls "$T")"
head -1 "$T/x2.trew" | grep -q '^# Reward structure "votes"$' && pass "the .trew names its structure" \
    || fail ".trew header: $(head -1 "$T/x2.trew")"
expect_rc "check reads the export" 0 "$W" check "$T/x.tra" --lab "$T/x.lab" --trew "$T/x1.trew" --trew "$T/x2.trew" \
    --json --quiet --backend cpu --prop "Rmax=? [ F $FIN ]" --prop "R{\"votes\"}min=? [ F $FIN ]"
near "round trip: Rmax steps" "$(initial_value 1)" "$v1" 1e-9
near "round trip: R{\"votes\"}min" "$(initial_value 2)" "$v2" 1e-9

# errors: exit 2, one located line, nothing written
C2=$T/c/consensus_N2_K2.exp
for case in "no '='#--reward:1:1#flip" "negative#--reward:1:6#flip=-1" "not a number#--reward:1:6#flip=x" \
            "empty value#--reward:1:6#flip=" "bad regex#--reward:1:1#(flip=1" "matches nothing#--reward:1:3#a:nosuch=1" \
            "bad name#--reward:1:1#a\"b:flip=1" "second item#--reward:2:1#(=1"; do
    name=${case%%#*}; rest=${case#*#}; loc=${rest%%#*}; spec=${rest#*#}
    if [ "$name" = "second item" ]; then set -- --reward "flip=1" --reward "$spec"; else set -- --reward "$spec"; fi
    rm -f "$T/e.tra"
    expect_rc "--reward $name" 2 "$W" explore "$C2" --quiet --mdp-out "$T/e" "$@" --prop 'Rmin=? [ F "disagree" ]'
    [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "^warpex: $loc: " "$T/err" && [ ! -e "$T/e.tra" ] \
        && pass "--reward $name: located ($loc)" || fail "--reward $name: expected $loc, got '$(cat "$T/err")'"
done
expect_rc "R without --reward" 2 "$W" explore "$C2" --quiet --prop 'Rmin=? [ F "disagree" ]'
grep -q '^warpex: --prop:1:1: .*--reward' "$T/err" && pass "R without --reward: located" || fail "R without --reward: $(cat "$T/err")"
expect_rc "unknown structure" 2 "$W" explore "$C2" --quiet --reward 'a:flip=1' --prop 'R{"b"}min=? [ F "disagree" ]'
grep -q '^warpex: --prop:1:3: no reward structure named "b"' "$T/err" && pass "unknown structure: located" \
    || fail "unknown structure: $(cat "$T/err")"
expect_rc "structure number too large" 2 "$W" explore "$C2" --quiet --reward 'a:flip=1' --prop 'R{2}min=? [ F "disagree" ]'
expect_rc "--reward on a non-probabilistic network" 2 "$W" explore examples/traffic/traffic.exp --quiet --reward 'a=1'
