#!/bin/sh
# t_label_warnings.sh -- warnings for labels that other tools treat
# specially: a hidden-looking label ('tau', 'i', 't') kept visible while no
# transition is hidden, --livelock on a network without hidden transitions,
# and 'rate R' / 'prob P' labels blocked or synchronised without --rate /
# --prob.  Each warning is one line "warpex: warning: ..." on stderr naming
# the option that fixes it, changes neither stdout nor the exit status, and
# is silenced by --quiet; the examples and the fixed runs give none.
cd "$(dirname "$0")/.." || exit 2
TAG=label-warnings
. tests/lib.sh

# warns NAME PATTERN RC ARGS...: exit RC, exactly one stderr line, a
# warning matching PATTERN (fixed string); the same stdout and exit status
# with --quiet (for JSON, compared without the timing fields), and then no
# stderr at all.
warns() {
    wn=$1; pat=$2; want=$3; shift 3
    "$W" explore "$@" --json > "$T/w1" 2> "$T/e1"; r1=$?
    "$W" explore "$@" --json --quiet > "$T/w2" 2> "$T/e2"; r2=$?
    strip() { sed 's/"seconds": [^,]*,//; s/"bytes": [^,]*,//' "$1"; }
    if [ $r1 -ne "$want" ] || [ $r2 -ne "$want" ]; then fail "$wn: exit $r1 / $r2 (quiet), expected $want"
    elif [ "$(wc -l < "$T/e1")" -ne 1 ] || ! grep -q "^warpex: warning: " "$T/e1"; then
        fail "$wn: stderr is not one warning line: $(cat "$T/e1")"
    elif ! grep -qF -- "$pat" "$T/e1"; then fail "$wn: '$pat' not in: $(cat "$T/e1")"
    elif [ -s "$T/e2" ]; then fail "$wn: --quiet still prints: $(cat "$T/e2")"
    elif [ "$(strip "$T/w1")" != "$(strip "$T/w2")" ]; then fail "$wn: the warning changed the result"
    else pass "$wn: $(cat "$T/e1")"; fi
    cp "$T/w1" "$T/out" # for expect_json
}
# clean NAME RC ARGS...: exit RC and nothing on stderr
clean() {
    cn=$1; want=$2; shift 2
    "$W" explore "$@" > "$T/out" 2> "$T/err"; r=$?
    [ $r -eq "$want" ] && [ ! -s "$T/err" ] && pass "$cn: exit $r, no warning" \
        || fail "$cn: exit $r (expected $want), stderr: $(cat "$T/err")"
}

# An mCRL2 LTS: its hidden steps are 'tau', with a tau-cycle.
printf 'des (0, 3, 2)\n(0, a, 1)\n(1, tau, 0)\n(1, tau, 1)\n' > "$T/m.aut"
warns "mCRL2 tau without --hidden tau" "use --hidden tau" 0 "$T/m.aut" --backend seq --livelock
clean "mCRL2 tau with --hidden tau" 1 "$T/m.aut" --backend seq --livelock --hidden tau
warns "tau visible, no --livelock" "label 'tau' is treated as visible" 0 "$T/m.aut" --backend seq
# CADP's 'i' read with --hidden tau, and CCS's 't' with the default 'i'.
printf 'des (0, 2, 2)\n(0, a, 1)\n(1, i, 1)\n' > "$T/c.aut"
warns "CADP i with --hidden tau" "use --hidden i" 0 "$T/c.aut" --backend seq --hidden tau
clean "CADP i by default" 0 "$T/c.aut" --backend seq
printf 'des (0, 2, 2)\n(0, a, 1)\n(1, t, 0)\n' > "$T/t.aut"
warns "CCS t" "use --hidden t" 0 "$T/t.aut" --backend seq
# Both 'i' and 'tau': one of them stays visible.
printf 'des (0, 2, 2)\n(0, i, 1)\n(1, tau, 0)\n' > "$T/b.aut"
warns "both i and tau" "'tau' stays visible (choose with --hidden)" 0 "$T/b.aut" --backend seq
# --livelock with no hidden transition at all.
printf 'des (0, 3, 3)\n(0, a, 1)\n(1, b, 2)\n(2, c, 0)\n' > "$T/r.aut"
warns "--livelock, nothing hidden" "--livelock: no transition carries the hidden label 'i'" 0 "$T/r.aut" \
    --backend seq --livelock
