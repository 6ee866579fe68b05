# t_prob_checks.sh -- explore --deadlock, --action, --trace, --scc and --mec
# on probabilistic networks: small networks with known answers, and random
# probabilistic networks (seeds printed; WARPEX_PROB_SEEDS=N sets how many)
# checked against the existing tools on the --mdp-out files: `warpex scc`
# and `warpex mec` must give the same counts and id files, the violation
# state must be the first deadlock / action-enabled state of the .tra/.lab,
# and every --trace is replayed against the .tra (each step a line of it,
# the length the target's BFS depth, the probability the product).
TAG=prob_checks
. tests/lib.sh

# a: 0 -a-> {1: 1/2, 2: 1/2}; 1 -b-> 3 (a deadlock); 2 -c-> 2
printf 'des (0, 3, 4)\n(0, a, 1 1/2 2)\n(1, b, 3)\n(2, c, 2)\n' > "$T/a.aut"
expect_rc "deadlock reachable: exit 1" 1 "$W" explore "$T/a.aut" --deadlock --trace --json --quiet
expect_json "deadlock: state 3, trace a (1/2) b (1)" violation='"deadlock"' violation_state=3 trace_probability=0.5
grep -q '"trace": \[{"state": 0}, {"state": 1, "label": "a", "choice": 0, "probability": 0.5}, {"state": 3, "label": "b", "choice": 0, "probability": 1}\]' "$T/out" \
    && pass "deadlock: the JSON trace" || fail "deadlock trace: $(cat "$T/out")"
expect_rc "action c: exit 1" 1 "$W" explore "$T/a.aut" --action '^c$' --trace --quiet
grep -q "^action:       state 2 has a choice labelled 'c'" "$T/out" && grep -q 'probability 0.5 under' "$T/out" \
    && grep -q '^     1  a  p=0.5  \[choice 0 of state 0 -> state 2\]' "$T/out" \
    && pass "action c: state 2, text trace" || fail "action c: $(cat "$T/out")"
expect_rc "action d (no label): exit 0" 0 "$W" explore "$T/a.aut" --action '^d$' --json
grep -q 'no label of the network matches' "$T/err" && expect_json "no match: no violation" violation=null status='"ok"'
expect_rc "scc and mec" 0 "$W" explore "$T/a.aut" --scc --mec --json --quiet
expect_json "a: 4 SCCs (3 trivial), 2 bottom (1 deadlock); 1 MEC {2}" sccs=4 trivial_sccs=3 \
    bottom_sccs=2 bottom_trivial_sccs=1 mecs=1 states_in_mecs=1 choices_in_mecs=1 singleton_mecs=1

# an end component of two states: 0 -a-> {0, 1}, 1 -b-> 0; 0 -c-> 2 (deadlock)
printf 'des (0, 3, 3)\n(0, a, 0 1/3 1)\n(1, b, 0)\n(0, c, 2)\n' > "$T/e.aut"
expect_rc "two-state MEC" 1 "$W" explore "$T/e.aut" --mec --scc --deadlock --json --quiet
expect_json "e: MEC {0,1} with 2 choices; SCCs {0,1} {2}" mecs=1 states_in_mecs=2 choices_in_mecs=2 \
    largest_mec=2 sccs=2 trivial_sccs=1 violation_state=2

# an initial distribution: the fresh state 0's choice is the first step
printf 'des (0 1/4 1, 2, 3)\n(0, a, 2)\n(1, b, 1 1/2 2)\n' > "$T/init.aut"
expect_rc "initial distribution: deadlock" 1 "$W" explore "$T/init.aut" --deadlock --trace-states --json --quiet
expect_json "fresh state: deadlock state 3 at probability 1/4" violation_state=3 trace_probability=0.25
grep -q '"trace": \[{"state": 0, "vector": null}, {"state": 1, "label": "i", "choice": 0, "probability": 0.25, "vector": \[0\]}' "$T/out" \
    && pass "fresh state: the trace starts with the initial distribution" || fail "fresh trace: $(cat "$T/out")"

# refusals that remain; --scc-out/--mec-out are written
for opt in "--csr $T/x.csr" --livelock --reversible --cycle-mean "--deadlock --stop-at-first"; do
    expect_rc "explore $opt on a probabilistic network is refused" 2 "$W" explore "$T/a.aut" $opt --quiet
done
expect_rc "a bad --action regex" 2 "$W" explore "$T/a.aut" --action '(' --quiet

# consensus N=2 K=2: no deadlock; agree_heads reachable; against warpex scc/mec
sh examples/gen_consensus.sh 2 2 "$T/c" > /dev/null
C2=$T/c/consensus_N2_K2.exp
expect_rc "consensus: no deadlock" 0 "$W" explore "$C2" --deadlock --json --quiet
expect_json "consensus: no deadlock" violation=null deadlocks=0

# ---- random probabilistic networks ----
. tests/prob_gen.sh

