#!/bin/bash
# bench/device/call.sh -- one device call: build, then the named stages, in
# order, on the lent GPU machine.  Every number in bench/RESULTS.md from this
# session came from this script (the call's stages are named there).
#
#   bench/device/call.sh [--old OLD_TREE] [--seed N] [--prebuilt] STAGE...
#
# Build: the current tree with its GPU test programs (bench/gpu_test.sh
# --build-only) and, with --old, OLD_TREE's bin/warpex (a source tree of the
# version to compare with, e.g. `git archive fe333fa` unpacked, with its own
# build/gen/ made here first by `make -C OLD_TREE build/gen/exp_parse.c
# build/gen/exp_lex.c`: the device has no flex or bison, and the current
# tree's generated parser does not fit an older grammar), both with all
# cores, in parallel.
# --prebuilt: no build; the binaries come from the carried .pre/bin.tar.xz
# (bench/device/prebuilt.sh pack, here).
# Stages:
#   tests        bench/gpu_test.sh --prebuilt --no-sanitizer (every GPU test program and CLI script)
#   tests:LIST   the same with --only LIST
#   san          compute-sanitizer memcheck, racecheck, synccheck on each program's --quick subset
#   san:LIST     the same with --only LIST
#   parity       bench/device/parity.sh OLD_TREE (needs --old)
#   parity:LIST  the same with --only LIST (explore,scc,mec,vi,cm)
#   scc          bench/bench_gpu_scc.sh (graphgen graphs, MEC random)
#   cm           bench/bench_gpu_cyclemean.sh --quick
#   vi           bench/bench_gpu_valiter.sh
#   ovi          bench/bench_ovi_gpu.sh (ii against ovi on the GPU: sweeps, seconds)
#   sh:SCRIPT,ARG,...  bash SCRIPT ARG ... (a bench script; commas for spaces)
# Logs under $OUT (or bench/out/call); one summary line per stage last.
set -u
cd "$(dirname "$0")/../.." || exit 2
unset NVARCH # some device hosts export it with another meaning
export PATH=$PATH:/usr/local/cuda/bin
LOG=${OUT:-bench/out/call}
mkdir -p "$LOG"
old=""; seed=$(date +%s); stages=(); prebuilt=0
while [ $# -gt 0 ]; do
    case $1 in
    --old) old=$2; shift ;;
    --seed) seed=$2; shift ;;
    --prebuilt) prebuilt=1 ;;
    *) stages+=("$1") ;;
    esac
    shift
done
summary=()
t0=$(date +%s)
if [ -n "$old" ]; then
    (make -C "$old" -j"$(nproc)" bin/warpex >"$LOG/build_old.log" 2>&1; echo $? >"$LOG/build_old.rc") &
fi
if [ $prebuilt = 1 ]; then
    bash bench/device/prebuilt.sh unpack >"$LOG/build_new.log" 2>&1 || { tail -30 "$LOG/build_new.log"; exit 1; }
else
    OUT=$LOG/build bash bench/gpu_test.sh --build-only >"$LOG/build_new.log" 2>&1 || { tail -30 "$LOG/build_new.log"; exit 1; }
fi
wait
if [ -n "$old" ] && [ "$(cat "$LOG/build_old.rc")" != 0 ]; then tail -20 "$LOG/build_old.log"; exit 1; fi
summary+=("build: $(( $(date +%s) - t0 )) s$(sed -n 's/^prebuilt: packed /; /p' "$LOG/build_new.log" | tr -d '\n')")
k=0
for st in "${stages[@]}"; do
    name=${st%%:*}; arg=""; [ "$name" != "$st" ] && arg=${st#*:}
    k=$((k + 1)); tag=$k-$name
    ts=$(date +%s)
    case $name in
    tests) OUT=$LOG/$tag bash bench/gpu_test.sh --prebuilt --no-sanitizer --seed "$seed" ${arg:+--only "$arg"} >"$LOG/$tag.log" 2>&1 ;;
    san) OUT=$LOG/$tag bash bench/gpu_test.sh --prebuilt --seed "$seed" ${arg:+--only "$arg"} >"$LOG/$tag.log" 2>&1 ;;
    parity) OUT=$LOG/$tag bash bench/device/parity.sh "$old" ${arg:+--only "$arg"} >"$LOG/$tag.log" 2>&1 ;;
    scc) OUT=$LOG/$tag bash bench/bench_gpu_scc.sh >"$LOG/$tag.log" 2>&1 ;;
    cm) OUT=$LOG/$tag bash bench/bench_gpu_cyclemean.sh --quick >"$LOG/$tag.log" 2>&1 ;;
    vi) OUT=$LOG/$tag bash bench/bench_gpu_valiter.sh >"$LOG/$tag.log" 2>&1 ;;
    ovi) OUT=$LOG/$tag bash bench/bench_ovi_gpu.sh >"$LOG/$tag.log" 2>&1 ;;
    sh) OUT=$LOG/$tag bash ${arg//,/ } >"$LOG/$tag.log" 2>&1 ;;
    *) echo "unknown stage $st"; exit 2 ;;
    esac
    rc=$?
    summary+=("$st: exit $rc, $(( $(date +%s) - ts )) s")
    echo "==== $st (exit $rc) ===="; tail -40 "$LOG/$tag.log"
done
echo; echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); seed $seed"
printf '%s\n' "${summary[@]}"
