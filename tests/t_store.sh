#!/bin/sh
# t_store.sh -- explore --store tree against --store flat (hash/treestore.h,
# docs/storage.md): the deterministic seq explorer must write byte-identical
# --aut, --csr and --scc-out files and the same counts, traces and cycle
# means with either store; the cpu explorer the same counts and trace
# lengths.  On the committed examples (1 and 2 words per state), on a
# generated network of 3 words per state (nine lockstep cycles beside two
# free ones), and on random networks (tests/randnet, seeds printed).  Then
# the refusals: a full tree store (exit 3 with the counts reached),
# --store tree --backend gpu with --aut and a bad --store value (exit 2).
cd "$(dirname "$0")/.." || exit 2
TAG=store
. tests/lib.sh

# The counts and results of a --json line, without timings, sizes or the
# store's own name.
strip() { sed -e 's/"seconds": [0-9.e+-]*//g' -e 's/"[a-z_]*bytes[a-z_]*": [0-9.]*//g' \
    -e 's/"store": "[a-z]*"//g' -e 's/"threads": [0-9]*//g' -e 's/"[a-z_]*seconds": [0-9.e+-]*//g' "$1"; }

# same_seq NAME FILE OPTS...: seq flat and seq tree agree on FILE.
same_seq() {
    name=$1 f=$2; shift 2
    for st in flat tree; do
        "$W" explore "$f" --backend seq --store $st --json --aut "$T/$st.aut" --csr "$T/$st.csr" "$@" \
            > "$T/$st.json" 2> "$T/$st.err"
        echo $? > "$T/$st.rc"
    done
    if cmp -s "$T/flat.aut" "$T/tree.aut" && cmp -s "$T/flat.csr" "$T/tree.csr" \
       && [ "$(cat "$T/flat.rc")" = "$(cat "$T/tree.rc")" ] && [ "$(strip "$T/flat.json")" = "$(strip "$T/tree.json")" ] \
       && { grep -q '"store": "tree"' "$T/tree.json" || grep -q '"words_per_state": [12],' "$T/tree.json"; }; then
        pass "$name: seq tree == seq flat ($(sed -n 's/.*"states": \([0-9]*\).*/\1/p' "$T/tree.json") states, exit $(cat "$T/tree.rc"); --aut, --csr, json)"
    else
        fail "$name: seq tree and flat differ: exit $(cat "$T/flat.rc")/$(cat "$T/tree.rc"); $(strip "$T/flat.json") vs $(strip "$T/tree.json"); $(head -c 200 "$T/tree.err")"
    fi
}

# same_cpu NAME FILE OPTS...: cpu tree (3 threads) reports what seq flat
# does: the counts, or, when a violation stops the run (partial counts,
# which differ between backends), its kind and the trace's length.
same_cpu() {
    name=$1 f=$2; shift 2
    "$W" explore "$f" --backend seq --store flat --json "$@" > "$T/s.json" 2>/dev/null; a=$?
    "$W" explore "$f" --backend cpu --threads 3 --store tree --json "$@" > "$T/c.json" 2> "$T/c.err"; b=$?
    key() {
        if grep -q '"status": "violation"' "$1"; then
            grep -o '"violation": "[a-z]*"' "$1"; echo "trace $(grep -o '"state":' "$1" | wc -l)"
        else
            grep -o '"\(states\|transitions\|deadlocks\|depth\|complete\|fraction\|has_cycle\|components\)": [^,}]*' "$1" | sort
        fi
    }
    if [ $a = $b ] && [ "$(key "$T/s.json")" = "$(key "$T/c.json")" ]; then
        pass "$name: cpu tree == seq flat (exit $b)"
    else
        fail "$name: cpu tree (exit $b) $(key "$T/c.json" | tr '\n' ' ') vs seq flat (exit $a) $(key "$T/s.json" | tr '\n' ' '); $(head -c 200 "$T/c.err")"
    fi
}

