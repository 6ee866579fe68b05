#!/bin/sh
# t_violation_finish.sh -- a --deadlock / --action violation in a run that
# also asks for outputs or analyses: the violation and its shortest trace
# are reported exactly as when stopping (exit 1), and the exploration goes
# on, so the outputs are complete (byte-equal to a run without the check)
# and the analyses are made.  --stop-at-first restores stopping (no output
# files, analyses not made).  Then random networks (tests/randnet) on the
# seq and cpu backends: finished counts equal the plain run's, the
# violation and trace length equal the stopping run's (seq: the same trace),
# and both backends agree.  Failing seeds are printed.
cd "$(dirname "$0")/.." || exit 2
TAG=violation-finish
. tests/lib.sh
EX=examples/philosophers/philosophers_n3.exp

# trace_txt FILE: the trace lines of a text report
trace_txt() { sed -n '/^trace (/,$p' "$1"; }
# trace_json FILE: the "trace" array of a JSON report (the last field)
trace_json() { sed -n 's/.*"trace": \(\[.*\]\)}$/\1/p' "$1"; }
# jf KEY FILE: the scalar after "KEY": in FILE
jf() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$2"; }
# same_json NAME KEYS FILE1 FILE2: every key has one non-empty value in both
# (plain sh has no locals: x and y are its own)
same_json() {
    for k in $2; do
        x=$(jf "$k" "$3"); y=$(jf "$k" "$4")
        if [ -z "$x" ] || [ "$x" != "$y" ]; then fail "$1: $k '$x' vs '$y'"; return; fi
    done
    pass "$1: $2 equal"
}
COUNTS="states transitions deadlocks depth sccs trivial_sccs largest_scc bottom_sccs"

for b in "seq" "cpu --threads 1"; do
    for prop in "--deadlock" "--action ^EAT" "--deadlock --action ^EAT"; do
        n="$prop, $b"
        # the references: a plain run with the outputs, a stopping run
        "$W" explore $EX --backend $b --scc --csr "$T/p.csr" --aut "$T/p.aut" --quiet > "$T/plain.txt"
        "$W" explore $EX --backend $b --scc --json --quiet > "$T/plain.json"
        "$W" explore $EX --backend $b $prop --trace --quiet > "$T/stop.txt"
        "$W" explore $EX --backend $b $prop --trace --json --quiet > "$T/stop.json"
        rm -f "$T/f.csr" "$T/f.aut"
        expect_rc "$n: violation with --scc --csr --aut" 1 "$W" explore $EX --backend $b $prop --trace --scc \
            --csr "$T/f.csr" --aut "$T/f.aut" --quiet
        cp "$T/out" "$T/fin.txt"
        [ -n "$(trace_txt "$T/stop.txt")" ] && [ "$(trace_txt "$T/fin.txt")" = "$(trace_txt "$T/stop.txt")" ] \
            && pass "$n: the trace of a stopping run" || fail "$n: trace $(trace_txt "$T/fin.txt") vs $(trace_txt "$T/stop.txt")"
        v=$(grep -E '^(deadlock|action): ' "$T/stop.txt")
        grep -qxF -- "$v" "$T/fin.txt" && pass "$n: violation line '$v'" || fail "$n: no line '$v' in $(cat "$T/fin.txt")"
        cmp -s "$T/f.csr" "$T/p.csr" && pass "$n: CSR equal to a run without the check" || fail "$n: CSR differs"
        cmp -s "$T/f.aut" "$T/p.aut" && pass "$n: .aut equal to a run without the check" || fail "$n: .aut differs"
        for l in "states:" "transitions:" "deadlocks:" "SCCs:" "largest SCC:" "bottom SCCs:"; do
            a=$(grep "^$l" "$T/fin.txt"); p=$(grep "^$l" "$T/plain.txt")
            [ -n "$a" ] && [ "$a" = "$p" ] || { fail "$n: '$a' vs '$p'"; continue 2; }
        done
        pass "$n: counts and SCC lines of the plain run"
        grep -q "counts are complete" "$T/fin.txt" && ! grep -q "(partial)" "$T/fin.txt" \
            && pass "$n: counts said complete" || fail "$n: $(cat "$T/fin.txt")"
        expect_rc "$n: JSON" 1 "$W" explore $EX --backend $b $prop --trace --scc --csr "$T/f.csr" --json --quiet
        same_json "$n: JSON counts" "$COUNTS" "$T/out" "$T/plain.json"
        same_json "$n: JSON violation" "violation status" "$T/out" "$T/stop.json"
        expect_json "$n: JSON complete" complete=true status='"violation"'
        [ -n "$(trace_json "$T/stop.json")" ] && [ "$(trace_json "$T/out")" = "$(trace_json "$T/stop.json")" ] \
            && pass "$n: JSON trace of a stopping run" || fail "$n: JSON trace $(trace_json "$T/out")"
    done
done

# More threads: the same counts, violation and trace length.
"$W" explore $EX --backend seq --scc --json --quiet > "$T/plain.json"
"$W" explore $EX --backend seq --deadlock --trace --json --quiet > "$T/stop.json"
expect_rc "cpu 3 threads" 1 "$W" explore $EX --backend cpu --threads 3 --deadlock --trace --scc --json --quiet
same_json "cpu 3 threads: counts" "$COUNTS" "$T/out" "$T/plain.json"
[ "$(trace_json "$T/out" | grep -o '"label"' | wc -l)" -eq 6 ] && pass "cpu 3 threads: 6-step trace" \
    || fail "cpu 3 threads: trace $(trace_json "$T/out")"

# The analyses that need the whole graph run too.
expect_rc "--mec --livelock --reversible" 1 "$W" explore $EX --backend seq --deadlock --mec --livelock \
    --reversible --mec-out "$T/m.ids" --scc-out "$T/s.ids" --json --quiet
