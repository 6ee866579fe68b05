#!/bin/sh
# t_por.sh -- `warpex explore --por` end to end: on 8 independent chains of
# 4 states (4^8 = 65 536 states in full) the reduced graph is one
# interleaving, 8 * 3 + 1 = 25 states and 24 transitions, on seq and cpu,
# with "por": true in the JSON and the reduction named in the text report;
# --deadlock and --action find their violations (exit 1) with a trace, on
# the chains and on the philosophers (a deadlock in full); seq and cpu give
# the same reduced counts on committed examples, with the full graph's
# number of deadlocks; --por --action with the GPU backend finds the
# action where a device is usable, else says that none is (exit 2, never
# a refusal of --por: tests/gpu/t_gpu_por.sh compares the GPU's proviso
# with the CPU's), and runs on the CPU with --backend auto (util/config.h
# GX_AUTO_POR 0); and --por is refused
# with the outputs and analyses that need the whole product, and on a
# probabilistic network.
cd "$(dirname "$0")/.." || exit 2
TAG=por
. tests/lib.sh

i=0
: > "$T/chains.exp"
while [ "$i" -lt 8 ]; do
    printf 'des (0, 3, 4)\n(0, "a%d", 1)\n(1, "b%d", 2)\n(2, "c%d", 3)\n' "$i" "$i" "$i" > "$T/c$i.aut"
    [ "$i" -gt 0 ] && printf ' ||| ' >> "$T/chains.exp"
    printf '"c%d.aut"' "$i" >> "$T/chains.exp"
    i=$((i + 1))
done
echo >> "$T/chains.exp"

expect_rc "chains in full" 0 "$W" explore "$T/chains.exp" --backend seq --json
expect_json "chains in full" states=65536 deadlocks=1
for b in seq cpu; do
    expect_rc "chains --por $b" 0 "$W" explore "$T/chains.exp" --backend $b --por --json
    expect_json "chains --por $b" states=25 transitions=24 deadlocks=1 por=true complete=true
done
expect_rc "chains --por auto" 0 "$W" explore "$T/chains.exp" --por --json
expect_json "chains --por auto" states=25 transitions=24 deadlocks=1
expect_rc "chains --por text" 0 "$W" explore "$T/chains.exp" --backend seq --por
grep -q '^reduction: *partial-order' "$T/out" && pass "text report names the reduction" \
    || fail "text report: $(cat "$T/out")"
expect_rc "chains --por --deadlock" 1 "$W" explore "$T/chains.exp" --backend cpu --por --deadlock --trace --json
expect_json "chains --por --deadlock" violation='"deadlock"'
expect_rc "chains --por --action c7" 1 "$W" explore "$T/chains.exp" --backend seq --por --action '^c7$' --trace
grep -q 'c7' "$T/out" && pass "the action's trace ends with c7" || fail "trace: $(cat "$T/out")"
expect_rc "chains --por --action none" 0 "$W" explore "$T/chains.exp" --backend seq --por --action '^zz$' -q

f=examples/philosophers/philosophers_n7.exp
expect_rc "philosophers --por --deadlock" 1 "$W" explore $f --backend cpu --por --deadlock --json
expect_json "philosophers --por --deadlock" violation='"deadlock"' por=true

for f in examples/milner/milner_n12.exp examples/tokenring/tokenring_n12.exp examples/abp/abp_d1.exp \
         examples/buffers/buffers_n16_d1.exp examples/philosophers/philosophers_n7.exp; do
    "$W" explore "$f" --backend seq --por --json > "$T/seq" 2>&1
    "$W" explore "$f" --backend cpu --threads 3 --por --json > "$T/cpu" 2>&1
    "$W" explore "$f" --backend cpu --json > "$T/full" 2>&1
    full=$(sed -n 's/.*"states": \([0-9]*\).*/\1/p' "$T/full")
    fdl=$(sed -n 's/.*"deadlocks": \([0-9]*\).*/\1/p' "$T/full")
    s=$(sed -n 's/.*"states": \([0-9]*\), "transitions": \([0-9]*\), "deadlocks": \([0-9]*\).*/\1 \2 \3/p' "$T/seq")
    c=$(sed -n 's/.*"states": \([0-9]*\), "transitions": \([0-9]*\), "deadlocks": \([0-9]*\).*/\1 \2 \3/p' "$T/cpu")
    if [ -n "$s" ] && [ "$s" = "$c" ] && [ "${s%% *}" -le "$full" ] && [ "${s##* }" = "$fdl" ]; then
        pass "$f: --por seq = cpu ($s; $full states, $fdl deadlocks in full)"
    else
        fail "$f: --por seq '$s', cpu '$c', full $full states, $fdl deadlocks"
    fi
done

"$W" explore "$T/chains.exp" --backend gpu --por --action '^c7$' --json > "$T/out" 2> "$T/err"; rc=$?; grc=$rc
if [ $rc -eq 1 ] && grep -q '"violation": "action"' "$T/out"; then
    pass "--por --action --backend gpu: the action found on the device"
elif [ $rc -eq 2 ] && grep -q 'CUDA' "$T/err" && ! grep -q -- '--por' "$T/err"; then
    pass "--por --action --backend gpu: no usable device, said so"
else
    fail "--por --action --backend gpu: exit $rc, $(cat "$T/err")"
fi
expect_rc "chains --por --action auto" 1 "$W" explore "$T/chains.exp" --por --action '^c7$' --json
ab=cpu; grep -q '^#define GX_AUTO_POR 1' util/config.h && [ $grc -eq 1 ] && ab=gpu
expect_json "chains --por --action auto: the $ab backend (GX_AUTO_POR)" backend="\"$ab\"" violation='"action"'
for o in "--aut $T/x.aut" "--csr $T/x.csr" --scc --mec --livelock --reversible "--cycle-mean min --weight a"; do
    # shellcheck disable=SC2086
    expect_rc "--por $o" 2 "$W" explore "$T/chains.exp" --backend seq --por $o
done
[ ! -e "$T/x.aut" ] && [ ! -e "$T/x.csr" ] && pass "refused outputs are not written" || fail "an output was written"
if sh examples/gen_consensus.sh 2 2 "$T/c" > /dev/null; then
    expect_rc "--por on a probabilistic network" 2 "$W" explore "$T/c/consensus_N2_K2.exp" --por
else
    fail "examples/gen_consensus.sh failed"
fi
