#!/bin/bash
# bench/bench_check_e2e.sh -- `warpex check` end to end on consensus N=6 K=2
# (issue 5's target: Pmax=? [ F "finished"&!"agree" ] sound to 1e-6 in
# <= 0.5 s process wall on the H100), old and new binaries alternating, with
# the new binary's timeline (WARPEX_TIMELINE=1: cli/cmd_check.c).
#
#   bench/bench_check_e2e.sh --new WARPEX [--old WARPEX] [--cgen CONSENSUS_GEN]
#                            [--probe CUDA_EXIT_PROBE] [--runs N] [--backend gpu|cpu]
#                            [--var TAG:VAR=VALUE]... [--args TAG:CHECK-OPTIONS]...
#
# Each --var adds a run of the new binary with the environment variable set
# (e.g. --var warm0:WARPEX_CHECK_WARM=0), each --args a run of the new
# binary with further `check` options (e.g. --args pi:'--method pi'), in
# the same alternation.
# The model is generated here by bench/consensus_gen.c (built when --cgen is
# not given).  Process wall = `date +%s%N` before and after the process;
# "before main" = first timeline stamp - start, "after return" = end - last
# stamp (process exit: the CUDA driver's teardown).  With --probe, the
# start/exit costs of bare CUDA processes (bench/cuda_exit_probe.cu) are
# measured too (PROBE_VARIANTS picks the variants).  Logs (JSON, timelines) go
# to $OUT or bench/out/e2e.
set -u
cd "$(dirname "$0")/.." || exit 2
LOG=${OUT:-bench/out/e2e}
mkdir -p "$LOG"
new=""; old=""; cgen=""; probe=""; runs=3; backend=gpu; vars=(); declare -A xargs; xtags=()
while [ $# -gt 0 ]; do
    case $1 in
    --new) new=$2; shift ;;
    --old) old=$2; shift ;;
    --cgen) cgen=$2; shift ;;
    --probe) probe=$2; shift ;;
    --runs) runs=$2; shift ;;
    --backend) backend=$2; shift ;;
    --var) vars+=("$2"); shift ;;
    --args) xargs[${2%%:*}]=${2#*:}; xtags+=("${2%%:*}"); shift ;;
    *) echo "usage: $0 --new WARPEX [--old WARPEX] [--cgen GEN] [--probe PROBE] [--runs N] [--backend gpu|cpu] [--var TAG:VAR=VALUE]... [--args TAG:OPTIONS]..."; exit 2 ;;
    esac
    shift
done
[ -n "$new" ] || { echo "bench_check_e2e: --new WARPEX is required"; exit 2; }
PROBE_VARIANTS=${PROBE_VARIANTS:-none ctx free held pinned kernel reset freereset thread0 thread}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "device: ${dev:-none}, $(nproc) host cores, $(date -u '+%Y-%m-%d %H:%M UTC')"

if [ -n "$probe" ]; then
    echo
    echo "| CUDA probe | run | context s | work s | reset s | pageable H2D GB/s | after return s | process wall s |"
    echo "|---|---|---|---|---|---|---|---|"
    for r in $(seq 1 "$runs"); do
        for v in $PROBE_VARIANTS; do
            t0=$(date +%s%N)
            line=$("$probe" $v 2>&1)
            t1=$(date +%s%N)
            set -- $line
            # probe V ctx X work X reset X h2d_GBps X end NS
            [ "${1:-}" = probe ] || { echo "| $v | $r | FAILED: $line | | | | | |"; continue; }
            echo "| $v | $r | $4 | $6 | $8 | ${10} | $(secs "${12}" "$t1") | $(secs "$t0" "$t1") |"
        done
    done
fi

if [ -z "$cgen" ]; then
    cgen=bin/gpu/consensus_gen
    mkdir -p bin/gpu
    cc -std=c11 -O2 bench/consensus_gen.c -o "$cgen" || { echo "consensus_gen: build failed"; exit 1; }
fi
D=$(mktemp -d)
"$cgen" --no-sta 6 2 "$D/c62" >"$LOG/consensus_gen.log" 2>&1 || { echo "consensus_gen failed"; exit 1; }
cat "$D/c62.tra" "$D/c62.lab" >/dev/null # both in the page cache before the first run
prop='Pmax=? [ F "finished"&!"agree" ]'
echo
echo "consensus N=6 K=2 ($(cat "$LOG/consensus_gen.log"), .tra $(stat -c %s "$D/c62.tra") bytes): warpex check c62.tra --lab c62.lab --prop '$prop' --backend $backend --json"
echo
echo "| binary | run | [lo, hi] | sweeps | policies, products, certified | read s | gpu init s | init wait s | precomp s | build s | mec s | solve s | in-process s | before main s | after return s | process wall s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
status=0
specs=()
[ -n "$old" ] && specs+=("old::$old")
specs+=("new::$new")
for v in "${vars[@]}"; do specs+=("${v%%:*}:${v#*:}:$new"); done
for t in "${xtags[@]}"; do specs+=("$t::$new"); done
for r in $(seq 1 "$runs"); do
    for spec in "${specs[@]}"; do
        tag=${spec%%:*}; rest=${spec#*:}; envset=${rest%%:*}; w=${rest#*:}
        j="$LOG/c62_${tag}_$r.json"; e="$LOG/c62_${tag}_$r.timeline"
        t0=$(date +%s%N)
        # shellcheck disable=SC2086 # the extra options split into words
        env $envset WARPEX_TIMELINE=1 "$w" check "$D/c62.tra" --lab "$D/c62.lab" --prop "$prop" --backend "$backend" --json ${xargs[$tag]:-} >"$j" 2>"$e" ||
            { echo "| $tag | $r | FAILED rc $?: $(head -c 200 "$e") |"; status=1; continue; }
        t1=$(date +%s%N)
        f() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$j" | head -1; }
        first=$(awk '/^timeline/ { print $5; exit }' "$e"); last=$(awk '/^timeline/ { x = $5 } END { print x }' "$e")
        bm=""; ar=""
        [ -n "$first" ] && bm=$(secs "$t0" "$first") && ar=$(secs "$last" "$t1")
        pi="-"
        [ -n "$(f certified)" ] && pi="$(f policy_rounds), $(f products), $(f certified)"
        echo "| $tag | $r | $(f lo), $(f hi) | $(f iterations) | $pi | $(f read_seconds) | $(f gpu_init_seconds) | $(f gpu_wait_seconds) | $(f precomputation_seconds) | $(f build_seconds) | $(f mec_seconds) | $(f solve_seconds) | $(f seconds) | $bm | $ar | $(secs "$t0" "$t1") |"
    done
done
echo
echo "timeline of the last new run ($LOG/c62_new_$runs.timeline):"
grep '^timeline' "$LOG/c62_new_$runs.timeline" | sed 's/  wall [0-9]*//'
rm -rf "$D"
exit $status
