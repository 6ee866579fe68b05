#!/bin/bash
# bench/bench_gpu_valiter.sh -- value iteration on the GPU (kernels/vi/)
# against the CPU on all host cores, on synthetic MDPs with >= 10^8
# transitions generated in memory on the machine that runs the benchmark.
#
#   bench/bench_gpu_valiter.sh [--bin PATH] [--small] [--warpex PATH] [--warpex-old PATH] [--cgen PATH]
#                              [--no-consensus] [--only-consensus] [--no-precompute]
#
# Builds bin/gpu/vi_bench from bench/vi_bench.c (with -DHAVE_VALITER_CPU when
# the library has valiter_solve_cpu, so the CPU twin is timed too) unless
# --bin names a prebuilt one.  --small: sizes for a quick check.  Per MDP:
# the GPU interval-iteration solve to 1e-6 (auto kernel), every sweep-kernel
# variant (40 sweeps), the CPU peer (pthreads Jacobi, same arithmetic, all
# cores) and, on the first MDP, the four graph precomputations and the
# device-to-device copy bandwidth (the ceiling: bytes read + written).
# Leveled systems (vi_bench --levels): plain interval iteration on the
# whole system against topological solving level by level (ungrouped, and
# under a cap of a quarter of the system's bytes: groups), and the CPU twin.
# Effective bandwidth = bytes a sweep must stream / time per sweep.  BYTES
# THAT MUST BE STREAMED per sweep, for the representation the kernel reads:
# the system once (state offsets: 8 B per state, or 4 B with the tile
# kernels' 32-bit copies (kinds 5, 16, 17); choice offsets 8 B or 4 B per
# choice; constants 8 B per choice; 12 B per entry: 4 B target + 8 B
# probability) and each vector read once and written once (16 B per state
# for lo, 16 more for hi).
# The packed sweep (kernels/vi/, automatic where a system has <= 256
# distinct probabilities and constants: the *-few configs, made with
# vi_bench --few-numbers) reads 1 B per state, 2 B per choice and 4 B per
# entry; its rows also give "unpacked bytes" GB/s (kind 5's bytes over the
# packed time) to compare with the unpacked kernel on the same MDP.
# Not counted: the gathers x[t[e]] (8 B, or 16 B for a (lo, hi) pair, per
# entry: cache hits when targets are local, a 32 B DRAM sector each when
# they are uniform -- which is why the random-target row stays far below the
# copy bandwidth) and the tile table (4 B per tile).  The ceiling is the
# device-to-device cudaMemcpy of a 2 GiB buffer measured in the same run
# (bytes read + bytes written per second).  Compare kernels by ms/sweep: the
# default kernel streams fewer bytes for the same work.
#
# END TO END (unless --no-consensus): PRISM's consensus N=6 K=2 (1 258 240
# states) generated with bench/consensus_gen.c, then `warpex check` of
# "disagree" (Pmax=? [ F "finished"&!"agree" ], sound interval iteration to
# 1e-6) with --backend gpu and --backend cpu (all host cores), from the .tra
# file to the answer: read (.tra + .lab), precomputation, system build,
# solve, and the process's wall time (GPU three times, once with
# --method topological (level by level), three times with --method pi
# (certified policy iteration), three times with --solver inplace; CPU
# once).  --warpex names the binary (default
# bin/warpex), --warpex-old an older build to time beside it (GPU three times;
# may be repeated), --cgen a prebuilt generator; --only-consensus skips the
# synthetic MDPs.  Columns from the JSON where the binary reports them: "mec
# s" (the MEC decomposition inside build), "gpu init s" (the GPU probe and
# CUDA context, on a thread overlapping the read) and "init wait s" (what
# the read did not hide), "in-process s" (cmd_check's own span) and
# "outside s" = process wall - in-process (process start, exit, CUDA
# teardown).
#
# Prints markdown tables last; exit status 1 when a configuration failed.
set -u
cd "$(dirname "$0")/.." || exit 2
export PATH=$PATH:/usr/local/cuda/bin
LOG=${OUT:-tests/out/bench}
mkdir -p "$LOG"
bin=""; small=0; warpex=bin/warpex; warpex_old=""; cgen=""; consensus=1; synthetic=1; noprecomp=0
while [ $# -gt 0 ]; do
    case $1 in
    --bin) bin=$2; shift ;;
    --small) small=1 ;;
    --warpex) warpex=$2; shift ;;
    --cgen) cgen=$2; shift ;;
    --warpex-old) warpex_old="$warpex_old $2"; shift ;;
    --no-consensus) consensus=0 ;;
    --only-consensus) synthetic=0 ;;
    --no-precompute) noprecomp=1 ;;
    *) echo "usage: $0 [--bin PATH] [--small] [--warpex PATH] [--warpex-old PATH] [--cgen PATH] [--no-consensus] [--only-consensus] [--no-precompute]"; exit 2 ;;
    esac
    shift
