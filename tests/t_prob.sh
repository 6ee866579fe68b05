# t_prob.sh -- probabilistic networks end to end: the consensus network of
# examples/gen_consensus.sh against PRISM's published counts and values, the
# --mdp-out export read back by `warpex check`, the options that do not apply,
# and every malformed probabilistic .aut of tests/bad/aut_prob through the CLI.
TAG=prob
. tests/lib.sh

# the value of the N-th property in the last JSON output
prop_value() { sed 's/"properties": \[/\n/' "$T/out" | tail -1 | tr '{' '\n' | grep '"value"' | sed -n "${1}p" | sed 's/.*"value": \([^,]*\),.*/\1/'; }

sh examples/gen_consensus.sh 2 2 "$T/c" > /dev/null && sh examples/gen_consensus.sh 4 2 "$T/c" > /dev/null \
    && pass "gen_consensus.sh writes N=2 and N=4" || fail "gen_consensus.sh failed"
C2=$T/c/consensus_N2_K2.exp; C4=$T/c/consensus_N4_K2.exp

# PRISM: consensus N=2 K=2 has 272 states, 400 choices, 492 transitions;
# Pmax "finished & !agree" = 13/120, Pmin "finished & all heads" = 49/128.
expect_rc "consensus N=2 K=2" 0 "$W" explore "$C2" --json --quiet --backend cpu --epsilon 1e-9 \
    --prop 'Pmax=? [ F "disagree" ]' --prop 'Pmin=? [ F "agree_heads" ]' --mdp-out "$T/c2"
expect_json "consensus N=2 K=2 counts (PRISM's)" states=272 choices=400 transitions=492 deadlocks=0 probabilistic=true
near "N=2 Pmax=? [ F \"disagree\" ] = 13/120" "$(prop_value 1)" 0.108333333333333333
near "N=2 Pmin=? [ F \"agree_heads\" ] = 49/128" "$(prop_value 2)" 0.3828125
v1=$(prop_value 1); v2=$(prop_value 2)

# the export read back by warpex check gives the same values
expect_rc "check on the --mdp-out files" 0 "$W" check "$T/c2.tra" --lab "$T/c2.lab" --json --quiet \
    --backend cpu --epsilon 1e-9 --prop 'Pmax=? [ F "disagree" ]' --prop 'Pmin=? [ F "agree_heads" ]'
expect_json "--mdp-out .tra has the same MDP" states=272 choices=400 transitions=492
w1=$(prop_value 1); w2=$(prop_value 2)
[ -n "$v1" ] && [ "$v1" = "$w1" ] && [ "$v2" = "$w2" ] && pass "round trip: check gives the same values ($w1, $w2)" \
    || fail "round trip: explore $v1 $v2, check $w1 $w2"
expect_rc "mec on the --mdp-out file" 0 "$W" mec "$T/c2.tra" --json --quiet --backend cpu

# N=4 K=2: 22 656 states, 60 544 choices, 75 232 transitions; disagree 170112531/577765376
printf '// consensus properties over the network'"'"'s actions\n"disagree": Pmax=? [ F "disagree" ];\n' > "$T/c.props"
expect_rc "consensus N=4 K=2" 0 "$W" explore "$C4" --json --quiet --props "$T/c.props" --backend cpu
expect_json "consensus N=4 K=2 counts (PRISM's)" states=22656 choices=60544 transitions=75232 deadlocks=0
near "N=4 Pmax=? [ F \"disagree\" ] = 170112531/577765376" "$(prop_value 1)" 0.294431854289586
# --method: every sound method within epsilon of PRISM's exact value, and it
# says which ran; the other check methods, and --method without a property,
# are refused
for m in auto ii ovi pi; do
    expect_rc "N=4 K=2 --method $m" 0 "$W" explore "$C4" --json --quiet --props "$T/c.props" --backend cpu --method $m
    want=$m; [ $m = auto ] && want=ovi
    expect_json "--method $m runs $want" method="\"$want\""
    near "N=4 --method $m: Pmax=? [ F \"disagree\" ]" "$(prop_value 1)" 0.294431854289586
