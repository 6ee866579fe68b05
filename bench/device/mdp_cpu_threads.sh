#!/bin/bash
# bench/device/mdp_cpu_threads.sh -- the CPU MDP explorer's scaling with
# threads on the consensus family (examples/gen_consensus.sh): one
# `explore --backend cpu --json --threads T` per thread count, counts only.
#
#   bench/device/mdp_cpu_threads.sh [--bin BINARY] N K [T ...]     default T: 1 2 4 8 16
#   (--bin: another binary, e.g. a branch's, for a before/after in one call)
#
# Prints one line per run: instance, threads, states, choices, seconds,
# M states/s (from --json).
set -u
cd "$(dirname "$0")/../.." || exit 2
WORK=${WORK:-/tmp/mdp_explore}
BIN=bin/warpex
[ "${1:-}" = --bin ] && { BIN=$2; shift 2; }
n=$1 k=$2; shift 2
[ $# -gt 0 ] || set -- 1 2 4 8 16
d=$WORK/c${n}_$k
mkdir -p "$d"
[ -f "$d/consensus_N${n}_K$k.exp" ] || sh examples/gen_consensus.sh "$n" "$k" "$d" >/dev/null || exit 4
field() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p"; }
for t in "$@"; do
    j=$("$BIN" explore "$d/consensus_N${n}_K$k.exp" --backend cpu --threads "$t" --json 2>/dev/null)
    st=$(echo "$j" | field states); s=$(echo "$j" | field seconds)
    echo "explore N=$n K=$k cpu threads $t ($BIN): states $st choices $(echo "$j" | field choices) seconds $s" \
         "rate $(awk -v a="$st" -v b="$s" 'BEGIN{if (b > 0) printf "%.2f", a / b / 1e6}') M/s"
done
