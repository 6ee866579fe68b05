#!/bin/sh
# t_hostile_input.sh -- issue 25 items 2, 3 and 6: every reader answers a
# hostile input with one located line and exit 2, fast and in little memory:
# deep formulas and EXP nesting (no stack overflow), headers and ids the
# file's size cannot back (no allocation of gigabytes: run under a 1 GB
# address-space limit), endless streams (/dev/zero), directories, control
# bytes in quoted input (escaped), and file:line:col on every count message.
cd "$(dirname "$0")/.." || exit 2
TAG=hostile-input
. tests/lib.sh

# expect_err NAME RC REGEX COMMAND...: exit RC and stderr matching REGEX
# (grep -E; empty: not checked), run under a 1 GB address-space limit and a 10 s timeout.
expect_err() {
    name=$1; want=$2; re=$3; shift 3
    ( ulimit -v 1000000; exec timeout 10 "$@" ) > "$T/out" 2> "$T/err"; got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name: expected exit $want, found $got; stderr: $(head -c 300 "$T/err")"
    elif [ -n "$re" ] && ! grep -Eq -- "$re" "$T/err"; then
        fail "$name: stderr does not match '$re': $(head -c 300 "$T/err")"
    else
        pass "$name (exit $got)"
    fi
}
rep() { awk -v s="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'; }

# ---- item 2: depth bounds ------------------------------------------------
printf '2 2 2\n0 0 1 1 a\n1 0 0 1 b\n' > "$T/m.tra"
printf '0="init" 1="a"\n0: 0\n1: 1\n' > "$T/m.lab"
expect_err "10^5 '!' in --prop" 2 '^warpex: --prop:1:[0-9]+: formula nested too deeply' \
    "$W" check "$T/m.tra" --lab "$T/m.lab" --prop "Pmax=? [F $(rep '!' 100000)\"a\"]"
expect_err "4*10^4 '(' in --prop" 2 '^warpex: --prop:1:[0-9]+: formula nested too deeply' \
    "$W" check "$T/m.tra" --lab "$T/m.lab" --prop "Pmax=? [F $(rep '(' 40000)\"a\"]"
{ printf 'Pmax=? [F '; rep '!(' 50000; printf '"a"'; rep ')' 50000; printf ']\n'; } > "$T/deep.props"
expect_err "10^5 '!(' in a property file" 2 "deep.props:1:[0-9]+: formula nested too deeply" \
    "$W" check "$T/m.tra" --lab "$T/m.lab" --props "$T/deep.props"
{ printf 'Pmax=? [F '; rep '"a" | ' 20000; printf '"a"]\n'; } > "$T/chain.props"
expect_err "a chain of 20000 '|' is not nesting: accepted" 0 'read' \
    "$W" check "$T/m.tra" --lab "$T/m.lab" --props "$T/chain.props"
{ printf 'Pmin=? [F '; rep '!!' 499; printf '"a"]\n'; } > "$T/ok.props"
expect_err "998 '!' (under the bound) accepted" 0 'read' \
    "$W" check "$T/m.tra" --lab "$T/m.lab" --props "$T/ok.props"

printf 'des (0, 2, 2)\n(0, "x", 1)\n(1, "y", 0)\n' > "$T/a.aut"
{ rep '(' 100000; printf '"%s"' "$T/a.aut"; rep ')' 100000; } > "$T/deep.exp"
expect_err "10^5 nested '(' in .exp" 2 'deep.exp:1:[0-9]+: behaviour nested too deeply' \
    "$W" info "$T/deep.exp"
{ rep 'hide x in ' 100000; printf '"%s"\n' "$T/a.aut"; } > "$T/hide.exp"
expect_err "10^5 nested hide in .exp" 2 'hide.exp:1:[0-9]+: behaviour nested too deeply' \
    "$W" info "$T/hide.exp"
i=0
while [ $i -lt 64 ]; do
    next="\"$T/f$((i + 1)).exp\""; [ $i -eq 63 ] && next="\"$T/a.aut\""
    { rep 'hide x in ' 4900; echo "$next"; } > "$T/f$i.exp"
    i=$((i + 1))
done
expect_err "64 included .exp files of 4900 levels each" 2 \
    'f1.exp:1:[0-9]+: behaviour nested too deeply .*included' "$W" info "$T/f0.exp"
{ rep 'hide x in ' 4900; printf '"%s"\n' "$T/a.aut"; } > "$T/ok.exp"
expect_err "4900 nested hides (under the bound) flattened" 0 '' "$W" info "$T/ok.exp"

# ---- item 3: validation before allocation ---------------------------------
printf '2000000000 100 100' > "$T/t18.tra"
for cmd in scc mec; do
    expect_err "18-byte .tra declaring 2*10^9 states: $cmd" 2 \
        't18.tra:1:1: the number of states 2000000000 is implausible for a file of 18 bytes' \
        "$W" $cmd "$T/t18.tra"
done
expect_err "18-byte .tra declaring 2*10^9 states: check" 2 't18.tra:1:1: the number of states' \
    "$W" check "$T/t18.tra" --prop 'Pmax=? [F true]'
printf '2000000000 0 0\n' > "$T/s.tra"
expect_err ".tra declaring 2*10^9 states, no lines" 2 \
    's.tra:1:1: the number of states 2000000000 is implausible for a file of 15 bytes: ids above 16 \* file bytes \+ 1048576' \
    "$W" scc "$T/s.tra"
printf '# x\n0 211611110\n' > "$T/e16"
expect_err "16-byte edge list naming vertex 211611110: scc" 2 \
    'e16:2:3: target vertex 211611110 is implausible for a file of 16 bytes' "$W" scc "$T/e16"
expect_err "16-byte edge list naming vertex 211611110: mec" 2 'e16:2:3: ' "$W" mec "$T/e16"
printf '0 211611110 1\n' > "$T/w14"
expect_err "edge list with weights naming vertex 211611110: cycle-mean" 2 \
    'w14:1:3: target vertex 211611110 is implausible' "$W" cycle-mean "$T/w14"
printf 'p sp 400000000 1\na 1 2 3\n' > "$T/big.gr"
expect_err "DIMACS 'p' line declaring 4*10^8 vertices" 2 'big.gr:1:6: the number of vertices 400000000 is implausible' \
    "$W" cycle-mean "$T/big.gr"
printf 'des (0, 0, 400000000)\n' > "$T/big.aut"
expect_err ".aut header declaring 4*10^8 states" 2 'big.aut:1:12: the header declares 400000000 states, implausible' \
    "$W" scc "$T/big.aut"
printf '%%%%MatrixMarket matrix coordinate pattern general\n400000000 400000000 0\n' > "$T/big.mtx"
expect_err ".mtx declaring 4*10^8 rows" 2 'big.mtx:2:1: the number of rows 400000000 is implausible' \
    "$W" scc "$T/big.mtx"
printf '@type: MDP\n@nr_states\n2000000000\n@model\n' > "$T/big.drn"
expect_err ".drn declaring 2*10^9 states" 2 'big.drn:3:1: @nr_states declares 2000000000 states, but the 7 bytes' \
    "$W" check "$T/big.drn" --prop 'Pmax=? [F true]'
for cmd in scc mec cycle-mean; do
    expect_err "/dev/zero: $cmd" 2 '/dev/zero:1:1: NUL byte' "$W" $cmd /dev/zero
done
expect_err "/dev/zero: check" 2 '/dev/zero:1:1: NUL byte' "$W" check /dev/zero --prop 'Pmax=? [F true]'
expect_err "/dev/zero: check --props" 2 '/dev/zero:1:1: NUL byte' \
    "$W" check "$T/m.tra" --props /dev/zero
expect_err "/dev/zero: check --lab" 2 '/dev/zero:1:1: NUL byte' \
    "$W" check "$T/m.tra" --lab /dev/zero --prop 'Pmax=? [F true]'

# ---- item 6: escaped bytes, directories, columns -----------------------------
printf '2 1\n0 1 1\033[31m\n' > "$T/esc.tra"
printf '@type: X\033[2J\n@nr_states\n1\n@model\nstate 0\n' > "$T/esc.drn"
printf '0 x\033]0;t\007 1\n' > "$T/esc.edges"
for f in esc.tra esc.drn esc.edges; do
    case $f in *.drn) "$W" check "$T/$f" --prop 'Pmax=? [F true]' ;; *) "$W" scc "$T/$f" ;; esac \
        > "$T/out" 2> "$T/err"; rc=$?
    if [ $rc -ne 2 ]; then fail "ESC in $f: expected exit 2, found $rc"
    elif grep -q "$(printf '\033')" "$T/err" || grep -q "$(printf '\007')" "$T/err"; then
        fail "ESC in $f: raw control bytes in the message: $(od -c "$T/err" | head -3)"
    elif ! grep -q '\\x1b' "$T/err"; then fail "ESC in $f: no \\x1b in: $(cat "$T/err")"
    else pass "ESC in $f: escaped as \\x1b (exit 2)"; fi
