#!/bin/sh
# bench_tree.sh -- the tree store against the flat one on the CPU explorer
# (explore --store flat|tree, docs/storage.md): states/s and bytes/state
# (the JSON "bytes": all memory of the state storage, tables included, plus
# nothing else) of each store, run back to back on the same machine.
#
#   bench/bench_tree.sh [--threads T] [--reps N] [--backend cpu|gpu] [--memory SIZE] [MODEL.exp ...]
#       runs `bin/warpex explore MODEL --backend cpu --threads T --store S
#       --json` for S = flat and tree, N times each (default 1; the fastest
#       run counts), and prints a markdown table.  Stops with exit 1 when
#       the two stores disagree on states, transitions or deadlocks.
#       T defaults to all online cores.  --backend gpu: the GPU explorer
#       (kernels/explore/tree_run.cu for the tree), where both stores take
#       fixed-size tables from --memory SIZE (default: the free device
#       memory), so their bytes/state is that budget over the states: give
#       the same --memory to both and lower it until one stops (exit 3) to
#       compare how many states a budget holds.
#   Without models: from examples/gen.py --large (written once to
#   $WARPEX_LARGE, default /tmp/warpex-large) the 3-word tokenring with 18
#   stations (1.2 * 10^7 states) and, to show that --store tree stores
#   vectors of 1 or 2 words flat, philosophers with 9 (10^6 states); and two
#   generated networks of many components (lockstep cycles of 100 states
#   beside 3 free cycles of 24: 1.4 * 10^6 states), of 3 and 8 words.
# Plot: copy the measured rows into bench/data/tree.tsv, then bench/plot.sh
# redraws docs/img/tree.png.
set -u
cd "$(dirname "$0")/.." || exit 2
threads=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
reps=1
backend=cpu
memory=""
while [ $# -gt 0 ]; do
    case $1 in
    --threads) threads=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --memory) memory="--memory $2"; shift 2 ;;
    *) break ;;
    esac
done
W=${WARPEX:-bin/warpex}
[ -x "$W" ] || { echo "bench_tree: build $W first (make NVCC=)" >&2; exit 2; }
# lockstep DIR L: L cycles of 100 states moving together, beside 3 free
# cycles of 24 states (interleaved), as DIR/lockstep_L.exp.
lockstep() {
    mkdir -p "$1"
    j=0
    { echo "des (0, 100, 100)"; while [ $j -lt 100 ]; do echo "($j, \"t$((j % 3))\", $(((j + 1) % 100)))"; j=$((j + 1)); done; } > "$1/l.aut"
    for f in 0 1 2; do
        j=0
        { echo "des (0, 24, 24)"; while [ $j -lt 24 ]; do echo "($j, \"f$f\", $(((j + 1) % 24)))"; j=$((j + 1)); done; } > "$1/f$f.aut"
    done
    { echo 'par t0, t1, t2 in'; i=0
      while [ $i -lt "$2" ]; do [ $i -gt 0 ] && echo '||'; echo '"l.aut"'; i=$((i + 1)); done
      echo 'end par'; } > "$1/lock_$2.exp"
    printf '"lock_%s.exp"\n|||\n"f0.aut"\n|||\n"f1.aut"\n|||\n"f2.aut"\n' "$2" > "$1/lockstep_$2.exp"
}
if [ $# -eq 0 ]; then
    large=${WARPEX_LARGE:-/tmp/warpex-large}
    [ -f "$large/counts.tsv" ] || python3 examples/gen.py --large "$large" >/dev/null || exit 2
    lockstep "$large/lockstep" 9
    lockstep "$large/lockstep" 30
    set -- "$large/philosophers/philosophers_n9.exp" "$large/lockstep/lockstep_9.exp" \
        "$large/lockstep/lockstep_30.exp" "$large/tokenring/tokenring_n18.exp"
fi

num() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
case $backend in
cpu) run_opts="--backend cpu --threads $threads $memory"; what="CPU explorer, $threads threads" ;;
gpu) run_opts="--backend gpu $memory"; what="GPU explorer${memory:+, $memory}" ;;
*) echo "bench_tree: --backend cpu or gpu, not $backend" >&2; exit 2 ;;
esac
echo "$what, best of $reps; $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo ""
echo "| model | words | states | store | seconds | M states/s | bytes/state | tree/flat speed | tree/flat bytes |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in "$@"; do
    for st in flat tree; do
        best=""
        r=0
        while [ $r -lt "$reps" ]; do
            if ! "$W" explore "$m" $run_opts --store $st --json -q > "$tmp/$st.j" 2> "$tmp/err"; then
                echo "bench_tree: $m --store $st failed: $(head -c 300 "$tmp/err")" >&2
                status=1
            fi
            s=$(num seconds "$tmp/$st.j")
            if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then
                best=$s
                cp "$tmp/$st.j" "$tmp/$st.best"
            fi
            r=$((r + 1))
        done
    done
    for k in states transitions deadlocks; do
        if [ "$(num $k "$tmp/flat.best")" != "$(num $k "$tmp/tree.best")" ]; then
            echo "bench_tree: $m: $k differ: flat $(num $k "$tmp/flat.best"), tree $(num $k "$tmp/tree.best")" >&2
            status=1
        fi
    done
    fs=$(num seconds "$tmp/flat.best") ts=$(num seconds "$tmp/tree.best")
    fb=$(num bytes_per_state "$tmp/flat.best") tb=$(num bytes_per_state "$tmp/tree.best")
    for st in flat tree; do
        j=$tmp/$st.best
        n=$(num states "$j") s=$(num seconds "$j")
        ratio=""
        [ $st = tree ] && ratio="$(awk -v f="$fs" -v t="$ts" 'BEGIN { printf "%.2f", f / t }') | $(awk -v f="$fb" -v t="$tb" 'BEGIN { printf "%.2f", t / f }')"
        [ $st = flat ] && ratio=" | "
        printf '| %s | %s | %s | %s | %.3f | %.2f | %s | %s |\n' "$(basename "$m" .exp)" "$(num words_per_state "$j")" \
            "$n" $st "$s" "$(awk -v n="$n" -v s="$s" 'BEGIN { print (s > 0 ? n / s / 1e6 : 0) }')" \
            "$(num bytes_per_state "$j")" "$ratio"
    done
done
exit $status
