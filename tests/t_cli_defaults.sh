#!/bin/sh
# t_cli_defaults.sh -- what a new user types first does what it suggests:
#   * `convert X.exp OUT.aut` / `OUT.gpf` takes --to from OUT's extension
#     (the same files as with --to); another extension needs --to (exit 2);
#   * `explore --aut F` (and convert) refuse F when it is one of the
#     network's own inputs -- the .exp, a component .aut, a link to one --
#     with exit 2 and one line, before exploring, the file untouched;
#   * every check's answer has a `result:` line, violated or not;
#   * `--json` has a "trace" only with --trace;
#   * `--threads 0` is all cores in explore, convert and check;
#   * an unknown input extension names every format explore reads.
cd "$(dirname "$0")/.." || exit 2
TAG=cli_defaults
. tests/lib.sh

EX=examples/milner/milner_n5.exp
PH=examples/philosophers/philosophers_n5.exp

# ---- convert: --to from the extension ----
expect_rc "convert --to aut" 0 "$W" convert "$EX" --to aut "$T/to.aut" -q --backend seq
expect_rc "convert OUT.aut" 0 "$W" convert "$EX" "$T/ext.aut" -q --backend seq
[ -s "$T/ext.aut" ] && [ "$(head -1 "$T/ext.aut")" = "$(head -1 "$T/to.aut")" ] \
    && [ "$(sed 1d "$T/ext.aut" | sort | md5sum)" = "$(sed 1d "$T/to.aut" | sort | md5sum)" ] \
    && pass "convert OUT.aut writes what --to aut writes" || fail "convert OUT.aut: $(head -1 "$T/ext.aut")"
expect_rc "convert --to gpf" 0 "$W" convert "$EX" --to gpf "$T/to.gpf"
expect_rc "convert OUT.gpf" 0 "$W" convert "$EX" "$T/ext.gpf"
cmp -s "$T/to.gpf" "$T/ext.gpf" && pass "convert OUT.gpf writes what --to gpf writes" \
    || fail "convert OUT.gpf differs from --to gpf"
expect_rc "convert OUT.txt without --to" 2 "$W" convert "$EX" "$T/out.txt"
grep -q "needs --to aut or --to gpf" "$T/err" && [ ! -e "$T/out.txt" ] \
    && pass "convert OUT.txt: asks for --to, writes nothing" || fail "convert OUT.txt: $(cat "$T/err")"
expect_rc "convert --to gpf OUT.aut: --to wins" 0 "$W" convert "$EX" --to gpf "$T/gpf_named.aut"
cmp -s "$T/to.gpf" "$T/gpf_named.aut" && pass "an explicit --to wins over the extension" \
    || fail "--to gpf OUT.aut did not write the .gpf"

