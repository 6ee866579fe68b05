#!/bin/sh
# consensus_prism.sh -- PRISM's consensus model for N processes, made from
# the repository's N=4 file (tests/data/mdp/consensus-N4-K2/consensus.4.prism,
# QVBS, CC-BY 4.0; see its README): the constant N, the renamed copies of
# process1 and the labels over all N processes; the rest of the file as it
# is.  For Storm building the model that bench/device/storm_prism.sh
# compares with `warpex explore` on examples/gen_consensus.sh's network.
#
#   bench/consensus_prism.sh N > consensus.N.prism      (N >= 2; K stays a parameter)
set -u
cd "$(dirname "$0")/.." || exit 2
n=${1:-}
case $n in '' | *[!0-9]*) echo "usage: $0 N (N >= 2)" >&2; exit 2 ;; esac
[ "$n" -ge 2 ] || { echo "usage: $0 N (N >= 2)" >&2; exit 2; }
src=tests/data/mdp/consensus-N4-K2/consensus.4.prism
[ -f "$src" ] || { echo "$0: $src missing" >&2; exit 2; }
awk -v n="$n" '
    function all(fmt, sep,    s, i) { s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? sep : "") sprintf(fmt, i); return s }
    /^const int N=/ { print "const int N=" n ";"; next }
    /^module process[0-9]+ = process1/ { next }
    /^\/\/ construct remaining processes/ {
        print
        for (i = 2; i <= n; i++) printf "module process%d = process1[pc1=pc%d,coin1=coin%d] endmodule\n", i, i, i
        next
    }
    /^label "finished"/ { print "label \"finished\" = " all("pc%d=3", " & ") " ;"; next }
    /^label "all_coins_equal_0"/ { print "label \"all_coins_equal_0\" = " all("coin%d=0", " & ") " ;"; next }
    /^label "all_coins_equal_1"/ { print "label \"all_coins_equal_1\" = " all("coin%d=1", " & ") " ;"; next }
    /^label "agree"/ {
        s = ""; for (i = 1; i < n; i++) s = s (i > 1 ? " & " : "") sprintf("coin%d=coin%d", i, i + 1)
        print "label \"agree\" = " s " ;"; next
    }
    { print }' "$src"
