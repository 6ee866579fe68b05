#!/bin/sh
# t_consensus_gen.sh -- bench/consensus_gen.c, the generator of PRISM's
# "consensus" MDP: PRISM's published state/choice/transition counts (N2K2,
# N2K4, N4K2, N4K4, and N6K2 by counting only), exact values through
# `warpex check` (c2 and disagree on N2K2, disagree on N2K4), Gauss-Seidel's
# and topological solving's sweeps on N4K4 against Jacobi's, byte-for-byte
# equality with the PRISM exports in tests/data/mdp, and bad arguments.
cd "$(dirname "$0")/.." || exit 2
TAG=consensus-gen
. tests/lib.sh

G=$T/consensus_gen
if ${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror bench/consensus_gen.c -o "$G" 2> "$T/cc.err"; then
    pass "builds"
else
    fail "does not build: $(head -c 300 "$T/cc.err")"; exit 1
fi

first_value() { sed -n 's/.*"initial": \[{"state": [0-9]*, "value": \([^,]*\),.*/\1/p' "$T/out" | head -1; }

# PRISM's counts (QVBS / the shared exports' READMEs)
for nk in "2 2 272 400 492" "2 4 528 784 972" "4 2 22656 60544 75232" "4 4 43136 115840 144352"; do
    set -- $nk
    expect_rc "N$1 K$2 generates" 0 "$G" "$1" "$2" "$T/c$1$2"
    want="states=$3 choices=$4 transitions=$5"
    [ "$(cat "$T/out")" = "$want" ] && pass "N$1 K$2: $want" || fail "N$1 K$2: '$(cat "$T/out")', expected '$want'"
    # the .tra header says the same
    [ "$(sed -n 2p "$T/c$1$2.tra")" = "$3 $4 $5" ] && pass "N$1 K$2 .tra header" ||
        fail "N$1 K$2 .tra header: $(sed -n 2p "$T/c$1$2.tra")"
done
# N=6 K=2: PRISM's published 1 258 240 states (counted only: the .tra is 119 MB)
expect_rc "N6 K2 counts" 0 "$G" --count 6 2
case $(cat "$T/out") in
states=1258240\ *) pass "N6 K2: $(cat "$T/out")" ;;
*) fail "N6 K2: '$(cat "$T/out")', expected 1258240 states" ;;
esac

# bench/consensus_prism.sh (PRISM's model for N processes, for Storm's side
# of bench/device/storm_prism.sh) gives QVBS's own N=2 and N=4 files back
for n in 2 4; do
    if sh bench/consensus_prism.sh $n > "$T/consensus.$n.prism" 2> "$T/cp.err" &&
        cmp -s "$T/consensus.$n.prism" tests/data/mdp/consensus-N$n-K2/consensus.$n.prism; then
        pass "consensus_prism.sh $n == QVBS consensus.$n.prism"
    else
        fail "consensus_prism.sh $n differs from QVBS consensus.$n.prism: $(head -c 200 "$T/cp.err")"
    fi
done
expect_rc "consensus_prism.sh 1 refused" 2 sh bench/consensus_prism.sh 1

# exact values (QVBS references) through warpex check
P="$T/c22"
expect_rc "N2 K2 c2" 0 "$W" check "$P.tra" --lab "$P.lab" --prop 'Pmin=? [ F "finished"&"all_coins_equal_1" ]' --json
near "N2 K2 c2" "$(first_value)" 0.3828125 1e-6
expect_rc "N2 K2 disagree" 0 "$W" check "$P.tra" --lab "$P.lab" --prop 'Pmax=? [ F "finished"&!"agree" ]' --json
near "N2 K2 disagree" "$(first_value)" 0.10833333333333333 1e-6
P="$T/c24"
expect_rc "N2 K4 disagree" 0 "$W" check "$P.tra" --lab "$P.lab" --prop 'Pmax=? [ F "finished"&!"agree" ]' --json
near "N2 K4 disagree" "$(first_value)" 0.061519607843137254 1e-6
# the state reward file reads (expected steps are finite: c1 holds)
expect_rc "N2 K2 steps" 0 "$W" check "$T/c22.tra" --lab "$T/c22.lab" --srew "$T/c22.srew" --prop 'Rmin=? [ F "finished" ]' --json
v=$(first_value)
awk -v v="$v" 'BEGIN { exit !(v + 0 > 1 && v + 0 < 1e6) }' && pass "N2 K2 Rmin steps finite ($v)" ||
    fail "N2 K2 Rmin steps: '$v'"