# replay DIR TRA OUT: every JSON trace step is a line "SRC CHOICE DST PROB
# LABEL" of TRA, the trace's length is its target's BFS depth in TRA, and
# its probability the product of the steps'.  Prints "ok" or the reason.
replay() {
    tr '{' '\n' < "$3" | awk -v tra="$2" '
        BEGIN { getline h < tra
            while ((getline line < tra) > 0) { split(line, f, " "); key[f[1] " " f[2] " " f[3]] = f[4] " " f[5]; adj[f[1]] = adj[f[1]] " " f[3] }
            depth[0] = 0; q[0] = 0; qh = 0; qt = 1
            while (qh < qt) { s = q[qh++]; n = split(adj[s], a, " "); for (i = 1; i <= n; i++) if (!(a[i] in depth)) { depth[a[i]] = depth[s] + 1; q[qt++] = a[i] } } }
        /"trace_probability"/ { tp = $0; sub(/.*"trace_probability": /, "", tp); sub(/,.*/, "", tp) }
        /^"state"/ { st = $0; sub(/^"state": /, "", st); sub(/[,}].*/, "", st)
            if (/"label"/) { lb = $0; sub(/.*"label": "/, "", lb); sub(/".*/, "", lb)
                ch = $0; sub(/.*"choice": /, "", ch); sub(/,.*/, "", ch)
                pr = $0; sub(/.*"probability": /, "", pr); sub(/[,}].*/, "", pr)
                k = prev " " ch " " st
                if (!(k in key)) { print "step " steps + 1 ": no line " k; bad = 1; exit }
                split(key[k], v, " ")
                if (v[2] != lb || (v[1] - pr > 1e-12 || pr - v[1] > 1e-12)) { print "step " steps + 1 ": " key[k] " vs " lb " " pr; bad = 1; exit }
                prod *= pr; steps++
            } else { prod = 1; steps = 0 }
            prev = st }
        END { if (bad) exit
            if (steps != depth[prev]) { print "length " steps ", BFS depth " depth[prev]; exit }
            d = prod - tp; if (d < 0) d = -d; if (d > 1e-12 * prod) { print "probability " tp " vs " prod; exit }
            print "ok" }'
}

SEEDS=${WARPEX_PROB_SEEDS:-60}
seed0=${WARPEX_PROB_SEED0:-$(date +%s)}
echo "random probabilistic networks: seeds $seed0 .. $((seed0 + SEEDS - 1))"
bad=0; traces=0; dl=0
for i in $(seq 0 $((SEEDS - 1))); do
    s=$((seed0 + i)); D=$T/r$s; mkdir -p "$D"; gen $s "$D"
    "$W" explore "$D/net.exp" --quiet --json --backend cpu --scc-out "$D/scc" --mec-out "$D/mec" \
        --mdp-out "$D/m" > "$D/x.json" 2> "$D/x.err"; rc=$?
    [ $rc -eq 0 ] || { fail "seed $s: explore exit $rc: $(cat "$D/x.err")"; bad=1; continue; }
    "$W" scc "$D/m.tra" --backend cpu --json --scc-out "$D/scc2" > "$D/s.json" 2>&1
    "$W" mec "$D/m.tra" --backend cpu --json --mec-out "$D/mec2" > "$D/m.json" 2>&1
    why=""
    cmp -s "$D/scc" "$D/scc2" || why="$why scc ids differ;"
    cmp -s "$D/mec" "$D/mec2" || why="$why mec ids differ;"
    for f in sccs trivial_sccs largest_scc bottom_sccs; do
        a=$(sed -n "s/.*\"$f\": \([0-9]*\).*/\1/p" "$D/x.json"); b=$(sed -n "s/.*\"$f\": \([0-9]*\).*/\1/p" "$D/s.json")
        [ -n "$a" ] && [ "$a" = "$b" ] || why="$why $f $a vs $b;"
    done
    for f in mecs states_in_mecs choices_in_mecs largest_mec singleton_mecs; do
        a=$(sed -n "s/.*\"$f\": \([0-9]*\).*/\1/p" "$D/x.json"); b=$(sed -n "s/.*\"$f\": \([0-9]*\).*/\1/p" "$D/m.json")
        [ -n "$a" ] && [ "$a" = "$b" ] || why="$why $f $a vs $b;"
    done
    # the first deadlock: the first state with label 1 ("deadlock") in the .lab
    want=$(awk -F'[: ]+' 'NR > 1 { for (i = 2; i <= NF; i++) if ($i == 1) { print $1; exit } }' "$D/m.lab")
    "$W" explore "$D/net.exp" --quiet --json --deadlock --trace > "$D/d.json" 2>&1; rc=$?
    got=$(sed -n 's/.*"violation_state": \([0-9]*\).*/\1/p' "$D/d.json")
    if [ -n "$want" ]; then
        dl=$((dl + 1))
        [ $rc -eq 1 ] && [ "$got" = "$want" ] || why="$why deadlock: exit $rc state '$got', first deadlock $want;"
        r=$(replay "$D" "$D/m.tra" "$D/d.json"); [ "$r" = ok ] || why="$why deadlock trace: $r;"
        traces=$((traces + 1))
    else
        [ $rc -eq 0 ] && [ -z "$got" ] || why="$why deadlock: exit $rc state '$got', none in the .lab;"
    fi
    # the first state with a choice labelled a
    want=$(awk 'NR > 1 && $5 == "a" { print $1; exit }' "$D/m.tra")
    "$W" explore "$D/net.exp" --quiet --json --action '^a$' --trace > "$D/a.json" 2>&1; rc=$?
    got=$(sed -n 's/.*"violation_state": \([0-9]*\).*/\1/p' "$D/a.json")
    if [ -n "$want" ]; then
        [ $rc -eq 1 ] && [ "$got" = "$want" ] || why="$why action: exit $rc state '$got', first a-state $want;"
        r=$(replay "$D" "$D/m.tra" "$D/a.json"); [ "$r" = ok ] || why="$why action trace: $r;"
        traces=$((traces + 1))
    else
        [ $rc -eq 0 ] && [ -z "$got" ] || why="$why action: exit $rc state '$got', no a in the .tra;"
    fi
    if [ -n "$why" ]; then fail "seed $s:$why (files in $D)"; bad=1; trap - EXIT; fi
done
[ $bad = 0 ] && pass "$SEEDS random probabilistic networks: scc/mec = warpex scc/mec on --mdp-out, first violations, $traces traces replayed ($dl with deadlocks)"
