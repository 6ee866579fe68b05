#!/bin/bash
# bench/device/storm_prism.sh -- warpex exploring and checking a network
# against Storm building and checking the equivalent PRISM model, on the
# same machine, in the same run (issue "probabilistic networks on the GPU":
# >= 50x Storm building and checking the PRISM model).  Instances: the
# consensus protocol, N processes, counter bound K: warpex explores
# examples/gen_consensus.sh's network (`warpex explore NET --prop P`, one
# whole process: the network read, explored, labelled and checked); Storm
# parses and builds bench/consensus_prism.sh's PRISM model with constant K
# (sparse engine) and checks the same property with its sound engine
# (bench/vs_storm.py prism; its time is parse + build + check inside one
# Python process, its start-up and import not counted).  The properties, one
# pair per line: the network's marker actions against the PRISM labels,
#   Pmax=? [ F "disagree" ]      Pmax=? [ F "finished"&!"agree" ]
#   Pmin=? [ F "agree_heads" ]   Pmin=? [ F "finished"&"all_coins_equal_1" ]
# (tests/t_prob.sh checks the first against PRISM's published values).
#
#   bench/device/storm_prism.sh [N K ...]      default: 6 2
#   BACKEND=gpu (warpex --backend), REPEAT=1 (runs of each side, the fastest
#   counts), EPSILON=1e-6, STORM_TIMEOUT=400 (seconds for one Storm run),
#   STORM_PYTHON=PY (a python3 that imports stormpy; else the carried
#   wheels, bench/device/storm_env.sh)
set -u
cd "$(dirname "$0")/../.." || exit 2
WORK=${WORK:-/tmp/storm_prism}
mkdir -p "$WORK"
. bench/device/storm_env.sh
PY=${STORM_PYTHON:-python3}
BACKEND=${BACKEND:-gpu} REPEAT=${REPEAT:-1} EPSILON=${EPSILON:-1e-6}
[ $# -gt 0 ] || set -- 6 2
now() { date +%s.%N; }
echo "# warpex $(git rev-parse --short HEAD 2>/dev/null || echo '?') explore --backend $BACKEND against Storm" \
     "$("$PY" -c 'import stormpy; print(stormpy.__version__)' 2>/dev/null || echo '?') building the PRISM model;" \
     "epsilon $EPSILON; $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| N | K | property | states | warpex s | Storm build s | Storm check s | Storm s | Storm / warpex | warpex value | Storm value |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
pairs=('Pmax=? [ F "disagree" ]|Pmax=? [ F "finished"&!"agree" ]'
       'Pmin=? [ F "agree_heads" ]|Pmin=? [ F "finished"&"all_coins_equal_1" ]')
while [ $# -ge 2 ]; do
    n=$1 k=$2; shift 2
    d=$WORK/c${n}_$k
    [ -f "$d/consensus_N${n}_K$k.exp" ] || sh examples/gen_consensus.sh "$n" "$k" "$d" >/dev/null || exit 4
    sh bench/consensus_prism.sh "$n" > "$d/consensus.$n.prism" || exit 4
    for pair in "${pairs[@]}"; do
        wp=${pair%%|*} sp=${pair#*|}
        best_w="" best_s="" wv="" sv="" st="" sb="" sc=""
        for r in $(seq "$REPEAT"); do
            t0=$(now)
            out=$(bin/warpex explore "$d/consensus_N${n}_K$k.exp" --backend "$BACKEND" --epsilon "$EPSILON" \
                --prop "$wp" --json --quiet 2>"$WORK/w.err")
            rc=$?
            t=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
            [ $rc -eq 0 ] || { echo "| $n | $k | \`$wp\` | warpex exit $rc: $(head -c 200 "$WORK/w.err") |"; continue 2; }
            st=$(echo "$out" | sed -n 's/.*"states": \([0-9]*\).*/\1/p' | head -1)
            wv=$(echo "$out" | sed -n 's/.*"value": \([^,}]*\).*/\1/p' | head -1)
            [ -z "$best_w" ] || awk -v a="$t" -v b="$best_w" 'BEGIN { exit !(a < b) }' && best_w=$t
            so=$(timeout "${STORM_TIMEOUT:-400}" "$PY" bench/vs_storm.py prism "$d/consensus.$n.prism" "K=$k" \
                "$EPSILON" "$sp" 2>"$WORK/s.err")
            b=$(echo "$so" | awk '$1 == "build" { print $2 }') c=$(echo "$so" | awk '$1 == "prop" { print $3 }')
            [ -n "$b" ] && [ -n "$c" ] || { echo "| $n | $k | \`$sp\` | Storm failed or ran past ${STORM_TIMEOUT:-400} s: $(tail -c 200 "$WORK/s.err") |"; continue 2; }
            s=$(awk -v a="$b" -v b="$c" 'BEGIN { printf "%.3f", a + b }')
            if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
                best_s=$s sb=$b sc=$c
            fi
            sv=$(echo "$so" | awk '$1 == "prop" { print $4 }')
        done
        printf '| %s | %s | `%s` / `%s` | %s | %s | %.3f | %.3f | %s | %s | %s | %s |\n' "$n" "$k" "$wp" "$sp" "$st" \
            "$best_w" "$sb" "$sc" "$best_s" "$(awk -v w="$best_w" -v s="$best_s" 'BEGIN { printf "%.1f", s / w }')" \
            "$wv" "$sv"
    done
done
