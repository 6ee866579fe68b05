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
#     report printed once; refused options (--por --action, --backend gpu)
#     and a missing file exit 2 with one error line;
#   - --por (no visible label) on 2 and 3 ranks: seq --por's counts and
#     depth on examples and random networks, and its deadlock trace length;
#   - --store tree (each rank's store a tree store) on a network of 3 words:
#     the same files and JSON as seq --store tree's, a full store exit 3;
#   - --aut and --csr byte-identical to --backend seq's (explore_dist
#     renumbers the states as explore_seq does), and the analyses (--scc,
#     --scc-out, --mec, --cycle-mean, --livelock, --reversible) answering
#     as seq's: the same JSON but for timings, memory and the ranks'
#     fields, on examples and random networks;
#   - a deadlock and an action violation in the same BFS level: the
#     deadlock wins, as in seq (and an action from depth d beats a
#     deadlock of depth d + 1), whichever rank finds which first;
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

# --por without visible labels: the reduced set is the state's alone, so
# the ranks build seq --por's reduced graph
for f in $ph examples/milner/milner_n12.exp examples/tokenring/tokenring_n12.exp examples/abp/abp_d1.exp; do
    "$W" explore "$f" --backend seq --por --json > "$T/seq" 2>&1
    for np in 2 3; do
        $MPI -np $np "$W" explore "$f" --por --json > "$T/out" 2> "$T/err"
        s=$(counts "$T/seq"); d=$(counts "$T/out")
        if [ -n "$s" ] && [ "$s" = "$d" ] && grep -q '"por": true' "$T/out"; then
            pass "$f --por on $np ranks: $d, as seq --por"
        else
            fail "$f --por on $np ranks: '$d', seq --por '$s'; $(head -c 300 "$T/err")"
        fi
    done
done
"$W" explore $ph --backend seq --por --deadlock --trace --json > "$T/seq" 2>&1
expect_rc "--por --deadlock on 3 ranks" 1 $MPI -np 3 "$W" explore $ph --por --deadlock --trace --json
expect_json "--por --deadlock on 3 ranks" violation='"deadlock"' por=true
[ "$(trace_len "$T/out")" = "$(trace_len "$T/seq")" ] && pass "--por --deadlock trace: $(trace_len "$T/out") steps, as seq" \
    || fail "--por --deadlock trace: $(trace_len "$T/out") steps, seq $(trace_len "$T/seq")"
expect_rc "--por --action refused on 2 ranks" 2 $MPI -np 2 "$W" explore $ph --por --action '^PUT !3'
[ "$(grep -c '^warpex:.*visible labels' "$T/err")" = 1 ] && pass "the refusal said once" || fail "refusal: $(cat "$T/err")"
expect_rc "--por --action matching no label on 2 ranks" 0 $MPI -np 2 "$W" explore $ph --por --action '^none$' -q
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
    "$W" explore "$2" $hid $rate --backend seq --por --json > "$T/seq" 2>&1
    $MPI -np 3 "$W" explore "$2" $hid $rate --por --json > "$T/out" 2> "$T/err"
    s=$(counts "$T/seq"); d=$(counts "$T/out")
    if [ -n "$s" ] && [ "$s" = "$d" ]; then pass "random seed $seed --por on 3 ranks: $d = seq --por"
    else fail "random seed $seed --por on 3 ranks: '$d', seq --por '$s'; $(head -c 300 "$T/err")"; fi
    rm -rf "$3"
    k=$((k + 1))
done

# strip FILE: the JSON report without timings, memory, backend and ranks
strip() {
    sed 's/"[a-z_]*seconds": [0-9.e+-]*//g; s/"bytes": [0-9]*//;
         s/"bytes_per_state": [0-9.]*//; s/"backend": "[a-z]*"//; s/"threads": [0-9]*//;
         s/, "ranks".*"exchange_bytes": [0-9]*//' "$1"
}
# same_as_seq NAME NP FILE OPTS...: --aut, --csr, --scc-out and the JSON
# (with OPTS) of NP ranks against --backend seq's
same_as_seq() {
    name=$1 np=$2 file=$3; shift 3
    "$W" explore "$file" --backend seq --json --aut "$T/s.aut" --csr "$T/s.csr" --scc-out "$T/s.ids" "$@" \
        > "$T/seq" 2> "$T/serr"
    rs=$?
    $MPI -np "$np" "$W" explore "$file" --backend cpu --json --aut "$T/d.aut" --csr "$T/d.csr" \
        --scc-out "$T/d.ids" "$@" > "$T/out" 2> "$T/err"
    rd=$?
    strip "$T/seq" > "$T/seq.s"; strip "$T/out" > "$T/out.s"
    if [ "$rs" = "$rd" ] && [ "$rs" -le 1 ] && cmp -s "$T/s.aut" "$T/d.aut" && cmp -s "$T/s.csr" "$T/d.csr" &&
       cmp -s "$T/s.ids" "$T/d.ids" && cmp -s "$T/seq.s" "$T/out.s" && grep -q '"ranks": '"$np" "$T/out"; then
        pass "$name on $np ranks $*: .aut, .csr, SCC ids and JSON as seq's (exit $rd)"
    else
        fail "$name on $np ranks $*: exit $rd (seq $rs); $(cmp "$T/s.aut" "$T/d.aut" 2>&1; cmp "$T/s.csr" "$T/d.csr" 2>&1;
              diff "$T/seq.s" "$T/out.s" | head -c 400; head -c 300 "$T/err")"
    fi
}
for np in 2 3; do
    same_as_seq philosophers $np $ph --scc --mec
    same_as_seq abp_d2 $np examples/abp/abp_d2.exp --livelock --trace-states --reversible --mec
