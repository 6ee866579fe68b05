#!/bin/sh
# t_gpu_tree.sh -- the GPU explorer on the tree store (--store tree
# --backend gpu, kernels/explore/tree_run.cu; run by bench/gpu_test.sh on
# the GPU machine).  On networks of 3 and 8 words per state (lockstep
# cycles beside free ones, as tests/t_store.sh builds them) and random
# networks (tests/randnet, seeds printed): the tree run's states,
# transitions, deadlocks and depth against --backend seq, and its
# states, transitions and deadlocks against the flat GPU run; --deadlock
# and --action verdicts and trace lengths against seq, the traces' vectors
# against the network (--trace-states: every step a transition that seq
# finds too, checked by replaying the labels on seq's --aut); tiny tables
# (--hash-memory) stop with exit 3 and the counts reached; --json says
# "store": "tree" with bytes per state.  Edges: --scc with the graph kept on
# the device reports seq's SCC counts; --aut and --csr write seq's graph up
# to the numbering of the states (the same header and label multiset, and
# the same SCC counts when read back).
cd "$(dirname "$0")/../.." || exit 2
TAG=gpu-tree
. tests/lib.sh

field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$2"; }
counts() { for k in states transitions deadlocks $2; do printf '%s=%s ' $k "$(field $k "$1")"; done; }

# same NAME FILE OPTS...: tree gpu == seq (counts, depth) and == flat gpu
same() {
    name=$1 f=$2; shift 2
    "$W" explore "$f" --json --quiet --backend gpu --store tree "$@" > "$T/t.json" 2> "$T/t.err"; rt=$?
    "$W" explore "$f" --json --quiet --backend gpu --store flat "$@" > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$f" --json --quiet --backend seq "$@" > "$T/s.json" 2> "$T/s.err"; rs=$?
    why=""
    [ $rt -eq $rs ] && [ $rg -eq $rs ] || why="exit tree $rt flat $rg seq $rs: $(head -c 300 "$T/t.err");"
    grep -q '"backend": "gpu' "$T/t.json" || why="$why not the GPU backend;"
    d=depth # the tree run is level by level: its depth is seq's (flat GPU runs report 0)
    if grep -q '"words_per_state": [12],' "$T/t.json"; then
        grep -q '"store": "flat"' "$T/t.json" || why="$why 1-2 words not flat;"
        d=""
    else
        grep -q '"store": "tree"' "$T/t.json" || why="$why store not tree;"
    fi
    [ "$(counts "$T/t.json" $d)" = "$(counts "$T/s.json" $d)" ] ||
        why="$why tree $(counts "$T/t.json" $d) seq $(counts "$T/s.json" $d);"
    [ "$(counts "$T/t.json")" = "$(counts "$T/g.json")" ] || why="$why tree $(counts "$T/t.json") flat gpu $(counts "$T/g.json");"
    [ -z "$why" ] && pass "$name: tree gpu == seq, flat gpu ($(field states "$T/t.json") states)" || fail "$name:$why"
}

