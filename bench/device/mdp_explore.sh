#!/bin/bash
# bench/device/mdp_explore.sh -- the GPU MDP explorer against the CPU one on
# the consensus family (examples/gen_consensus.sh), and `explore --prop`
# end to end on both (issue: probabilistic networks on the GPU), Pmax and
# Pmin, the GPU's also with WARPEX_MDP_DEVICE=0 (the host round trip).
#
#   bench/device/mdp_explore.sh [--bin BINARY] [--methods M1+M2] [N K ...]      default: 6 2  8 2  8 4
#   REPEAT=3 (GPU rounds), HOST=1 (0: no --prop run with the host round
#   trip), PROPS='P1|P2' (the --prop runs; empty: none), TIMELINE=1 (one more GPU run with
#   WARPEX_GPU_TIMELINE=1: the seconds of each batch step; 0: none), CPU_MAX=7e7 (no CPU runs where the GPU found more
#   states: N=8 K=4, 114 757 632 states, takes 590 s to explore on 2 cores), CPU=1 (0: no CPU
#   runs at all), METHODS=auto or --methods M1+M2 (explore --method of the --prop runs, e.g. auto+pi),
#   BIN=bin/warpex or --bin (the binary: e.g. an older one for a before/after in one call)
#
# Prints one line per run: instance, backend, states, choices, seconds,
# M states/s (from --json), and for --prop the whole process's wall time.
set -u
cd "$(dirname "$0")/../.." || exit 2
WORK=${WORK:-/tmp/mdp_explore}
REPEAT=${REPEAT:-3}
PROPS=${PROPS-'Pmax=? [ F "disagree" ]|Pmin=? [ F "disagree" ]'}
BIN=${BIN:-bin/warpex}
METHODS=${METHODS:-auto}
while [ $# -ge 2 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --methods) METHODS=$2; shift 2 ;;
    *) break ;;
    esac
done
mkdir -p "$WORK"
[ $# -gt 0 ] || set -- 6 2 8 2 8 4
field() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p"; }
now() { date +%s.%N; }
while [ $# -ge 2 ]; do
    n=$1 k=$2; shift 2
    d=$WORK/c${n}_$k
    [ -f "$d/consensus_N${n}_K$k.exp" ] || sh examples/gen_consensus.sh "$n" "$k" "$d" >/dev/null || exit 4
    exp=$d/consensus_N${n}_K$k.exp
    st=0
    backends="gpu cpu"; [ "${CPU:-1}" = 0 ] && backends=gpu
    for b in $backends; do
        reps=$REPEAT; [ $b = cpu ] && reps=1
        if [ $b = cpu ] && awk -v a="${st:-0}" -v m="${CPU_MAX:-7e7}" 'BEGIN{exit !(a > m)}'; then
            echo "explore N=$n K=$k cpu: skipped ($st states > CPU_MAX)"; continue
        fi
        for r in $(seq "$reps"); do
            j=$("$BIN" explore "$exp" --backend $b --json 2>/dev/null)
            st=$(echo "$j" | field states); s=$(echo "$j" | field seconds)
            echo "explore N=$n K=$k $b: states $st choices $(echo "$j" | field choices)" \
                 "seconds $s rate $(awk -v a="$st" -v b="$s" 'BEGIN{if (b > 0) printf "%.1f", a / b / 1e6}') M/s" \
                 "status $(echo "$j" | sed -n 's/.*"status": "\([a-z]*\)".*/\1/p')"
        done
        if [ $b = gpu ] && [ "${TIMELINE:-1}" = 1 ]; then
            echo "timeline N=$n K=$k: $(WARPEX_GPU_TIMELINE=1 "$BIN" explore "$exp" --backend gpu -q 2>&1 |
                grep -m1 'mdp-gpu timeline')"
        fi
        # --prop end to end; on the GPU also with the host round trip
        # (WARPEX_MDP_DEVICE=0: the explored MDP downloaded, the system
        # built on the host) beside the default (MDP and system on the device)
        modes=default; [ $b = gpu ] && [ "${HOST:-1}" = 1 ] && modes="default host"
        [ -z "$PROPS" ] || echo "$PROPS" | tr '|' '\n' | while IFS= read -r prop; do
          for meth in ${METHODS//+/ }; do
            mopt=(); [ "$meth" = auto ] || mopt=(--method "$meth")
            for mode in $modes; do
                dev=1; [ $mode = host ] && dev=0
                t0=$(now)
                out=$(WARPEX_MDP_DEVICE=$dev "$BIN" explore "$exp" --backend $b --prop "$prop" "${mopt[@]}" 2>&1)
                rc=$?
                echo "prop N=$n K=$k $b $mode ${prop%%=*} method $meth: exit $rc wall" \
                     "$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.3f", b - a}') s;" \
                     "$(echo "$out" | grep -m1 'result:')$(echo "$out" | grep -m1 -o ' system: built on the GPU')"
                if [ "${TIMELINE:-1}" = 1 ] && [ $mode = default ]; then
                    WARPEX_TIMELINE=1 WARPEX_MDP_DEVICE=$dev "$BIN" explore "$exp" --backend $b \
                        --prop "$prop" "${mopt[@]}" 2>&1 | grep '^timeline' | sed 's/  wall [0-9]*//'
                fi
            done
          done
        done
    done
done