done
same_as_seq abp_d1 3 examples/abp/abp_d1.exp --deadlock --action 'RL' --trace --scc --reversible
# --store tree: each rank's store a tree store, on a network of 3 words a
# state (lockstep_net, tests/lib.sh)
mkdir -p "$T/w"
lockstep_net "$T/w" 9
for np in 2 3; do
    same_as_seq "wide --store tree" $np "$T/w/wide.exp" --store tree --scc --mec
done
grep -q '"store": "tree"' "$T/out" && pass "wide --store tree: the ranks' store is the tree" ||
    fail "wide --store tree: $(head -c 300 "$T/out")"
same_as_seq "wide --store tree" 3 "$T/w/wide.exp" --store tree --action stop1 --trace-states
same_as_seq "wide --store tree" 2 "$T/w/wide.exp" --store tree --cycle-mean max --weight 'x([0-9]+)' \
    --default-weight 1
# --store auto (the default): a budget where the ranks' flat stores fill up
# and tree stores fit (one of those tried must be); the run is repeated
# with the tree, every rank together, and writes seq's .aut
sep=""
for m in 300K 400K 500K 600K 800K; do
    $MPI -np 3 "$W" explore "$T/w/wide.exp" --store flat --memory $m -q > /dev/null 2>&1; rf=$?
    $MPI -np 3 "$W" explore "$T/w/wide.exp" --store tree --memory $m -q > /dev/null 2>&1; rt=$?
    [ $rf -eq 3 ] && [ $rt -eq 0 ] && { sep=$m; break; }
done
if [ -z "$sep" ]; then
    fail "--store auto on 3 ranks: no --memory from 300K to 800K where flat fills up and the tree fits"
else
    $MPI -np 3 "$W" explore "$T/w/wide.exp" --memory $sep --json --aut "$T/d.aut" > "$T/out" 2> "$T/err"; rc=$?
    "$W" explore "$T/w/wide.exp" --backend seq --aut "$T/s.aut" -q > /dev/null 2>&1
    [ $rc -eq 0 ] && grep -q '"flat_full_after": [1-9]' "$T/out" && grep -q '"store": "tree"' "$T/out" &&
        cmp -s "$T/d.aut" "$T/s.aut" &&
        pass "--store auto --memory $sep on 3 ranks: repeated with the tree after $(sed -n 's/.*"flat_full_after": \([0-9]*\).*/\1/p' "$T/out") states, seq's .aut" ||
        fail "--store auto --memory $sep on 3 ranks: exit $rc $(head -c 300 "$T/out") $(head -c 300 "$T/err")"
fi
$MPI -np 3 "$W" explore "$T/w/wide.exp" --store tree --memory 200K > "$T/out" 2> "$T/err"; rc=$?
[ $rc -eq 3 ] && grep -q "memory budget exhausted after [0-9]* states (tree store" "$T/err" &&
    pass "wide --store tree --memory 200K on 3 ranks: exit 3, the tree store's counts" ||
    fail "wide --store tree --memory 200K: exit $rc: $(head -c 300 "$T/err")"
same_as_seq milner_n3 2 examples/milner/milner_n3.exp --cycle-mean min --weight '!([0-9]+)' --default-weight 1 \
    --trace-states
k=0
while [ $k -lt 3 ]; do
    seed=$((SEED + 200 + k))
    set -- $(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    if [ "$1" != EXPECT ]; then fail "random seed $seed: generator: $*"; k=$((k + 1)); continue; fi
    rate=; [ "$5" = 1 ] && rate=--rate
    dir=$3
    same_as_seq "random seed $seed" $((2 + k % 2)) "$2" --hidden "$4" $rate --scc --mec --livelock --reversible \
        --cycle-mean max --weight '([0-9]+)' --default-weight -3
    rm -rf "$dir"
    k=$((k + 1))
done

# A deadlock and action violations in one BFS level (the deadlock wins, as
# in explore_seq), and an action from depth 1 against a deadlock of depth
# 2 (the action wins): state 0 goes to 1 .. N ("go !k"), 1 .. N-1 have
# "bad", N is a deadlock or goes on to one.
branches() {
    awk -v n="$1" -v dd="$2" 'BEGIN {
        printf "des (0, %d, %d)\n", 2 * n + (dd == 2), n + 2 + (dd == 2)
        for (k = 1; k <= n; k++) printf "(0, \"go !%d\", %d)\n", k, k
        for (k = 1; k < n; k++) printf "(%d, bad, %d)\n", k, n + 1
        printf "(%d, loop, %d)\n", n + 1, n + 1
        if (dd == 2) printf "(%d, x, %d)\n", n, n + 2 }'
}
for np_n in 2:5 3:9 3:17; do
    np=${np_n%:*} n=${np_n#*:}
    for dd in 1 2; do
        branches $n $dd > "$T/br.aut"
        want=deadlock; [ $dd = 2 ] && want=action
        "$W" explore "$T/br.aut" --backend seq --deadlock --action '^bad$' --trace --json > "$T/seq" 2>&1
        $MPI -np $np "$W" explore "$T/br.aut" --deadlock --action '^bad$' --trace --json > "$T/out" 2> "$T/err"
        rc=$?
        if [ $rc = 1 ] && [ "$(json_field violation)" = "\"$want\"" ] && grep -q "\"violation\": \"$want\"" "$T/seq" &&
           [ "$(trace_len "$T/out")" = "$(trace_len "$T/seq")" ]; then
            pass "$n branches, deadlock at depth $dd, $np ranks: $want, as seq ($(trace_len "$T/out") steps)"
        else
            fail "$n branches, deadlock at depth $dd, $np ranks: exit $rc, $(json_field violation), want $want; $(head -c 300 "$T/err")"
        fi
    done
done
