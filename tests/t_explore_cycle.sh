#!/bin/sh
# t_explore_cycle.sh -- explore --cycle-mean (one run: explore, weights
# from labels, SCCs, Howard) against `warpex cycle-mean` on the product
# written with --aut in the same run, on random networks (tests/randnet),
# minimum and maximum, with Karp on the file as a second reference.
cd "$(dirname "$0")/.." || exit 2
TAG=explore-cycle
. tests/lib.sh

frac() { sed -n 's/.*"fraction": "\([^"]*\)".*/\1/p' "$1" | head -1; }
gen=bin/tests/test_random_networks
seed=1
while [ "$seed" -le "${WARPEX_CYCLE_SEEDS:-15}" ]; do
    set -- $(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    if [ "$1" != EXPECT ]; then fail "seed $seed: generator said: $*"; seed=$((seed + 1)); continue; fi
    exp=$2 dir=$3
    opts="--hidden $4"
    [ "$5" = 1 ] && opts="$opts --rate"
    for mm in min max; do
        # label digits are the weights; other labels weigh -3
        "$W" explore "$exp" $opts --backend cpu --threads 2 --cycle-mean $mm --weight '([0-9]+)' \
            --default-weight -3 --aut "$T/p.aut" --json >"$T/e" 2>"$T/err"
        rc=$?
        "$W" cycle-mean "$T/p.aut" --$mm --weight '([0-9]+)' --default-weight -3 --json >"$T/c" 2>/dev/null
        "$W" cycle-mean "$T/p.aut" --$mm --weight '([0-9]+)' --default-weight -3 --algorithm karp --json \
            >"$T/k" 2>/dev/null
        a=$(frac "$T/e"); b=$(frac "$T/c"); k=$(frac "$T/k")
        if [ $rc -eq 0 ] && grep -q '"cycle_mean": {' "$T/e" && [ "$a" = "$b" ] && [ "$a" = "$k" ] \
           && grep -q "\"has_cycle\": $(sed -n 's/.*"has_cycle": \([a-z]*\).*/\1/p' "$T/c")" "$T/e"; then
            pass "seed $seed $mm: explore --cycle-mean == cycle-mean (Howard, Karp) on the product (${a:-no cycle})"
        else
            fail "seed $seed $mm: explore '$a' (exit $rc), file Howard '$b', Karp '$k': $(head -c 200 "$T/err")"
        fi
    done
    rm -rf "$dir"
    seed=$((seed + 1))
done
expect_rc "--cycle-mean without --weight" 2 "$W" explore examples/traffic/traffic.exp --cycle-mean max
expect_rc "--cycle-mean bad value" 2 "$W" explore examples/traffic/traffic.exp --cycle-mean mean --weight x
expect_rc "--weight without a group" 2 "$W" explore examples/traffic/traffic.exp --backend cpu --cycle-mean max --weight 'x'
expect_rc "traffic: every label weighs 1" 0 "$W" explore examples/traffic/traffic.exp --backend cpu --cycle-mean max \
    --weight 'nothing(1)' --default-weight 1 --json
[ "$(frac "$T/out")" = "1" ] && pass "traffic: cycle mean 1" || fail "traffic: $(cat "$T/out")"
# --trace-states: the critical cycle's states as component states.  The
# traffic light's light cycles green -> yellow -> red with the pedestrian
# component in state 0 throughout.
expect_rc "traffic --trace-states" 0 "$W" explore examples/traffic/traffic.exp --backend seq --cycle-mean max \
    --weight 'nothing(1)' --default-weight 1 --trace-states
grep -A3 '^critical cycle states' "$T/out" | tail -3 | sed 's/.*\]  //' | tr '\n' ' ' | grep -q '^(0, 0) (1, 0) (2, 0) $' \
    && pass "traffic: critical cycle states (0,0) (1,0) (2,0)" || fail "traffic cycle states: $(cat "$T/out")"
expect_rc "traffic --trace-states --json" 0 "$W" explore examples/traffic/traffic.exp --backend seq --cycle-mean max \
    --weight 'nothing(1)' --default-weight 1 --trace-states --json
grep -q '"cycle_vectors": \[\[0, 0\], \[1, 0\], \[2, 0\]\]' "$T/out" && pass "traffic: JSON cycle_vectors" \
    || fail "traffic JSON cycle_vectors: $(cat "$T/out")"
