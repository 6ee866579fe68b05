#!/bin/bash
# bench/device/por_breakdown.sh -- where --por's cost goes on the GPU
# (issue: partial-order reduction, target: reduced exploration at >= 50 %
# of full exploration's states/s).  On mutex n=5 (1.04*10^7 states, which
# the reduction keeps nearly whole, so the rates compare the cost per
# state), bench_gpu runs, best of REPS, with the clock64 phase profile:
#   1. full, the default (fast generator, asynchronous)
#   2. full, level-synchronous (--por explores level by level)
#   3. full, level-synchronous, the general generator (--por's generator)
#   4. --por on the general generator (level-synchronous; lane 0 of a
#      state's group reduces while the group waits)
#   5. --por on the fast generator (each thread reduces its own state; only
#      where util/config.h's GX_POR_FAST is 1 and compiles its kernels,
#      else the general one again: the line's gen= says which ran)
# so that the steps from 1 to 5 tell what each costs; then --por on grids of
# 132, 66 and 33 blocks (fewer states' scratch in flight at once).  The CPU's counts are
# compared on each (MISMATCH fails the run).
#
#   bench/device/por_breakdown.sh [--reps N] [--bench BIN]
#
# --bench: another build of bench_gpu (e.g. an older one unpacked from
# .pre, for a before/after in one call); default bin/gpu/bench_gpu, which comes from `bench/gpu_test.sh --build-only` (or
# prebuilt.sh pack); the instance is generated under $WORK (default
# /tmp/por_large, shared with por_large.sh).
set -u
cd "$(dirname "$0")/../.." || exit 2
WORK=${WORK:-/tmp/por_large}
reps=3 B=bin/gpu/bench_gpu
while [ $# -ge 2 ]; do
    case $1 in
    --reps) reps=$2 ;;
    --bench) B=$2 ;;
    *) echo "usage: $0 [--reps N] [--bench BIN]" >&2; exit 2 ;;
    esac
    shift 2
done
f=$WORK/mutex/mutex_n5.exp
[ -f "$f" ] || (mkdir -p "$WORK/mutex" && cd examples && python3 -c "
import families, os, sys
for name, text in families.Mutex().files({'n': 5}).items():
    open(os.path.join(sys.argv[1], name), 'w').write(text)
" "$WORK/mutex") || exit 2
[ -x $B ] || { echo "por_breakdown: $B is not built"; exit 2; }
status=0
for v in "" "--level" "--level --gen general" "--por --gen general" "--por --gen fast"; do
    echo "== bench_gpu ${v:-(default)}"
    # shellcheck disable=SC2086
    $B --reps "$reps" --profile $v "$f" || status=1
done
# fewer blocks: fewer states' scratch in flight at once (does the
# reduction's global-memory scratch, one state's per thread, miss L2?)
for b in 132 66 33; do
    echo "== bench_gpu --por --gen general --blocks $b"
    $B --reps "$reps" --por --gen general --blocks $b "$f" || status=1
done
echo "== cpu, for the counts"
$B --reps 1 --cpu "$f" | grep " cpu " || status=1
$B --reps 1 --cpu --por "$f" | grep " cpu " || status=1
exit $status
