#!/bin/sh
# bench_por.sh -- partial-order reduction against full exploration: per
# model, `warpex explore MODEL --json` with and without --por on the seq
# backend, the cpu backend (all online cores) and, where the binary has a
# usable GPU (BACKENDS="seq cpu gpu" by default then), the gpu backend
# (--por explores level by level there), the best of REPS
# runs (JSON "seconds": exploration only), as a markdown table:
#   states and transitions in full and reduced, the reduction factors,
#   M states/s of each run (reduced runs: reduced states per second), and
#   the time ratio full / --por (> 1: the reduced run ends sooner).
#
#   bench/bench_por.sh [--reps N] [MODEL ...]
#       without models: the largest committed example of every family in
#       examples/counts.tsv, and "chains": 8 independent 6-state chains
#       (6^8 = 1 679 616 states in full, 41 reduced) written to a
#       temporary directory.
#   WARPEX=BIN bench/bench_por.sh ...: another binary.
#   BACKENDS="gpu" bench/bench_por.sh ...: only these backends.
# Plot: copy the measured rows into bench/data/por.tsv, then bench/plot.sh
# redraws docs/img/por.png.
set -u
cd "$(dirname "$0")/.." || exit 2
W=${WARPEX:-bin/warpex}
reps=3
if [ "${1:-}" = "--reps" ]; then reps=$2; shift 2; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

num() { # num KEY FILE -> the number after "KEY": in FILE's JSON
    tr -d '\n' < "$2" | sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\([0-9.eE+-]*\).*/\1/p"
}

if [ -z "${BACKENDS:-}" ]; then
    BACKENDS="seq cpu"
    printf 'des (0, 1, 2)\n(0, "a", 1)\n' > "$T/probe.aut"
    "$W" explore "$T/probe.aut" --backend gpu -q > /dev/null 2>&1 && BACKENDS="seq cpu gpu"
fi

if [ $# -eq 0 ]; then
    i=0
    : > "$T/chains.exp"
    while [ "$i" -lt 8 ]; do
        printf 'des (0, 5, 6)\n(0, "a%d", 1)\n(1, "b%d", 2)\n(2, "c%d", 3)\n(3, "d%d", 4)\n(4, "e%d", 5)\n' \
            "$i" "$i" "$i" "$i" "$i" > "$T/c$i.aut"
        [ "$i" -gt 0 ] && printf ' ||| ' >> "$T/chains.exp"
        printf '"c%d.aut"' "$i" >> "$T/chains.exp"
        i=$((i + 1))
    done
    echo >> "$T/chains.exp"
    set -- $(awk -F'\t' 'NR > 1 && $3 !~ /large/ { print $1, $4, $3 }' examples/counts.tsv \
             | sort -k1,1 -k2,2n | awk '{ last[$1] = $3 } END { for (f in last) print last[f] }' | sort) \
        "$T/chains.exp"
fi

# best MODEL BACKEND [--por]: the fastest of reps runs; its JSON in $T/best
best() {
    bs=
    r=0
    while [ "$r" -lt "$reps" ]; do
        "$W" explore "$1" --backend "$2" ${3:-} --json -q > "$T/run" 2> /dev/null || true
        s=$(num seconds "$T/run")
        if [ -n "$s" ] && { [ -z "$bs" ] || awk -v a="$s" -v b="$bs" 'BEGIN { exit !(a < b) }'; }; then
            bs=$s
            cp "$T/run" "$T/best"
        fi
        r=$((r + 1))
    done
}

echo "| model | backend | states full | states --por | factor | transitions full | transitions --por | factor | M states/s full | M states/s --por | time full / --por |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for m in "$@"; do
    for b in $BACKENDS; do
        best "$m" "$b" && cp "$T/best" "$T/full"
        best "$m" "$b" --por && cp "$T/best" "$T/por"
        awk -v m="$(basename "$m")" -v b="$b" \
            -v fs="$(num states "$T/full")" -v ft="$(num transitions "$T/full")" -v fsec="$(num seconds "$T/full")" \
            -v ps="$(num states "$T/por")" -v pt="$(num transitions "$T/por")" -v psec="$(num seconds "$T/por")" \
            'BEGIN {
                if (fs == "" || ps == "") { printf "| %s | %s | failed |\n", m, b; exit }
                if (fsec <= 0) fsec = 1e-6
                if (psec <= 0) psec = 1e-6
                printf "| %s | %s | %d | %d | %.1f | %d | %d | %.1f | %.2f | %.2f | %.2f |\n", m, b, fs, ps, fs / ps,
                       ft, pt, ft / pt, fs / fsec / 1e6, ps / psec / 1e6, fsec / psec
            }'
    done
done
