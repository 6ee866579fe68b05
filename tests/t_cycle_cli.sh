#!/bin/sh
# t_cycle_cli.sh -- `warpex cycle-mean` end to end: exact fractions and
# decimals for min/max mean and ratio from DIMACS, edge lists and .aut with
# --weight; critical cycle lines and --cycle-out; --per-scc; an acyclic graph
# (exit 0, "no cycle"); Howard == Karp on random graphs through the CLI;
# usage errors (exit 2), located input errors (exit 2, no output file) and
# limits (exit 3).
cd "$(dirname "$0")/.." || exit 2
TAG=cycle-cli
. tests/lib.sh

# {1,2,3}: triangle 1 + 2 + 3.5 (mean 13/6) and a self-loop -1 on 1.
cat > "$T/g.dimacs" <<'EOF'
c a triangle with a negative self-loop
p sp 3 4
a 1 2 1
a 2 3 2
a 3 1 3.5
a 1 1 -1
EOF
expect_rc "dimacs min" 0 "$W" cycle-mean "$T/g.dimacs" --json
expect_json "dimacs min" has_cycle=true fraction='"-1"' cycle_length=1 scale=1 format='"dimacs"'
expect_rc "dimacs max" 0 "$W" cycle-mean "$T/g.dimacs" --max --json
expect_json "dimacs max: 13/6, 1-based cycle" fraction='"13/6"' decimal='"2.166666666666..."' \
    num=13 den=6 cycle_length=3
grep -q '"cycle": \[1, 2, 3\]' "$T/out" && pass "cycle in the file's 1-based numbering" \
    || fail "cycle vertices: $(cat "$T/out")"
expect_rc "text" 0 "$W" cycle-mean "$T/g.dimacs" --max -q
grep -q '^maximum cycle mean: 13/6 = 2.166666666666...$' "$T/out" \
    && grep -q '^critical cycle (SCC 0): 3 edges, weight 6.5, length 3$' "$T/out" \
    && grep -q '^  3 -> 1  weight 3.5$' "$T/out" && [ ! -s "$T/err" ] \
    && pass "text output lines, quiet stderr" || fail "text output: $(cat "$T/out" "$T/err")"

# Ratio: cycle 0-1 (3+1)/(2+2) = 1, self-loop 5/4; the mean ignores transit.
printf '# u v w t\n0 1 3 2\n1 0 1 2\n0 0 5 4\n' > "$T/r.txt"
expect_rc "ratio min" 0 "$W" cycle-mean "$T/r.txt" --ratio --json
expect_json "ratio min" fraction='"1"' ratio=true cycle_length=2
expect_rc "ratio max" 0 "$W" cycle-mean "$T/r.txt" --ratio --max --json
expect_json "ratio max" fraction='"5/4"' decimal='"1.25"'
expect_rc "ratio karp" 0 "$W" cycle-mean "$T/r.txt" --ratio --max --algorithm karp --json
expect_json "ratio karp" fraction='"5/4"' algorithm='"karp"'
expect_rc "mean of a file with transit" 0 "$W" cycle-mean "$T/r.txt" --max --json
expect_json "mean ignores transit" fraction='"5"' ratio=false
grep -q 'computing the cycle MEAN' "$T/err" && pass "notice: transit present, mean computed" \
    || fail "no notice: $(cat "$T/err")"
expect_rc "--ratio without transit" 2 "$W" cycle-mean "$T/g.dimacs" --ratio