done
expect_rc "--method svi refused" 2 "$W" explore "$C4" --quiet --props "$T/c.props" --method svi
expect_rc "--method without --prop refused" 2 "$W" explore "$C4" --quiet --method pi
expect_rc "--method on an LTS network refused" 2 "$W" explore examples/abp/abp_d1.exp --quiet --method ii
# threads: the same MDP, byte for byte (.tra, .lab and the probabilistic
# .aut), for 1, 2, 3 and 7 threads and --backend seq
for t in 1 2 3 7; do
    expect_rc "N=4 K=2, --threads $t" 0 "$W" explore "$C4" --quiet --threads $t --mdp-out "$T/t$t" --aut "$T/t$t.aut"
done
expect_rc "N=4 K=2, --backend seq" 0 "$W" explore "$C4" --quiet --backend seq --json --mdp-out "$T/ts" --aut "$T/ts.aut"
expect_json "--backend seq runs one thread" backend='"seq"' threads=1
same=1
for t in 2 3 7 s; do
    for x in tra lab aut; do
        cmp -s "$T/t1.$x" "$T/t$t.$x" || { same=0; echo "  t1.$x and t$t.$x differ"; }
    done
done
[ $same = 1 ] && pass "1, 2, 3, 7 threads and seq write identical .tra/.lab/.aut" \
    || fail "the thread count changed the MDP"

# N=4 K=4 (the instance of tests/data/mdp/consensus-N4-K4): 43 136 states,
# 115 840 choices, 144 352 transitions; Pmin "finished & all heads" = 852021/2097152 (QVBS, exact)
sh examples/gen_consensus.sh 4 4 "$T/c" > /dev/null
expect_rc "consensus N=4 K=4" 0 "$W" explore "$T/c/consensus_N4_K4.exp" --json --quiet --prop 'Pmin=? [ F "agree_heads" ]'
expect_json "consensus N=4 K=4 counts (PRISM's)" states=43136 choices=115840 transitions=144352 deadlocks=0
near "N=4 K=4 Pmin=? [ F \"agree_heads\" ] = 852021/2097152" "$(prop_value 1)" 0.40627527236938477

# hide, rename and cut carry the distributions (they act on labels only)
{ printf 'rename "disagree" -> "bad" in hide flip in\n'; sed '1,2d' "$C2"; printf 'end hide end rename\n'; } > "$T/c/ren.exp"
expect_rc "rename/hide over the consensus network" 0 "$W" explore "$T/c/ren.exp" --json --quiet --epsilon 1e-9 --prop 'Pmax=? [ F "bad" ]'
expect_json "rename/hide: same counts" states=272 choices=400 transitions=492
near "rename/hide: Pmax=? [ F \"bad\" ] = 13/120" "$(prop_value 1)" 0.108333333333333333
{ printf 'cut agree_heads in\n'; sed '1,2d' "$C2"; printf 'end cut\n'; } > "$T/c/cut.exp"
expect_rc "cut over the consensus network" 0 "$W" explore "$T/c/cut.exp" --json --quiet --prop 'Pmax=? [ F "deadlock" ]' --epsilon 1e-9
expect_json "cut agree_heads: its states become deadlocks" states=272 choices=398 transitions=490 deadlocks=2
near "cut: Pmax=? [ F \"deadlock\" ] = Pmax [ F \"agree_heads\" ] of the uncut network" "$(prop_value 1)" \
    "$("$W" explore "$C2" --json --quiet --epsilon 1e-9 --prop 'Pmax=? [ F "agree_heads" ]' | sed 's/.*"value": \([^,]*\),.*/\1/')"

# text output, info, backends
expect_rc "text report" 0 "$W" explore "$C2" --prop 'Pmax=? [ F "disagree" ]'
grep -q '^choices:      400' "$T/out" && grep -q 'result: 0.10833' "$T/out" && pass "text report: choices and result" \
    || fail "text report: $(cat "$T/out")"
