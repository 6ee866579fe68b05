#!/bin/bash
# bench/device/vi_diag.sh -- the whole --json of `warpex check` on consensus
# N=6 K=2 (Pmax, the parity row of bench/device/parity.sh) for an older and
# the current binary, with the default method and with each of --method ii,
# ovi and pi, so that a difference in parity's "seconds" can be traced to a
# phase (precomputation, MEC, system, solve) or to another method.
#
#   bench/device/vi_diag.sh OLD_BIN
#
# TIMELINE=1: then the current binary's default method once more for Pmax
# and Pmin with WARPEX_TIMELINE=1 (the host's step marks, check.h).
#
# Inputs as parity.sh's (bench/consensus_gen.c under $WORK, default
# /tmp/parity).
set -u
cd "$(dirname "$0")/../.." || exit 2
OLD=$1
WORK=${WORK:-/tmp/parity}
mkdir -p "$WORK"
[ -x "$WORK/consensus_gen" ] || cc -std=c11 -O2 bench/consensus_gen.c -o "$WORK/consensus_gen" || exit 2
[ -f "$WORK/c62.tra" ] || "$WORK/consensus_gen" --no-sta 6 2 "$WORK/c62" >/dev/null 2>&1 || exit 2
for m in "" "--method ii" "--method ovi" "--method pi"; do
    for b in "$OLD" bin/warpex; do
        echo "== $b ${m:-default}"
        # shellcheck disable=SC2086
        "$b" check "$WORK/c62.tra" --lab "$WORK/c62.lab" --prop 'Pmax=? [ F "finished"&!"agree" ]' \
            --backend gpu --json $m 2>&1 | tr ',' '\n' | grep -v '^ *"\(model\|name\|property\)"' | tr '\n' ' '
        echo
    done
done
if [ "${TIMELINE:-0}" = 1 ]; then
    for p in 'Pmax=? [ F "finished"&!"agree" ]' 'Pmin=? [ F "finished"&"all_coins_equal_1" ]'; do
        echo "== timeline $p"
        WARPEX_TIMELINE=1 bin/warpex check "$WORK/c62.tra" --lab "$WORK/c62.lab" --prop "$p" --backend gpu \
            --json 2>&1 | grep '^timeline' | awk '{print $2, $6, $7, $8, $9, $10, $11, $12}'
    done
fi
