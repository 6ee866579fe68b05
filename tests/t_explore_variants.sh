#!/bin/sh
# t_explore_variants.sh -- the CPU explorer's build-time variants, which the
# default build does not run: growth by id ranges instead of slot ranges
# (REHASH_BY_SLOTS 0), and slot-range growth through
# the CAS loop instead of private ranges (GROW_PRIVATE 0).  Each is built with
# `bench/bench_cpu.sh --variant` and must report the known states,
# transitions and deadlocks, like the default binary, on
#   - networks written here with 3- and 4-word vectors (wide keyed slots):
#     K 16-state rings in lockstep on "a" (one field of 4 bits each, 16
#     reachable combinations) interleaved with four free 7-state cycles:
#     16 * 7^4 = 38 416 states, each with 1 + 4 transitions, no deadlock;
#     K = 20 gives 92 bits (3 words), K = 28 gives 124 bits (4 words);
#   - committed examples of 1 and 2 words (examples/counts.tsv);
# all large enough that the slot array grows (re-insertion runs).
# Output: one PASS/FAIL line per check (tests/run.sh counts them).
cd "$(dirname "$0")/.." || exit 2
TAG=explore_variants
. tests/lib.sh

ring() { # ring FILE N LABEL: an N-state cycle on LABEL
    i=0
    echo "des (0, $2, $2)" > "$1"
    while [ "$i" -lt "$2" ]; do
        echo "($i, \"$3\", $(((i + 1) % $2)))" >> "$1"
        i=$((i + 1))
    done
}
ring "$T/ring.aut" 16 a
ring "$T/free.aut" 7 b
for k in 20 28; do
    i=1
    printf '(' > "$T/wide$k.exp"
    while [ "$i" -le "$k" ]; do
        [ "$i" -gt 1 ] && printf ' |[a]| ' >> "$T/wide$k.exp"
        printf '"ring.aut"' >> "$T/wide$k.exp"
        i=$((i + 1))
    done
    echo ') ||| "free.aut" ||| "free.aut" ||| "free.aut" ||| "free.aut"' >> "$T/wide$k.exp"
done

# MODEL THREADS STATES TRANSITIONS DEADLOCKS WORDS (WORDS "-": not checked)
cat > "$T/cases" <<EOF
$T/wide20.exp 1 38416 192080 0 3
$T/wide20.exp 3 38416 192080 0 3
$T/wide28.exp 1 38416 192080 0 4
$T/wide28.exp 3 38416 192080 0 4
EOF
for f in examples/buffers/buffers_n16_d1.exp examples/tokenring/tokenring_n12.exp \
         examples/milner/milner_n12.exp examples/philosophers/philosophers_n7.exp; do
    row=$(awk -F'\t' -v f="$f" '$3 == f { print $4, $5, $6 }' examples/counts.tsv)
    if [ -z "$row" ]; then
        fail "$f has no row in examples/counts.tsv"
        continue
    fi
    echo "$f 3 $row -" >> "$T/cases"
done

built=default
for v in "idrehash -DREHASH_BY_SLOTS=0" "casgrow -DGROW_PRIVATE=0"; do
    # shellcheck disable=SC2086
    set -- $v
    vname=$1
    shift
    if sh bench/bench_cpu.sh --variant "t_$vname" "$@" > "$T/build" 2>&1; then
        pass "variant $vname ($*) built"
        built="$built $vname"
    else
        fail "variant $vname ($*) does not build: $(tail -3 "$T/build")"
    fi
done

for vname in $built; do
    bin=$PWD/bin/warpex_t_$vname
    [ "$vname" = default ] && bin=$W
    while read -r model th st tr dl words; do
        "$bin" explore "$model" --backend cpu --threads "$th" --memory 256M --json --quiet > "$T/out" 2> "$T/err"
        rc=$?
        want="complete=true states=$st transitions=$tr deadlocks=$dl"
        [ "$words" = - ] || want="$want words_per_state=$words"
        if [ "$rc" -ne 0 ]; then
            fail "$vname $(basename "$model") T=$th: exit $rc: $(head -c 300 "$T/err")"
        else
            # shellcheck disable=SC2086
            expect_json "$vname $(basename "$model") T=$th" $want
        fi
    done < "$T/cases"
done
rm -f bin/warpex_t_idrehash bin/warpex_t_casgrow
