#!/bin/sh
# bench_tree.sh -- the tree store against the flat one on the CPU explorer
# (explore --store flat|tree, docs/storage.md): states/s and bytes/state
# (the JSON "bytes": all memory of the state storage, tables included, plus
# nothing else) of each store, run back to back on the same machine.
#
#   bench/bench_tree.sh [--threads T] [--reps N] [MODEL.exp ...]
#       runs `bin/warpex explore MODEL --backend cpu --threads T --store S
#       --json` for S = flat and tree, N times each (default 1; the fastest
#       run counts), and prints a markdown table.  Stops with exit 1 when
#       the two stores disagree on states, transitions or deadlocks.
#       T defaults to all online cores.
#   Without models: the ~10^6-state instances of examples/gen.py --large
#   (written once to $WARPEX_LARGE, default /tmp/warpex-large) and the
#   3-word tokenring with 18 stations (1.2 * 10^7 states).
set -u
cd "$(dirname "$0")/.." || exit 2
threads=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
reps=1
while [ $# -gt 0 ]; do
    case $1 in
    --threads) threads=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) break ;;
    esac
done
W=${WARPEX:-bin/warpex}
[ -x "$W" ] || { echo "bench_tree: build $W first (make NVCC=)" >&2; exit 2; }
if [ $# -eq 0 ]; then
    large=${WARPEX_LARGE:-/tmp/warpex-large}
    [ -f "$large/counts.tsv" ] || python3 examples/gen.py --large "$large" >/dev/null || exit 2
    set -- "$large/milner/milner_n16.exp" "$large/philosophers/philosophers_n9.exp" \
        "$large/buffers/buffers_n20_d1.exp" "$large/tokenring/tokenring_n15.exp" "$large/abp/abp_d400.exp" \
        "$large/tokenring/tokenring_n18.exp"
fi

num() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
echo "CPU explorer, $threads threads, best of $reps; $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo ""
echo "| model | words | states | store | seconds | M states/s | bytes/state | tree/flat speed | tree/flat bytes |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in "$@"; do
    for st in flat tree; do
        best=""
        r=0
        while [ $r -lt "$reps" ]; do
            if ! "$W" explore "$m" --backend cpu --threads "$threads" --store $st --json -q > "$tmp/$st.j" 2> "$tmp/err"; then
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
