#!/bin/bash
# bench/device/por_large.sh -- POR's throughput on the GPU where the
# reduced state space is still large (issue: partial-order reduction,
# target: reduced exploration at >= 50 % of full exploration's states/s):
# abp with d = 1300 and 4000 (1.0*10^7 and 9.6*10^7 states in full; POR
# keeps about 40 %), where the rate of a reduced run is a throughput and not
# a launch latency as on the small instances of bench/bench_por.sh.
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
BACKENDS=${BACKENDS:-cpu gpu} exec sh bench/bench_por.sh --reps "$reps" "$WORK/abp/abp_d1300.exp" \
    "$WORK/abp/abp_d4000.exp"
