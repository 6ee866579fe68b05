#!/bin/sh
# vs_storm.sh -- warpex against Storm (stormpy, from PyPI) on the same
# MDPs, same machine, same run: per property the time of each and the ratio.
#
#   bench/vs_storm.sh [DIR ...]
#       DIR: instance directories holding NAME.tra, NAME.lab, reward files
#       and a .props file (default: every instance of tests/data/mdp).
#   environment:
#       VENV=DIR       the virtual environment for stormpy (default
#                      ${TMPDIR:-/tmp}/warpex-stormpy; created, then reused)
#       STORMPY=SPEC   what pip installs (default "stormpy"; e.g. stormpy==2.0.0)
#       WORK=DIR       the .drn copies of the models (default
#                      ${TMPDIR:-/tmp}/warpex-vs-storm; reused when present)
#       EPSILON=1e-6   absolute precision of both tools
#       THREADS=0      warpex --threads (0: all cores)
#       REPEAT=1       runs of each side, alternating; the fastest counts
#       WARPEX_ARGS=   more options for warpex check (e.g. --method pi)
#       WARPEX=bin/warpex  the binary (e.g. an older build, for before/after)
#       BACKEND=cpu    warpex --backend (gpu on a GPU machine)
#       STORM_PYTHON=  a python3 that already imports stormpy (e.g. on a
#                      machine without network, with carried wheels); the
#                      venv is then neither made nor used
#
# Storm: stormpy's build_model_from_drn on a .drn copy of the model
# (bench/vs_storm.py converts the PRISM export once; not timed), then
# model_checking with the sound engine (force_soundness, absolute
# precision EPSILON, only the initial states); time = load + check, both
# measured inside one Python process (its start-up and the import of
# stormpy are not counted).  warpex: `warpex check NAME.tra --lab ...
# --prop P --backend cpu`, one whole process per property (its start-up
# and the read of the model are counted), and the same run's own
# "seconds" from --json (read + check, measured inside the process as
# Storm's load + check is).  ratio = warpex / Storm, for each of the two:
# below 1 warpex is faster.  The values are compared too: a difference above
# 2 EPSILON is flagged "DIFF".
#
# Needs python3 with venv and pip, and network access to PyPI for the first
# run.  When stormpy cannot be installed (no network, no wheel for this
# platform or Python), the script says so and exits 3: there is no Storm to
# compare with, and no numbers are made up.
# Plot: copy the measured rows into bench/data/check_vs_storm.tsv, then bench/plot.sh
# redraws docs/img/check_vs_storm.png.
set -u
cd "$(dirname "$0")/.." || exit 2
VENV=${VENV:-${TMPDIR:-/tmp}/warpex-stormpy}
STORMPY=${STORMPY:-stormpy}
WORK=${WORK:-${TMPDIR:-/tmp}/warpex-vs-storm}
EPSILON=${EPSILON:-1e-6}
THREADS=${THREADS:-0}
REPEAT=${REPEAT:-1}
WARPEX_ARGS=${WARPEX_ARGS:-}
W=${WARPEX:-bin/warpex}
BACKEND=${BACKEND:-cpu}
[ -x "$W" ] || make -s NVCC= bin/warpex || exit 4
command -v python3 >/dev/null 2>&1 || { echo "vs_storm.sh: needs python3"; exit 4; }

# stormpy in its venv
PY=${STORM_PYTHON:-$VENV/bin/python}
if [ -n "${STORM_PYTHON:-}" ] && ! "$PY" -c 'import stormpy' >&2; then
    echo "vs_storm.sh: $PY cannot import stormpy: no numbers." >&2
    exit 3
elif ! [ -x "$PY" ] || ! "$PY" -c 'import stormpy' 2>/dev/null; then
    echo "vs_storm.sh: installing $STORMPY into $VENV (pip, PyPI)" >&2
    if ! python3 -m venv "$VENV" >&2 || ! "$VENV/bin/pip" install -q "$STORMPY" >&2 ||
        ! "$PY" -c 'import stormpy' >&2; then
        echo "vs_storm.sh: stormpy could not be installed into $VENV ('pip install $STORMPY'" \
             "failed: see the messages above; no network, or no wheel for this platform)." >&2
        echo "vs_storm.sh: no Storm to compare with: no numbers." >&2
        exit 3
    fi
fi
storm_version=$("$PY" -c 'import stormpy; print(stormpy.__version__)' 2>/dev/null || echo '?')

