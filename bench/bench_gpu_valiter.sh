#!/bin/bash
# bench/bench_gpu_valiter.sh -- value iteration on the GPU (kernels/valiter.cu)
# against the CPU on all host cores, on synthetic MDPs with >= 10^8
# transitions generated in memory on the machine that runs the benchmark.
#
#   bench/bench_gpu_valiter.sh [--bin PATH] [--small]
#
# Builds bin/gpu/vi_bench from bench/vi_bench.c (with -DHAVE_VALITER_CPU when
# the library has valiter_solve_cpu, so the CPU twin is timed too) unless
# --bin names a prebuilt one.  --small: sizes for a quick check.  Per MDP:
# the GPU interval-iteration solve to 1e-6 (auto kernel), every sweep-kernel
# variant (40 sweeps), the CPU peer (pthreads Jacobi, same arithmetic, all
# cores) and, on the first MDP, the four graph precomputations and the
# device-to-device copy bandwidth (the ceiling: bytes read + written).
# Effective bandwidth = bytes a sweep must stream / time per sweep; what is
# counted is documented in bench/vi_bench.c.  Prints a markdown table last;
# exit status 1 when a configuration failed.
set -u
cd "$(dirname "$0")/.." || exit 2
export PATH=$PATH:/usr/local/cuda/bin
LOG=${OUT:-tests/out/bench}
mkdir -p "$LOG"
bin=""; small=0
while [ $# -gt 0 ]; do
    case $1 in
    --bin) bin=$2; shift ;;
    --small) small=1 ;;
    *) echo "usage: $0 [--bin PATH] [--small]"; exit 2 ;;
    esac
    shift
done
if [ -z "$bin" ]; then
    command -v nvcc >/dev/null || { echo "bench_gpu_valiter: nvcc not found"; exit 1; }
    make -j"$(nproc)" build/libwarpex.a >"$LOG/vi_build.log" 2>&1 || { tail -20 "$LOG/vi_build.log"; exit 1; }
    def=""
    nm build/libwarpex.a 2>/dev/null | grep -q ' T valiter_solve_cpu$' && def=-DHAVE_VALITER_CPU
    cuda=$(dirname "$(dirname "$(command -v nvcc)")")
    mkdir -p bin/gpu
    cc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -pthread $def -I. -I"$cuda/include" \
        bench/vi_bench.c -o bin/gpu/vi_bench build/libwarpex.a -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" \
        -lcudart_static -ldl -lrt -lstdc++ -lm >>"$LOG/vi_build.log" 2>&1 || { tail -20 "$LOG/vi_build.log"; exit 1; }
    bin=bin/gpu/vi_bench
fi
if [ $small = 1 ]; then s=1; else s=20; fi
# name, then vi_bench options; sizes give >= 10^8 entries at s=20
configs=(
    "local-mdp|--states $((s * 1000000)) --choices 3 --entries 2 --window 1000 --variants --precompute --copy"
    "random-mdp|--states $((s * 1000000)) --choices 3 --entries 2 --window 0 --variants"
    "dtmc|--states $((s * 2000000)) --choices 1 --entries 3 --window 1000 --variants"
    "long-choices|--states $((s * 50000)) --choices 2 --entries 50 --window 1000 --variants"
)
: >"$LOG/vi_bench.log"
status=0
for c in "${configs[@]}"; do
    name=${c%%|*}; opts=${c#*|}
    # shellcheck disable=SC2086
    timeout "${VI_BENCH_TIMEOUT:-120}" "$bin" --name "$name" $opts >>"$LOG/vi_bench.log" 2>&1 ||
        { echo "bench_gpu_valiter: $name failed (rc $?)" | tee -a "$LOG/vi_bench.log"; status=1; }
done
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
copy=$(grep -m1 '^copy_bandwidth_GBps=' "$LOG/vi_bench.log" | cut -d= -f2)
echo
echo "Value iteration on $dev ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores); device-to-device copy ${copy:-?} GB/s."
echo
echo "| MDP | measurement | states | transitions | device | sweeps | ms/sweep | GB/s effective | total s | note |"
echo "|---|---|---|---|---|---|---|---|---|---|"
grep '^ROW|' "$LOG/vi_bench.log" | sed 's/^ROW//; s/$/|/'
exit $status
