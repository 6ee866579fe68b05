#!/bin/sh
# bench_cm_cpu.sh -- CPU cycle mean: warpex's exact Howard (analysis/
# cyclemean.c) against LEMON's HowardMmc (bench/peers/lemon_mmc.cc) on
# SPRAND-like random graphs (bench/cm_gen.c), min and max cycle mean; every
# row checks that both report the identical optimum (exit 1 otherwise).
#
#   sh bench/bench_cm_cpu.sh [N:M ...]        default: 2500000:10000000
#
# Builds build/bench/cm_gen, and build/bench/lemon_mmc (static, g++ and
# liblemon-dev) unless LEMON_MMC names a prebuilt driver (e.g. one carried to
# a machine without liblemon-dev).  Graphs go to ${CM_TMP:-/tmp}; times are
# wall seconds of the solve only (LEMON: findCycleMean + findCycle; warpex:
# SCC decomposition + Howard + certificate), read times separately.  Prints a
# markdown table last.
cd "$(dirname "$0")/.." || exit 2
[ -x bin/warpex ] || { echo "bench_cm_cpu: build bin/warpex first (make)"; exit 2; }
mkdir -p build/bench
cc -O2 -o build/bench/cm_gen bench/cm_gen.c || exit 2
LEMON=${LEMON_MMC:-build/bench/lemon_mmc}
if [ -z "$LEMON_MMC" ]; then
    g++ -O2 -std=c++17 -static bench/peers/lemon_mmc.cc -o "$LEMON" -llemon 2>/dev/null ||
        g++ -O2 -std=c++17 bench/peers/lemon_mmc.cc -o "$LEMON" ||
        { echo "bench_cm_cpu: cannot build the LEMON driver (apt-get install liblemon-dev)"; exit 2; }
fi
TMP=${CM_TMP:-/tmp}
[ $# -gt 0 ] || set -- 2500000:10000000
rows=""
bad=0
for nm in "$@"; do
    n=${nm%%:*}; m=${nm#*:}
    f="$TMP/cm_sprand_${n}_${m}.dimacs"
    [ -s "$f" ] || build/bench/cm_gen "$n" "$m" --seed 1 > "$f" || exit 2
    for mode in min max; do
        wj=$(./bin/warpex cycle-mean "$f" --$mode --backend cpu --json -q) || { echo "warpex failed"; exit 1; }
        wfrac=$(echo "$wj" | sed -n 's/.*"fraction": "\([^"]*\)".*/\1/p')
        wread=$(echo "$wj" | sed -n 's/.*"read_seconds": \([0-9.]*\).*/\1/p')
        wsolve=$(echo "$wj" | sed -n 's/.*"solve_seconds": \([0-9.]*\).*/\1/p')
        wit=$(echo "$wj" | sed -n 's/.*"iterations": \([0-9]*\).*/\1/p')
        flag=""; [ $mode = max ] && flag=--max
        # shellcheck disable=SC2086
        set -- $("$LEMON" "$f" $flag)
        lfrac=$4; lread=$5; lsolve=$6
        same=yes; [ "$wfrac" = "$lfrac" ] || { same=NO; bad=1; }
        speed=$(awk -v a="$lsolve" -v b="$wsolve" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
        echo "n=$n m=$m $mode: warpex $wfrac (${wsolve}s, $wit rounds, read ${wread}s), lemon $lfrac (${lsolve}s, read ${lread}s)"
        rows="$rows
| $n | $m | $mode | $wfrac | $same | $wsolve | $wit | $lsolve | $speed |"
    done
done
echo
echo "| vertices | edges | problem | optimum (exact) | LEMON identical | warpex CPU Howard s | rounds | LEMON HowardMmc s | LEMON / warpex |"
echo "|---:|---:|---|---|---|---:|---:|---:|---:|$rows"
exit $bad