done
if [ -z "$bin" ] && [ $synthetic = 1 ]; then
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
    # few distinct numbers (as PRISM models have): the packed sweep applies
    # (--policy --pi-sweeps 20: also certified policy iteration after 20 sweeps;
    # the generator's systems converge within ~130 sweeps, too fast for 200)
    "local-few|--states $((s * 1000000)) --choices 3 --entries 2 --window 1000 --few-numbers --variants --policy --pi-sweeps 20"
    "random-few|--states $((s * 1000000)) --choices 3 --entries 2 --window 0 --few-numbers --variants"
    # topological solving (vi_bench --levels): acyclic levels of 1000 and of 10
    # states (per-level cost), and 10 big cyclic levels (sweep throughput)
    "dag-levels|--states $((s * 100000)) --choices 3 --entries 2 --window 1000 --levels 1000"
    "thin-levels|--states $((s * 10000)) --choices 3 --entries 2 --window 1000 --levels 10"
    "cyclic-levels|--states $((s * 1000000)) --choices 3 --entries 2 --window 1000 --levels $((s * 100000)) --level-cyclic"
)
: >"$LOG/vi_bench.log"
status=0
[ $synthetic = 1 ] || configs=()
for c in "${configs[@]}"; do
    name=${c%%|*}; opts=${c#*|}
    case " ${VI_BENCH_SKIP:-} " in *" $name "*) continue ;; esac  # names to leave out
    [ $noprecomp = 1 ] && opts=${opts/--precompute/}
    # shellcheck disable=SC2086
    timeout "${VI_BENCH_TIMEOUT:-120}" "$bin" --name "$name" $opts >>"$LOG/vi_bench.log" 2>&1 ||
        { echo "bench_gpu_valiter: $name failed (rc $?)" | tee -a "$LOG/vi_bench.log"; status=1; }
done
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
if [ $synthetic = 1 ]; then
copy=$(grep -m1 '^copy_bandwidth_GBps=' "$LOG/vi_bench.log" | cut -d= -f2)
echo
echo "Value iteration on $dev ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores); device-to-device copy ${copy:-?} GB/s."
echo
echo "| MDP | measurement | states | transitions | device | sweeps | ms/sweep | GB/s effective | total s | note |"
echo "|---|---|---|---|---|---|---|---|---|---|"
grep '^ROW|' "$LOG/vi_bench.log" | sed 's/^ROW//; s/$/|/'
fi