expect_json "analyses made" complete=true reversible=false livelock=false violation='"deadlock"'
grep -q '"mecs": ' "$T/out" && [ -s "$T/m.ids" ] && [ -s "$T/s.ids" ] && pass "MECs and id files written" \
    || fail "MEC/ids missing: $(cat "$T/out")"
expect_rc "--cycle-mean" 1 "$W" explore $EX --backend seq --deadlock --cycle-mean max --weight '!([0-9])' \
    --default-weight 0 --quiet
grep -q "^deadlock:" "$T/out" && grep -qi "cycle mean" "$T/out" && pass "cycle mean made after a deadlock" \
    || fail "cycle mean: $(cat "$T/out")"

# --stop-at-first: the old behaviour.
rm -f "$T/s.csr"
expect_rc "--stop-at-first" 1 "$W" explore $EX --backend seq --deadlock --trace --scc --csr "$T/s.csr" \
    --stop-at-first
[ ! -e "$T/s.csr" ] && pass "--stop-at-first: no CSR" || fail "--stop-at-first left $T/s.csr"
! grep -q "^SCCs:" "$T/out" && grep -q "(partial)" "$T/out" && grep -q "stopped at the first violation" "$T/out" \
    && pass "--stop-at-first: partial counts, no SCCs" || fail "--stop-at-first: $(cat "$T/out")"
grep -q "no output file written" "$T/err" && grep -q "no SCC/MEC decomposition" "$T/err" \
    && pass "--stop-at-first: stderr notices" || fail "--stop-at-first stderr: $(cat "$T/err")"
"$W" explore $EX --backend seq --deadlock --trace --quiet > "$T/stop.txt"
[ "$(trace_txt "$T/out")" = "$(trace_txt "$T/stop.txt")" ] && pass "--stop-at-first: same trace" \
    || fail "--stop-at-first trace: $(trace_txt "$T/out")"
expect_rc "--stop-at-first JSON" 1 "$W" explore $EX --backend seq --deadlock --scc --stop-at-first --json --quiet
expect_json "--stop-at-first JSON" complete=false violation='"deadlock"'
grep -q '"sccs"' "$T/out" && fail "--stop-at-first JSON has SCC counts" || pass "--stop-at-first JSON: no SCC counts"
expect_rc "--stop-at-first without a check" 2 "$W" explore $EX --stop-at-first --quiet
grep -q -- "--stop-at-first applies with --deadlock or --action" "$T/err" && pass "its message" \
    || fail "message: $(cat "$T/err")"
# Nothing needing the whole product: still stops at the first violation.
expect_rc "plain --deadlock stops" 1 "$W" explore $EX --backend seq --deadlock --json --quiet
expect_json "plain --deadlock: partial" complete=false

# Random networks: seq and cpu.
gen=bin/tests/test_random_networks
SEEDS=${WARPEX_FINISH_SEEDS:-40}
if [ ! -x "$gen" ]; then
    fail "random networks: $gen missing"
    exit 0
fi
seed=1
while [ "$seed" -le "$SEEDS" ]; do
    line=$(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    set -- $line
    if [ "$1" != EXPECT ]; then
        fail "random seed $seed: generator said: $line"
        seed=$((seed + 1)); continue
    fi
    exp=$2 dir=$3 opts="--hidden $4 --memory 64M"
    [ "$5" = 1 ] && opts="$opts --rate"
    case $((seed % 3)) in
        0) prop="--deadlock" ;;
        1) prop="--action ^[bx]" ;;
        *) prop="--deadlock --action ^[ab]" ;;
    esac
    why=""
    for b in seq cpu; do
        "$W" explore "$exp" $opts --backend $b --threads 2 --scc --json --quiet > "$T/p.$b" 2>&1
        "$W" explore "$exp" $opts --backend $b --threads 2 $prop --trace --json --quiet > "$T/s.$b" 2>&1
        rs=$?
        "$W" explore "$exp" $opts --backend $b --threads 2 $prop --trace --scc --json --quiet > "$T/f.$b" 2>&1
        rf=$?
        [ $rs = $rf ] || why="$why; $b: exit $rf, stopping run $rs"
        for k in $COUNTS; do
            [ -n "$(jf $k "$T/f.$b")" ] && [ "$(jf $k "$T/f.$b")" = "$(jf $k "$T/p.$b")" ] \
                || why="$why; $b: $k $(jf $k "$T/f.$b") vs plain $(jf $k "$T/p.$b")"
        done
        [ "$(jf violation "$T/f.$b")" = "$(jf violation "$T/s.$b")" ] || why="$why; $b: violation differs"
        [ "$(trace_json "$T/f.$b" | grep -o '"label"' | wc -l)" = "$(trace_json "$T/s.$b" | grep -o '"label"' | wc -l)" ] \
            || why="$why; $b: trace length differs"
    done
    [ "$(trace_json "$T/f.seq")" = "$(trace_json "$T/s.seq")" ] || why="$why; seq: trace differs"
    [ "$(jf violation "$T/f.seq")" = "$(jf violation "$T/f.cpu")" ] || why="$why; seq/cpu violations differ"
    [ "$(trace_json "$T/f.seq" | grep -o '"label"' | wc -l)" = "$(trace_json "$T/f.cpu" | grep -o '"label"' | wc -l)" ] \
        || why="$why; seq/cpu trace lengths differ"
    if [ -z "$why" ]; then
        pass "random seed $seed ($prop): $(jf states "$T/f.seq") states, violation $(jf violation "$T/f.seq")"
        rm -rf "$dir"
    else
        fail "random seed $seed ($prop)$why; files kept in $dir"
    fi
    seed=$((seed + 1))
done
