#!/bin/sh
# t_check.sh -- `warpex check` end to end: values by hand on small MDPs and
# DTMCs (.tra + .lab + .srew + .trew, and the same models as Storm .drn),
# interval bounds, the UNSOUND label of --method vi, --values and
# --scheduler files, --props files with names, infinite rewards, exit 3 on
# non-convergence, usage errors, and a PRISM instance when the shared data
# is present.
cd "$(dirname "$0")/.." || exit 2
TAG=check-cli
. tests/lib.sh

# M: 0 -a-> {1: 1/2, 2: 1/2} | -b-> 3;  1 goal (self-loop);  2 -a-> {0: 1/2,
# 3: 1/2} | -b-> 2 (self-loop: an end component without the goal);  3 sink.
# Pmax(F goal) = 2/3 at 0 and 1/3 at 2 (the self-loop of 2 must not keep the
# upper bound at 1); Pmin = 0 at 0 and 2.
cat > "$T/m.tra" <<'X'
# Transitions (MDP)
4 6 8
0 0 1 0.5
0 0 2 0.5
0 1 3 1
1 0 1 1
2 0 0 0.5
2 0 3 0.5
2 1 2 1
3 0 3 1
X
printf '# Labels\n0="init" 1="deadlock" 2="goal" 3="sink"\n0: 0\n1: 2\n3: 3\n' > "$T/m.lab"
cat > "$T/m.drn" <<'X'
// the same MDP in Storm's format
@type: MDP
@parameters

@reward_models
steps
@nr_states
4
@nr_choices
6
@model
state 0 [1] init
	action a [0]
		1 : 0.5
		2 : 0.5
	action b [0]
		3 : 1
state 1 [0] goal
	action 0 [0]
		1 : 1
state 2 [2]
	action a [0]
		0 : 0.5
		3 : 0.5
	action b [0]
		2 : 1
state 3 [0] "sink"
	action 0 [0]
		3 : 1
X
first_value() { sed -n 's/.*"initial": \[{"state": [0-9]*, "value": \([^,]*\),.*/\1/p' "$T/out" | head -1; }

for model in tra drn; do
    if [ $model = tra ]; then set -- "$T/m.tra" --lab "$T/m.lab"; else set -- "$T/m.drn"; fi
    expect_rc "$model Pmax" 0 "$W" check "$@" --prop 'Pmax=? [ F "goal" ]' --json
    near "$model Pmax(F goal) at 0" "$(first_value)" 0.6666666667 1e-6
    expect_json "$model Pmax: states and collapsed MEC" maybe_states=2 mecs_collapsed=1 yes_states=1 no_states=1
    expect_rc "$model Pmin" 0 "$W" check "$@" --prop 'Pmin=? [ F "goal" ]' --json
    near "$model Pmin(F goal) at 0" "$(first_value)" 0 1e-6
    expect_rc "$model Pmax U" 0 "$W" check "$@" --prop 'Pmax=? [ !"sink" U "goal" ]' --json
    near "$model Pmax(!sink U goal)" "$(first_value)" 0.6666666667 1e-6
done
# rewards: Rmin(F goal) is infinite at 0 (Pmax < 1); Rmax(F goal | sink)
# at 0 with state rewards 1 (state 0) and 2 (state 2): the b-loop at 2 never
# reaches the targets, so Rmax is infinite too; Rmin(F goal | sink) = 0
# (choice b of 0 goes straight to the sink at reward 1) -> 1.
expect_rc "drn Rmin infinite" 0 "$W" check "$T/m.drn" --prop 'Rmin=? [ F "goal" ]' --json
[ "$(first_value)" = '"inf"' ] && pass "Rmin(F goal) = inf at 0" || fail "Rmin inf: $(cat "$T/out")"
expect_rc "drn Rmin finite" 0 "$W" check "$T/m.drn" --prop 'Rmin=? [ F "goal" | "sink" ]' --json
near "Rmin(F goal|sink) at 0" "$(first_value)" 1 1e-6
printf '4 2\n0 1\n2 2\n' > "$T/m.srew"
expect_rc "tra Rmin finite" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --srew "$T/m.srew" --prop 'Rmin=? [ F "goal" | "sink" ]' --json
near "tra Rmin(F goal|sink) at 0" "$(first_value)" 1 1e-6

