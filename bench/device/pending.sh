#!/bin/bash
# bench/device/pending.sh -- one device call for the newest GPU paths
# (docs/gpu.md, "Device status of the newest GPU paths"), most important
# first, so that a call cut short by its time limit still answers the first
# ones.  Each stage's log is under $OUT (call.sh).
#
#   bench/device/pending.sh [tests|measure] [--prebuilt] [--seed N]
#
# tests: the test stages only, measure: the measurements only (each fits
# one call of 600 s); neither: both, in one call.
#
# --prebuilt: the binaries from .pre/bin.tar.xz (bench/device/prebuilt.sh
# pack, here; carry ".pre"), so the call spends no time building.  Older
# binaries packed by `prebuilt.sh old TREE NAME` (.pre/NAME_warpex.xz) are
# unpacked into .pre/NAME/bin/warpex: with NAME old (the pre-redesign
# binary, fe333fa) the parity of MEC and value iteration runs, with NAME
# prio_before (7126fe2^, before the GPU priorities) the explorer's parity
# against it; without them those stages are skipped.
#
# Stages, most important first: the GPU MDP tests against the CPU twin
# with `--backend auto` now exploring MDP networks on the GPU (test_gpu_mdp,
# t_gpu_mdp) and t_gpu_check uncut (its device-held model), then the
# measurements the open issues wait for: the parity of every stage against
# fe333fa with the cycle mean (its generator now packed) and the explorer
# (abp d=4000's 7.7 %), `explore --prop` end to end (mdp_explore.sh 8 2,
# GPU only), POR's throughput (por_large.sh: mutex n=5), the tree store's
# capacity past milner n=27.  Storm needs its own call (`storm_gpu.sh 6 2 ij
# 10`, carry .storm: the GPU path against Storm on both 10^6-state
# families).
set -u
cd "$(dirname "$0")/../.." || exit 2
part=both
case ${1:-} in tests | measure) part=$1; shift ;; esac
export WARPEX_GPU_MDP_SEEDS=${WARPEX_GPU_MDP_SEEDS:-20} WARPEX_GPU_PRIO_SEEDS=${WARPEX_GPU_PRIO_SEEDS:-40}
export WARPEX_GPU_POR_SEEDS=${WARPEX_GPU_POR_SEEDS:-40} GPU_TEST_TIMEOUT=${GPU_TEST_TIMEOUT:-90}
export GPU_SAN_TIMEOUT=${GPU_SAN_TIMEOUT:-60}
for f in .pre/*_warpex.xz; do
    [ -f "$f" ] || continue
    n=${f#.pre/}; n=${n%_warpex.xz}
    [ -x ".pre/$n/bin/warpex" ] || { mkdir -p ".pre/$n/bin" && xz -dc "$f" > ".pre/$n/bin/warpex" &&
        chmod +x ".pre/$n/bin/warpex"; }
done
parity=()
[ -x .pre/old/bin/warpex ] && parity=(sh:bench/device/parity.sh,.pre/old,--rounds,3)
[ -x .pre/prio_before/bin/warpex ] &&
    parity+=(sh:bench/device/parity.sh,.pre/prio_before,--rounds,5,--only,explore)
tests=(tests:test_gpu_mdp,t_gpu_mdp,t_gpu_check)
measure=("${parity[@]}" sh:bench/device/mdp_explore.sh,8,2 sh:bench/device/por_large.sh,--reps,1
         sh:bench/device/tree_capacity.sh,milner/milner_n27)
stages=()
[ $part = measure ] || stages+=("${tests[@]}")
[ $part = tests ] || stages+=("${measure[@]}")
exec bash bench/device/call.sh "$@" "${stages[@]}"
