#!/bin/bash
# bench/bench_gpu.sh -- GPU exploration throughput on the example families,
# with the CPU backend on all host cores in the same run, and the ratio.
#
#   bench/bench_gpu.sh [--prebuilt] [--large DIR] [--no-cpu] [--sweep] [FILE.exp ...]
#
# Instances: the FILEs given, else the committed examples (largest of each
# family) plus, with --large DIR, the big ones `python3 examples/gen.py
# --large DIR` writes (generated when DIR is empty), else synthetic random
# networks when the front end is not in this build.  Each instance: one GPU
# run (default knobs) and one explore_cpu run (counts compared: MISMATCH
# fails); --sweep adds GPU runs over blocks x -k, threads, textures, level
# mode, the warp-wide flush (--proto 3), the table taken at once
# (--grow-from none), the phase profile (--profile) and the general
# successor generator with groups of 1, 2, 4, 8 threads (--gen general
# --group G) on the first instance.  The "B/state" column is the call's peak device memory over its
# states (table, queues, buffers).  Logs in $OUT (or bench/out); a table last.
# Plot: copy the measured rows into bench/data/explorer_h100.tsv, then bench/plot.sh
# redraws docs/img/explorer_h100.png.
set -u
cd "$(dirname "$0")/.." || exit 2
LOG=${OUT:-bench/out}
mkdir -p "$LOG"
prebuilt=0; large=""; cpu=--cpu; sweep=0; files=()
while [ $# -gt 0 ]; do
    case $1 in
    --prebuilt) prebuilt=1 ;;
    --large) large=$2; shift ;;
    --no-cpu) cpu="" ;;
    --sweep) sweep=1 ;;
    *) files+=("$1") ;;
    esac
    shift
done
export PATH=$PATH:/usr/local/cuda/bin
B=bin/gpu/bench_gpu
if [ $prebuilt = 0 ] || [ ! -x $B ]; then
    make -j"$(nproc)" all >"$LOG/build.log" 2>&1 || { tail -20 "$LOG/build.log"; exit 1; }
    defs=""
    syms=$(nm build/libwarpex.a 2>/dev/null)
    grep -q ' T network_from_file$' <<<"$syms" && grep -q ' T image_compile$' <<<"$syms" || defs="$defs -DNO_FRONTEND"
    grep -q ' T explore_cpu$' <<<"$syms" && defs="$defs -DHAVE_EXPLORE_CPU"
    cuda=$(dirname "$(dirname "$(command -v nvcc)")")
    mkdir -p bin/gpu
    cc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -pthread $defs -I. \
        tests/gpu/bench_gpu.c -o $B build/libwarpex.a -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" \
        -lcudart_static -ldl -lrt -lstdc++ -lm >>"$LOG/build.log" 2>&1 || { tail -20 "$LOG/build.log"; exit 1; }
    echo "bench_gpu built with:$defs" >>"$LOG/build.log"
fi
frontend=1
grep -q NO_FRONTEND "$LOG/build.log" 2>/dev/null && frontend=0
big=()
if [ ${#files[@]} -eq 0 ] && [ $frontend = 1 ] && [ -d examples ]; then
    if [ -n "$large" ]; then
        [ -n "$(ls -A "$large" 2>/dev/null)" ] || python3 examples/gen.py --large "$large" >"$LOG/gen.log" 2>&1
        # compared with the CPU backend
        for f in milner/milner_n19 philosophers/philosophers_n11 buffers/buffers_n23_d1 tokenring/tokenring_n15; do
            [ -f "$large/$f.exp" ] && files+=("$large/$f.exp")
        done
        # GPU only (the CPU would take minutes)
        for f in milner/milner_n22 philosophers/philosophers_n12 buffers/buffers_n27_d1; do
            [ -f "$large/$f.exp" ] && big+=("$large/$f.exp")
        done
    fi
    for d in examples/*/; do
        f=$(ls -S "$d"*.exp 2>/dev/null | head -1)
        [ -n "$f" ] && files+=("$f")
    done
fi
: >"$LOG/bench.log"
status=0
if [ ${#files[@]} -gt 0 ]; then
    $B $cpu "${files[@]}" 2>&1 | tee -a "$LOG/bench.log" || status=1
    [ ${#big[@]} -gt 0 ] && { $B "${big[@]}" 2>&1 | tee -a "$LOG/bench.log" || status=1; }
else
    $B $cpu --synthetic 2:13:6 5:15:6 7:16:6 2>&1 | tee -a "$LOG/bench.log" || status=1
fi
if [ $sweep = 1 ]; then
    first=${files[0]:-}
    syn=""; [ -z "$first" ] && { syn=--synthetic; first=5:15:6; }
    # blocks x iterations per launch (GPUexplore's Figures 5 and 6); 264 =
    # every block resident on 132 SMs, 528 = two waves
    for b in 66 132 264 528; do for k in 1 8 64 256; do
        $B $syn -k $k --blocks $b $first 2>&1 | tee -a "$LOG/bench.log"
    done; done
    for t in 128 256; do $B $syn --threads $t $first 2>&1 | tee -a "$LOG/bench.log"; done
    for tex in 0 1; do $B $syn --tex $tex $first 2>&1 | tee -a "$LOG/bench.log"; done
    $B $syn --level $first 2>&1 | tee -a "$LOG/bench.log"
    # the old warp-wide flush of 3+-word slots, the table taken at once
    # (no growth), and the clock64 phase counters
    $B $syn --proto 3 $first 2>&1 | tee -a "$LOG/bench.log"
    $B $syn --grow-from none $first 2>&1 | tee -a "$LOG/bench.log"
    $B $syn --profile $first 2>&1 | tee -a "$LOG/bench.log"
    # the general generator (vector groups) beside the default fast one,
    # over its group sizes
    for g in 1 2 4 8; do $B $syn --gen general --group $g $first 2>&1 | tee -a "$LOG/bench.log"; done
fi
grep -q MISMATCH "$LOG/bench.log" && status=1
echo
echo "| instance | backend | states | transitions | seconds | Mstates/s | Mtrans/s | note |"
echo "|---|---|---|---|---|---|---|---|"
awk '$2=="gpu" && $3=="states" {printf "| %s | gpu | %s | %s | %s (kernels %s) | %s | %s | %s B/state |\n", $1, $4, $6, $7, $10, $12, $14, $16}
     $2=="cpu" && $3=="states" {r=""; for(i=1;i<=NF;i++) if($i=="gpu/cpu") r=$(i+1); printf "| %s | cpu %s thr | %s | %s | %s | %s | %s | gpu/cpu %s %s |\n", $1, $(NF>=17?16:15), $4, $6, $7, $9, $11, r, ($0 ~ /MISMATCH/ ? "MISMATCH" : "")}' "$LOG/bench.log"
exit $status