# the note where a GPU could have been used (a CUDA build), none in a CPU-only build
if "$W" --version | grep -q "CPU only"; then
    ! grep -q 'on the CPU' "$T/err" && pass "auto, CPU-only build: no note" || fail "auto note: $(cat "$T/err")"
else
    grep -q 'no GPU found; using the CPU backend' "$T/err" && pass "auto: one-line notice that the CPU explores" \
        || fail "auto notice: $(cat "$T/err")"
fi
if "$W" --version | grep -q "CPU only"; then
expect_rc "--backend gpu without CUDA" 2 "$W" explore "$C2" --backend gpu
grep -q 'built without CUDA' "$T/err" && pass "--backend gpu without CUDA: the message" || fail "--backend gpu: $(cat "$T/err")"
fi
expect_rc "info" 0 "$W" info "$C2"
grep -q 'probabilistic: 1 distribution' "$T/out" && grep -q '^probabilistic: ' "$T/out" \
    && pass "info shows probabilistic components" || fail "info: $(cat "$T/out")"
for opt in "--csr $T/x.csr" --livelock --reversible --cycle-mean; do
    expect_rc "explore $opt on a probabilistic network is refused" 2 "$W" explore "$C2" $opt --quiet
done
[ ! -e "$T/x.csr" ] && pass "refused outputs are not written" || fail "refused outputs were written"

# --aut writes the MDP in mCRL2's probabilistic .aut syntax with exact
# fractions; read back as a one-component network it is the same MDP
expect_rc "--aut of the N=4 product" 0 "$W" explore "$C4" --aut "$T/c4.aut" --quiet --json
grep -q '^(0,flip,1 1/2 2)$' "$T/c4.aut" && head -1 "$T/c4.aut" | grep -q '^des (0, 60544, 22656) *$'     && pass "--aut: header and a distribution line" || fail "--aut: $(head -3 "$T/c4.aut")"
expect_rc "explore the written .aut" 0 "$W" explore "$T/c4.aut" --json --quiet --props "$T/c.props"
expect_json "--aut round trip: same MDP" states=22656 choices=60544 transitions=75232 deadlocks=0
near "--aut round trip: disagree" "$(prop_value 1)" 0.294431854289586
expect_rc "convert --to aut" 0 "$W" convert "$C2" --to aut "$T/c2conv.aut" --quiet
expect_rc "explore the converted .aut" 0 "$W" explore "$T/c2conv.aut" --json --quiet
expect_json "convert --to aut round trip" states=272 choices=400 transitions=492
expect_rc "an unknown label in --prop" 2 "$W" explore "$C2" --prop 'Pmax=? [ F "nosuch" ]' --mdp-out "$T/u" --aut "$T/u.aut" --quiet
grep -q '^warpex: --prop:1:' "$T/err" && [ ! -e "$T/u.tra" ] && [ ! -e "$T/u.aut" ] && pass "unknown label: located, nothing written" \
    || fail "unknown label: $(cat "$T/err")"

# an action of the network that no reachable state enables is a proposition
# that holds nowhere: err (a vector no reachable state can fire: b never
# offers err) and late (enabled only in a state of a that is unreachable)
cat > "$T/ma.aut" <<'X'
des (0, 5, 5)
(0, flip, 1 1/2 2)
(1, ok, 1)
(2, try, 0)
(2, err, 3)
(4, late, 4)
X
printf 'des (0, 1, 1)\n(0, ok, 0)\n' > "$T/mb.aut"
printf 'label par using\n  flip * _ -> flip, ok * ok -> ok, try * _ -> try,\n  err * err -> err, late * _ -> late\nin "ma.aut" || "mb.aut" end par\n' > "$T/mini.exp"
expect_rc "never enabled actions" 0 "$W" explore "$T/mini.exp" --json --quiet --prop 'Pmax=? [ F "err" ]' \
    --prop 'Pmin=? [ F "late" ]' --prop 'Pmax=? [ F "ok" ]' --prop 'Pmax=? [ !"err" U "ok" ]' --mdp-out "$T/mini"