# A DTMC with rewards: 0 -> {1: 1/2, 0: 1/2}, 1 -> 2, 2 goal.  State rewards
# 1 at 0 and 3 at 1, transition reward 2 on 0 -> 1: expected 2*1 + 3 + 2*1/2*2 = 7.
printf '3 4\n0 1 0.5\n0 0 0.5\n1 2 1\n2 2 1\n' > "$T/d.tra"
printf '0="init" 1="deadlock" 2="goal"\n0: 0\n2: 2\n' > "$T/d.lab"
printf '3 2\n0 1\n1 3\n' > "$T/d.srew"
printf '3 1\n0 1 2\n' > "$T/d.trew"
expect_rc "dtmc rewards" 0 "$W" check "$T/d.tra" --lab "$T/d.lab" --srew "$T/d.srew" --trew "$T/d.trew" --prop 'Rmax=? [ F "goal" ]' --json
near "DTMC expected reward" "$(first_value)" 7 1e-6
expect_json "dtmc model" type='"dtmc"' states=3
expect_rc "dtmc rewards, relative, gs" 0 "$W" check "$T/d.tra" --lab "$T/d.lab" --srew "$T/d.srew" --trew "$T/d.trew" --prop 'Rmin=? [ F "goal" ]' --relative --solver gs --json
near "DTMC expected reward (relative, Gauss-Seidel)" "$(first_value)" 7 1e-5

# Text output: bounds for ii, UNSOUND for vi.
expect_rc "text ii" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method ii -q
grep -q '^  result: 0.66666.* in \[0.66666.*, 0.66666.*\] at state 0' "$T/out" && grep -q 'interval iteration (sound)' "$T/out" \
    && pass "text: midpoint and [lo, hi]" || fail "text ii: $(cat "$T/out")"
expect_rc "text vi" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method vi -q
grep -q 'UNSOUND' "$T/out" && ! grep -q ' in \[' "$T/out" && pass "text: --method vi is labelled UNSOUND" || fail "text vi: $(cat "$T/out")"
expect_rc "topological" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method topological --json
near "topological Pmax(F goal) at 0" "$(first_value)" 0.6666666667 1e-6
expect_json "topological reported" method='"topological"' sound=true
expect_rc "topological by levels (CPU)" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method topological --solver jacobi --backend cpu --json
near "topological levels Pmax(F goal) at 0" "$(first_value)" 0.6666666667 1e-6
expect_json "topological levels reported" method='"topological"' solver='"levels"'
expect_rc "topological text" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method topological --solver jacobi --backend cpu -q
grep -q 'level by level' "$T/out" && grep -q 'SCCs in [0-9]* levels' "$T/out" && pass "topological levels: method and levels named" \
    || fail "topological levels text: $(cat "$T/out")"
expect_rc "topological --solver gs" 2 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method topological --solver gs
"$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method topological --backend gpu --gpu-memory 64K --json > "$T/out" 2> "$T/err"; rc=$?
if [ $rc -eq 0 ]; then
    near "topological on the GPU (64 KiB cap)" "$(first_value)" 0.6666666667 1e-6
    expect_json "topological on the GPU reported" backend='"gpu"' solver='"levels"'
else
    [ $rc -eq 2 ] && grep -q 'no usable CUDA device\|built without CUDA' "$T/err" && pass "topological --backend gpu without a GPU: exit 2, named" \
        || fail "topological --backend gpu: exit $rc: $(cat "$T/err")"
fi
for bad in 0 -5 12X K ""; do
    expect_rc "--gpu-memory '$bad'" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --gpu-memory "$bad"
