#!/bin/sh
# bench_vi_cpu.sh -- CPU model checking (`warpex check`) over the PRISM
# exports: end-to-end time per property, the split precomputation / system
# construction / solve, sweeps, time per sweep and effective bandwidth
# (bytes a sweep must stream, from valiter.h's vi_stats, / time per sweep).
#
#   bench/bench_vi_cpu.sh [DIR ...]
#       DIR: instance directories holding NAME.tra, NAME.lab and a .props
#       file (default: every instance of tests/data/mdp).
#   environment:
#       THREADS="1 N"   Jacobi thread counts to run (default: 1 and all cores)
#       SOLVERS="jacobi gs topological"   (default: all three; gs and
#                       topological (--method topological) are sequential)
#       EPSILON=1e-6    absolute; METHOD=ii (or vi)
#       MAX_STATES=N    skip instances with more states (default: no limit)
#       BACKENDS="cpu"  add gpu ("cpu gpu") to time the GPU twins in the same
#                       run (their rows show solver "jacobi", threads "gpu")
#
# Every property is checked with interval iteration (sound); the table shows
# the value at the initial state too, so a run doubles as a smoke test.  The
# last thing printed is a markdown table.  Large models belong here, not in
# tests/.
set -u
cd "$(dirname "$0")/.." || exit 2
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
THREADS=${THREADS:-"1 $cores"}
SOLVERS=${SOLVERS:-"jacobi gs topological"}
EPSILON=${EPSILON:-1e-6}
METHOD=${METHOD:-ii}
MAX_STATES=${MAX_STATES:-0}
BACKENDS=${BACKENDS:-cpu}
W=bin/warpex
[ -x "$W" ] || make -s bin/warpex || exit 4
command -v python3 >/dev/null 2>&1 || { echo "bench_vi_cpu.sh needs python3 (JSON)"; exit 4; }

if [ $# -eq 0 ]; then
    base=tests/data/mdp
    [ -d "$base" ] || { echo "no instances: $base missing"; exit 2; }
    set -- "$base"/*/
fi

out=$(mktemp)
trap 'rm -f "$out" "$out.rows" "$out.err"' EXIT
: > "$out.rows"
for dir in "$@"; do
    dir=${dir%/}
    name=$(basename "$dir")
    tra=$dir/$name.tra
    props=$(ls "$dir"/*.props 2>/dev/null | head -1)
    [ -f "$tra" ] && [ -n "$props" ] || continue
    if [ "$MAX_STATES" -gt 0 ]; then
        n=$(grep -v '^#' "$tra" | head -1 | cut -d' ' -f1)
        [ "$n" -le "$MAX_STATES" ] || { echo "skip $name ($n states)"; continue; }
    fi
    runs=""
    for solver in $SOLVERS; do
        tl=$THREADS
        [ "$solver" = jacobi ] || tl=1
        for t in $tl; do runs="$runs cpu:$solver:$t"; done
    done
    case " $BACKENDS " in *" gpu "*) runs="$runs gpu:jacobi:gpu";; esac
    for run in $runs; do
        backend=${run%%:*}; rest=${run#*:}; solver=${rest%%:*}; t=${rest#*:}
        topt="--threads $t"
        [ "$backend" = gpu ] && topt=""
        meth=$METHOD; sopt="--solver $solver"
        [ "$solver" = topological ] && meth=topological && sopt=""
        {
            start=$(date +%s.%N)
            # shellcheck disable=SC2086
            if ! "$W" check "$tra" --lab "$dir/$name.lab" --props "$props" --json -q \
                    --backend "$backend" $sopt $topt --epsilon "$EPSILON" --method "$meth" \
                    --max-iterations 100000000 > "$out" 2> "$out.err"; then
                echo "FAILED: $name $solver $t: $(cat "$out.err")"
                continue
            fi
            end=$(date +%s.%N)
            python3 - "$out" "$name" "$solver" "$t" "$start" "$end" >> "$out.rows" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
name, solver, t = sys.argv[2], sys.argv[3], sys.argv[4]
wall = float(sys.argv[6]) - float(sys.argv[5])
m = j["model"]
for p in j["properties"]:
    v = p["initial"][0]
    it = p["iterations"]
    sw = p["sweep_seconds"]
    bw = p["bytes_per_sweep"] / sw / 1e9 if sw > 0 else 0
    tot = p["precomputation_seconds"] + p["build_seconds"] + p["solve_seconds"]
    print(f"| {name} | {m['states']} | {m['transitions']} | {p.get('name', '')} | {p['kind']} | "
          f"{solver} | {t} | {v['value']:.10g} | {v['hi'] - v['lo']:.1e} | {tot:.4f} | "
          f"{p['precomputation_seconds']:.4f} | {p['solve_seconds']:.4f} | {it} | "
          f"{sw * 1e6:.2f} | {bw:.2f} |")
print(f"<!-- {name} {solver} threads={t}: whole run {wall:.3f} s incl. reading -->")
PY
        }
    done
done
echo
echo "### bench_vi_cpu.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $cores cores, epsilon $EPSILON ($METHOD)"
echo
echo "| instance | states | transitions | property | kind | solver | threads | value at init | hi-lo | time s | precomp s | solve s | sweeps | us/sweep | GB/s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
grep '^|' "$out.rows"
