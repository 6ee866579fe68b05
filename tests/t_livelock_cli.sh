#!/bin/sh
# t_livelock_cli.sh -- `warpex explore --livelock / --reversible` end to end:
# divergent and non-divergent networks (hand-written .aut/.exp), the lasso in
# text and JSON (states, labels, vectors), reversible and non-reversible
# examples, every backend available here agreeing, combination with --scc,
# and "not checked" when --deadlock --stop-at-first stops the exploration
# early (without --stop-at-first the exploration goes on and they are checked).
cd "$(dirname "$0")/.." || exit 2
TAG=livelock-cli
. tests/lib.sh
# expect_out NAME FIXED-STRING...: every string occurs in $T/out.
expect_out() {
    name=$1; shift
    for s in "$@"; do
        grep -qF -- "$s" "$T/out" || { fail "$name: '$s' not in: $(cat "$T/out")"; return; }
    done
    pass "$name"
}

# Q: 0 -start-> 1 -x-> 2 -y-> 1, 2 -stop-> 3 (a deadlock).  Hiding x and y
# makes 1 -i-> 2 -i-> 1 a divergence one step from the initial state; hiding
# only x leaves no hidden cycle.  Nothing returns to 0: not reversible, and
# state 1 is the smallest state that cannot.
printf 'des (0, 4, 4)\n(0, "start", 1)\n(1, "x", 2)\n(2, "y", 1)\n(2, "stop", 3)\n' > "$T/Q.aut"
echo 'hide x, y in "Q.aut"' > "$T/div.exp"
echo 'hide x in "Q.aut"' > "$T/nodiv.exp"
# R: a visible ring, and an LTS with a hidden self-loop (given as "i").
printf 'des (0, 3, 3)\n(0, a, 1)\n(1, b, 2)\n(2, c, 0)\n' > "$T/R.aut"
printf 'des (0, 3, 3)\n(0, a, 1)\n(1, i, 1)\n(1, b, 2)\n' > "$T/S.aut"

BACKENDS="seq cpu"
if "$W" explore "$T/R.aut" --backend gpu --quiet > /dev/null 2>&1; then BACKENDS="$BACKENDS gpu"; fi

for b in $BACKENDS; do
    expect_rc "divergent network ($b)" 1 "$W" explore "$T/div.exp" --backend "$b" --quiet --livelock
    expect_out "divergent text lasso ($b)" "livelock:     state 1 lies on a cycle of hidden steps" \
        "lasso prefix (1 step" "1  start  [state 1]" "lasso cycle (2 hidden steps, shortest through state 1)" \
        "1  i  [state 2]" "2  i  [state 1]"
    expect_rc "divergent JSON ($b)" 1 "$W" explore "$T/div.exp" --backend "$b" --quiet --livelock --json
    expect_json "divergent JSON fields ($b)" livelock=true tau_cyclic_states=2 status='"violation"' \
        violation='"livelock"'
    expect_out "divergent JSON lasso ($b)" \
        '"lasso": {"prefix": [{"state": 0}, {"state": 1, "label": "start"}], "cycle": [{"state": 1}, {"state": 2, "label": "i"}, {"state": 1, "label": "i"}]}'
    expect_rc "non-divergent network ($b)" 0 "$W" explore "$T/nodiv.exp" --backend "$b" --quiet --livelock
    expect_out "non-divergent result line ($b)" "result:       no livelock: no reachable cycle of hidden steps"
    expect_rc "hidden self-loop in an .aut ($b)" 1 "$W" explore "$T/S.aut" --backend "$b" --quiet --livelock --json
    expect_out "self-loop lasso ($b)" '"cycle": [{"state": 1}, {"state": 1, "label": "i"}]'

    expect_rc "milner_n5 reversible ($b)" 0 "$W" explore examples/milner/milner_n5.exp --backend "$b" \
        --quiet --reversible --livelock
    expect_out "milner_n5 result lines ($b)" "result:       reversible: every reachable state can return" \
        "result:       no livelock"
    expect_rc "philosophers_n5 not reversible ($b)" 1 "$W" explore examples/philosophers/philosophers_n5.exp \
        --backend "$b" --quiet --reversible --json
    # The deadlock (every philosopher holding the left fork) is the only state
    # that cannot return; its shortest trace has 10 steps.
    expect_json "philosophers_n5 JSON ($b)" reversible=false states_cannot_return=1 \
        violation='"irreversible"'
    n=$(grep -o '"label"' "$T/out" | wc -l)
    [ "$n" -eq 10 ] && pass "philosophers_n5 trace has 10 steps ($b)" \
        || fail "philosophers_n5 trace: $n steps in $(cat "$T/out")"
done

expect_rc "ring reversible" 0 "$W" explore "$T/R.aut" --backend seq --quiet --reversible --json
expect_json "ring JSON" reversible=true violation=null
expect_rc "Q not reversible" 1 "$W" explore "$T/div.exp" --backend seq --quiet --reversible
expect_out "Q witness" "reversible:   no: state 1 cannot return to the initial state (3 of 4 states cannot)" \
    "trace to state 1 (1 step, shortest)"
expect_rc "no hidden label at all" 0 "$W" explore "$T/R.aut" --backend seq --quiet --livelock --hidden zzz
expect_out "no hidden label line" "no livelock: "

# Vectors with --trace-states: component states as in the input file.
expect_rc "--trace-states" 1 "$W" explore "$T/div.exp" --backend cpu --quiet --livelock --trace-states --json
expect_out "lasso vectors" '{"state": 1, "label": "start", "vector": [1]}' '{"state": 2, "label": "i", "vector": [2]}'
expect_rc "--trace-states text" 1 "$W" explore "$T/div.exp" --backend cpu --quiet --livelock --trace-states
expect_out "lasso vectors in text" "2  i  [state 1]  (1)"

# With --scc in the same run; ABP with lossy channels diverges (lose/resend).
expect_rc "--scc --livelock" 1 "$W" explore examples/abp/abp_d1.exp --backend cpu --quiet --scc --livelock --json
expect_json "--scc --livelock JSON" states=108 livelock=true
grep -q '"sccs": ' "$T/out" && pass "--scc counts still present" || fail "--scc counts missing: $(cat "$T/out")"

# --deadlock --stop-at-first stops first: the checks are reported as not made.
expect_rc "--deadlock first" 1 "$W" explore "$T/div.exp" --backend seq --livelock --reversible --deadlock \
    --stop-at-first
expect_out "not checked lines" "deadlock:     state 3 has no successor" \
    "livelock:     not checked: exploration stopped" "reversible:   not checked: exploration stopped"
grep -q "not checked" "$T/err" && pass "stderr notice" || fail "no stderr notice: $(cat "$T/err")"
expect_rc "--deadlock first JSON" 1 "$W" explore "$T/div.exp" --backend seq --livelock --reversible --deadlock \
    --stop-at-first --json
expect_json "not checked JSON" livelock=null reversible=null violation='"deadlock"'
# Without --stop-at-first the deadlock is reported and the checks are made.
expect_rc "--deadlock, checks made" 1 "$W" explore "$T/div.exp" --backend seq --livelock --reversible --deadlock \
    --json --quiet
expect_json "checked after a deadlock JSON" livelock=true reversible=false violation='"deadlock"' complete=true

# No deadlock found with --deadlock: the checks run and report.
expect_rc "--deadlock none, livelock found" 1 "$W" explore examples/abp/abp_d1.exp --backend seq --quiet \
    --deadlock --livelock
expect_out "both result lines" "result:       no violation: no deadlock" "livelock:     state"