# .aut with weights from labels; decimals and the default weight.
cat > "$T/l.aut" <<'EOF'
des (0, 5, 4)
(0, "send cost 1", 1)
(1, "recv cost 2.25", 2)
(2, tau, 0)
(2, "idle cost 7", 2)
(3, "cost 100", 3)
EOF
expect_rc "aut min" 0 "$W" cycle-mean "$T/l.aut" --weight 'cost ([0-9.]+)' --json
expect_json "aut min: (1 + 2.25 + 0)/3" fraction='"13/12"' scale=2 sccs=2 sccs_with_cycle=2
expect_rc "aut min per scc" 0 "$W" cycle-mean "$T/l.aut" --weight 'cost ([0-9.]+)' --json --per-scc
grep -q '"cycle_labels": \["send cost 1", "recv cost 2.25", "tau"\]' "$T/out" \
    && grep -q '"per_scc": \[{"scc": 0, "fraction": "13/12", .*{"scc": 1, "fraction": "100"' "$T/out" \
    && pass "aut: cycle labels and per-SCC optima" || fail "aut json: $(cat "$T/out")"
expect_rc "aut default weight" 0 "$W" cycle-mean "$T/l.aut" --weight 'cost ([0-9.]+)' \
    --default-weight -3.5 --json
expect_json "aut: tau weighs -3.5" fraction='"-1/12"'
expect_rc "aut text" 0 "$W" cycle-mean "$T/l.aut" --weight 'cost ([0-9.]+)' --max --per-scc -q
grep -q '^  SCC 1: 100 = 100$' "$T/out" && grep -q 'label "cost 100"' "$T/out" \
    && pass "aut text: per-SCC line and labels" || fail "aut text: $(cat "$T/out")"
expect_rc "aut without --weight" 2 "$W" cycle-mean "$T/l.aut"
expect_rc "regex without group" 2 "$W" cycle-mean "$T/l.aut" --weight 'cost [0-9]+'

# An explored state space as labelled CSR, weights from its labels; and a
# CSR with a .weights sidecar.
if "$W" explore examples/abp/abp_d2.exp --backend cpu --csr "$T/abp.csr" -q > /dev/null 2>&1; then
    h=$("$W" cycle-mean "$T/abp.csr" --weight '([0-9]+)' --default-weight 0.5 --json -q | sed -n 's/.*"fraction": "\([^"]*\)".*/\1/p')
    k=$("$W" cycle-mean "$T/abp.csr" --weight '([0-9]+)' --default-weight 0.5 --json -q --algorithm karp | sed -n 's/.*"fraction": "\([^"]*\)".*/\1/p')
    [ "$h" = "1/3" ] && [ "$k" = "$h" ] && pass "explored abp_d2 as CSR, label weights: Howard == Karp == 1/3" \
        || fail "abp csr: howard '$h' karp '$k'"
    expect_rc "labelled CSR without --weight or sidecar" 2 "$W" cycle-mean "$T/abp.csr"
    grep -q 'abp.csr.weights' "$T/err" && pass "message names the sidecar" || fail "$(cat "$T/err")"
    awk 'BEGIN { for (i = 0; i < 558; i++) print (i % 7) - 3 }' > "$T/abp.csr.weights"
    expect_rc "CSR + sidecar" 0 "$W" cycle-mean "$T/abp.csr" --json
    h=$(json_field fraction)
    expect_rc "CSR + sidecar, karp" 0 "$W" cycle-mean "$T/abp.csr" --json --algorithm karp
    [ -n "$h" ] && [ "$(json_field fraction)" = "$h" ] && pass "CSR + sidecar: Howard == Karp ($h)" \
        || fail "sidecar: $h vs $(json_field fraction)"
else
    fail "explore abp_d2 --csr failed"
fi

# --cycle-out
expect_rc "--cycle-out" 0 "$W" cycle-mean "$T/g.dimacs" --max --cycle-out "$T/cyc.txt" -q
printf '1\n2\n3\n' | cmp -s - "$T/cyc.txt" && no_temps "$T" \
    && pass "--cycle-out: the cycle's vertices, no temporary file" || fail "--cycle-out: $(cat "$T/cyc.txt")"

