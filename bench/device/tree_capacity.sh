#!/bin/bash
# bench/device/tree_capacity.sh -- how many states one GPU holds with the
# tree store (issue: tree-compressed state storage): each named instance of
# examples/gen.py --large explored with `--backend gpu --store S --json -q`
# for each store S in $STORES (default "tree flat"), with the whole device
# memory as the budget; prints states, bytes per state (the JSON "bytes":
# all memory of the state storage), seconds, status and exit code (3: the
# store filled up, with the counts reached).
#
#   bench/device/tree_capacity.sh [--stores S1+S2] [--limit SECONDS] INSTANCE ...
#       e.g. milner/milner_n27; LIMIT=300 or --limit (seconds per run),
#       STORES="tree flat" or --stores tree+flat
#
# The instances are written once under $WARPEX_LARGE (default
# /tmp/warpex-large).
set -u
cd "$(dirname "$0")/../.." || exit 2
L=${WARPEX_LARGE:-/tmp/warpex-large}
STORES=${STORES:-tree flat} LIMIT=${LIMIT:-300}
while [ $# -ge 2 ]; do
    case $1 in
    --stores) STORES=${2//+/ }; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    *) break ;;
    esac
done
field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p"; }
for inst in "$@"; do
    [ -f "$L/$inst.exp" ] || python3 examples/gen.py --large "$L" >/dev/null || exit 2
    for s in $STORES; do
        j=$(timeout "$LIMIT" bin/warpex explore "$L/$inst.exp" --backend gpu --store "$s" --json -q 2>"/tmp/cap.err")
        rc=$?
        echo "$inst $s: exit $rc states $(echo "$j" | field states) words $(echo "$j" | field words_per_state)" \
             "bytes $(echo "$j" | field bytes) B/state $(echo "$j" | field bytes_per_state)" \
             "seconds $(echo "$j" | field seconds) store $(echo "$j" | field store) status $(echo "$j" | field status)" \
             "$(head -c 200 /tmp/cap.err | tr '\n' ' ')"
    done
done