done
grep -q 'gpu-memory takes a positive size' "$T/err" && pass "--gpu-memory error named" || fail "--gpu-memory: $(cat "$T/err")"
# --method auto (the default): optimistic value iteration (with Gauss-Seidel on the CPU),
# interval iteration with --solver named; --method ovi on the GPU too
expect_rc "auto (default) on the CPU" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --backend cpu --json
near "auto Pmax(F goal) at 0" "$(first_value)" 0.6666666667 1e-6
expect_json "auto reported" method='"ovi"' method_auto=true solver='"gs"' sound=true
expect_rc "auto with --solver jacobi" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --backend cpu --solver jacobi --json
expect_json "auto with --solver: interval iteration" method='"ii"' method_auto=true solver='"jacobi"'
expect_rc "ovi, rewards, relative" 0 "$W" check "$T/d.tra" --lab "$T/d.lab" --srew "$T/d.srew" --trew "$T/d.trew" --prop 'Rmin=? [ F "goal" ]' --relative --method ovi --json
near "ovi DTMC expected reward (relative)" "$(first_value)" 7 1e-5
expect_json "ovi reported" method='"ovi"' solver='"jacobi"' bound_iterations=0
expect_rc "ovi text" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method ovi -q
grep -q 'optimistic value iteration (sound)' "$T/out" && grep -q ' in \[' "$T/out" && pass "text: --method ovi named, with bounds" \
    || fail "ovi text: $(cat "$T/out")"
"$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method ovi --backend gpu --json > "$T/out" 2> "$T/err"; rc=$?
if [ $rc -eq 0 ]; then
    near "ovi on the GPU" "$(first_value)" 0.6666666667 1e-6
    expect_json "ovi on the GPU reported" backend='"gpu"' method='"ovi"' solver='"jacobi"'
else
    [ $rc -eq 2 ] && grep -q 'no usable CUDA device\|built without CUDA' "$T/err" && pass "--method ovi --backend gpu without a GPU: exit 2, named" \
        || fail "ovi --backend gpu: exit $rc: $(cat "$T/err")"
fi
expect_rc "--method ovi --solver gs --backend gpu" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --method ovi --solver gs --backend gpu
grep -q 'CPU only' "$T/err" && pass "--method ovi --solver gs --backend gpu refused, named" || fail "ovi gs gpu: $(cat "$T/err")"
# --method svi: sound value iteration, CPU only, no reward upper-bound phase
expect_rc "svi, rewards, relative" 0 "$W" check "$T/d.tra" --lab "$T/d.lab" --srew "$T/d.srew" --trew "$T/d.trew" --prop 'Rmin=? [ F "goal" ]' --relative --method svi --json
near "svi DTMC expected reward (relative)" "$(first_value)" 7 1e-5
expect_json "svi reported" method='"svi"' solver='"jacobi"' bound_iterations=0
expect_rc "svi gs" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method svi --solver gs --json
near "svi gs Pmax(F goal) at 0" "$(first_value)" 0.6666666667 1e-6
expect_json "svi gs reported" method='"svi"' solver='"gs"' sound=true
expect_rc "svi text" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmin=? [ F "goal" ]' --method svi -q
grep -q 'sound value iteration (sound)' "$T/out" && grep -q ' in \[' "$T/out" && pass "text: --method svi named, with bounds" \
    || fail "svi text: $(cat "$T/out")"
expect_rc "--method svi --backend gpu" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --method svi --backend gpu
grep -q 'svi runs on the CPU only' "$T/err" && pass "--method svi --backend gpu refused, named" || fail "svi gpu: $(cat "$T/err")"
expect_rc "json vi" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --method vi --json
expect_json "json vi" sound=false method='"vi"'

# --values and --scheduler.
expect_rc "values+scheduler" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --values "$T/val" --scheduler "$T/sch" -q
[ "$(wc -l < "$T/val")" -eq 4 ] && awk 'NR==3 { d = $2 - 1/3; if (d < 0) d = -d; exit !($1 == 2 && d < 1e-6 && $3 <= 1/3 + 1e-12 && $4 >= 1/3 - 1e-12) }' "$T/val" \
    && pass "--values: 4 lines, state 2 = 1/3 inside [lo, hi]" || fail "--values: $(cat "$T/val")"
