#!/bin/sh
# plot.sh -- the bench charts: reads bench/data/*.tsv (the measurements of
# bench/RESULTS.md, each file naming the script and call that took them)
# and writes docs/img/*.png with bench/plot.py:
#   explorer_h100.png   GPU against CPU states/s per network (log scale)
#   check_vs_storm.png  warpex against Storm time per property (log-log)
#   por.png             --por reduction factors per model
#   tree.png            flat against tree store, bytes per state
#
#   bench/plot.sh [OUT_DIR]        (default docs/img)
#   environment:
#       VENV=DIR          the virtual environment for matplotlib (default
#                         build/plot-venv, git-ignored; created, then reused)
#       MATPLOTLIB=SPEC   what pip installs (default "matplotlib")
#
# After a new measurement: update its row of bench/data/*.tsv (and
# bench/RESULTS.md), run this script and commit the data and the PNGs.
# Needs python3 with venv and pip, and network access to PyPI for the first
# run.  When matplotlib cannot be installed the script says so and exits 3,
# leaving the committed PNGs as they are.
set -u
cd "$(dirname "$0")/.." || exit 2
VENV=${VENV:-build/plot-venv}
MATPLOTLIB=${MATPLOTLIB:-matplotlib}
OUT=${1:-docs/img}
command -v python3 >/dev/null 2>&1 || { echo "plot.sh: needs python3" >&2; exit 4; }

PY=$VENV/bin/python
if ! [ -x "$PY" ] || ! "$PY" -c 'import matplotlib' 2>/dev/null; then
    echo "plot.sh: installing $MATPLOTLIB into $VENV (pip, PyPI)" >&2
    if ! python3 -m venv "$VENV" >&2 || ! "$VENV/bin/pip" install -q "$MATPLOTLIB" >&2 ||
        ! "$PY" -c 'import matplotlib' >&2; then
        echo "plot.sh: matplotlib could not be installed into $VENV ('pip install $MATPLOTLIB'" \
             "failed: see the messages above); no charts written." >&2
        exit 3
    fi
fi
exec "$PY" bench/plot.py bench/data "$OUT"