done

mkdir -p "$T/d.aut" "$T/d.exp" "$T/d.tra" "$T/d.edges" "$T/d.csr" "$T/d.gpf" "$T/d.drn" "$T/d.lab"
expect_err "directory as .aut (explore)" 2 'd.aut: is a directory$' "$W" explore "$T/d.aut"
expect_err "directory as .aut (scc)" 2 'd.aut: is a directory$' "$W" scc "$T/d.aut"
expect_err "directory as .exp" 2 'd.exp: is a directory$' "$W" explore "$T/d.exp"
expect_err "directory as .gpf" 2 'd.gpf: is a directory$' "$W" explore "$T/d.gpf"
expect_err "directory as .tra" 2 'd.tra: is a directory$' "$W" scc "$T/d.tra"
expect_err "directory as .tra (check)" 2 'd.tra: is a directory$' "$W" check "$T/d.tra" --prop 'Pmax=? [F true]'
expect_err "directory as edge list" 2 'd.edges: is a directory$' "$W" scc "$T/d.edges"
expect_err "directory as edge list (cycle-mean)" 2 'd.edges: is a directory$' "$W" cycle-mean "$T/d.edges"
expect_err "directory as .csr" 2 'd.csr: is a directory$' "$W" scc "$T/d.csr"
expect_err "directory as .drn" 2 'd.drn: is a directory$' "$W" check "$T/d.drn" --prop 'Pmax=? [F true]'
expect_err "directory as .lab" 2 'd.lab: is a directory$' \
    "$W" check "$T/m.tra" --lab "$T/d.lab" --prop 'Pmax=? [F true]'