# the optimal scheduler: 0 -> a, 2 -> a (b would loop for ever)
printf '0 0\n1 0\n2 0\n3 0\n' | cmp -s - "$T/sch" && pass "--scheduler: 0 and 2 take a (keep reaching the goal)" \
    || fail "--scheduler: $(tr '\n' ' ' < "$T/sch")"
no_temps "$T" && pass "no temporary file left" || fail ".tmp left"
printf '# States\n(x,y)\n0:(0,false)\n1:(1,true)\n2:(2,false)\n3:(3,true)\n' > "$T/m.sta"
expect_rc "--sta" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --sta "$T/m.sta" --prop 'Pmax=? [ F "goal" ]' --values "$T/val" -q
grep -q 'at state 0 (0,false)$' "$T/out" && [ "$(sed -n 3p "$T/val" | cut -d' ' -f5)" = "(2,false)" ] \
    && pass "--sta: valuations in the result line and in --values" || fail "--sta: $(cat "$T/out" "$T/val")"

# --props with names, comments and PRISM definitions; --prop appended.
printf '// comment\nlabel "x" = s=1;\n"best": Pmax=? [ F "goal" ];\n\n"worst": Pmin=? [ F "goal" ]\n' > "$T/p.props"
expect_rc "--props" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --props "$T/p.props" --prop 'Pmax=? [ F "sink" ]' --json
grep -q '"name": "best"' "$T/out" && grep -q '"name": "worst"' "$T/out" && [ "$(grep -o '"property":' "$T/out" | wc -l)" -eq 3 ] \
    && pass "--props: 2 named properties + 1 --prop" || fail "--props: $(cat "$T/out")"
expect_rc "deadlock/init/true labels" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ (true & !"init") U ("deadlock" | "goal") ]' -q

# Exact or loud: no convergence within the sweeps allowed.
expect_rc "max-iterations" 3 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --max-iterations 3 --epsilon 1e-12
grep -q 'did not converge after 3 sweeps' "$T/err" && pass "non-convergence named" || fail "non-convergence: $(cat "$T/err")"

# Threads and solvers agree on a PRISM instance (tests/data/mdp).
S=tests/data/mdp/consensus-N2-K2
[ -f "$S/consensus-N2-K2.tra" ] || fail "PRISM instance $S/consensus-N2-K2.tra missing"
{
    for opt in "--threads 1" "--threads 2" "--solver gs" "--method topological" "--method topological --solver jacobi" "--method pi"; do
        # shellcheck disable=SC2086
        expect_rc "consensus-N2-K2 disagree $opt" 0 "$W" check "$S/consensus-N2-K2.tra" --lab "$S/consensus-N2-K2.lab" --props "$S/consensus.props" $opt --json
        v=$(sed -n 's/.*"name": "disagree", "kind": "Pmax", "initial": \[{"state": 120, "value": \([^,]*\),.*/\1/p' "$T/out")
        near "consensus-N2-K2 disagree ($opt), reference 13/120" "$v" 0.108333333333 1e-6
    done
    # certified policy iteration where interval iteration is slow (N=2 K=4:
    # the policy steps run and their certificate holds), on both backends
    S4=tests/data/mdp/consensus-N2-K4
    for bk in cpu gpu; do
        "$W" check "$S4/consensus-N2-K4.tra" --lab "$S4/consensus-N2-K4.lab" --prop 'Pmax=? [ F "finished"&!"agree" ]' \
            --method pi --backend $bk --json > "$T/out" 2> "$T/err"; rc=$?
        if [ $bk = gpu ] && [ $rc -eq 2 ]; then
            grep -q 'no usable CUDA device\|built without CUDA' "$T/err" && pass "consensus-N2-K4 pi --backend gpu without a GPU: exit 2, named" \
                || fail "consensus-N2-K4 pi --backend gpu: exit 2: $(cat "$T/err")"
            continue
        fi
        [ $rc -eq 0 ] && pass "consensus-N2-K4 pi ($bk): exit 0" || fail "consensus-N2-K4 pi ($bk): exit $rc: $(cat "$T/err")"
        near "consensus-N2-K4 disagree (pi, $bk), reference 0.0615196078431" "$(first_value)" 0.0615196078431 1e-6
        expect_json "consensus-N2-K4 pi ($bk) certified" method='"pi"' certified=true
    done
    # on a GPU: topological solving in groups under a tiny device-memory cap
    if "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --backend gpu -q >/dev/null 2>&1; then
        for cap in 12K 1G; do
            expect_rc "consensus-N2-K2 GPU topological --gpu-memory $cap" 0 "$W" check "$S/consensus-N2-K2.tra" --lab "$S/consensus-N2-K2.lab" \
                --props "$S/consensus.props" --backend gpu --method topological --gpu-memory $cap --json
            v=$(sed -n 's/.*"name": "disagree", "kind": "Pmax", "initial": \[{"state": 120, "value": \([^,]*\),.*/\1/p' "$T/out")
            near "consensus-N2-K2 disagree (GPU topological, --gpu-memory $cap)" "$v" 0.108333333333 1e-6
            if [ $cap = 12K ]; then
                grep -Eq '"groups": ([2-9]|[1-9][0-9])' "$T/out" && pass "12K cap: solved in groups" || fail "no groups: $(head -c 600 "$T/out")"
            fi
        done
    fi
}

