#!/bin/sh
# bench_svi.sh -- the sound CPU methods of `warpex check` side by side:
# interval iteration (ii), optimistic value iteration (ovi) and sound value
# iteration (svi), same sweeps (SOLVER), same model, same run.
#
#   bench/bench_svi.sh [DIR ...]
#       DIR: instance directories holding NAME.tra, NAME.lab, reward files
#       and a .props file (default: every instance of tests/data/mdp).
#   environment:
#       METHODS="ii ovi svi"   the methods (--method)
#       SOLVER=gs              --solver (gs: what --method auto runs; jacobi)
#       THREADS=1              --threads (Jacobi only)
#       EPSILON=1e-6           absolute precision
#       REPEAT=3               runs of each method, alternating; the fastest counts
#       W=bin/warpex           the binary
#
# Properties: every '=?' formula of the instance's .props file, and for the
# instances named in rewards() below an Rmin and an Rmax of their first
# reward structure (the .props file's label definitions are kept, so its
# labels can be used).  Per property and method: the solve's seconds
# (JSON solve_seconds: precomputation and reading excluded, the part the
# method changes), the sweeps, and the whole process's wall seconds summed
# at the end.  A value that differs between the methods by more than 2
# EPSILON is flagged "DIFF".  The last thing printed is a markdown table.
set -u
cd "$(dirname "$0")/.." || exit 2
METHODS=${METHODS:-"ii ovi svi"}
SOLVER=${SOLVER:-gs}
THREADS=${THREADS:-1}
EPSILON=${EPSILON:-1e-6}
REPEAT=${REPEAT:-3}
W=${W:-bin/warpex}
[ -x "$W" ] || make -s NVCC= bin/warpex || exit 4
command -v python3 >/dev/null 2>&1 || { echo "bench_svi.sh needs python3 (JSON)"; exit 4; }
[ $# -gt 0 ] || set -- tests/data/mdp/*/

# the reward target of an instance (empty: no reward properties)
rewards() {
    case $1 in
    consensus-*) echo '"finished"' ;;
    csma-*) echo '"all_delivered"' ;;
    firewire*) echo '"done"' ;;
    wlan-*) echo '"goal_sent"' ;;
    resource-gathering-*) echo '"success"' ;;
    *) echo "" ;;
    esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
echo "# warpex $(git rev-parse --short HEAD 2>/dev/null || echo '?'); --solver $SOLVER --threads $THREADS" \
     "--epsilon $EPSILON (absolute); best of $REPEAT; $(getconf _NPROCESSORS_ONLN) cores" \
     "($(uname -m)); load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
echo
printf '| instance | property |'
for m in $METHODS; do printf ' %s solve s (sweeps) |' "$m"; done
echo ' value |'
printf '|---|---|'
for m in $METHODS; do printf -- '---:|'; done
echo '---:|'
: > "$tmp/sum"
for dir in "$@"; do
    dir=${dir%/}
    name=$(basename "$dir")
    tra=$dir/$name.tra
    props=$(ls "$dir"/*.props 2>/dev/null | head -1)
    [ -f "$tra" ] && [ -n "$props" ] || continue
    rews=""
    for f in "$dir"/*.srew; do [ -f "$f" ] && rews="$rews --srew $f"; done
    for f in "$dir"/*.trew; do [ -f "$f" ] && rews="$rews --trew $f"; done
    grep -v '^[[:space:]]*//' "$props" | grep '^[[:space:]]*label' > "$tmp/labels"
    grep -v '^[[:space:]]*//' "$props" | sed 's/^[[:space:]]*"[^"]*":[[:space:]]*//; s/;[[:space:]]*$//' |
        grep '=?' > "$tmp/f"
    t=$(rewards "$name")
    if [ -n "$t" ] && [ -n "$rews" ]; then
        echo "Rmin=? [ F $t ]" >> "$tmp/f"
        echo "Rmax=? [ F $t ]" >> "$tmp/f"
    fi
    while IFS= read -r p; do
        { cat "$tmp/labels"; echo "$p;"; } > "$tmp/p.props"
        row="| $name | \`$p\` |"
        vals=""
        for m in $METHODS; do
            best=""
            bs=""
            r=0
            while [ $r -lt "$REPEAT" ]; do
                r=$((r + 1))
                t0=$(now)
                # shellcheck disable=SC2086
                "$W" check "$tra" --lab "$dir/$name.lab" $rews --props "$tmp/p.props" --backend cpu \
                    --method "$m" --solver "$SOLVER" --threads "$THREADS" --epsilon "$EPSILON" \
                    --json --quiet > "$tmp/out" 2> "$tmp/err"
                rc=$?
                t1=$(now)
                if [ $rc -ne 0 ]; then
                    best="exit $rc"
                    break
                fi
                line=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["properties"][0]
print(j["solve_seconds"], j["iterations"], j["initial"][0]["value"])' "$tmp/out")
                set -- $line
                wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
                if [ -z "$best" ] || awk -v a="$1" -v b="$bs" 'BEGIN { exit !(a + 0 < b + 0) }'; then
                    best="$1 $2 $3"
                    bs=$1
                fi
                echo "$m $wall" >> "$tmp/sum"
            done
            case $best in
            exit*) row="$row $best |"; vals="$vals x" ;;
            *) set -- $best; row="$row $(printf '%.4f' "$1") ($2) |"; vals="$vals $3" ;;
            esac
        done
        flag=$(echo "$vals" | awk -v e="$EPSILON" '{ lo = $1; hi = $1; for (i = 2; i <= NF; i++) {
            if ($i == "x" || $i == "inf" || $i == "Infinity") continue; if ($i < lo) lo = $i; if ($i > hi) hi = $i }
            if (hi - lo > 2 * e) print " DIFF" }')
        echo "$row $(echo "$vals" | awk '{ print $1 }')$flag |"
    done < "$tmp/f"
done
echo
awk '{ s[$1] += $2; n[$1]++ } END { for (m in s) printf "%s: %.3f s wall in all (%d runs)\n", m, s[m], n[m] }' "$tmp/sum" | sort