if [ $# -eq 0 ]; then
    [ -d tests/data/mdp ] || { echo "no instances: tests/data/mdp missing"; exit 2; }
    set -- tests/data/mdp/*/
fi
mkdir -p "$WORK" || exit 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')
echo "# warpex $(git rev-parse --short HEAD 2>/dev/null || echo '?') (--backend $BACKEND) vs stormpy $storm_version;" \
     "epsilon $EPSILON (absolute); $cores cores ($(uname -m)); $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| instance | property | warpex s (process) | warpex s (read + check) | Storm s (load + check) | ratio (process) | ratio (in-process) | warpex value | Storm value |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
: > "$tmp/sum"
for dir in "$@"; do
    dir=${dir%/}
    name=$(basename "$dir")
    tra=$dir/$name.tra
    props=$(ls "$dir"/*.props 2>/dev/null | head -1)
    [ -f "$tra" ] && [ -n "$props" ] || continue
    drn=$WORK/$name.drn
    [ -s "$drn" ] || python3 bench/vs_storm.py drn "$dir" "$drn" || { echo "| $name | (conversion to .drn failed) |"; continue; }
    # the formulas: '"name": formula;' lines, comments dropped
    grep -v '^[[:space:]]*//' "$props" | sed 's/^[[:space:]]*"[^"]*":[[:space:]]*//; s/;[[:space:]]*$//' |
        grep '=?' > "$tmp/f"
    n=$(wc -l < "$tmp/f")
    [ "$n" -gt 0 ] || continue
    rews=""
    for f in "$dir"/*.srew; do [ -f "$f" ] && rews="$rews --srew $f"; done
    for f in "$dir"/*.trew; do [ -f "$f" ] && rews="$rews --trew $f"; done
    r=0
    while [ $r -lt "$REPEAT" ]; do
        r=$((r + 1))
        # Storm: one process, the model loaded once, every formula
        tr '\n' '\0' < "$tmp/f" | xargs -0 "$PY" bench/vs_storm.py check "$drn" "$EPSILON" \
            > "$tmp/storm.$r" 2> "$tmp/storm.err"
        # warpex: one process per formula
        i=0
        while IFS= read -r p; do
            t0=$(now)
            # shellcheck disable=SC2086
            "$W" check "$tra" --lab "$dir/$name.lab" $rews --prop "$p" --backend "$BACKEND" \
                --threads "$THREADS" --epsilon "$EPSILON" --json --quiet $WARPEX_ARGS > "$tmp/w" 2> "$tmp/w.err"
            rc=$?
            t1=$(now)
            v=$(sed -n 's/.*"initial": \[{[^}]*"value": \([^,}]*\).*/\1/p' "$tmp/w" | head -1 | tr -d '"')
            # the command's own seconds (read + check, as Storm's load + check)
            ins=$(sed -n 's/.*"seconds": \([0-9.e+-]*\)}$/\1/p' "$tmp/w" | tail -1)
            [ $rc -eq 0 ] || v="exit $rc"
            echo "$i $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }') ${ins:-0} $v" >> "$tmp/warpex.$r"
            i=$((i + 1))
        done < "$tmp/f"
    done
    i=0
    while IFS= read -r p; do
        # the fastest run of each side
        ws=$(cat "$tmp"/warpex.* | awk -v i=$i '$1 == i { if (b == "" || $2 < b) b = $2 } END { print b }')
        wi=$(cat "$tmp"/warpex.* | awk -v i=$i '$1 == i { if (b == "" || $3 < b) b = $3 } END { print b }')
        wv=$(awk -v i=$i '$1 == i { $1 = ""; $2 = ""; $3 = ""; sub(/^   /, ""); print; exit }' "$tmp/warpex.1")
        load=$(awk '$1 == "load" { if (b == "" || $2 < b) b = $2 } END { print b }' "$tmp"/storm.*)
        line=$(grep -h "^prop $i " "$tmp/storm.1")
        case $line in
        *error:*) ss="-"; sv="Storm: ${line#*error: }" ;;
        *) ss=$(cat "$tmp"/storm.* | awk -v i=$i -v l="$load" '$1 == "prop" && $2 == i { t = l + $3; if (b == "" || t < b) b = t } END { printf "%.3f", b }')
           sv=$(echo "$line" | cut -d' ' -f4) ;;
        esac
        ratio=$(awk -v w="$ws" -v s="$ss" 'BEGIN { if (s == "-" || s + 0 <= 0) print "-"; else printf "%.2f", w / s }')
        flag=$(awk -v a="$wv" -v b="$sv" -v e="$EPSILON" 'BEGIN {
            if (a == b) exit; if (a + 0 != a || b + 0 != b) { if (a != b) print " DIFF"; exit }
            d = a - b; if (d < 0) d = -d; if (d > 2 * e) print " DIFF" }')
        iratio=$(awk -v w="$wi" -v s="$ss" 'BEGIN { if (s == "-" || s + 0 <= 0) print "-"; else printf "%.2f", w / s }')
        printf '| %s | `%s` | %.3f | %.4f | %s | %s | %s | %s | %s%s |\n' "$name" "$p" "$ws" "$wi" "$ss" "$ratio" "$iratio" "$wv" "$sv" "$flag"
        echo "$ws $ss $wi" >> "$tmp/sum"
        i=$((i + 1))
    done < "$tmp/f"
    rm -f "$tmp"/warpex.* "$tmp"/storm.*
done
echo
awk '$2 != "-" { n++; w += $1; s += $2; lr += log($1 / $2); if ($1 <= $2) k++; if ($3 <= $2) ki++ }
     END { if (n) printf "%d properties: warpex %.3f s, Storm %.3f s in all (ratio %.2f); geometric mean of the ratios %.2f; warpex at most Storm'"'"'s time on %d of %d (whole process), on %d of %d (read + check, as Storm'"'"'s load + check)\n",
           n, w, s, w / s, exp(lr / n), k, n, ki, n }' "$tmp/sum"
