#!/bin/sh
# bench/por_profile.sh -- the CPU cost of the stubborn-set construction
# (explorer/por_core.h) of two builds: `perf record` of
# `warpex explore MODEL --backend seq --por` with each binary in turn, and
# the samples in the whole run and in the reduction's functions (por_*;
# por_core.h's are inlined into por_reduce).  Sample counts, unlike the
# run's seconds, leave out the time other processes take from a shared
# machine.
#
#   bench/por_profile.sh OLD_BIN NEW_BIN [MODEL]
#       MODEL default: mutex n=5 (10 383 156 states with --por, which keeps
#       nearly all of them: the construction's cost per state), generated
#       under $WORK (default /tmp/por_profile).
set -u
cd "$(dirname "$0")/.." || exit 2
[ $# -ge 2 ] || { echo "usage: $0 OLD_BIN NEW_BIN [MODEL]" >&2; exit 2; }
command -v perf >/dev/null || { echo "por_profile: perf is not installed" >&2; exit 2; }
WORK=${WORK:-/tmp/por_profile}
model=${3:-$WORK/mutex/mutex_n5.exp}
if [ $# -lt 3 ] && [ ! -f "$model" ]; then
    mkdir -p "$WORK/mutex" && (cd examples && python3 -c "
import families, os, sys
for name, text in families.Mutex().files({'n': 5}).items():
    open(os.path.join(sys.argv[1], name), 'w').write(text)
" "$WORK/mutex") || exit 2
fi
echo "| binary | samples | in por_* | share | states |"
echo "|---|---:|---:|---:|---:|"
for b in "$1" "$2"; do
    perf record -q -o "$WORK/perf.data" "$b" explore "$model" --backend seq --por -q --json >"$WORK/run.json" 2>/dev/null ||
        { echo "por_profile: $b failed" >&2; exit 1; }
    perf report -i "$WORK/perf.data" --no-children --stdio --sort sym -n 2>/dev/null |
        awk -v b="$b" -v st="$(sed -n 's/.*"states": \([0-9]*\).*/\1/p' "$WORK/run.json")" '
            $1 ~ /%$/ { total += $2 }
            $1 ~ /%$/ && $4 ~ /^por_/ { por += $2 }
            END { printf "| %s | %d | %d | %.1f %% | %s |\n", b, total, por, total ? 100 * por / total : 0, st }'
done
