#!/bin/sh
# t_gpu_mdp.sh -- `warpex explore --backend gpu` on probabilistic networks
# against `--backend cpu` (run by bench/gpu_test.sh on the GPU machine):
# the --mdp-out (.tra, .lab) and --aut files must be byte-identical, the
# JSON counts equal, and --deadlock/--action/--trace/--scc/--mec the same
# answers, on the consensus examples, an initial distribution and random
# probabilistic networks (tests/prob_gen.sh; seeds printed,
# WARPEX_GPU_MDP_SEEDS=N sets how many).
cd "$(dirname "$0")/../.." || exit 2
TAG=gpu-mdp
. tests/lib.sh
. tests/prob_gen.sh

# the JSON without the fields that name the backend or time it, and without
# the property results: the GPU solves by interval iteration, the CPU by
# optimistic value iteration (check's --method auto), so their sound
# intervals overlap but are not the same numbers (compared by props_agree)
strip() { sed 's/, "properties": \[.*\]}$/}/; s/"check_backend": "[a-z]*", //; s/"mdp_device": [a-z]*, //; s/"backend": "[a-z]*", //; s/"threads": [0-9]*, //; s/"seconds": [0-9.e-]*, //; s/"bytes": [0-9]*, //; s/"scc_backend": "[a-z]*", "scc_seconds": [0-9.e-]*//; s/"mec_backend": "[a-z]*", "mec_seconds": [0-9.e-]*//' "$1"; }

# compare NAME FILE [OPTIONS]: gpu == cpu; prints the reason or nothing
compare() {
    name=$1; f=$2; shift 2; why=""
    "$W" explore "$f" --quiet --json --backend gpu --mdp-out "$T/g" --aut "$T/g.aut" "$@" > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$f" --quiet --json --backend cpu --mdp-out "$T/c" --aut "$T/c.aut" "$@" > "$T/c.json" 2> "$T/c.err"; rc=$?
    [ $rg -eq $rc ] || why="exit gpu $rg cpu $rc: $(head -c 200 "$T/g.err");"
    for x in tra lab aut; do cmp -s "$T/g.$x" "$T/c.$x" || why="$why .$x differs;"; done
    [ "$(strip "$T/g.json")" = "$(strip "$T/c.json")" ] || why="$why JSON: $(strip "$T/g.json" | head -c 300) vs $(strip "$T/c.json" | head -c 300);"
    grep -q '"backend": "gpu"' "$T/g.json" || why="$why not the GPU backend;"
    echo "$why"
}

sh examples/gen_consensus.sh 2 2 "$T/c" > /dev/null; sh examples/gen_consensus.sh 4 2 "$T/c" > /dev/null
sh examples/gen_consensus.sh 4 4 "$T/c" > /dev/null; sh examples/gen_consensus.sh 6 2 "$T/c" > /dev/null
printf 'des (0 1/4 1, 2, 3)\n(0, a, 2)\n(1, b, 1 1/2 2)\n' > "$T/init.aut"
for f in "$T"/c/consensus_N2_K2.exp "$T"/c/consensus_N4_K2.exp "$T"/c/consensus_N4_K4.exp \
         "$T"/c/consensus_N6_K2.exp "$T/init.aut"; do
    why=$(compare x "$f" --scc --mec --deadlock --trace)
    [ -z "$why" ] && pass "$(basename "$f"): gpu == cpu (files, counts, scc, mec, deadlock)" || fail "$(basename "$f"):$why"
done
# the rules found by anchor and by masks (explorer/mdp_rules.h), forced on
# both backends: the same files
for walk in anchors masks; do
    export WARPEX_MDP_RULES=$walk
    why=$(compare x "$T"/c/consensus_N6_K2.exp --deadlock)
    unset WARPEX_MDP_RULES
    [ -z "$why" ] && pass "consensus_N6_K2.exp, rules by $walk: gpu == cpu (files, counts)" ||
        fail "consensus_N6_K2.exp, rules by $walk:$why"
done
# asked for nothing that reads the MDP, the GPU run keeps it on the device
# and reports its counts only: the same counts, deadlocks and depth
for f in "$T"/c/consensus_N4_K4.exp "$T"/c/consensus_N6_K2.exp "$T/init.aut"; do
    "$W" explore "$f" --quiet --json --backend gpu > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$f" --quiet --json --backend cpu > "$T/c.json" 2> "$T/c.err"; rc=$?
    if [ $rg -eq 0 ] && [ $rc -eq 0 ] && [ "$(strip "$T/g.json")" = "$(strip "$T/c.json")" ]; then
        pass "$(basename "$f"): counts only: gpu == cpu"
    else
        fail "$(basename "$f"): counts only: exit $rg/$rc: $(strip "$T/g.json" | head -c 300) vs $(strip "$T/c.json" | head -c 300)"
    fi