if [ $consensus = 1 ]; then
    if [ -z "$cgen" ]; then
        cgen=bin/gpu/consensus_gen
        mkdir -p bin/gpu
        cc -std=c11 -O2 -Wall -Wextra -Werror bench/consensus_gen.c -o "$cgen" || { echo "consensus_gen: build failed"; exit 1; }
    fi
    D=$(mktemp -d)
    ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
    t0=$(date +%s%N)
    "$cgen" --no-sta 6 2 "$D/c62" >"$LOG/consensus_gen.log" 2>&1 || { echo "consensus_gen failed"; exit 1; }
    tg=$(ms "$t0")
    prop='Pmax=? [ F "finished"&!"agree" ]'
    echo
    echo "consensus N=6 K=2 ($(cat "$LOG/consensus_gen.log"), .tra $(stat -c %s "$D/c62.tra") bytes, generated in ${tg} s), disagree = $prop, interval iteration, eps 1e-6."
    echo
    echo "| binary | backend | run | value (lo, hi) | iterations | read s | gpu init s | init wait s | precomp s | build s | mec s | solve s | us/sweep | in-process s | outside s | process wall s |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    # binary, backend, run tag, extra options
    # unpacked*: the same binary with WARPEX_VI_KERNEL=5 (the unpacked sweep
    # kernel before the tiles3 sweeps; kernels/vi/), tiles3*: =16
    # (the unpacked default now), unpacked-inplace*: =7 (kind 5's in-place twin)
    # packed-evict*/packed-cached*: the packed sweep pinned to evict-first
    # (=8) or cached (=10) loads of the streamed arrays; persist-cached*:
    # the persistent packed sweep with cached loads (=14; the default is
    # its evict-first twin, 15, where the vectors fit in half of L2)
    runs=("$warpex gpu 1" "$warpex gpu 2" "$warpex gpu 3" "$warpex gpu unpacked1" "$warpex gpu unpacked2"
          "$warpex gpu tiles3-1" "$warpex gpu tiles3-2"
          "$warpex gpu packed-evict1" "$warpex gpu packed-evict2" "$warpex gpu packed-cached1" "$warpex gpu packed-cached2"
          "$warpex gpu persist-cached1" "$warpex gpu persist-cached2"
          "$warpex gpu topo1 --method topological"
          "$warpex gpu pi1 --method pi" "$warpex gpu pi2 --method pi" "$warpex gpu pi3 --method pi"
          "$warpex gpu inplace1 --solver inplace"
          "$warpex gpu inplace2 --solver inplace" "$warpex gpu inplace3 --solver inplace"
          "$warpex gpu unpacked-inplace1 --solver inplace" "$warpex cpu 1")
    for w in $warpex_old; do runs+=("$w gpu 1" "$w gpu 2" "$w gpu 3"); done
    for x in "${runs[@]}"; do
        read -r w bk r extra <<<"$x"
        t0=$(date +%s%N)
        j="$LOG/c62_$(basename "$w")_$bk$r.json"
        # shellcheck disable=SC2086
        envs=()
        case $r in
        unpacked-inplace*) envs=(WARPEX_VI_KERNEL=7) ;; unpacked*) envs=(WARPEX_VI_KERNEL=5) ;;
        tiles3*) envs=(WARPEX_VI_KERNEL=16) ;;
        packed-evict*) envs=(WARPEX_VI_KERNEL=8) ;; packed-cached*) envs=(WARPEX_VI_KERNEL=10) ;;
        persist-cached*) envs=(WARPEX_VI_KERNEL=14) ;;
        esac
        env "${envs[@]}" "$w" check "$D/c62.tra" --lab "$D/c62.lab" --prop "$prop" --backend $bk $extra --json >"$j" 2>&1 ||
            { rc=$?; echo "| $(basename "$w") | $bk | $r | FAILED rc $rc: $(head -c 120 "$j") | | | | | | | | | | | | |"; status=1; continue; }
        wall=$(ms "$t0")
        f() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$j" | head -1; }
        inp=$(f seconds)
        out=""; [ -n "$inp" ] && out=$(awk -v a="$wall" -v b="$inp" 'BEGIN { printf "%.3f", a - b }')
        echo "| $(basename "$w") | $bk | $r | $(f lo), $(f hi) | $(f iterations) | $(f read_seconds) | $(f gpu_init_seconds) | $(f gpu_wait_seconds) | $(f precomputation_seconds) | $(f build_seconds) | $(f mec_seconds) | $(f solve_seconds) | $(awk -v x="$(f sweep_seconds)" 'BEGIN { if (x != "") printf "%.1f", x * 1e6 }') | $inp | $out | $wall |"
    done
    rm -rf "$D"
fi
exit $status
