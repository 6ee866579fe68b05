#!/bin/bash
# bench/device/pending.sh -- one device call for the newest GPU paths
# (docs/gpu.md, "Device status of the newest GPU paths"), most important
# first, so that a call cut short by its time limit still answers the first
# ones.  Each stage's log is under $OUT (call.sh).
#
#   bench/device/pending.sh [tests|measure] [--prebuilt] [--seed N]
#
# tests: the test stages only, measure: the measurements only (each fits
# one call of 600 s; run them as two calls: t_gpu_check needs minutes
# uncut, GPU_TEST_TIMEOUT=240 a program); neither: both, in one call.
#
# --prebuilt: the binaries from .pre/bin.tar.xz (bench/device/prebuilt.sh
# pack, here; carry ".pre"), so the call spends no time building.  Older
# binaries packed by `prebuilt.sh old TREE NAME` (.pre/NAME_warpex.xz) are
# unpacked into .pre/NAME/bin/warpex: with NAME old (the pre-redesign
# binary, fe333fa) the parity of MEC and value iteration runs, with NAME
# prio_before (7126fe2^, before the GPU priorities) the explorer's parity
# against it; without them those stages are skipped.
#
# Stages, most important first: test_gpu (explore_tile's launch start and
# successor-set pointers moved into helpers, the twenty-first session's
# review; and compute-sanitizer on it at the end), the GPU MDP tests against the CPU twin,
# now with the explored MDP and the maybe-state system copied into host
# memory through pinned staging buffers (kernels/hostcopy.cu: test_gpu_mdp,
# t_gpu_mdp, t_gpu_mdp_dev), the POR scratch bound's smaller grid
# (t_gpu_por, its last checks), t_gpu_check uncut; then `explore --prop` end to
# end on consensus N=8 K=2 with this binary (explore --method auto and pi:
# policy iteration solved consensus 2.5x faster at N=6) and, where packed as
# .pre/prev_warpex.xz (`prebuilt.sh old TREE prev`, TREE = the commit
# before the staged copies, d9e33b2), with that one in the same call (GPU
# only: the CPU explorations took the last call's time), the CPU MDP
# explorer's branch against main where packed (.pre/branch_warpex.xz), then the parity
# of every stage against fe333fa, POR's throughput (por_large.sh: mutex
# n=5, and abp d=4000 now that the reduction's scratch shrinks the grid
# instead of refusing), the tree store's capacity: milner n=28 (1.13*10^10
# states, tree only: the flat table fills at 4.1*10^9), where it fills.
# Storm needs its own call on the same warm machine (carry .storm and
# build/gen; bin/ stays): `bash bench/device/storm_prism.sh 6 2 >
# $OUT/storm_prism.log` (explore + check of the network against Storm
# building and checking the PRISM model).
set -u
cd "$(dirname "$0")/../.." || exit 2
part=both
case ${1:-} in tests | measure) part=$1; shift ;; esac
export WARPEX_GPU_MDP_SEEDS=${WARPEX_GPU_MDP_SEEDS:-20} WARPEX_GPU_PRIO_SEEDS=${WARPEX_GPU_PRIO_SEEDS:-40}
export WARPEX_GPU_POR_SEEDS=${WARPEX_GPU_POR_SEEDS:-20} GPU_TEST_TIMEOUT=${GPU_TEST_TIMEOUT:-240}
export GPU_SAN_TIMEOUT=${GPU_SAN_TIMEOUT:-60}
for f in .pre/*_warpex.xz; do
    [ -f "$f" ] || continue
    n=${f#.pre/}; n=${n%_warpex.xz}
    [ -x ".pre/$n/bin/warpex" ] || { mkdir -p ".pre/$n/bin" && xz -dc "$f" > ".pre/$n/bin/warpex" &&
        chmod +x ".pre/$n/bin/warpex"; }
done
parity=()
[ -x .pre/old/bin/warpex ] && parity=(sh:bench/device/parity.sh,.pre/old,--rounds,5)
[ -x .pre/prio_before/bin/warpex ] &&
    parity+=(sh:bench/device/parity.sh,.pre/prio_before,--rounds,5,--only,explore)
export CPU=0 HOST=0 REPEAT=1
prop=(sh:bench/device/mdp_explore.sh,--methods,auto+pi,8,2)
[ -x .pre/prev/bin/warpex ] && prop+=(sh:bench/device/mdp_explore.sh,--bin,.pre/prev/bin/warpex,8,2)
tests=(tests:test_gpu,test_gpu_mdp,t_gpu_mdp,t_gpu_mdp_dev,t_gpu_por,t_gpu_check san:test_gpu)
# the CPU MDP explorer's parallel numbering (branch cpu-mdp-parallel-numbering,
# packed as .pre/branch_warpex.xz) against this binary, 1 and 16 threads
branch=()
[ -x .pre/branch/bin/warpex ] && branch=(sh:bench/device/mdp_cpu_threads.sh,7,2,1,16
    sh:bench/device/mdp_cpu_threads.sh,--bin,.pre/branch/bin/warpex,7,2,1,16)
measure=("${prop[@]}" "${branch[@]}" "${parity[@]}" sh:bench/device/por_large.sh,--reps,1
         sh:bench/device/tree_capacity.sh,--stores,tree,--limit,400,milner/milner_n28)
stages=()
[ $part = measure ] || stages+=("${tests[@]}")
[ $part = tests ] || stages+=("${measure[@]}")
exec bash bench/device/call.sh "$@" "${stages[@]}"
