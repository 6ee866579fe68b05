#!/bin/bash
# bench/device/por_large.sh -- POR's throughput on the GPU where the
# reduced state space is still large (issue: partial-order reduction,
# target: reduced exploration at >= 50 % of full exploration's states/s):
# mutex (the filter lock) with 5 processes, 1.04*10^7 states, which POR
# does not reduce (10 383 156 states kept): its reduced run expands as many
# states as the full one, so the ratio of the rates is POR's cost per state
# as a throughput; and abp with d = 1300 and 4000 (1.0*10^7 and 9.6*10^7
# states in full; POR keeps 93 608 and 288 008), whose reduced runs take the
# GPU a few milliseconds a level (launch latency, not throughput).
#
#   bench/device/por_large.sh [--reps N]
#
# Runs bench/bench_por.sh on both with BACKENDS (default "cpu gpu"); the
# instances come from examples/gen.py --large under $WORK (default
# /tmp/por_large).
set -u
cd "$(dirname "$0")/../.." || exit 2
WORK=${WORK:-/tmp/por_large}
reps=3
[ "${1:-}" = --reps ] && reps=$2
mkdir -p "$WORK"
[ -f "$WORK/counts.tsv" ] || python3 examples/gen.py --large "$WORK" >/dev/null || exit 2
[ -f "$WORK/mutex/mutex_n5.exp" ] || (mkdir -p "$WORK/mutex" && cd examples && python3 -c "
import families, os, sys
for name, text in families.Mutex().files({'n': 5}).items():
    open(os.path.join(sys.argv[1], name), 'w').write(text)
" "$WORK/mutex") || exit 2
BACKENDS=${BACKENDS:-cpu gpu} exec sh bench/bench_por.sh --reps "$reps" "$WORK/mutex/mutex_n5.exp" \
    "$WORK/abp/abp_d1300.exp" "$WORK/abp/abp_d4000.exp"