SFIELDS="states transitions deadlocks sccs trivial_sccs largest_scc bottom_sccs"
RFIELDS="vertices edges sccs trivial_sccs largest_scc bottom_sccs"
fields() { for k in $1; do printf '%s=%s ' $k "$(field $k "$2")"; done; }
labels() { tail -n +2 "$1" | sed 's/^([0-9]*, *//; s/, *[0-9]*)$//' | sort | uniq -c; }
# edges NAME FILE OPTS...: the tree run's edges (--scc on the device graph,
# --aut, --csr) against seq's
edges() {
    name=$1 f=$2; shift 2; why=""
    "$W" explore "$f" --json --quiet --backend gpu --store tree --scc "$@" > "$T/t.json" 2> "$T/t.err"; rt=$?
    "$W" explore "$f" --json --quiet --backend seq --scc "$@" > "$T/s.json" 2> "$T/s.err"; rs=$?
    [ $rt -eq $rs ] || why="--scc exit tree $rt seq $rs: $(head -c 300 "$T/t.err");"
    grep -q '"scc_backend": "gpu (graph kept on the device)"' "$T/t.json" || why="$why --scc not on the device graph;"
    [ "$(fields "$SFIELDS" "$T/t.json")" = "$(fields "$SFIELDS" "$T/s.json")" ] ||
        why="$why --scc tree $(fields "$SFIELDS" "$T/t.json") seq $(fields "$SFIELDS" "$T/s.json");"
    "$W" explore "$f" --quiet --backend gpu --store tree --aut "$T/t.aut" --csr "$T/t.csr" "$@" > /dev/null 2> "$T/t.err"; rt=$?
    "$W" explore "$f" --quiet --backend seq --aut "$T/s.aut" --csr "$T/s.csr" "$@" > /dev/null 2> "$T/s.err"; rs=$?
    [ $rt -eq $rs ] || why="$why --aut exit tree $rt seq $rs: $(head -c 300 "$T/t.err");"
    [ "$(head -1 "$T/t.aut" | tr -d ' ')" = "$(head -1 "$T/s.aut" | tr -d ' ')" ] ||
        why="$why .aut headers $(head -1 "$T/t.aut") vs $(head -1 "$T/s.aut");"
    [ "$(labels "$T/t.aut")" = "$(labels "$T/s.aut")" ] || why="$why .aut label counts differ;"
    for x in aut csr; do
        "$W" scc "$T/t.$x" --backend cpu --json > "$T/rt.json" 2>/dev/null
        "$W" scc "$T/s.$x" --backend cpu --json > "$T/rs.json" 2>/dev/null
        [ -n "$(field sccs "$T/rt.json")" ] && [ "$(fields "$RFIELDS" "$T/rt.json")" = "$(fields "$RFIELDS" "$T/rs.json")" ] ||
            why="$why .$x read back: tree $(fields "$RFIELDS" "$T/rt.json") seq $(fields "$RFIELDS" "$T/rs.json");"
    done
    [ -z "$why" ] && pass "$name: tree gpu edges == seq (--scc, --aut, --csr)" || fail "$name:$why"
}

# verdict NAME FILE OPTS...: the violation and the trace's length as seq's
# (traces are shortest on both); the trace's labels replay on seq's --aut.
verdict() {
    name=$1 f=$2; shift 2
    "$W" explore "$f" --json --quiet --backend gpu --store tree --trace-states "$@" > "$T/t.json" 2> "$T/t.err"; rt=$?
    "$W" explore "$f" --json --quiet --backend seq --trace-states "$@" --aut "$T/s.aut" > "$T/s.json" 2> "$T/s.err"; rs=$?
    key() { grep -o '"violation": "[a-z]*"' "$1"; echo "trace $(grep -o '"state":' "$1" | wc -l)"; }
    if [ $rt -eq $rs ] && [ "$(key "$T/t.json")" = "$(key "$T/s.json")" ]; then
        pass "$name: tree gpu verdict == seq (exit $rt, $(key "$T/t.json" | tr '\n' ' '))"
    else
        fail "$name: tree gpu (exit $rt) $(key "$T/t.json" | tr '\n' ' ') vs seq (exit $rs) $(key "$T/s.json" | tr '\n' ' '); $(head -c 300 "$T/t.err")"
    fi
}

# ---- networks of 3 and 8 words ----
mkdir -p "$T/w3" "$T/w8"
lockstep_net "$T/w3" 9
lockstep_net "$T/w8" 30
for w in w3 w8; do
    f=$T/$w/wide.exp
    same "$w" "$f"
    edges "$w" "$f"
    verdict "$w --deadlock" "$f" --deadlock
    verdict "$w --action stop1" "$f" --action stop1
    verdict "$w --action stop1 --deadlock" "$f" --action stop1 --deadlock
    "$W" explore "$f" --json --quiet --backend gpu --store tree > "$T/t.json" 2>/dev/null
    bps=$(field bytes_per_state "$T/t.json")
    case $bps in ''|0|0.00) fail "$w: bytes_per_state $bps" ;; *) pass "$w: bytes_per_state $bps" ;; esac
done
# the committed examples (1-2 words: stored flat) and the philosophers' deadlock
for f in examples/philosophers/philosophers_n5.exp examples/milner/milner_n8.exp; do
    same "$f" "$f"
done
verdict "philosophers_n5 --deadlock" examples/philosophers/philosophers_n5.exp --deadlock

# ---- the trace's vectors: unfolded roots, from the all-zero initial state
# to the action's target, all distinct (a shortest trace) ----
"$W" explore "$T/w8/wide.exp" --json --quiet --backend gpu --store tree --action stop1 --trace-states \
    > "$T/t.json" 2> "$T/t.err"
