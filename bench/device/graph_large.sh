#!/bin/bash
# bench/device/graph_large.sh -- explore --scc on the GPU for networks of
# ~10^8 states and ~10^9 transitions, whose graph must be sorted into CSR
# order on the device after the exploration (docs/gpu.md, "Edges and the
# device graph"): does the run finish, and how long do exploration, graph
# and SCC take.  With OLD_BIN, the same runs of an older binary alternate
# with the current one (fresh processes), so the rows compare in one call.
#
#   bench/device/graph_large.sh [--old OLD_BIN] [MODEL.exp ...]
#
# Without models: milner n=22 (1.4*10^8 states, 1.6*10^9 transitions),
# tokenring n=21 (1.1*10^8, 1.2*10^9), buffers n=27 (1.3*10^8, 1.0*10^9),
# from examples/gen.py --large under $WORK (default /tmp/graph_large).
# Prints a markdown table: binary, model, exit status, states, transitions,
# sccs, explore seconds, scc seconds, wall seconds, and the first line of
# stderr of a failed run.  Logs go to $OUT or bench/out/graph_large.
set -u
cd "$(dirname "$0")/../.." || exit 2
LOG=${OUT:-bench/out/graph_large}; WORK=${WORK:-/tmp/graph_large}
mkdir -p "$LOG" "$WORK"
old=""
[ "${1:-}" = --old ] && { old=$2; shift 2; }
models=("$@")
if [ ${#models[@]} = 0 ]; then
    [ -f "$WORK/counts.tsv" ] || python3 examples/gen.py --large "$WORK" >/dev/null || exit 2
    models=("$WORK/milner/milner_n22.exp" "$WORK/tokenring/tokenring_n21.exp"
            "$WORK/buffers/buffers_n27_d1.exp")
fi
bins=(bin/warpex)
[ -n "$old" ] && bins=("$old" bin/warpex)
# key JSON NAME: the value after "NAME": in JSON (empty when absent)
key() { grep -o "\"$2\": [0-9.e+-]*" "$1" | head -1 | sed 's/.*: //'; }
echo "| binary | model | exit | states | transitions | sccs | explore s | scc s | wall s | note |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
i=0
for m in "${models[@]}"; do
    for b in "${bins[@]}"; do
        i=$((i + 1))
        j=$LOG/run$i.json; e=$LOG/run$i.err
        t0=$(date +%s.%N)
        "$b" explore "$m" --scc --backend gpu --json -q >"$j" 2>"$e"
        rc=$?
        t1=$(date +%s.%N)
        note=$(head -1 "$e" | cut -c1-160 | tr '|' '/')
        printf '| %s | %s | %d | %s | %s | %s | %s | %s | %.2f | %s |\n' "$b" "$(basename "$m" .exp)" $rc \
            "$(key "$j" states)" "$(key "$j" transitions)" "$(key "$j" sccs)" "$(key "$j" seconds)" \
            "$(key "$j" scc_seconds)" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$note"
    done
done
