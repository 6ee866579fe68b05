#!/bin/bash
# bench/device/pending.sh -- one device call for the newest GPU paths
# (docs/gpu.md, "Device status of the newest GPU paths"), most important
# first, so that a call cut short by its time limit still answers the first
# ones.  Each stage's log is under $OUT (call.sh).
#
#   bench/device/pending.sh [tests|measure|first|next] [--prebuilt] [--seed N]
#   bench/device/pending.sh stages [--prebuilt] [--seed N] STAGE...
#
# first: the newest kernels' tests, POR's breakdown, the parity and the MDP
# tests in one call (when device time is short);
# tests: the test stages only, measure: the measurements only (each fits
# one call of 600 s; run them as two calls: t_gpu_check needs minutes
# uncut, GPU_TEST_TIMEOUT=240 a program); neither: both, in one call;
# stages: the older binaries unpacked as below, then call.sh's STAGEs;
# next: the paths whose defaults wait on a device run, in one call, with
# binaries packed by `bench/device/prebuilt.sh pack --define GX_POR_BITS=1
# --define MDP_GPU_SKELETON=1 --define GX_LEVEL_GROW=1`: t_gpu_por (its
# tiny-table cases grow between levels) and san_por.sh on the bit sets,
# the GPU MDP tests on the skeleton (t_gpu_mdp's skeleton section checks
# what is fetched), POR's breakdown beside the bench_gpu of before the bit
# sets (.pre/porbefore_bench_gpu.xz, where packed), explore --prop on
# consensus N=8 K=2 with auto and policy iteration, GPUexplore 2.0's
# partial-order reductions beside warpex's where .peers holds its build
# (bench/peers/gpuexplore.sh; carry .peers too).  Then, a call of its
# own on the same machine: `GPU_SAN_TIMEOUT=170 bash bench/device/call.sh
# --prebuilt san:test_gpu` (racecheck's verdict: 60 s gave none).
#
# --prebuilt: the binaries from .pre/bin.tar.xz (bench/device/prebuilt.sh
# pack, here; carry ".pre"), so the call spends no time building.  Older
# binaries packed by `prebuilt.sh old TREE NAME` (.pre/NAME_warpex.xz) are
# unpacked into .pre/NAME/bin/warpex: with NAME old (the pre-redesign
# binary, fe333fa) the parity of every stage runs, with NAME prio_before
# (an earlier tree of the explorer) the explorer's parity against it;
# without them those stages are skipped.
#
# Stages, most important first.  tests: test_gpu, the GPU MDP tests against
# the CPU twin (test_gpu_mdp, t_gpu_mdp -- with util/config.h's
# MDP_GPU_SKELETON at 1 in the packed build, its skeleton section checks
# the model fetched on demand --, t_gpu_mdp_dev), t_gpu_por (both
# generators where GX_POR_FAST compiles the fast one), compute-sanitizer
# on test_gpu and on --por (san_por.sh), t_gpu_check uncut.  measure: the
# parity of every stage against fe333fa (.pre/old) and, where packed, the
# explorer's against .pre/prio_before (next: a3c76f2, before the
# twenty-second session's GPU changes), .pre/porfast (main built with
# GX_POR_FAST 1: its four more explorer kernels) and .pre/mainplain (main
# built without -lineinfo, as the others are), POR's cost per state split into its steps
# (por_breakdown.sh) and its throughput (por_large.sh), explore --prop end
# to end on consensus N=8 K=2 (mdp_explore.sh; beside .pre/prev where
# packed), the tree store's capacity on milner n=28 (1.13*10^10 states),
# the CPU MDP explorer's branch against main where packed
# (.pre/branch_warpex.xz).  Storm needs its own call on the same warm
# machine (carry .storm and build/gen; bin/ stays): `bash
# bench/device/storm_prism.sh 6 2 > $OUT/storm_prism.log` (explore + check
# of the network against Storm building and checking the PRISM model).
set -u
cd "$(dirname "$0")/../.." || exit 2
part=both
case ${1:-} in tests | measure | first | next | stages) part=$1; shift ;; esac
export WARPEX_GPU_MDP_SEEDS=${WARPEX_GPU_MDP_SEEDS:-20} WARPEX_GPU_PRIO_SEEDS=${WARPEX_GPU_PRIO_SEEDS:-40}
export WARPEX_GPU_POR_SEEDS=${WARPEX_GPU_POR_SEEDS:-20} GPU_TEST_TIMEOUT=${GPU_TEST_TIMEOUT:-240}
export GPU_SAN_TIMEOUT=${GPU_SAN_TIMEOUT:-60}
for f in .pre/*_warpex.xz; do
    [ -f "$f" ] || continue
    n=${f#.pre/}; n=${n%_warpex.xz}
    [ -x ".pre/$n/bin/warpex" ] || { mkdir -p ".pre/$n/bin" && xz -dc "$f" > ".pre/$n/bin/warpex" &&
        chmod +x ".pre/$n/bin/warpex"; }
done
# older bench_gpu builds (.pre/NAME_bench_gpu.xz) into .pre/NAME/bench_gpu
for f in .pre/*_bench_gpu.xz; do
    [ -f "$f" ] || continue
    n=${f#.pre/}; n=${n%_bench_gpu.xz}
    [ -x ".pre/$n/bench_gpu" ] || { mkdir -p ".pre/$n" && xz -dc "$f" > ".pre/$n/bench_gpu" && chmod +x ".pre/$n/bench_gpu"; }
done
parity=()
[ -x .pre/old/bin/warpex ] && parity=(sh:bench/device/parity.sh,.pre/old,--rounds,5)
[ -x .pre/prio_before/bin/warpex ] &&
    parity+=(sh:bench/device/parity.sh,.pre/prio_before,--rounds,5,--only,explore)
# a build of this tree with GX_POR_FAST 1 (`prebuilt.sh old TREE porfast`):
# does the fast generator's --por kernels' module cost the explorer?
[ -x .pre/porfast/bin/warpex ] &&
    parity+=(sh:bench/device/parity.sh,.pre/porfast,--rounds,5,--only,explore)
# main built as the old binaries are (`prebuilt.sh old TREE mainplain`: no
# -lineinfo) against fe333fa and against the GX_POR_FAST 1 build: do the
# packed binary's line tables weigh on the explorer's parity?
if [ -x .pre/mainplain/bin/warpex ]; then
    parity+=(sh:bench/device/parity.sh,.pre/old,--rounds,5,--only,explore,--new,.pre/mainplain/bin/warpex)
    [ -x .pre/porfast/bin/warpex ] &&
        parity+=(sh:bench/device/parity.sh,.pre/porfast,--rounds,5,--only,explore,--new,.pre/mainplain/bin/warpex)
fi
export CPU=0 HOST=0 REPEAT=1
prop=(sh:bench/device/mdp_explore.sh,--methods,auto+pi,8,2)
[ -x .pre/prev/bin/warpex ] && prop+=(sh:bench/device/mdp_explore.sh,--bin,.pre/prev/bin/warpex,8,2)
tests=(tests:test_gpu,test_gpu_mdp,t_gpu_mdp,t_gpu_mdp_dev,t_gpu_por san:test_gpu sh:bench/device/san_por.sh
       tests:t_gpu_check)
# the CPU MDP explorer's parallel numbering (branch cpu-mdp-parallel-numbering,
# packed as .pre/branch_warpex.xz) against this binary, 1 and 16 threads
branch=()
[ -x .pre/branch/bin/warpex ] && branch=(sh:bench/device/mdp_cpu_threads.sh,7,2,1,16
    sh:bench/device/mdp_cpu_threads.sh,--bin,.pre/branch/bin/warpex,7,2,1,16)
measure=("${parity[@]}" sh:bench/device/por_breakdown.sh sh:bench/device/por_large.sh,--reps,1 "${prop[@]}"
         sh:bench/device/tree_capacity.sh,--stores,tree,--limit,400,milner/milner_n28 "${branch[@]}")
# first: one call of what matters most when few calls are left -- the tests
# of the newest kernels and paths, POR's breakdown, the parity
first=(tests:test_gpu,t_gpu_por,test_gpu_mdp,t_gpu_mdp,t_gpu_mdp_dev sh:bench/device/san_por.sh
       sh:bench/device/por_breakdown.sh,--reps,2 "${parity[@]}" san:test_gpu)
[ $part = stages ] && exec bash bench/device/call.sh "$@"
next=(tests:t_gpu_por,test_gpu_mdp,t_gpu_mdp,t_gpu_mdp_dev sh:bench/device/san_por.sh
      sh:bench/device/por_breakdown.sh,--reps,2)
[ -x .pre/porbefore/bench_gpu ] && next+=(sh:bench/device/por_breakdown.sh,--reps,2,--bench,.pre/porbefore/bench_gpu)
next+=(sh:bench/device/por_large.sh,--reps,1 sh:bench/device/mdp_explore.sh,--methods,auto+pi,8,2)
# GPUexplore 2.0's reductions beside warpex's (bench/peers/gpuexplore.sh build, here; carry .peers)
[ -x .peers/gpuexplore/master ] && next+=(sh:bench/peers/gpuexplore.sh,run)
stages=()
case $part in
first) stages=("${first[@]}") ;;
next) stages=("${next[@]}") ;;
*) [ $part = measure ] || stages+=("${tests[@]}")
   [ $part = tests ] || stages+=("${measure[@]}") ;;
esac
exec bash bench/device/call.sh "$@" "${stages[@]}"