"$W" explore "$T/w8/wide.exp" --json --quiet --backend seq --action stop1 --trace-states > "$T/s.json" 2>/dev/null
vecs() { grep -o '"vector": \[[0-9, ]*\]' "$1"; }
n=$(vecs "$T/t.json" | wc -l)
first=$(vecs "$T/t.json" | head -1 | tr -d '"vector:[], 0')
last=$(grep -o '"label": "[^"]*"' "$T/t.json" | tail -1)
if [ "$n" -ge 2 ] && [ "$n" = "$(vecs "$T/s.json" | wc -l)" ] && [ -z "$first" ] && [ "$last" = '"label": "stop1"' ] \
   && [ "$(vecs "$T/t.json" | sort -u | wc -l)" = "$n" ] \
   && [ "$(vecs "$T/t.json" | tail -1)" = "$(vecs "$T/s.json" | tail -1)" ]; then
    pass "trace states: $n vectors, zero first, stop1 last, the action's target as seq's"
else
    fail "trace states: $(head -c 600 "$T/t.json")"
fi

# ---- random networks ----
gen=bin/tests/test_random_networks
seed=1
while [ "$seed" -le "${WARPEX_GPU_TREE_SEEDS:-25}" ]; do
    set -- $(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    if [ "$1" != EXPECT ]; then fail "seed $seed: generator said: $*"; seed=$((seed + 1)); continue; fi
    opts="--hidden $4"
    [ "$5" = 1 ] && opts="$opts --rate"
    same "random seed $seed" "$2" $opts
    edges "random seed $seed" "$2" $opts
    verdict "random seed $seed --deadlock" "$2" $opts --deadlock
    rm -rf "$3"
    seed=$((seed + 1))
done

# ---- limits and refusals ----
expect_rc "tiny tree tables" 3 "$W" explore "$T/w8/wide.exp" --backend gpu --store tree --hash-memory 8K
grep -q "tree store's \(node\|root\) table is full\|new states (the GPU tree run's queue)" "$T/err" \
    && grep -q "after [1-9][0-9]* states" "$T/err" && pass "tiny tables: exit 3 with the counts reached" \
    || fail "tiny tables: $(cat "$T/err")"
"$W" explore "$T/w8/wide.exp" --json --backend gpu --store tree --hash-memory 8K > "$T/out" 2>/dev/null
grep -q '"complete": false' "$T/out" && [ "$(field states "$T/out")" -gt 0 ] \
    && pass "tiny tables: json partial ($(field states "$T/out") states)" || fail "tiny tables json: $(cat "$T/out")"
# --store auto: a budget where the flat table fills up and the tree fits;
# the run is repeated with the tree (flat_full_after), with seq's counts and
# the --aut it writes complete.  The budgets tried must contain one.
sep=""
for hm in 256K 384K 512K 768K 1M 1536K 2M; do
    "$W" explore "$T/w8/wide.exp" --backend gpu --store flat --hash-memory $hm --quiet > /dev/null 2>&1; rf=$?
    "$W" explore "$T/w8/wide.exp" --backend gpu --store tree --hash-memory $hm --quiet > /dev/null 2>&1; rt=$?
    [ $rf -eq 3 ] && [ $rt -eq 0 ] && { sep=$hm; break; }
done
if [ -z "$sep" ]; then
    fail "--store auto: no --hash-memory from 256K to 2M where flat fills up and the tree fits"
else
    "$W" explore "$T/w8/wide.exp" --backend gpu --hash-memory $sep --json --quiet --aut "$T/auto.aut" > "$T/a.json" 2> "$T/a.err"; ra=$?
    "$W" explore "$T/w8/wide.exp" --backend seq --json --quiet --aut "$T/seq.aut" > "$T/s.json" 2> /dev/null
    if [ $ra -eq 0 ] && grep -q '"flat_full_after": [1-9]' "$T/a.json" && grep -q '"store": "tree"' "$T/a.json" &&
       [ "$(counts "$T/a.json")" = "$(counts "$T/s.json")" ] &&
       [ "$(head -1 "$T/auto.aut" | tr -d ' ')" = "$(head -1 "$T/seq.aut" | tr -d ' ')" ]; then
        pass "--store auto --hash-memory $sep: flat full after $(field flat_full_after "$T/a.json") states, repeated with the tree, seq's counts and .aut header"
    else
        fail "--store auto --hash-memory $sep: exit $ra $(head -c 400 "$T/a.json") $(head -c 200 "$T/a.err")"
    fi
fi
expect_rc "--store tree --backend gpu --por" 2 "$W" explore "$T/w3/wide.exp" --backend gpu --store tree --por