done
# props_agree: every property's [lo, hi] of the GPU run overlaps the CPU run's
# and is at most epsilon (1e-6) wide; prints the reason or nothing
props_agree() {
    grep -o '"lo": [^,]*, "hi": [^,}]*' "$T/g.json" | sed 's/"lo": //; s/, "hi": / /' >"$T/gb"
    grep -o '"lo": [^,]*, "hi": [^,}]*' "$T/c.json" | sed 's/"lo": //; s/, "hi": / /' >"$T/cb"
    [ -s "$T/cb" ] && [ "$(wc -l <"$T/gb")" = "$(wc -l <"$T/cb")" ] || { echo " property counts differ"; return; }
    paste -d' ' "$T/gb" "$T/cb" | awk '{ if ($2 - $1 > 1e-6 * (1 + 1e-9) || $1 > $4 + 1e-12 || $3 > $2 + 1e-12) { print " bounds " $0; exit } }'
}
why=$(compare x "$T/c/consensus_N4_K2.exp" --action disagree --trace --prop 'Pmax=? [ F "disagree" ]')
why="$why$(props_agree)"
[ -z "$why" ] && pass "consensus N=4: --action the same, --prop's bounds overlap" || fail "consensus N=4 --action/--prop:$why"
# --method: each sound method on the GPU overlaps the CPU's bounds and says so
for m in ii ovi pi; do
    why=$(compare x "$T/c/consensus_N4_K4.exp" --method $m --prop 'Pmax=? [ F "disagree" ]' --prop 'Pmin=? [ F "agree_heads" ]')
    why="$why$(props_agree)"
    grep -q "\"method\": \"$m\"" "$T/g.json" || why="$why no \"method\": \"$m\" in the GPU run's JSON;"
    [ -z "$why" ] && pass "consensus N=4 K=4 --method $m: gpu bounds overlap the cpu's" || fail "consensus N=4 K=4 --method $m:$why"
done

# Properties and nothing else that reads the MDP: with util/config.h's
# MDP_GPU_SKELETON 1 the host gets its skeleton (state offsets, choice
# labels) and the choices come down only where a host step asks for them
# (cli/cmd_explore_mdp.c fetch_model): never for Pmin and Rmax (the device
# builds their system), for the others at their first host step; with 0 the
# whole MDP comes down at once and nothing is fetched.  The bounds overlap
# the CPU's either way.
skel=0; grep -q '^#define MDP_GPU_SKELETON 1' util/config.h && skel=1
C42=$T/c/consensus_N4_K2.exp
DONE='"done_heads" | "done_tails"'
for case in "Pmin=? [ F \"agree_heads\" ]:0" "Rmax=? [ F $DONE ]:0" "Pmax=? [ F \"disagree\" ]:1" \
            "Rmin=? [ F $DONE ]:1" "Pmax=? [ F<=20 \"disagree\" ]:1" "Pmin=? [ G !\"disagree\" ]:1"; do
    prop=${case%:*}; want=$((${case##*:} * skel))
    WARPEX_TIMELINE=1 "$W" explore "$C42" --quiet --json --backend gpu --prop "$prop" --reward 'flip=1' \
        > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$C42" --quiet --json --backend cpu --prop "$prop" --reward 'flip=1' > "$T/c.json" 2> /dev/null; rc=$?
    got=0; grep -q "the MDP's choices: to the host" "$T/g.err" && got=1
    why=""
    [ $rg -eq $rc ] || why="exit gpu $rg cpu $rc: $(head -c 200 "$T/g.err");"
    [ $got = "$want" ] || why="$why choices fetched: $got (want $want);"
    why="$why$(props_agree)"
    [ -z "$why" ] && pass "consensus N=4 K=2 '$prop' on the skeleton: bounds overlap the cpu's, choices fetched: $want" ||
        fail "consensus N=4 K=2 '$prop' on the skeleton:$why"
done

SEEDS=${WARPEX_GPU_MDP_SEEDS:-150}
seed0=${WARPEX_GPU_MDP_SEED0:-$(date +%s)}
echo "random probabilistic networks: seeds $seed0 .. $((seed0 + SEEDS - 1))"
bad=0
for i in $(seq 0 $((SEEDS - 1))); do
    s=$((seed0 + i)); D=$T/r$s; mkdir -p "$D"; gen $s "$D"
    why=$(compare x "$D/net.exp" --scc --mec --deadlock --trace)
    [ -z "$why" ] || { fail "seed $s:$why"; bad=1; }
done
[ $bad = 0 ] && pass "$SEEDS random probabilistic networks: gpu == cpu"