[ "$(prop_value 1)" = 0 ] && [ "$(prop_value 2)" = 0 ] && [ "$(prop_value 3)" = 1 ] && [ "$(prop_value 4)" = 1 ] \
    && pass "never enabled actions: Pmax F err = 0, Pmin F late = 0, Pmax F ok = 1" \
    || fail "never enabled actions: $(prop_value 1) $(prop_value 2) $(prop_value 3) $(prop_value 4)"
grep -q '"err"' "$T/mini.lab" && grep -q '"late"' "$T/mini.lab" && pass "--mdp-out .lab declares err and late" \
    || fail "--mdp-out .lab: $(head -1 "$T/mini.lab")"
expect_rc "check on the export: err" 0 "$W" check "$T/mini.tra" --lab "$T/mini.lab" --json --quiet --prop 'Pmax=? [ F "err" ]'
[ "$(prop_value 1)" = 0 ] && pass "check on the export: Pmax F err = 0" || fail "check on the export: $(prop_value 1)"
expect_rc "a name that is no action of the network" 2 "$W" explore "$T/mini.exp" --quiet --prop 'Pmax=? [ F "eror" ]'
grep -q 'unknown label "eror"' "$T/err" && pass "a typo is still refused" || fail "typo: $(cat "$T/err")"
expect_rc "a reward property without --reward" 2 "$W" explore "$C2" --prop 'Rmin=? [ F "disagree" ]' --quiet
expect_rc "--prop on a non-probabilistic network" 2 "$W" explore examples/traffic/traffic.exp --prop 'Pmax=? [ F "red" ]'

# an initial distribution: a fresh state 0 before it
printf 'des (0 1/4 1, 2, 3)\n(0, a, 2)\n(1, b, 1 1/2 2)\n' > "$T/init.aut"
expect_rc "initial distribution" 0 "$W" explore "$T/init.aut" --json --quiet --epsilon 1e-9 \
    --prop 'Pmax=? [ F "a" ]' --prop 'Pmax=? [ F "b" ]'
expect_json "initial distribution: fresh state 0" states=4 choices=3 fresh_initial=true deadlocks=1
near "initial distribution: Pmax [ F \"a\" ] = 1/4" "$(prop_value 1)" 0.25
near "initial distribution: Pmax [ F \"b\" ] = 3/4" "$(prop_value 2)" 0.75

# every malformed probabilistic .aut: exit 2, one located line, no output
n=0; ok=0; first=""
while read -r f line col rest; do
    case $f in '#'*|'') continue;; esac
    n=$((n + 1)); p=tests/bad/aut_prob/$f.aut
    rm -f "$T/b.tra" "$T/b.lab"
    "$W" explore "$p" --quiet --mdp-out "$T/b" > /dev/null 2> "$T/err"; rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "^warpex: $p:$line:$col: " "$T/err" \
        && [ ! -e "$T/b.tra" ] && [ ! -e "$T/b.lab" ]; then ok=$((ok + 1)); else
        [ -n "$first" ] || first="$p: exit $rc, $(cat "$T/err")"; fi
done < tests/bad/aut_prob/EXPECT
[ $n -ge 10 ] && [ $n -eq $ok ] && pass "$n malformed probabilistic .aut files: exit 2, one located line, no output" \
    || fail "malformed probabilistic files: $ok of $n as expected; first: $first"
expect_rc "convert --to gpf refused" 2 "$W" convert "$C2" --to gpf "$T/x.gpf" --quiet
[ ! -e "$T/x.gpf" ] && pass "no .gpf written for a probabilistic network" || fail ".gpf written"

# a memory budget too small: exit 3, partial counts marked incomplete, nothing written
expect_rc "memory limit" 3 "$W" explore "$C4" --memory 100K --json --quiet --mdp-out "$T/lim" --aut "$T/lim.aut"
expect_json "memory limit: JSON" complete=false status='"limit"'
[ ! -e "$T/lim.tra" ] && [ ! -e "$T/lim.aut" ] && pass "memory limit: no output file" || fail "memory limit: output written"
