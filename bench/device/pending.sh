#!/bin/bash
# bench/device/pending.sh -- one device call for the newest GPU paths
# (docs/gpu.md, "Device status of the newest GPU paths"), most important
# first, so that a call cut short by its time limit still answers the first
# ones.  Each stage's log is under $OUT (call.sh).
#
#   bench/device/pending.sh [--prebuilt] [--seed N]
#
# --prebuilt: the binaries from .pre/bin.tar.xz (bench/device/prebuilt.sh
# pack, here; carry ".pre"), so the call spends no time building.  The
# priority benchmark needs .bench/philosophers_n11.exp (`python3
# examples/gen.py --large .bench`, keeping the philosophers_n9/n11 files;
# carry ".bench"); the stage is skipped without it.
set -u
cd "$(dirname "$0")/../.." || exit 2
export WARPEX_GPU_MDP_SEEDS=${WARPEX_GPU_MDP_SEEDS:-20} WARPEX_GPU_PRIO_SEEDS=${WARPEX_GPU_PRIO_SEEDS:-40}
export WARPEX_GPU_POR_SEEDS=${WARPEX_GPU_POR_SEEDS:-40} GPU_TEST_TIMEOUT=${GPU_TEST_TIMEOUT:-45}
export GPU_SAN_TIMEOUT=${GPU_SAN_TIMEOUT:-40}
prio=()
[ -f .bench/philosophers_n11.exp ] && prio=(sh:bench/bench_prio.sh,.bench/philosophers_n11.exp,gpu)
exec bash bench/device/call.sh "$@" \
    tests:t_gpu_prio,t_gpu_check \
    "${prio[@]}" \
    tests:test_gpu,t_gpu_por,t_gpu_mdp_dev,t_gpu_tree \
    tests:test_gpu_valiter,test_gpu_dgraph,test_gpu_scc,test_gpu_mdp,test_gpu_tree,test_gpu_treerun,test_gpu_mec,t_gpu_pipeline,t_gpu_mdp \
    san:test_gpu,test_gpu_tree,test_gpu_treerun,test_gpu_mdp,test_gpu_valiter