# The GPU backend: the same values where a GPU is usable, else a clear error.
"$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --backend gpu --json > "$T/out" 2> "$T/err"; rc=$?
if [ $rc -eq 0 ]; then
    near "--backend gpu: Pmax(F goal)" "$(first_value)" 0.6666666667 1e-6
    expect_json "--backend gpu reported" backend='"gpu"'
else
    [ $rc -eq 2 ] && grep -q 'no usable CUDA device\|built without CUDA' "$T/err" && pass "--backend gpu without a GPU: exit 2, named" \
        || fail "--backend gpu: exit $rc: $(cat "$T/err")"
fi
expect_rc "--backend gpu --solver gs" 2 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --backend gpu --solver gs
expect_rc "--backend cpu" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]' --backend cpu --json
expect_json "--backend cpu reported" backend='"cpu"'

# Usage errors.
expect_rc "no property" 2 "$W" check "$T/m.tra"
expect_rc "no model" 2 "$W" check --prop 'Pmax=? [ F true ]'
expect_rc "unknown option" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --frob
expect_rc "bad epsilon" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --epsilon 2
expect_rc "bad method" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --method fast
expect_rc "bad solver" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --solver sor
expect_rc "--method pi --relative" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --method pi --relative
grep -q 'absolute stopping rule' "$T/err" && pass "--method pi --relative refused, named" || fail "pi relative: $(cat "$T/err")"
expect_rc "--method pi --solver gs" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --method pi --solver gs
expect_rc "bad threads" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --threads -1
expect_rc "threads above 256" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --threads 257
grep -q "threads takes 0 (all cores) to 256, not '257'" "$T/err" && pass "--threads 257 refused, range named" \
    || fail "--threads 257: $(cat "$T/err")"
expect_rc "--threads 256" 0 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --threads 256 --quiet
expect_rc "--values with 2 properties" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F true ]' --prop 'Pmin=? [ F true ]' --values "$T/x"
expect_rc "labels without --lab" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F "goal" ]'
grep -q 'unknown label "goal" (no labels given: use --lab)' "$T/err" && pass "label without --lab named" || fail "no --lab: $(cat "$T/err")"
expect_rc "--lab with .drn" 2 "$W" check "$T/m.drn" --lab "$T/m.lab" --prop 'Pmax=? [ F "goal" ]'
expect_rc "property syntax located" 2 "$W" check "$T/m.tra" --prop 'Pmax=? [ F "goal" ]' --prop 'Pmax=? [ X "goal" ]'
grep -q '^warpex: --prop:2:' "$T/err" && pass "--prop error located: $(cat "$T/err")" || fail "--prop location: $(cat "$T/err")"
expect_rc "missing model file" 2 "$W" check "$T/none.tra" --prop 'Pmax=? [ F true ]'
"$W" help | grep -q '^  check MODEL' && pass "help lists check" || fail "help does not list check"
