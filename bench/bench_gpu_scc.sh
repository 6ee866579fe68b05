#!/bin/bash
# bench/bench_gpu_scc.sh -- GPU SCC (kernels/scc.cu) against Tarjan on the
# three graphgen graphs of issue 4, on a machine with an sm_90 GPU.
#
#   bench/bench_gpu_scc.sh [--prebuilt DRIVER] [--graphgen SRC] [--reps R] [--small] [--variants]
#
# Builds warpex and the driver bench/bench_gpu_scc.c (unless --prebuilt
# gives a driver binary), builds graphgen from $WARPEX_SHARED/tools/graphgen.c
# (default ../shared, as the tests)
# (or --graphgen SRC), generates the 3-D torus 200^3, uniform random 16 M
# vertices of out-degree 4 and the 3-D grid-DAG 200^3 with back edges
# p = 1/64 into a scratch folder, and times each: the device decomposition
# (graph already on the device; best and median of R runs after a warm-up),
# the upload, and Tarjan on one host core in the same run, with the
# partitions compared (canonical ids and counts).  --small uses 50^3 and
# 1 M vertices (a quick check); --variants also times the strategy variants
# (VARIANT lines in the log: no pivot, no trim, ...).  Logs under $OUT (or bench/out/scc); the
# markdown table comes last.  Exit 1 when a partition differs or a step fails.
set -u
cd "$(dirname "$0")/.." || exit 2
LOG=${OUT:-bench/out/scc}
mkdir -p "$LOG"
driver=""; gg_src=${WARPEX_SHARED:-../shared}/tools/graphgen.c; reps=5; small=0; variants=""
while [ $# -gt 0 ]; do
    case $1 in
    --prebuilt) driver=$2; shift ;;
    --graphgen) gg_src=$2; shift ;;
    --reps) reps=$2; shift ;;
    --small) small=1 ;;
    --variants) variants=--variants ;;
    *) echo "usage: $0 [--prebuilt DRIVER] [--graphgen SRC] [--reps R] [--small] [--variants]"; exit 2 ;;
    esac
    shift
done
export PATH=$PATH:/usr/local/cuda/bin
scratch=$(mktemp -d "${TMPDIR:-/tmp}/wx_scc_bench.XXXXXX") || exit 4
trap 'rm -rf "$scratch"' EXIT

if [ -z "$driver" ]; then
    command -v nvcc >/dev/null || { echo "bench_gpu_scc: nvcc not found"; exit 2; }
    make -j"$(nproc)" all >"$LOG/build.log" 2>&1 || { tail -20 "$LOG/build.log"; exit 4; }
    cuda=$(dirname "$(dirname "$(command -v nvcc)")")
    driver=bin/bench_gpu_scc
    cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I. bench/bench_gpu_scc.c -o "$driver" \
        build/libwarpex.a -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" -lcudart_static \
        -ldl -lrt -lstdc++ -lm -pthread >>"$LOG/build.log" 2>&1 || { tail -20 "$LOG/build.log"; exit 4; }
fi
gcc -O3 -std=c11 -o "$scratch/graphgen" "$gg_src" >>"$LOG/build.log" 2>&1 || { echo "graphgen build failed"; exit 4; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$LOG/device.txt" 2>&1

if [ $small = 1 ]; then
    graphs=("torus-50^3 0 50 0" "random-1M-d4 1 1000000 4" "grid-dag-50^3 2 50 0")
else
    graphs=("torus-200^3 0 200 0" "random-16M-d4 1 16000000 4" "grid-dag-200^3 2 200 0")
fi
status=0
rows=()
for spec in "${graphs[@]}"; do
    set -- $spec
    name=$1
    "$scratch/graphgen" "$2" "$3" "$4" "$scratch/$name.egr" >"$LOG/gen.$name.log" 2>&1 || { echo "graphgen $name failed"; status=1; continue; }
    "$driver" "$scratch/$name.egr" --name "$name" --reps "$reps" $variants >"$LOG/$name.log" 2>"$LOG/$name.err"
    rc=$?
    line=$(grep '^RESULT ' "$LOG/$name.log" | tail -1)
    cat "$LOG/gen.$name.log" "$LOG/$name.err" "$LOG/$name.log"
    if [ -z "$line" ]; then
        rows+=("| $name | failed (rc $rc) | | | | | | | | |"); status=1; rm -f "$scratch/$name.egr"; continue
    fi
    [ $rc -ne 0 ] && status=1
    set -- $line
    # RESULT name n m sccs largest best median upload download transpose trim colour relabel stats rounds trim_sweeps colour_sweeps tarjan equal
    # $1 RESULT, 2 name, 3 n, 4 m, 5 sccs, 6 largest, 7 best, 8 median, 9 upload, 10 download,
    # 11 transpose, 12 trim, 13 pivot, 14 colour, 15 relabel, 16 counts, 17 rounds,
    # 18 trim sweeps, 19 levels, 20 tarjan, 21 equal
    speedup=$(awk -v a="${20}" -v b="$7" 'BEGIN { if (b > 0 && a > 0) printf "%.0fx", a / b; else print "n/a" }')
    rows+=("| $2 | $3 | $4 | $5 | $7 | $8 | $9 | ${11} / ${12} / ${13} / ${14} / ${15}+${16} | ${17} / ${18} / ${19} | ${20} | $speedup | ${21} |")
    rm -f "$scratch/$name.egr"
done
# MEC: mec_gpu against mec_cpu on a random MDP (host arrays in and out)
mecn=4000000; [ $small = 1 ] && mecn=200000
"$driver" --mec-random $mecn >"$LOG/mec.log" 2>&1; mrc=$?
cat "$LOG/mec.log"
mline=$(grep '^MECRESULT ' "$LOG/mec.log" | tail -1)
[ -z "$mline" ] || [ $mrc -ne 0 ] && status=1
echo
echo "GPU SCC on $(head -1 "$LOG/device.txt"), $(date -u '+%Y-%m-%d %H:%M UTC'); Tarjan = analysis/scc.c on one host core; ms."
echo
echo "| graph | vertices | edges | SCCs | GPU best ms | GPU median ms | upload ms | transpose / trim / pivot / colour / relabel+counts ms | colour rounds / trim sweeps / push levels | Tarjan ms | speed-up | partitions equal |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do echo "$r"; done
if [ -n "$mline" ]; then
    set -- $mline
    # MECRESULT name states choices entries mecs rounds gpu_ms cpu_ms equal
    echo
    echo "| MDP | states | choices | entries | MECs | rounds | GPU ms (mec_gpu, with transfers) | CPU ms (mec_cpu) | speed-up | equal |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    echo "| $2 | $3 | $4 | $5 | $6 | $7 | $8 | $9 | $(awk -v a="$9" -v b="$8" 'BEGIN { printf "%.0fx", a / b }') | ${10} |"
fi
exit $status
