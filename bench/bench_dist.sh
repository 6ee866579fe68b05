#!/bin/sh
# bench_dist.sh -- the distributed CPU explorer on 1, 2 and 3 ranks
# (docs/distributed.md): per model, the best of REPS runs of
#   1 rank:  warpex explore MODEL --backend cpu --threads 1 (what mpirun
#            -np 1 runs: the ordinary explorer, one thread)
#   R ranks: mpirun -np R warpex explore MODEL --backend cpu (one thread
#            per rank), R = 2, 3
# as a markdown table: states, the exploration's seconds (JSON "seconds",
# rank 0's), M states/s, speed-up over 1 rank, the wall time of the whole
# command (with mpirun's start), and the bytes exchanged between ranks.
# Counts are checked equal across the runs (a mismatch is a FAIL line).
#
#   bench/bench_dist.sh [--reps N] [MODEL ...]
#       without models: milner n=16, philosophers n=9, tokenring n=15
#       (about 10^6 states each) from examples/large (written by
#       examples/gen.py when missing).
#   WARPEX=BIN, MPIRUN="mpirun ..." to change the binary or the launcher.
set -u
cd "$(dirname "$0")/.." || exit 2
W=${WARPEX:-bin/warpex}
MPIRUN=${MPIRUN:-mpirun --oversubscribe --allow-run-as-root}
reps=3
if [ "${1:-}" = "--reps" ]; then reps=$2; shift 2; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v mpirun > /dev/null || { echo "FAIL bench_dist: mpirun not found"; exit 1; }

num() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" "$2"; }
now() { date +%s.%N; }

if [ $# -eq 0 ]; then
    [ -f examples/large/milner/milner_n16.exp ] || python3 examples/gen.py --large examples/large > /dev/null
    set -- examples/large/milner/milner_n16.exp examples/large/philosophers/philosophers_n9.exp \
           examples/large/tokenring/tokenring_n15.exp
fi

echo "$(uname -n), $(nproc) cores, $reps runs each (best)"
echo
echo "| model | ranks | states | seconds | M states/s | speed-up | wall s | exchanged MiB |"
echo "|---|---|---|---|---|---|---|---|"
for m in "$@"; do
    base=
    for r in 1 2 3; do
        best=; wall=
        for i in $(seq "$reps"); do
            t0=$(now)
            if [ "$r" = 1 ]; then
                "$W" explore "$m" --backend cpu --threads 1 --json > "$T/out" 2> "$T/err"
            else
                $MPIRUN -np "$r" "$W" explore "$m" --backend cpu --json > "$T/out" 2> "$T/err"
            fi
            t1=$(now)
            s=$(num seconds "$T/out")
            if [ -z "$s" ]; then echo "FAIL $m on $r ranks: $(head -c 300 "$T/err")"; continue; fi
            if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then
                best=$s; wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
                cp "$T/out" "$T/best"
            fi
        done
        [ -n "$best" ] || continue
        states=$(num states "$T/best"); trans=$(num transitions "$T/best")
        if [ "$r" = 1 ]; then base=$best; ref="$states $trans"
        elif [ "$states $trans" != "$ref" ]; then echo "FAIL $m on $r ranks: $states $trans, 1 rank $ref"; fi
        ex=$(num exchange_bytes "$T/best"); ex=${ex:-0}
        awk -v m="$(basename "$m" .exp)" -v r="$r" -v n="$states" -v s="$best" -v b="$base" -v w="$wall" -v x="$ex" \
            'BEGIN { printf "| %s | %d | %d | %.3f | %.2f | %.2f | %s | %.1f |\n", m, r, n, s, n / s / 1e6, b / s, w, x / 1048576 }'
    done
done
