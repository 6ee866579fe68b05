#!/bin/bash
# bench/bench_ovi_gpu.sh -- the sound methods on the GPU side by side:
# interval iteration, optimistic value iteration and certified policy
# iteration (`warpex check --backend gpu --method ii|ovi|pi`, Jacobi sweeps,
# epsilon 1e-6, solved for the initial states), per property: sweeps, the
# solve's seconds and the whole run's (JSON iterations, solve_seconds,
# seconds), and whether every method's interval overlaps interval
# iteration's.  These rows choose the GPU's `--method auto`.
#
#   METHODS="ii ovi pi" (default; ii first: the others are compared with it)
#
#   bench/bench_ovi_gpu.sh [--warpex PATH] [--cgen PATH] [--no-consensus]
#
# Models: the repository's MDPs with Storm's values (tests/data/mdp, the
# unbounded "=?" rows of tests/data/props_ref/storm.tsv, with every .srew
# and .trew file of the instance), then PRISM's consensus N=6 K=2 (1 258 240
# states) generated with bench/consensus_gen.c (--cgen: a prebuilt one):
# "disagree" (Pmax=? [ F "finished"&!"agree" ], interval iteration's 5 069
# sweeps) and Pmin=? [ F "finished" ].  Each run once (the solve's seconds
# come from the JSON; the process's start-up is not in them).
# Prints a markdown table; exit status 1 when a run failed or the
# intervals of a property do not overlap.
set -u
cd "$(dirname "$0")/.." || exit 2
LOG=${OUT:-tests/out/bench_ovi}
mkdir -p "$LOG"
warpex=bin/warpex; cgen=""; consensus=1
while [ $# -gt 0 ]; do
    case $1 in
    --warpex) warpex=$2; shift ;;
    --cgen) cgen=$2; shift ;;
    --no-consensus) consensus=0 ;;
    *) echo "usage: $0 [--warpex PATH] [--cgen PATH] [--no-consensus]"; exit 2 ;;
    esac
    shift
done
[ -x "$warpex" ] || { echo "bench_ovi_gpu: $warpex not built"; exit 2; }
status=0

# field NAME FILE: the first JSON value of NAME
field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$2" | head -1; }

METHODS=${METHODS:-ii ovi pi}
read -r -a methods <<<"$METHODS"

# row MODEL PROPERTY FILE OPTIONS...: one table row, a cell group per method
row() {
    local model=$1 prop=$2 tra=$3; shift 3
    local m out cells="" lo=() hi=() agree=yes i
    for m in "${methods[@]}"; do
        out="$LOG/run_$m.json"
        if ! "$warpex" check "$tra" "$@" --prop "$prop" --backend gpu --method "$m" --json >"$out" 2>"$LOG/run_$m.err"; then
            cells="$cells | FAILED: $(head -c 100 "$LOG/run_$m.err") | |"
            status=1
            lo+=(x); hi+=(x)
            continue
        fi
        lo+=("$(field lo "$out")"); hi+=("$(field hi "$out")")
        cells="$cells | $(field iterations "$out") | $(field solve_seconds "$out") | $(field seconds "$out" | tail -1)"
    done
    for i in "${!methods[@]}"; do
        [ "$i" = 0 ] && continue
        if [ "${lo[0]}" = x ] || [ "${lo[$i]}" = x ] || [ "$(awk -v a="${lo[0]}" -v b="${hi[0]}" \
            -v c="${lo[$i]}" -v d="${hi[$i]}" 'BEGIN { print (a <= d + 1e-12 && c <= b + 1e-12) }')" != 1 ]; then
            agree="NO (${methods[$i]})"
        fi
    done
    [ "$agree" = yes ] || status=1
    echo "| $model | \`$prop\`$cells | ${lo[0]} .. ${hi[0]} | $agree |"
}

head="| model | property"; rule="|---|---"
for m in "${methods[@]}"; do head="$head | $m sweeps | $m solve s | $m total s"; rule="$rule|---|---|---"; done
echo "$head | ${methods[0]} interval | all overlap |"
echo "$rule|---|---|"
while IFS=$'\t' read -r inst prop _exp _origin; do
    case $prop in *'=?'*) ;; *) continue ;; esac
    case $prop in *'<'*) continue ;; esac # step bounds: exact on every method
    d=tests/data/$inst; stem=$(basename "$inst")
    opts=(--lab "$d/$stem.lab")
    for f in "$d/$stem"*.srew; do [ -f "$f" ] && opts+=(--srew "$f"); done
    for f in "$d/$stem"*.trew; do [ -f "$f" ] && opts+=(--trew "$f"); done
    row "$stem" "$prop" "$d/$stem.tra" "${opts[@]}"
done < <(grep -v '^#' tests/data/props_ref/storm.tsv)

if [ $consensus = 1 ]; then
    if [ -z "$cgen" ]; then
        cgen=bin/gpu/consensus_gen
        mkdir -p bin/gpu
        cc -std=c11 -O2 -Wall -Wextra -Werror bench/consensus_gen.c -o "$cgen" || { echo "consensus_gen: build failed"; exit 1; }
    fi
    D=$(mktemp -d)
    "$cgen" --no-sta 6 2 "$D/c62" >"$LOG/consensus_gen.log" 2>&1 || { echo "consensus_gen failed"; exit 1; }
    row consensus-N6-K2 'Pmax=? [ F "finished"&!"agree" ]' "$D/c62.tra" --lab "$D/c62.lab"
    row consensus-N6-K2 'Pmin=? [ F "finished" ]' "$D/c62.tra" --lab "$D/c62.lab"
    rm -rf "$D"
fi
echo
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); $("$warpex" --version 2>/dev/null | head -1)"
exit $status
