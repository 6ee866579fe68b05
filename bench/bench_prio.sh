#!/bin/sh
# bench_prio.sh -- what an EXP priority costs the explorers: the same
# network explored plain, under a prio whose rules relate no label (the
# per-state filter runs, nothing is removed), and under a prio that removes
# transitions; and, with OLD=binary, the plain network by an older warpex
# (no slowdown on networks without priorities).  Times are the explorer's
# own "seconds" (--json), best of REPEAT runs, alternating binaries.
#
#   bench/bench_prio.sh PHILOSOPHERS.exp [BACKEND ...]   (default backends: seq cpu)
#   environment: OLD=path/to/old/warpex, REPEAT=3, W=bin/warpex
set -u
W=${W:-$PWD/bin/warpex}
REPEAT=${REPEAT:-3}
net=$1; shift
[ $# -gt 0 ] || set -- seq cpu
dir=$(cd "$(dirname "$net")" && pwd); base=$(basename "$net")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'total prio "PUT !0 !0" > "GET !0 !0" in "%s/%s" end prio\n' "$dir" "$base" > "$tmp/inert.exp"
printf 'prio PUT > GET in "%s/%s" end prio\n' "$dir" "$base" > "$tmp/put_get.exp"
best() { # best BIN FILE BACKEND: "states seconds"
    b=""; s=""
    for r in $(seq "$REPEAT"); do
        "$1" explore "$2" --backend "$3" --json -q > "$tmp/o" 2>&1 || { echo "? failed"; return; }
        t=$(sed -n 's/.*"seconds": \([0-9.e-]*\).*/\1/p' "$tmp/o")
        s=$(sed -n 's/.*"states": \([0-9]*\).*/\1/p' "$tmp/o")
        b=$(awk -v a="$b" -v t="$t" 'BEGIN { print (a == "" || t < a) ? t : a }')
    done
    echo "$s $b"
}
echo "| network | backend | variant | states | s (best of $REPEAT) | M states/s |"
echo "|---|---|---|---:|---:|---:|"
for bk in "$@"; do
    for v in plain inert put_get old; do
        case $v in
        plain) r=$(best "$W" "$net" "$bk") ;;
        inert) r=$(best "$W" "$tmp/inert.exp" "$bk") ;;
        put_get) r=$(best "$W" "$tmp/put_get.exp" "$bk") ;;
        old) [ -n "${OLD:-}" ] || continue; r=$(best "$OLD" "$net" "$bk") ;;
        esac
        set -- $r
        echo "| $base | $bk | $v | $1 | $2 | $(awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.2f", n / t / 1e6; else print "-" }') |"
    done
done
