#!/bin/sh
# t_exp2.sh -- the CCS, CSP and mCRL operators of EXP 2.0 and the "using
# FILE" forms: hand-checked state/transition counts on small networks with
# the seq and cpu explorers, and malformed uses refused with one located
# line and exit 2.
cd "$(dirname "$0")/.." || exit 2
TAG=exp2
. tests/lib.sh
cd "$T" || exit 2
# P: 0 -A-> 1 -B-> 2;  Q: 0 -'A-> 1 -C-> 2;  M1: 0 -s(1)-> 1 -b-> 2;
# M2: 0 -r(1)-> 1, 0 -r(2)-> 2
printf 'des (0, 2, 3)\n(0, "A", 1)\n(1, "B", 2)\n' > p.aut
printf "des (0, 2, 3)\n(0, \"'A\", 1)\n(1, \"C\", 2)\n" > q.aut
printf 'des (0, 2, 3)\n(0, "s(1)", 1)\n(1, "b", 2)\n' > m1.aut
printf 'des (0, 2, 3)\n(0, "r(1)", 1)\n(0, "r(2)", 2)\n' > m2.aut
printf 'des (0, 2, 3)\n(0, "A", 1)\n(1, "delta", 2)\n' > d1.aut
printf 'des (0, 2, 3)\n(0, "B", 1)\n(1, "delta", 2)\n' > d2.aut
printf 'hide\nB\n' > h.hid
printf 'rename\nA -> Z\nB -> \\0\\0\n' > r.ren
printf 'cut all but\nB\n' > c.cut
mkdir -p sub && printf 'hide all but\nA\n' > sub/h2.hid && cp p.aut sub/
# EXP text | states | transitions
while IFS='@' read -r text st tr; do
    [ -n "$text" ] || continue
    printf '%s\n' "$text" > t.exp
    for b in seq cpu; do
        out=$("$W" explore t.exp --backend $b 2>&1)
        s=$(echo "$out" | sed -n 's/^states: *//p'); t=$(echo "$out" | sed -n 's/^transitions: *//p')
        if [ "$s" = "$st" ] && [ "$t" = "$tr" ]; then pass "$b: $text: $s states, $t transitions"
        else fail "$b: $text: expected $st/$tr, found ${s:-?}/${t:-?}: $out"; fi
    done
done <<'CASES'
ccs behaviour "p.aut" | "q.aut"@9@13
ccs behaviour ("p.aut" | "q.aut") \ {a}@5@5
ccs behaviour ("p.aut" | "q.aut") \ a@5@5
ccs behaviour ("p.aut" [x/a] | "q.aut")@9@12
ccs behaviour ("p.aut" [x/a] | "q.aut" [x/a]) \ x@5@5
ccs behaviour "p.aut" | "q.aut" | "q.aut"@27@60
csp behaviour "p.aut" [| {a} |] "q.aut"@3@2
csp behaviour ("p.aut" ||| "q.aut") \ {a, b}@9@12
csp behaviour "p.aut" [[a <- c]] [| {c} |] "q.aut"@4@3
csp behaviour "p.aut" [{a, b} || {c}] "q.aut"@3@2
csp behaviour "p.aut" [{a, b} || {c, "'A"}] "q.aut"@9@12
mcrl behaviour comm s | r = c end comm "m1.aut" || "m2.aut"@9@13
mcrl behaviour comm r | s = c end comm cut "s", "r" in "m1.aut" || "m2.aut" end cut@3@2
mcrl behaviour "m1.aut" || "m2.aut"@9@12
"p.aut" | "q.aut"@9@13
lotos behaviour ("p.aut" | "q.aut") \ {a}@5@5
lotos behaviour "p.aut" [x/a] [| {x} |] "p.aut" [[a <- x]]@5@5
csp behaviour "d1.aut" [{a} || {b}] "d2.aut"@5@5
csp behaviour "d1.aut" [{a} || {a, b}] "d2.aut"@2@1
hide using h.hid in "p.aut" end hide@3@2
hide using "h.hid" in "p.aut" end hide@3@2
rename using "r.ren" in "p.aut" end rename@3@2
cut using "c.cut" in "p.aut" end cut@1@0
hide using "sub/h2.hid" in "p.aut" end hide@3@2
CASES
# malformed uses: EXP text | line:col | message part
while IFS='@' read -r text at msg; do
    [ -n "$text" ] || continue
    printf '%s\n' "$text" > t.exp
    "$W" explore t.exp > out 2> err; rc=$?
    case $at in *.*:*) want="warpex: $at: ";; *) want="warpex: t.exp:$at: ";; esac
    if [ $rc -eq 2 ] && [ "$(wc -l < err)" -eq 1 ] && grep -qF "$want" err && grep -qF -- "$msg" err; then
        pass "refused: $text: $(cat err)"
    else
        fail "$text: expected exit 2 and '$want...$msg', found exit $rc: $(cat err)"
    fi
done <<'BAD'
comm s | r = c end comm "m1.aut" || "m2.aut"@1:1@belong to the mcrl reference language
mcrl behaviour comm s | r = c, r | s = d end comm "m1.aut" || "m2.aut"@1:32@declared twice
mcrl behaviour comm s | r | x = c end comm "m1.aut"@1:27@binary
csp behaviour "p.aut" [[a <- b, a <- c]]@1:33@relational renaming
ccs behaviour "p.aut" [a/b, c/d@2:1@syntax error
hide using "nope.hid" in "p.aut" end hide@1:12@cannot read
label par using "v.sync" in "p.aut" || "q.aut" end par@1:17@'par using FILE' is not an EXP 2.0 form
prio using "h.hid" in "p.aut" end prio@1:6@'prio using FILE' is not an EXP 2.0 form
hide using h.sync in "p.aut" end hide@1:12@not an EXP 2.0 form
rename using "h.hid" in "p.aut" end rename@h.hid:1:1@first line must be 'rename'
cut using "h.hid" in "p.aut" end cut@h.hid:1:1@first line must be 'cut'
prio A > A in "p.aut" end prio@1:8@priority over itself
single prio A > B in "p.aut" end prio@1:1@not allowed for prio
BAD
# warpex info: one line per operator, innermost first, naming the written form
printf 'ccs behaviour ("p.aut" | "q.aut") \\ {a}\n' > t.exp
"$W" info t.exp > out 2>&1
if grep -q '^      t.exp:1:16 leaf "p.aut": 1 component, 2 rules' out &&
   grep -q '^    t.exp:1:16 CCS A | B: 2 components, 5 rules (1 synchronising)$' out &&
   grep -q '^  t.exp:1:35 CCS restriction B \\ L: 2 components, 3 rules (1 synchronising)$' out
then pass "info names each construct and the network after it"; else fail "info: $(head -6 out)"; fi
printf 'hide using "h.hid" in "p.aut" ||| "q.aut" end hide\n' > t.exp
"$W" info t.exp > out 2>&1
grep -q '^  t.exp:1:1 hide using FILE: 2 components, 4 rules (0 synchronising)$' out &&
   grep -q '^    t.exp:1:23 LOTOS A ||| B: 2 components' out \
    && pass "info: using FILE and LOTOS |||" || fail "info: $(head -5 out)"
