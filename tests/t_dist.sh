#!/bin/sh
# t_dist.sh -- the distributed explorer under mpirun (docs/distributed.md),
# on 2 and 3 ranks oversubscribed on any machine:
#   - bin/tests-mpi/dist_check (an MPI program): random networks (seeds
#     printed) and examples against explore_seq and the naive oracle --
#     counts, depth, deadlock/action verdicts, trace lengths, traces
#     replayed;
#   - `mpirun -np R warpex explore` end to end: the JSON counts equal
#     --backend seq's on examples and the naive oracle's on random
#     networks, with "ranks" and per-rank states summing to the states;
#     --deadlock / --action exit 1 with a trace as long as seq's; the text
#     report printed once; refused options (--aut, --backend gpu) and a
#     missing file exit 2 with one error line;
#   - -np 1 and no mpirun: the ordinary explorer.
# No mpirun is a failure, not a skip: the build installs Open MPI.
cd "$(dirname "$0")/.." || exit 2
TAG=dist
. tests/lib.sh
if ! command -v mpirun > /dev/null 2>&1; then
    fail "mpirun not found: Open MPI is part of the build (apt-get install libopenmpi-dev openmpi-bin)"
    exit 1
fi
MPI="mpirun --oversubscribe --allow-run-as-root"
CHECK=bin/tests-mpi/dist_check
SEED=${WARPEX_DIST_SEED:-$(( $(date +%s) % 100000 ))}
echo "# t_dist: random seeds from $SEED (WARPEX_DIST_SEED=$SEED to repeat)"

for np in 2 3; do
    $MPI -np $np "$CHECK" "$SEED" 12 examples/philosophers/philosophers_n7.exp \
        examples/abp/abp_d1.exp > "$T/check" 2>&1
    rc=$?
    grep '^PASS \|^FAIL ' "$T/check" | grep -v '^PASS' | head -20
    p=$(grep -c '^PASS ' "$T/check"); f=$(grep -c '^FAIL ' "$T/check")
    if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -gt 100 ]; then
        pass "dist_check on $np ranks: $p checks (seeds $SEED ..)"
    else
        fail "dist_check on $np ranks: exit $rc, $p passed, $f failed; $(tail -c 600 "$T/check")"
    fi
done

# counts FILE: "states transitions deadlocks depth" of a JSON report
counts() {
    sed -n 's/.*"states": \([0-9]*\), "transitions": \([0-9]*\), "deadlocks": \([0-9]*\), "depth": \([0-9]*\).*/\1 \2 \3 \4/p' "$1"
}
# trace_len FILE: the steps of the JSON trace
trace_len() { grep -o '"label"' "$1" | wc -l; }

for f in examples/philosophers/philosophers_n7.exp examples/milner/milner_n12.exp \
         examples/tokenring/tokenring_n12.exp examples/buffers/buffers_n16_d1.exp; do
    "$W" explore "$f" --backend seq --json > "$T/seq" 2>&1
    $MPI -np 3 "$W" explore "$f" --backend cpu --json > "$T/out" 2> "$T/err"
    s=$(counts "$T/seq"); d=$(counts "$T/out")
    sum=$(sed -n 's/.*"rank_states": \[\([0-9, ]*\)\].*/\1/p' "$T/out" | tr ',' '\n' | awk '{ s += $1 } END { print s }')
    if [ -n "$s" ] && [ "$s" = "$d" ] && [ "$(json_field ranks)" = 3 ] && [ "$sum" = "${s%% *}" ]; then
        pass "$f on 3 ranks: $d (per-rank states sum to the states)"
    else
        fail "$f on 3 ranks: '$d', seq '$s', rank states sum $sum; $(head -c 300 "$T/err")"
    fi
done

ph=examples/philosophers/philosophers_n7.exp  # (expect_json sets $f)
"$W" explore $ph --backend seq --deadlock --trace --json > "$T/seq" 2>&1
for np in 2 3; do
    expect_rc "--deadlock on $np ranks" 1 $MPI -np $np "$W" explore $ph --deadlock --trace --json
    expect_json "--deadlock on $np ranks" violation='"deadlock"' status='"violation"'
    [ "$(trace_len "$T/out")" = "$(trace_len "$T/seq")" ] && pass "--deadlock trace: $(trace_len "$T/out") steps, as seq" \
        || fail "--deadlock trace: $(trace_len "$T/out") steps, seq $(trace_len "$T/seq")"
done
"$W" explore $ph --backend seq --action '^PUT !3' --trace --json > "$T/seq" 2>&1
expect_rc "--action on 3 ranks" 1 $MPI -np 3 "$W" explore $ph --action '^PUT !3' --trace --json
expect_json "--action on 3 ranks" violation='"action"'
[ "$(trace_len "$T/out")" = "$(trace_len "$T/seq")" ] && pass "--action trace: $(trace_len "$T/out") steps, as seq" \
    || fail "--action trace: $(trace_len "$T/out") steps, seq $(trace_len "$T/seq")"
expect_rc "--action none on 2 ranks" 0 $MPI -np 2 "$W" explore $ph --action '^none$' -q

expect_rc "text report on 3 ranks" 1 $MPI -np 3 "$W" explore $ph --deadlock --trace
n=$(grep -c '^states:' "$T/out"); t=$(grep -c '^trace (' "$T/out")
[ "$n" = 1 ] && [ "$t" = 1 ] && grep -q '^ranks: *3 (MPI)' "$T/out" && pass "text report printed once, with its ranks line" \
    || fail "text report: $n states lines, $t trace lines: $(head -c 400 "$T/out")"

expect_rc "--aut refused on 2 ranks" 2 $MPI -np 2 "$W" explore $ph --aut "$T/x.aut"
[ "$(grep -c '^warpex: --aut' "$T/err")" = 1 ] && pass "the refusal said once" || fail "refusal: $(cat "$T/err")"
expect_rc "--backend gpu refused on 2 ranks" 2 $MPI -np 2 "$W" explore $ph --backend gpu
expect_rc "a missing file on 3 ranks" 2 $MPI -np 3 "$W" explore "$T/none.exp"
[ "$(grep -c '^warpex:' "$T/err")" = 1 ] && pass "the error said once" || fail "error lines: $(cat "$T/err")"

expect_rc "-np 1: the ordinary explorer" 0 $MPI -np 1 "$W" explore $ph --backend cpu --json
[ -z "$(json_field ranks)" ] && pass "-np 1: no ranks field" || fail "-np 1: $(cat "$T/out")"
expect_rc "no mpirun: the ordinary explorer" 0 "$W" explore $ph --backend cpu --json
[ -z "$(json_field ranks)" ] && pass "no mpirun: no ranks field" || fail "no mpirun: $(cat "$T/out")"

# random networks end to end, against the naive oracle
gen=bin/tests/test_random_networks
k=0
while [ $k -lt 4 ]; do
    seed=$((SEED + 100 + k))
    set -- $(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    if [ "$1" != EXPECT ]; then fail "random seed $seed: generator: $*"; k=$((k + 1)); continue; fi
    hid="--hidden $4"
    rate=; [ "$5" = 1 ] && rate=--rate
    $MPI -np 3 "$W" explore "$2" $hid $rate --json > "$T/out" 2> "$T/err"
    d=$(counts "$T/out")
    if [ "${d% *}" = "$6 $7 $8" ]; then pass "random seed $seed on 3 ranks: $d = naive"
    else fail "random seed $seed on 3 ranks: '$d', naive $6 $7 $8; $(head -c 300 "$T/err")"; fi
    rm -rf "$3"
    k=$((k + 1))
done