expect_err "directory as property file" 2 'd.edges: is a directory$' \
    "$W" check "$T/m.tra" --props "$T/d.edges"

printf '2 2 3\n# a comment line long enough to hold the bytes\n0 0 1 1\n1 0 0 1\n' > "$T/short.tra"
expect_err ".tra: fewer lines than the header declares" 2 \
    'short.tra:1:5: the header declares 3 transition lines, the file has 2' "$W" scc "$T/short.tra"
printf '2 3 3\n0 0 1 0.5\n0 0 0 0.5\n1 0 0 1\n' > "$T/ch.tra"
expect_err ".tra: choices differ from the header" 2 \
    'ch.tra:1:3: the header declares 3 choices, the transition lines give 2' "$W" scc "$T/ch.tra"
printf '@type: DTMC\n@nr_states\n2\n@model\nstate 0\naction 0\n  0 : 1\n' > "$T/n.drn"
expect_err ".drn: @nr_states differs" 2 'n.drn:3:1: @nr_states declares 2 states, the model lists 1' \
    "$W" check "$T/n.drn" --prop 'Pmax=? [F true]'
printf '@type: DTMC\n@nr_states\n1\n@nr_choices\n  5\n@model\nstate 0\naction 0\n  0 : 1\n' > "$T/c.drn"
expect_err ".drn: @nr_choices differs" 2 'c.drn:5:3: @nr_choices declares 5 choices, the model has 1' \
    "$W" check "$T/c.drn" --prop 'Pmax=? [F true]'
printf 'c no p line\n' > "$T/nop.gr"
expect_err "DIMACS: no 'p' line" 2 "nop.gr:2:1: no 'p' line" "$W" cycle-mean "$T/nop.gr"
printf 'p sp 2 3\na 1 2 1\na 2 1 1\n' > "$T/arcs.gr"
expect_err "DIMACS: arc count" 2 "arcs.gr:1:8: the 'p' line declares 3 arcs, the file has 2" \
    "$W" cycle-mean "$T/arcs.gr"
printf '// nothing here\n\n' > "$T/empty.props"
expect_err "no property in the file" 2 'empty.props:3:1: no property in the file' \
    "$W" check "$T/m.tra" --props "$T/empty.props"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n' > "$T/n.mtx"
expect_err ".mtx: entry count" 2 'n.mtx:2:5: the size line declares 3 entries, the file has 1' \
    "$W" scc "$T/n.mtx"
