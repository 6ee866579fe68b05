#!/bin/bash
# bench/device/san_por.sh -- compute-sanitizer (memcheck, racecheck,
# synccheck) on the GPU explorer's --por kernels, which no GPU test program
# runs: `warpex explore --por --backend gpu` on a small example, on the fast
# generator (the default, util/config.h GX_POR_FAST) and on the general one
# (WARPEX_GPU_GENERATOR=general), plain and with --action (the proviso's
# passes).  A tool's error count above 0, or a run whose exit status is
# not the CPU's, fails the script.
#
#   bench/device/san_por.sh
set -u
cd "$(dirname "$0")/../.." || exit 2
export PATH=$PATH:/usr/local/cuda/bin
W=$PWD/bin/warpex
status=0
for f in examples/mutex/mutex_n3.exp; do
    for gen in auto general; do
        for act in "" "--action ^zz"; do
            # shellcheck disable=SC2086
            "$W" explore "$f" --por $act --backend cpu -q > /dev/null 2>&1; want=$?
            for tool in memcheck racecheck synccheck; do
                # shellcheck disable=SC2086
                out=$(WARPEX_GPU_GENERATOR=$gen compute-sanitizer --tool $tool --error-exitcode 99 \
                    "$W" explore "$f" --por $act --backend gpu -q 2>&1); rc=$?
                sum=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" <<<"$out" | tail -1)
                if [ $rc = "$want" ]; then
                    echo "ok   $tool $gen ${act:-plain} $f: $sum"
                else
                    echo "FAIL $tool $gen ${act:-plain} $f: exit $rc (cpu $want): $sum"
                    tail -20 <<<"$out"; status=1
                fi
            done
        done
    done
done
exit $status
