#!/bin/sh
# t_gpu_mdp_dev.sh -- `warpex explore --backend gpu --prop ...` with the
# explored MDP kept on the device for the precomputation (the default)
# and the maybe-state system built there (Pmin, Rmax; Pmax and Rmin without
# MECs: "system_device" in the JSON, counted so that a silent fallback
# fails) against the host round trip (WARPEX_MDP_DEVICE=0): the whole JSON, every
# property's value, bounds, iterations and state counts, must be the same
# but for the timings; against --backend cpu (optimistic value iteration:
# other sound numbers) the maybe-state counts must be equal and the bounds
# overlap.  On the consensus examples, an initial distribution, a model
# without entries and random
# probabilistic networks (tests/prob_gen.sh; seeds printed,
# WARPEX_GPU_MDP_SEEDS=N sets how many).  Run by bench/gpu_test.sh.
cd "$(dirname "$0")/../.." || exit 2
TAG=gpu-mdp-dev
. tests/lib.sh
. tests/prob_gen.sh

untimed() { sed 's/"[a-z_]*seconds": [0-9.e+-]*, //g; s/, "[a-z_]*seconds": [0-9.e+-]*//g; s/"mdp_device": [a-z]*, //; s/, "cut_device": [a-z]*//g; s/, "system_device": [a-z]*//g' "$1"; }
# on_device FILE: how many properties had their system built on the device
on_device() { grep -o '"system_device": true' "$1" | wc -l; }
cuts() { grep -o '"cut_device": true' "$1" | wc -l; }
maybe() { grep -o '"maybe_states": [0-9]*' "$1"; }
# bounds_overlap: every property's [lo, hi] of the device run overlaps the CPU run's
bounds_overlap() {
    grep -o '"lo": [^,]*, "hi": [^,}]*' "$T/d.json" | sed 's/"lo": //; s/, "hi": / /; s/"inf"/1e308/g' >"$T/db"
    grep -o '"lo": [^,]*, "hi": [^,}]*' "$T/c.json" | sed 's/"lo": //; s/, "hi": / /; s/"inf"/1e308/g' >"$T/cb"
    [ "$(wc -l <"$T/db")" = "$(wc -l <"$T/cb")" ] || { echo " property counts differ"; return; }
    paste -d' ' "$T/db" "$T/cb" | awk '{ if ($1 > $4 * (1 + 1e-9) + 1e-12 || $3 > $2 * (1 + 1e-9) + 1e-12) { print " bounds " $0; exit } }'
}
# compare MIN FILE OPTIONS...: device == host round trip, overlap with the
# CPU; the device run kept the MDP on the device and built at least MIN
# systems there (Pmin and Rmax always do), the host run none; prints the
# reason or nothing
compare() {
    min=$1; f=$2; shift 2; why=""
    "$W" explore "$f" --quiet --json --backend gpu "$@" > "$T/d.json" 2> "$T/d.err"; rd=$?
    WARPEX_MDP_DEVICE=0 "$W" explore "$f" --quiet --json --backend gpu "$@" > "$T/h.json" 2> "$T/h.err"; rh=$?
    "$W" explore "$f" --quiet --json --backend cpu "$@" > "$T/c.json" 2> "$T/c.err"; rc=$?
    [ $rd -eq $rh ] && [ $rd -eq $rc ] || why="exit device $rd host $rh cpu $rc: $(head -c 200 "$T/d.err");"
    [ "$(untimed "$T/d.json")" = "$(untimed "$T/h.json")" ] ||
        why="$why device != host: $(untimed "$T/d.json" | head -c 400) vs $(untimed "$T/h.json" | head -c 400);"
    grep -q '"check_backend": "gpu"' "$T/d.json" || why="$why not solved on the GPU;"
    [ "$(maybe "$T/d.json")" = "$(maybe "$T/c.json")" ] || why="$why maybe states differ from the CPU's;"
    grep -q '"properties": \[{' "$T/d.json" || why="$why no property in the output;"
    grep -q '"mdp_device": true' "$T/d.json" || why="$why device run: MDP not kept on the device;"
    grep -q '"mdp_device": false' "$T/h.json" || why="$why host run: MDP kept on the device;"
    [ "$(on_device "$T/d.json")" -ge "$min" ] ||
        why="$why device run: $(on_device "$T/d.json") systems built on the device, expected >= $min;"
    [ "$(on_device "$T/h.json")" -eq 0 ] || why="$why host run: a system built on the device;"
    [ "$(cuts "$T/d.json")" -ge "$(on_device "$T/d.json")" ] && [ "$(cuts "$T/d.json")" -ge "$min" ] ||
        why="$why device run: $(cuts "$T/d.json") cuts on the device;"
    [ "$(cuts "$T/h.json")" -eq 0 ] || why="$why host run: a cut on the device;"
    echo "$why$(bounds_overlap)"
}