# Gauss-Seidel and topological solving order each SCC's states by backward
# BFS from the target (analysis/mdpcheck_order.c): on N4 K4 disagree they need
# about a quarter of Jacobi's sweeps (2 349 and 1 938 against 9 044; in the
# SCCs' old state order half: 4 522 and 3 981), with the same answer
P="$T/c44"
iters() { sed -n 's/.*"iterations": \([0-9]*\).*/\1/p' "$T/out" | head -1; }
expect_rc "N4 K4 disagree, Jacobi" 0 "$W" check "$P.tra" --lab "$P.lab" --prop 'Pmax=? [ F "finished"&!"agree" ]' --backend cpu --method ii --json
vj=$(first_value); ij=$(iters)
for m in "--solver gs" "--method topological"; do
    expect_rc "N4 K4 disagree, $m" 0 "$W" check "$P.tra" --lab "$P.lab" --prop 'Pmax=? [ F "finished"&!"agree" ]' --backend cpu $m --json
    near "N4 K4 disagree, $m = Jacobi's" "$(first_value)" "$vj" 1e-6
    i=$(iters)
    awk -v i="$i" -v j="$ij" 'BEGIN { exit !(i + 0 > 0 && j + 0 > 0 && i <= 0.35 * j) }' &&
        pass "N4 K4 disagree, $m: $i sweeps, at most 35 % of Jacobi's $ij" ||
        fail "N4 K4 disagree, $m: $i sweeps against Jacobi's $ij (expected at most 35 %)"
done

# the default (--method auto: optimistic value iteration, Gauss-Seidel in
# that order): the same answer, at most 35 % of Jacobi's sweeps
expect_rc "N4 K4 disagree, auto" 0 "$W" check "$P.tra" --lab "$P.lab" --prop 'Pmax=? [ F "finished"&!"agree" ]' --backend cpu --json
near "N4 K4 disagree, auto = Jacobi's" "$(first_value)" "$vj" 1e-6
i=$(iters)
awk -v i="$i" -v j="$ij" 'BEGIN { exit !(i + 0 > 0 && j + 0 > 0 && i <= 0.35 * j) }' &&
    pass "N4 K4 disagree, auto: $i sweeps, at most 35 % of Jacobi's $ij" ||
    fail "N4 K4 disagree, auto: $i sweeps against Jacobi's $ij (expected at most 35 %)"

# byte-for-byte against PRISM's exports
S=tests/data/mdp
for nk in "2 2" "2 4" "4 2" "4 4"; do
    set -- $nk
    d="$S/consensus-N$1-K$2"
    for e in tra lab srew trew sta; do
        if cmp -s "$T/c$1$2.$e" "$d/consensus-N$1-K$2.$e"; then pass "N$1 K$2 .$e identical to PRISM's"
        else fail "N$1 K$2 .$e differs from $d/consensus-N$1-K$2.$e: $(cmp "$T/c$1$2.$e" "$d/consensus-N$1-K$2.$e" 2>&1 | head -1)"; fi
    done
done

# bad arguments
expect_rc "no arguments" 2 "$G"
expect_rc "N = 0" 2 "$G" 0 2 "$T/x"
expect_rc "N not a number" 2 "$G" 2x 2 "$T/x"
expect_rc "K negative" 2 "$G" 2 -1 "$T/x"
expect_rc "too big" 3 "$G" --count 10 1000000
expect_rc "unwritable prefix" 4 "$G" 2 2 "$T/no/such/dir/x"