# ---- outputs never replace the network's inputs ----
mkdir "$T/net"
cp examples/philosophers/philosophers_n5* "$T/net/"
sum_before=$(cat "$T/net/"* | md5sum)
for out in philosophers_n5.exp philosophers_n5_p0.aut philosophers_n5_f4.aut; do
    expect_rc "explore --aut $out (an input)" 2 "$W" explore "$T/net/philosophers_n5.exp" --aut "$T/net/$out"
    [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "$out: is an input of this run: refusing to overwrite it" "$T/err" \
        && pass "--aut $out: one line naming the input" || fail "--aut $out: $(cat "$T/err")"
    [ ! -s "$T/out" ] && pass "--aut $out: refused before exploring (no report)" \
        || fail "--aut $out: a report was printed: $(head -2 "$T/out")"
done
ln -s philosophers_n5_p1.aut "$T/net/link.aut"
expect_rc "explore --aut LINK to an input" 2 "$W" explore "$T/net/philosophers_n5.exp" --aut "$T/net/link.aut"
expect_rc "convert to a component .aut" 2 "$W" convert "$T/net/philosophers_n5.exp" "$T/net/philosophers_n5_p2.aut"
expect_rc "convert --to gpf onto the .exp" 2 "$W" convert "$T/net/philosophers_n5.exp" --to gpf "$T/net/philosophers_n5.exp"
[ "$(cat "$T/net/"*.exp "$T/net/"*_[pf][0-9].aut | md5sum)" = "$sum_before" ] \
    && pass "the network's files are untouched" || fail "an input file changed"
[ -z "$(find "$T/net" -name '.*')" ] && pass "no temporary file left" || fail "temporaries: $(ls -a "$T/net")"
expect_rc "explore --aut elsewhere still works" 0 "$W" explore "$T/net/philosophers_n5.exp" --aut "$T/net/out.aut" -q

# ---- result lines ----
expect_rc "deadlock found" 1 "$W" explore "$PH" --deadlock
grep -q "^result:       violation: a deadlock is reachable$" "$T/out" && pass "deadlock: result line" \
    || fail "deadlock: no result line in $(cat "$T/out")"
expect_rc "no deadlock" 0 "$W" explore "$EX" --deadlock
grep -q "^result:       no violation: no deadlock$" "$T/out" && pass "no deadlock: result line" \
    || fail "no deadlock: $(cat "$T/out")"
expect_rc "action found" 1 "$W" explore examples/traffic/traffic.exp --action '^crossing$'
grep -q "^result:       violation: a transition matching the action is reachable$" "$T/out" \
    && pass "action: result line" || fail "action: no result line in $(cat "$T/out")"
expect_rc "livelock found" 1 "$W" explore examples/abp/abp_d2.exp --livelock -q
grep -q "^result:       violation: a livelock" "$T/out" && pass "livelock: result line" \
    || fail "livelock: no result line in $(cat "$T/out")"
expect_rc "not reversible" 1 "$W" explore "$PH" --reversible -q
grep -q "^result:       violation: not reversible$" "$T/out" && pass "irreversible: result line" \
    || fail "irreversible: no result line in $(cat "$T/out")"
expect_rc "deadlock and action, both found" 1 "$W" explore "$PH" --deadlock --action '^GET' --aut "$T/both.aut" -q
[ "$(grep -c '^result:' "$T/out")" -eq 1 ] && pass "one violation, one result line" \
    || fail "result lines: $(grep '^result:' "$T/out")"

# ---- JSON trace only with --trace ----
expect_rc "json deadlock" 1 "$W" explore "$PH" --deadlock --json -q
grep -q '"violation": "deadlock"' "$T/out" && ! grep -q '"trace"' "$T/out" \
    && pass "--json without --trace: no trace field" || fail "json: $(cat "$T/out")"
expect_rc "json deadlock --trace" 1 "$W" explore "$PH" --deadlock --json -q --trace
grep -q '"trace": \[{"state": 0}, ' "$T/out" && pass "--json --trace: the trace" || fail "json trace: $(cat "$T/out")"
expect_rc "json action" 1 "$W" explore examples/traffic/traffic.exp --action '^crossing$' --json -q
! grep -q '"trace"' "$T/out" && pass "--json action without --trace: no trace field" || fail "json: $(cat "$T/out")"

# ---- --threads 0 ----
expect_rc "explore default threads" 0 "$W" explore "$EX" --json -q
all=$(json_field threads); states=$(json_field states)
expect_rc "explore --threads 0" 0 "$W" explore "$EX" --json -q --threads 0
[ "$(json_field threads)" = "$all" ] && [ "$(json_field states)" = "$states" ] \
    && pass "explore --threads 0 is the default: $all threads" || fail "--threads 0: $(cat "$T/out")"
expect_rc "explore --threads 1" 0 "$W" explore "$EX" --json -q --threads 1
[ "$(json_field threads)" = 1 ] && pass "--threads 1: one thread" || fail "--threads 1: $(cat "$T/out")"
expect_rc "convert --threads 0" 0 "$W" convert "$EX" "$T/t0.aut" --threads 0 -q
expect_rc "--threads -1" 2 "$W" explore "$EX" --threads -1
expect_rc "--threads 4097" 2 "$W" explore "$EX" --threads 4097
M=tests/data/mdp/consensus-N2-K2/consensus-N2-K2
expect_rc "check --threads 0" 0 "$W" check "$M.tra" --lab "$M.lab" --prop 'Pmax=? [ F "finished" ]' --threads 0 -q
sh examples/gen_consensus.sh 2 2 "$T" > /dev/null 2>&1
expect_rc "MDP explore --threads 0" 0 "$W" explore "$T/consensus_N2_K2.exp" --threads 0 -q --json
[ "$(json_field threads)" = "$all" ] && pass "MDP explorer: --threads 0 is all $all cores" \
    || fail "MDP --threads 0: $(cat "$T/out")"

# ---- unknown extension ----
: > "$T/model.txt"
for cmd in explore info convert; do
    if [ $cmd = convert ]; then set -- "$T/o.aut"; else set --; fi
    expect_rc "$cmd model.txt" 2 "$W" $cmd "$T/model.txt" "$@"
    grep -q "model.txt: unknown input format (expected a .exp, .aut or .gpf file)" "$T/err" \
        && pass "$cmd: the message names .exp, .aut and .gpf" || fail "$cmd model.txt: $(cat "$T/err")"
done
expect_rc "model.bcg" 2 "$W" explore "$T/model.bcg"
grep -q "bcg_io" "$T/err" && pass ".bcg: the CADP conversion hint stays" || fail ".bcg: $(cat "$T/err")"