clean "nothing hidden, no --livelock" 0 "$T/r.aut" --backend seq
# A hidden label that occurs only through hiding in an .exp: no warning.
echo 'hide b in "r.aut" end hide' > "$T/h.exp"
clean "hidden by the .exp" 0 "$T/h.exp" --backend seq --livelock

# DFTCalc: a rate produced by a rename and dropped by the par (2 states
# without --rate, 6 with it).
printf 'des (0, 2, 3)\n(0, "RATE_FAIL !1 !2", 1)\n(1, FAIL, 2)\n' > "$T/dft.aut"
printf 'des (0, 1, 2)\n(0, "GO !1", 1)\n' > "$T/go.aut"
cat > "$T/dft.exp" <<'EOF'
hide FAIL in
label par using
  FAIL * _ -> FAIL,
  _ * "GO !1" -> GO
in
  total rename "RATE_FAIL !1 !2" -> "rate 0.1" in "dft.aut" end rename
  || "go.aut"
end par end hide
EOF
warns "DFTCalc without --rate" "label 'rate 0.1' looks like a Markovian rate but is blocked" 0 "$T/dft.exp" \
    --backend seq
grep -qF -- "add --rate" "$T/e1" && pass "names --rate" || fail "no --rate hint: $(cat "$T/e1")"
expect_json "DFTCalc without --rate: still 2 states" states=2
clean "DFTCalc with --rate" 0 "$T/dft.exp" --backend seq --rate --quiet
clean "DFTCalc with --rate (not quiet)" 0 "$T/dft.exp" --backend seq --rate --json
expect_json "DFTCalc with --rate: 6 states" states=6
# A rate label of a component, blocked by vectors that do not name it (a
# plain "par a in" would interleave it: no warning there).
printf 'des (0, 2, 2)\n(0, "rate 2", 1)\n(1, a, 0)\n' > "$T/ra.aut"
printf 'des (0, 1, 2)\n(0, a, 1)\n' > "$T/rb.aut"
echo 'label par using a * a -> a in "ra.aut" || "rb.aut" end par' > "$T/ra.exp"
echo 'par a in "ra.aut" || "rb.aut" end par' > "$T/ri.exp"
clean "rate label interleaved by par" 0 "$T/ri.exp" --backend seq
warns "component rate label blocked" "blocked by the synchronisation" 0 "$T/ra.exp" --backend seq
# ... synchronised by a vector, and a probability label blocked.
echo 'label par using "rate 2" * "rate 2" -> "rate 2" in "ra.aut" || "ra.aut" end par' > "$T/rs.exp"
warns "rate label synchronised" "synchronises as an ordinary action (add --rate" 0 "$T/rs.exp" --backend seq
clean "rate label synchronised, --rate" 0 "$T/rs.exp" --backend seq --rate
printf 'des (0, 2, 2)\n(0, "prob 1/2", 1)\n(1, a, 0)\n' > "$T/pa.aut"
echo 'label par using a * a -> a in "pa.aut" || "rb.aut" end par' > "$T/pa.exp"
warns "prob label blocked" "(add --prob to interleave it)" 0 "$T/pa.exp" --backend seq
# A lone LTS with rate labels: they interleave either way, no warning.
clean "rate labels in a lone .aut" 0 "$T/ra.aut" --backend seq

# Every committed example: no warning (run in its directory, as CADP would).
bad=0; n=0
for f in examples/*/*.exp examples/*/*.aut examples/*/*.gpf; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    e=$(cd "$(dirname "$f")" && "$W" explore "$(basename "$f")" --backend seq --memory 256M 2>&1 >/dev/null)
    if [ -n "$e" ]; then bad=1; fail "example $f: $e"; fi
done
[ $bad = 0 ] && pass "$n examples: no warning"
