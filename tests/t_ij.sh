#!/bin/sh
# t_ij.sh -- examples/gen_ij.sh (Israeli and Jalfon's token ring as a
# network of probabilistic LTSs): for N = 2..5 the explored MDP has the
# states tests/ij_ref.py reaches from the model's rules (4^N - 1), and the
# expected passes until one token is left, Rmin and Rmax through
# `explore --prop` with `--reward steps:^pass$=1`, and Pmin (= 1: the ring
# stabilises under every scheduler) match the reference's value iteration;
# bad arguments are refused.
cd "$(dirname "$0")/.." || exit 2
TAG=ij
. tests/lib.sh

command -v python3 > /dev/null || { fail "python3 is needed for the reference"; exit 1; }
prop_value() { # the K-th property's value in the JSON of $T/out
    tr '{' '\n' < "$T/out" | sed -n 's/^"property": .*"value": \([^,]*\),.*/\1/p' | sed -n "${1}p"
}
for n in 2 3 4 5; do
    expect_rc "N=$n generates" 0 sh examples/gen_ij.sh "$n" "$T/ij"
    set -- $(python3 tests/ij_ref.py "$n")
    states=$2 rmin=$4 rmax=$6
    want=$(awk -v n="$n" 'BEGIN { print 4 ^ n - 1 }')
    [ "$states" -eq "$want" ] && pass "N=$n reference: $states states = 4^N - 1" ||
        fail "N=$n reference: $states states, expected $want"
    expect_rc "N=$n explores and checks" 0 "$W" explore "$T/ij/ij_N$n.exp" --backend cpu --json --quiet \
        --reward 'steps:^pass$=1' --prop 'Rmin=? [ F "stable" ]' --prop 'Rmax=? [ F "stable" ]' \
        --prop 'Pmin=? [ F "stable" ]'
    expect_json "N=$n counts" states="$states" deadlocks=0
    near "N=$n Rmin" "$(prop_value 1)" "$rmin" 1e-5
    near "N=$n Rmax" "$(prop_value 2)" "$rmax" 1e-5
    near "N=$n Pmin" "$(prop_value 3)" 1 1e-6
done
expect_rc "N=1 is refused" 2 sh examples/gen_ij.sh 1 "$T/ij1"
expect_rc "a non-number is refused" 2 sh examples/gen_ij.sh x "$T/ij1"
expect_rc "no directory is refused" 2 sh examples/gen_ij.sh 3
