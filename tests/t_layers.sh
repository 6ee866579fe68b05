#!/bin/sh
# t_layers.sh -- the include graph goes one way through the layers.
#
# The layers, lowest first (a module may include its own layer and the ones
# below it, never one above):
#
#   0 util      error codes, arithmetic, string table, config, pool, timer
#   1 hash      the concurrent state tables (vtable, vecset): util only
#   2 network   the network model, the EXP operator tree (exp_tree.h), the
#               transforms, the image and its check
#   3 parser    text to network: .exp, .aut, .gpf, and network_build
#   4 explorer  the CPU explorers (image in, states out)
#   4 graph     the explored graph / MDP types and their file readers
#   5 analysis  SCC, MEC, value iteration, cycle mean, property checks
#   6 kernels   the GPU twins and their host launchers
#   7 cli       the command line: the only layer that prints or exits
#
# hash sits just above util: it needs nothing but util, and the explorers
# (and GPU tests) use it.  explorer and graph share a layer; between two
# modules of one layer, includes may go one way only (checked below: no
# module-level cycle).  Every #include "..." of every .c/.h/.y/.l/.cu/.cuh
# file under these folders is resolved against the including file's folder
# (then the repository root, as -I. does); system headers and generated
# files (build/gen) are not modules and are ignored.
#
#   sh tests/t_layers.sh          check the repository
cd "$(dirname "$0")/.." || exit 2
TAG=layers
. tests/lib.sh

LAYERS="util:0 hash:1 network:2 parser:3 explorer:4 graph:4 analysis:5 kernels:6 cli:7"

# edges ROOT: one line "FILE FROM_MODULE TO_MODULE INCLUDED" per include
# between two different modules.
edges() {
    (cd "$1" || exit 2
     for m in $LAYERS; do
         d=${m%%:*}
         [ -d "$d" ] || continue
         find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.y' -o -name '*.l' \
              -o -name '*.cu' -o -name '*.cuh' \) | sort
     done | while read -r f; do
         dir=$(dirname "$f")
         sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
             if [ -f "$dir/$inc" ]; then p=$dir/$inc
             elif [ -f "$inc" ]; then p=$inc
             else continue; fi
             # normalise a/b/../c to a/c, then take the top folder
             top=$(echo "$p" | awk -F/ '{ n = 0; for (i = 1; i <= NF; i++) {
                       if ($i == "." || $i == "") continue; if ($i == "..") n--; else s[++n] = $i }
                   print s[1] }')
             from=${f%%/*}
             [ "$top" != "$from" ] && echo "$f $from $top $inc"
         done
     done)
}

# violations ROOT: every include that goes up a layer, and every pair of
# modules that include each other; nothing when the tree is clean.
violations() {
    edges "$1" | awk -v layers="$LAYERS" '
        BEGIN { n = split(layers, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, ":"); lv[kv[1]] = kv[2] } }
        !($3 in lv) { next }
        { if (lv[$3] > lv[$2]) print "up: " $1 " (" $2 ", layer " lv[$2] ") includes " $4 " (" $3 ", layer " lv[$3] ")"
          pair[$2 " " $3] = $1 " includes " $4 }
        END { for (k in pair) { split(k, m, " "); r = m[2] " " m[1]
                  if ((r in pair) && m[1] < m[2]) print "cycle: " m[1] " <-> " m[2] ": " pair[k] "; " pair[r] } }' | sort
}

v=$(violations .)
if [ -z "$v" ]; then
    pass "every include goes down the layers $(echo "$LAYERS" | sed 's/:[0-9]//g; s/ / -> /g')"
else
    fail "includes against the layers:"
    echo "$v" | sed "s/^/FAIL $TAG:   /"
fi
n=$(edges . | wc -l)
[ "$n" -gt 50 ] && pass "$n includes between modules examined" || fail "only $n includes between modules found: is the scan broken?"

# The check can fail: a tree with an upward include and a cycle.
mkdir -p "$T/r/network" "$T/r/parser" "$T/r/graph" "$T/r/explorer"
printf '#include "../parser/p.h"\n' > "$T/r/network/n.c"
printf '#include "../network/n.h"\n' > "$T/r/parser/p.h"
: > "$T/r/network/n.h"
printf '#include "../explorer/e.h"\n' > "$T/r/graph/g.h"
printf '#include "../graph/g.h"\n' > "$T/r/explorer/e.h"
v=$(violations "$T/r")
echo "$v" | grep -q '^up: network/n.c (network, layer 2) includes ../parser/p.h' &&
    echo "$v" | grep -q '^cycle: explorer <-> graph' &&
    echo "$v" | grep -q '^cycle: network <-> parser' &&
    pass "a planted upward include and two cycles are reported" ||
    fail "planted violations not reported: $v"