sh examples/gen_consensus.sh 2 2 "$T/c" > /dev/null; sh examples/gen_consensus.sh 4 2 "$T/c" > /dev/null
sh examples/gen_consensus.sh 4 4 "$T/c" > /dev/null
for f in "$T"/c/consensus_N2_K2.exp "$T"/c/consensus_N4_K2.exp "$T"/c/consensus_N4_K4.exp; do
    why=$(compare 3 "$f" --reward 'flip=1' --prop 'Pmax=? [ F "disagree" ]' --prop 'Pmin=? [ F "disagree" ]' \
          --prop 'Pmax=? [ !"disagree" U "agree_heads" ]' --prop 'Pmin=? [ F "agree_tails" ]' \
          --prop 'Rmin=? [ F "disagree" | "agree_heads" | "agree_tails" ]' \
          --prop 'Rmax=? [ F "disagree" | "agree_heads" | "agree_tails" ]' --prop 'Pmax=? [ F<=30 "disagree" ]')
    [ -z "$why" ] && pass "$(basename "$f"): device MDP == host round trip, maybe states == cpu" ||
        fail "$(basename "$f"):$why"
done
printf 'des (0 1/4 1, 2, 3)\n(0, a, 2)\n(1, b, 1 1/2 2)\n' > "$T/init.aut"
why=$(compare 1 "$T/init.aut" --prop 'Pmax=? [ F "b" ]' --prop 'Pmin=? [ F "deadlock" ]')
[ -z "$why" ] && pass "initial distribution: device == host round trip" || fail "initial distribution:$why"

# The product blocks the only distribution: one state, no choice, no entry
# (the device MDP's entry arrays are NULL then, mdp_dev.h).
printf 'des (0, 1, 2)\n(0, a, 0 1/2 1)\n' > "$T/pa.aut"; printf 'des (0, 1, 2)\n(1, a, 0)\n' > "$T/pb.aut"
printf '"pa.aut" |[a]| "pb.aut"\n' > "$T/blocked.exp"
why=$(compare 0 "$T/blocked.exp" --reward 'a=1' --prop 'Pmin=? [ F "a" ]' --prop 'Rmax=? [ F "a" ]' \
      --prop 'Pmax=? [ F "deadlock" ]')
[ -z "$why" ] && pass "a model without entries: device == host round trip" || fail "a model without entries:$why"

SEEDS=${WARPEX_GPU_MDP_SEEDS:-60}
seed0=${WARPEX_GPU_MDP_SEED0:-$(date +%s)}
echo "random probabilistic networks: seeds $seed0 .. $((seed0 + SEEDS - 1))"
bad=0
for i in $(seq 0 $((SEEDS - 1))); do
    s=$((seed0 + i)); D=$T/r$s; mkdir -p "$D"; gen $s "$D"
    why=$(compare 3 "$D/net.exp" --reward 'c=1' --prop 'Pmax=? [ F "a" ]' --prop 'Pmin=? [ F "a" ]' \
          --prop 'Pmax=? [ !"b" U "deadlock" ]' --prop 'Pmin=? [ !"a" U "b" ]' \
          --prop 'Rmin=? [ F "deadlock" ]' --prop 'Rmax=? [ F "b" ]')
    [ -z "$why" ] || { fail "seed $s:$why"; bad=1; }
done
[ $bad = 0 ] && pass "$SEEDS random probabilistic networks: device == host round trip"