# Acyclic: "no cycle", exit 0.
printf '0 1 1\n1 2 -4\n0 2 3\n' > "$T/dag.txt"
expect_rc "acyclic" 0 "$W" cycle-mean "$T/dag.txt" -q
grep -q '^no cycle' "$T/out" && pass "acyclic: 'no cycle'" || fail "acyclic: $(cat "$T/out")"
expect_rc "acyclic json" 0 "$W" cycle-mean "$T/dag.txt" --json
expect_json "acyclic json" has_cycle=false sccs=3 sccs_with_cycle=0

# Howard == Karp through the CLI on random multi-SCC graphs with parallel
# edges, self-loops and negative weights (awk's seeded generator).
agree=0
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
    awk -v s=$seed 'BEGIN { srand(s); n = 20 + int(rand() * 60); m = n * 3;
        for (i = 0; i < m; i++) { u = int(rand() * n); g = int(u / 10) * 10;
            v = rand() < 0.85 ? g + int(rand() * 10) : int(rand() * n); if (v >= n) v = n - 1;
            printf "%d %d %d %d\n", u, v, int(rand() * 201) - 100, 1 + int(rand() * 3) } }' \
        > "$T/rnd.txt"
    for mode in "--min" "--max" "--min --ratio" "--max --ratio"; do
        # shellcheck disable=SC2086
        h=$("$W" cycle-mean "$T/rnd.txt" $mode --json --per-scc -q | sed 's/"iterations".*//;s/"algorithm": "[a-z]*",//;s/"cycle".*"per_scc"/"per_scc"/')
        # shellcheck disable=SC2086
        k=$("$W" cycle-mean "$T/rnd.txt" $mode --json --per-scc -q --algorithm karp | sed 's/"iterations".*//;s/"algorithm": "[a-z]*",//;s/"cycle".*"per_scc"/"per_scc"/')
        if [ -n "$h" ] && [ "$h" = "$k" ]; then agree=$((agree + 1)); else
            fail "seed $seed $mode: howard $h karp $k"; fi
    done
done
[ "$agree" -eq 48 ] && pass "Howard == Karp (optimum and per-SCC) on 48 random CLI runs" \
    || fail "Howard/Karp agreed on $agree of 48"

# GPU backend: either it runs and agrees, or it says why (never a wrong answer).
"$W" cycle-mean "$T/g.dimacs" --max --backend gpu --json > "$T/out" 2> "$T/err"; rc=$?
if [ $rc -eq 0 ]; then
    expect_json "gpu backend agrees" fraction='"13/6"'
elif [ -s "$T/err" ]; then pass "--backend gpu unavailable here: exit $rc, $(head -c 100 "$T/err")"
else fail "--backend gpu: exit $rc without a message"; fi

# Usage and input errors.
expect_rc "no file" 2 "$W" cycle-mean
expect_rc "unknown option" 2 "$W" cycle-mean "$T/g.dimacs" --frobnicate
expect_rc "bad algorithm" 2 "$W" cycle-mean "$T/g.dimacs" --algorithm bellman
expect_rc "karp on gpu" 2 "$W" cycle-mean "$T/g.dimacs" --algorithm karp --backend gpu
expect_rc "missing file" 2 "$W" cycle-mean "$T/none.dimacs"
printf 'p sp 2 1\na 1 3 5\n' > "$T/bad.dimacs"
expect_rc "located error" 2 "$W" cycle-mean "$T/bad.dimacs" --cycle-out "$T/c2.txt"
grep -q 'bad.dimacs:2:5: target vertex 3 is out of range' "$T/err" && [ ! -e "$T/c2.txt" ] \
    && pass "located error file:line:col, no --cycle-out file" || fail "error: $(cat "$T/err")"
printf '0 1 0.5\n1 0 2147483647\n' > "$T/big.txt"
expect_rc "scaled weight past 2^31 - 1" 3 "$W" cycle-mean "$T/big.txt"
grep -q 'big.txt:2:5: .*exceeds 2^31 - 1' "$T/err" && pass "limit error located" \
    || fail "limit error: $(cat "$T/err")"
