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
# plain exploration (asynchronous, growing table) with the default slots and
# with --compact-slots (12-byte slots for 3-word vectors): the CPU's counts,
# on the largest example of each family and on a network of 3-word vectors
# (16-state cycles A, B, C interleaved with 28 4-state cycles in lockstep:
# 68 bits, 16^3 * 4 states)
cyc() { # N LABEL
    echo "des (0, $1, $1)"; i=0
    while [ $i -lt $1 ]; do echo "($i, \"$2\", $(( (i + 1) % $1 )))"; i=$((i + 1)); done
}
cyc 16 A >"$T/w3a.aut"; cyc 16 B >"$T/w3b.aut"; cyc 16 C >"$T/w3c.aut"; cyc 4 TICK >"$T/w3t.aut"
{ echo 'par'; echo '  "w3a.aut" || "w3b.aut" || "w3c.aut"'; echo '||'; echo '  par TICK in'; printf '    "w3t.aut"'
  i=1; while [ $i -lt 28 ]; do printf ' || "w3t.aut"'; i=$((i + 1)); done; echo; echo '  end par'; echo 'end par'; } >"$T/w3.exp"
for f in $(for d in examples/*/; do ls -S "$d"*.exp 2>/dev/null | head -1; done) "$T/w3.exp"; do
    "$W" explore "$f" --backend cpu --json >"$T/c" 2>"$T/ce"
    for slots in "" --compact-slots; do
        "$W" explore "$f" --backend gpu $slots --json >"$T/g" 2>"$T/ge"
        same_fields "$f explore ${slots:-(default slots)}" "states transitions deadlocks words_per_state" "$T/g" "$T/c"
    done
done
grep -q '"states": 16384,.*"words_per_state": 3\|"words_per_state": 3,.*"states": 16384' "$T/c" \
    && pass "3-word network: 16384 states on the CPU" || fail "3-word network: $(head -c 300 "$T/c")"
# A deadlock or action violation with --scc / --csr in the same run: the GPU
# records the violation without stopping (the kernels' record_only flag),
# finishes the exploration and reports the CPU's counts, SCCs and trace
# length; --stop-at-first still stops (complete false, no CSR).
for prop in "--deadlock" "--action ^EAT" "--deadlock --action ^EAT"; do
    for f in examples/philosophers/philosophers_n3.exp examples/philosophers/philosophers_n7.exp; do
        for out in "" "--csr $T/g.csr"; do
            n="$f $prop ${out:+--csr }(violation, finished)"
            "$W" explore "$f" $prop --trace --scc $out --backend gpu --json >"$T/g" 2>"$T/ge"; rg=$?
            "$W" explore "$f" $prop --trace --scc --backend cpu --json >"$T/c" 2>"$T/ce"; rc=$?
            lg=$(sed -n 's/.*"trace": \(\[.*\]\)}$/\1/p' "$T/g" | grep -o '"label"' | wc -l)
            lc=$(sed -n 's/.*"trace": \(\[.*\]\)}$/\1/p' "$T/c" | grep -o '"label"' | wc -l)
            [ $rg = 1 ] && [ $rc = 1 ] && [ "$lg" = "$lc" ] && [ "$lg" -gt 0 ] \
                && grep -q '"complete": true' "$T/g" \
                && [ "$(sed -n 's/.*"violation": \("[a-z]*"\).*/\1/p' "$T/g")" = \
                     "$(sed -n 's/.*"violation": \("[a-z]*"\).*/\1/p' "$T/c")" ] \
                && same_fields "$n" "$FIELDS" "$T/g" "$T/c" \
                || fail "$n: exit $rg/$rc, trace $lg/$lc steps: $(head -c 400 "$T/g" "$T/ge")"
        done
    done
    rm -f "$T/g.csr"
    "$W" explore examples/philosophers/philosophers_n7.exp $prop --scc --csr "$T/g.csr" --stop-at-first \
        --backend gpu --json >"$T/g" 2>"$T/ge"
    [ $? = 1 ] && grep -q '"complete": false' "$T/g" && [ ! -e "$T/g.csr" ] \
        && pass "$prop --stop-at-first on the GPU: stopped, no CSR" \
        || fail "$prop --stop-at-first on the GPU: $(head -c 300 "$T/g" "$T/ge")"
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