# ---- the committed examples ----
for f in examples/*/*.exp; do
    case $f in *_channels.exp) continue ;; esac
    same_seq "$f" "$f" --scc
    same_cpu "$f" "$f"
done
same_seq "philosophers_n5 --deadlock --trace" examples/philosophers/philosophers_n5.exp --deadlock --trace-states
same_cpu "philosophers_n5 --deadlock --trace" examples/philosophers/philosophers_n5.exp --deadlock --trace

# ---- 3 words per state ----
mkdir -p "$T/w"
lockstep_net "$T/w" 9
wide=$T/w/wide.exp
"$W" explore "$wide" --backend seq --json > "$T/out" 2>&1
expect_json "wide network" words_per_state=3 states=16900 transitions=50700
same_seq "wide" "$wide" --scc --scc-out "$T/scc"
cp "$T/scc" "$T/scc.tree"
"$W" explore "$wide" --backend seq --store flat --scc-out "$T/scc.flat" -q > /dev/null 2>&1
if cmp -s "$T/scc.flat" "$T/scc.tree"; then pass "wide: --scc-out identical"; else fail "wide: --scc-out differs"; fi
same_seq "wide --action stop1 --trace" "$wide" --action stop1 --trace-states
same_seq "wide --cycle-mean max" "$wide" --cycle-mean max --weight 'x([0-9]+)' --default-weight 1
same_cpu "wide" "$wide"
same_cpu "wide --action stop1 --trace" "$wide" --action stop1 --trace
same_cpu "wide --cycle-mean min" "$wide" --cycle-mean min --weight 'x([0-9]+)' --default-weight 1

# ---- random networks ----
gen=bin/tests/test_random_networks
seed=1
while [ "$seed" -le "${WARPEX_STORE_SEEDS:-25}" ]; do
    set -- $(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    if [ "$1" != EXPECT ]; then fail "seed $seed: generator said: $*"; seed=$((seed + 1)); continue; fi
    opts="--hidden $4"
    [ "$5" = 1 ] && opts="$opts --rate"
    same_seq "random seed $seed" "$2" $opts --scc
    same_cpu "random seed $seed" "$2" $opts
    rm -rf "$3"
    seed=$((seed + 1))
done

# ---- 1 or 2 words: a tree of one pair is the flat table ----
"$W" explore examples/milner/milner_n8.exp --backend cpu --store tree --json > "$T/out" 2>/dev/null
expect_json "2 words: --store tree stores flat" store='"flat"' states=3072

# ---- auto: flat, and the tree when flat fills up ----
"$W" explore "$wide" --backend cpu --memory 400K --json > "$T/out" 2> "$T/err"
expect_json "auto, flat too small" store='"tree"' states=16900 complete=true
grep -q '"flat_full_after": [0-9]' "$T/out" && pass "auto: json says when flat filled up" || fail "auto: $(cat "$T/out")"
"$W" explore "$wide" --backend seq --memory 400K > "$T/out" 2> "$T/err"
grep -q "note: the flat state store was full after [0-9]* states; explored again with the tree store" "$T/err" \
    && grep -q "states: *16900$" "$T/out" && pass "auto, seq: the note, and the whole state space" \
    || fail "auto, seq: $(cat "$T/err" "$T/out")"
expect_rc "auto with --aut: no second run" 3 "$W" explore "$wide" --backend cpu --memory 400K --aut "$T/x.aut"
expect_rc "--store flat: no second run" 3 "$W" explore "$wide" --backend cpu --memory 400K --store flat

# ---- limits and refusals ----
expect_rc "full tree store" 3 "$W" explore "$wide" --backend cpu --store tree --memory 200K
if grep -q "after [0-9]* states (tree store: [0-9]* nodes" "$T/err" && grep -q "stopped after [0-9]* states" "$T/err"; then
    pass "full tree store: counts reached on stderr and stdout"
else
    fail "full tree store: $(cat "$T/err") $(cat "$T/out")"
fi
expect_rc "full tree store seq" 3 "$W" explore "$wide" --backend seq --store tree --memory 200K
# --backend gpu on a machine without a usable device: exit 2, and why (t_gpu_tree.sh runs it on one)
if ! "$W" explore "$wide" --backend gpu --quiet > /dev/null 2>&1; then
    expect_rc "--store tree --backend gpu without a device" 2 "$W" explore "$wide" --backend gpu --store tree --aut "$T/g.aut"
    grep -q "backend gpu" "$T/err" && pass "--store tree --backend gpu without a device: says why" \
        || fail "gpu refusal: $(cat "$T/err")"
fi
expect_rc "--store bogus" 2 "$W" explore "$wide" --store bogus
expect_rc "--store without a value" 2 "$W" explore "$wide" --store
"$W" explore "$wide" --backend cpu --json > "$T/out" 2>/dev/null
expect_json "default store" store='"flat"'
