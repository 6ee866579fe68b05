#!/bin/sh
# t_gpu_pipeline.sh -- the one-run pipelines on the GPU, through the CLI
# (run by bench/gpu_test.sh on the GPU machine): explore --backend gpu with
# --scc (graph kept on the device, SCCs by scc_gpu_device) and with --mec
# (host graph, scc_gpu) must report the CPU backend's counts; warpex scc
# --backend gpu must write the CPU's canonical --scc-out file for the same
# .aut graph.  Models: the committed examples and random networks
# (tests/randnet via bin/tests/test_random_networks).
cd "$(dirname "$0")/../.." || exit 2
TAG=gpu-pipeline
. tests/lib.sh

FIELDS="states transitions deadlocks sccs trivial_sccs largest_scc bottom_sccs"
MFIELDS="states transitions mecs states_in_mecs transitions_in_mecs largest_mec singleton_mecs"
# same_fields NAME FIELDS FILE1 FILE2
same_fields() {
    for k in $2; do
        a=$(sed -n "s/.*\"$k\": \([^,}]*\).*/\1/p" "$3"); b=$(sed -n "s/.*\"$k\": \([^,}]*\).*/\1/p" "$4")
        if [ -z "$a" ] || [ "$a" != "$b" ]; then fail "$1: $k gpu '$a' cpu '$b'"; return; fi
    done
    pass "$1: $2 equal"
}
one() {
    name=$1; f=$2; shift 2
    "$W" explore "$f" "$@" --backend gpu --scc --json >"$T/g" 2>"$T/ge"
    "$W" explore "$f" "$@" --backend cpu --scc --json >"$T/c" 2>"$T/ce"
    grep -q '"scc_backend": "gpu (graph kept on the device)"' "$T/g" \
        && same_fields "$name --scc" "$FIELDS" "$T/g" "$T/c" \
        || fail "$name --scc: $(head -c 300 "$T/g" "$T/ge")"
    "$W" explore "$f" "$@" --backend gpu --mec --json >"$T/g" 2>"$T/ge"
    "$W" explore "$f" "$@" --backend cpu --mec --json >"$T/c" 2>"$T/ce"
    same_fields "$name --mec" "$MFIELDS" "$T/g" "$T/c"
    # explore --cycle-mean: on the GPU the explored graph stays on the device
    # (SCCs and Howard there); the exact optimum must be the CPU's
    for mm in min max; do
        "$W" explore "$f" "$@" --backend gpu --cycle-mean $mm --weight '([0-9]+)' --default-weight -3 --scc \
            --json >"$T/g" 2>"$T/ge"
        "$W" explore "$f" "$@" --backend cpu --cycle-mean $mm --weight '([0-9]+)' --default-weight -3 \
            --json >"$T/c" 2>"$T/ce"
        a=$(sed -n 's/.*"fraction": "\([^"]*\)".*/\1/p' "$T/g"); b=$(sed -n 's/.*"fraction": "\([^"]*\)".*/\1/p' "$T/c")
        ha=$(sed -n 's/.*"has_cycle": \([a-z]*\).*/\1/p' "$T/g"); hb=$(sed -n 's/.*"has_cycle": \([a-z]*\).*/\1/p' "$T/c")
        grep -q '"backend": "gpu (graph kept on the device)"' "$T/g" && [ "$a" = "$b" ] && [ -n "$ha" ] && [ "$ha" = "$hb" ] \
            && pass "$name --cycle-mean $mm: device graph == cpu (${a:-no cycle})" \
            || fail "$name --cycle-mean $mm: gpu '$a' ($ha) cpu '$b' ($hb): $(head -c 300 "$T/g" "$T/ge")"
    done
    "$W" explore "$f" "$@" --backend cpu --aut "$T/x.aut" --quiet >/dev/null 2>&1
    "$W" scc "$T/x.aut" --backend gpu --scc-out "$T/sg" >/dev/null 2>"$T/ge" &&
        "$W" scc "$T/x.aut" --backend cpu --scc-out "$T/sc" >/dev/null 2>&1 && cmp -s "$T/sg" "$T/sc" \
        && pass "$name: warpex scc --backend gpu --scc-out == cpu" \
        || fail "$name: warpex scc gpu/cpu --scc-out differ: $(head -c 200 "$T/ge")"
}
# the two largest committed models of each family
for d in examples/*/; do
    for f in $(ls -S "$d"*.exp 2>/dev/null | head -2); do
        one "$f" "$f"
    done
done
gen=bin/tests/test_random_networks
seed=1
while [ "$seed" -le "${WARPEX_GPU_SEEDS:-20}" ]; do
    set -- $(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    if [ "$1" = EXPECT ]; then
        opts="--hidden $4"
        [ "$5" = 1 ] && opts="$opts --rate"
        one "random network seed $seed" "$2" $opts
        rm -rf "$3"
    else
        fail "random network seed $seed: generator said: $*"
    fi
    seed=$((seed + 1))
done
