#!/bin/bash
# bench/bench_gpu_cyclemean.sh -- GPU Howard cycle mean against the CPU Howard
# on SPRAND-like random graphs (a Hamiltonian cycle plus random arcs) with up
# to >= 10^7 edges, in the same run, identical optimum required.
#
#   bench/bench_gpu_cyclemean.sh [--prebuilt BIN] [--quick]
#
# Builds bin/gpu/cm_gpu_gen from bench/cm_gpu_gen.c against build/libwarpex.a
# (with -DHAVE_CYCLEMEAN_CPU when the library has cyclemean_howard_cpu; without
# it only the GPU runs), or uses BIN.  Each graph is generated in memory by the
# driver (deterministic seeds), solved by the GPU (best of 3 timed calls after
# a warm-up; the time is the whole call: allocation, copies both ways and
# solve) and by the CPU Howard (one call).  With LEMON_MMC naming the LEMON
# HowardMmc driver (bench/peers/lemon_mmc.cc, built static by
# bench/bench_cm_cpu.sh) the same graph is also written in DIMACS form
# (`cm_gpu_gen --write`) and solved by LEMON in the same run (cycle means
# only: the driver has no transit times); its optimum must be identical.  Logs go to $OUT (or bench/out/cyclemean); a
# markdown table is printed last.  Exit 1 when an optimum differs or a run
# fails.
set -u
cd "$(dirname "$0")/.." || exit 2
LOG=${OUT:-bench/out/cyclemean}
mkdir -p "$LOG"
bin=""; quick=0
while [ $# -gt 0 ]; do
    case $1 in
    --prebuilt) bin=$2; shift ;;
    --quick) quick=1 ;;
    *) echo "usage: $0 [--prebuilt BIN] [--quick]"; exit 2 ;;
    esac
    shift
done
export PATH=$PATH:/usr/local/cuda/bin
if [ -z "$bin" ]; then
    command -v nvcc >/dev/null || { echo "bench_gpu_cyclemean: nvcc not found"; exit 2; }
    make -j"$(nproc)" build/libwarpex.a >"$LOG/build.log" 2>&1 || { tail -20 "$LOG/build.log"; exit 1; }
    def=""
    nm build/libwarpex.a 2>/dev/null | grep -q ' T cyclemean_howard_cpu$' && def=-DHAVE_CYCLEMEAN_CPU
    cuda=$(dirname "$(dirname "$(command -v nvcc)")")
    mkdir -p bin/gpu
    bin=bin/gpu/cm_gpu_gen
    cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter $def -I. bench/cm_gpu_gen.c \
        -o "$bin" build/libwarpex.a -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" \
        -lcudart_static -ldl -lrt -lstdc++ -lm -pthread >>"$LOG/build.log" 2>&1 || { tail -20 "$LOG/build.log"; exit 1; }
fi

# name | driver arguments
cases=(
    "sprand 1M/10M min|--n 1000000 --m 10000000 --seed 1"
    "sprand 1M/10M max|--n 1000000 --m 10000000 --seed 2 --max"
    "sprand 4M/16M min, weights -10^4..10^4|--n 4000000 --m 16000000 --seed 3 --wmin -10000"
    "sprand 1M/10M ratio, t in 1..100|--n 1000000 --m 10000000 --seed 4 --tmax 100"
    "sprand 250K/25M min (deg 100)|--n 250000 --m 25000000 --seed 5"
    "sprand 10M/30M min (GPU only)|--n 10000000 --m 30000000 --seed 6 --no-cpu"
)
[ $quick = 1 ] && cases=("sprand 100K/1M min|--n 100000 --m 1000000 --seed 1")
status=0
rows=()
for c in "${cases[@]}"; do
    name=${c%%|*}; args=${c#*|}
    log="$LOG/cm_$(echo "$name" | tr -c 'A-Za-z0-9' '_' | cut -c1-40).log"
    lemon="-"; lspeed="-"
    dimacs=""
    if [ -n "${LEMON_MMC:-}" ] && [ -x "$LEMON_MMC" ] && [[ "$args" != *--tmax* ]]; then
        dimacs=${CM_TMP:-/tmp}/cm_bench_case.dimacs
        args="$args --write $dimacs"
    fi
    # shellcheck disable=SC2086
    timeout "${CM_BENCH_TIMEOUT:-300}" "$bin" $args >"$log" 2>&1
    rc=$?
    r=$(grep '^RESULT ' "$log" | tail -1)
    if [ $rc -ne 0 ] || [ -z "$r" ]; then
        status=1
        tail -5 "$log"
        rows+=("| $name | - | - | - | FAILED (rc $rc) | - | - | - | - | - | - | - | - |")
        continue
    fi
    read -r _ n m prob scc gpu grounds cpu crounds num den same <<<"$r"
    [ "$same" = 0 ] && status=1
    if [ -n "$dimacs" ] && [ -s "$dimacs" ]; then
        flag=""; [[ "$args" == *--max* ]] && flag=--max
        # lemon N M FRACTION READ_S SOLVE_S
        set -- $(timeout "${CM_BENCH_TIMEOUT:-300}" "$LEMON_MMC" "$dimacs" $flag 2>>"$log")
        want=$num/$den; [ "$den" = 1 ] && want=$num
        if [ -z "${4:-}" ]; then
            lemon="no answer within ${CM_BENCH_TIMEOUT:-300} s"
        elif [ "$4" = "$want" ]; then
            lemon=$6; lspeed=$(awk -v l="$6" -v g="$gpu" 'BEGIN{printf "%.1f", l/g}')
        else
            lemon="MISMATCH ($4)"; status=1
        fi
        rm -f "$dimacs"
    fi
    if [ "$cpu" = "-1.0000" ]; then cpu="-"; speed="-"; else speed=$(awk -v c="$cpu" -v g="$gpu" 'BEGIN{printf "%.1f", c/g}'); fi
    rows+=("| $name | $n | $m | $scc | $gpu | $grounds | $cpu | $crounds | $speed | $lemon | $lspeed | $num/$den | $same |")
done
echo
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); CPU: $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "| graph | n | m | SCC CPU s | GPU Howard s | GPU rounds | CPU Howard s | CPU rounds | CPU/GPU | LEMON s | LEMON/GPU | optimum | identical |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do echo "$r"; done
exit $status
