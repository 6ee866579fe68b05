#!/bin/sh
# t_prio.sh -- EXP priorities ("prio X1 > X2 ... in B end prio"): state and
# transition counts worked out by hand on two small components, the label
# operators above a priority, probabilistic networks, the same answers on
# the seq, cpu and distributed explorers, and the refused forms (exit 2,
# one located line).
cd "$(dirname "$0")/.." || exit 2
TAG=prio
. tests/lib.sh
cd "$T" || exit 2
# P: 0 -A-> 1, 0 -B-> 2, 1 -C-> 0;  Q: 0 -B-> 1, 1 -D-> 0 (interleaved
# below unless said); R: 0 -A-> {1: 1/2, 2: 1/2}, 0 -B-> 3
printf 'des (0, 3, 3)\n(0, "A", 1)\n(0, "B", 2)\n(1, "C", 0)\n' > p.aut
printf 'des (0, 2, 2)\n(0, "B", 1)\n(1, "D", 0)\n' > q.aut
printf 'des (0, 2, 4)\n(0, A, 1 1/2 2)\n(0, B, 3)\n' > r.aut
PQ='"p.aut" ||| "q.aut"'
# EXP text | states | transitions | a label the .aut output must show ('-': none)
while IFS='@' read -r text st tr lab; do
    [ -n "$text" ] || continue
    printf '%s\n' "$text" > t.exp
    for b in seq cpu; do
        out=$("$W" explore t.exp --backend $b --aut o_$b.aut 2>&1)
        s=$(echo "$out" | sed -n 's/^states: *//p'); t=$(echo "$out" | sed -n 's/^transitions: *//p')
        if [ "$s" = "$st" ] && [ "$t" = "$tr" ]; then pass "$b: $text: $s states, $t transitions"
        else fail "$b: $text: expected $st/$tr, found ${s:-?}/${t:-?}: $out"; fi
    done
    if [ "$lab" != - ] && ! grep -q ",$lab," o_seq.aut; then fail "$text: no '$lab' in the .aut"; fi
done <<CASES
$PQ@6@12@B
prio A > B in $PQ end prio@4@7@A
prio A > D D > B in $PQ end prio@4@6@A
prio A, D > B in $PQ end prio@4@7@D
prio all but A > A in $PQ end prio@4@6@B
total prio "A" > "B" in $PQ end prio@4@7@A
partial prio "A" > "B" in $PQ end prio@4@7@A
hide A in prio A > B in $PQ end prio end hide@4@7@i
rename B -> X in prio A > B in $PQ end prio end rename@4@7@X
cut A in prio A > B in $PQ end prio end cut@1@0@-
prio A > B in "p.aut" |[B]| "q.aut" end prio@2@2@C
prio "i" > A in hide B in $PQ end hide end prio@4@6@i
CASES
# the priority on probabilistic networks: R alone, A above B
printf 'prio A > B in "r.aut" end prio\n' > t.exp
for b in seq cpu; do
    "$W" explore t.exp --backend $b --mdp-out m_$b > out 2>&1
    if grep -q '^states: *3$' out && grep -q '^choices: *1$' out; then pass "$b: probabilistic: B below A removed"
    else fail "$b: probabilistic: expected 3 states, 1 choice: $(cat out)"; fi
done
cmp -s m_seq.tra m_cpu.tra && grep -q ' A$' m_seq.tra && pass "probabilistic: seq and cpu MDPs equal" || fail "probabilistic: seq and cpu MDPs differ"
# the distributed explorer gives the same .aut
printf 'prio A > D D > B in %s end prio\n' "$PQ" > t.exp
"$W" explore t.exp --backend seq --aut d_seq.aut > /dev/null 2>&1
if mpirun --allow-run-as-root --oversubscribe -np 2 "$W" explore t.exp --aut d_mpi.aut > out 2>&1 &&
   cmp -s d_seq.aut d_mpi.aut; then pass "mpirun -np 2: the same .aut as seq"
else fail "mpirun -np 2: $(tail -3 out)"; fi
# refused: EXP text | file:line:col (t.exp when only line:col) | message
while IFS='@' read -r text at msg; do
    [ -n "$text" ] || continue
    printf '%s\n' "$text" > t.exp
    "$W" explore t.exp > out 2> err; rc=$?
    want="warpex: t.exp:$at: "
    if [ $rc -eq 2 ] && [ "$(wc -l < err)" -eq 1 ] && grep -qF "$want" err && grep -qF -- "$msg" err; then
        pass "refused: $text: $(cat err)"
    else
        fail "$text: expected exit 2 and '$want...$msg', found exit $rc: $(cat err)"
    fi
done <<BAD
prio A > B B > A in $PQ end prio@1:1@cyclic
prio A > B > A in $PQ end prio@1:12@cannot have priority over itself
prio all but B > A > B in $PQ end prio@1:1@cyclic
"p.aut" ||| prio B > D in "q.aut" end prio@1:13@a prio inside a parallel composition
prio A > B in prio C > D in $PQ end prio end prio@1:1@a prio inside another prio
single prio A > B in $PQ end prio@1:1@not allowed for prio
prio A > in $PQ end prio@1:10@syntax error
prio "[" > A in $PQ end prio@1:6@
BAD
printf 'prio A > B in %s end prio\n' "$PQ" > t.exp
expect_rc "--por with a prio is refused" 2 "$W" explore t.exp --por
grep -q "not supported" "$T/err" && grep -q "priority" "$T/err" || fail "--por: message: $(cat "$T/err")"
expect_rc "convert to .gpf with a prio is refused" 2 "$W" convert t.exp t.gpf
[ ! -e t.gpf ] && pass "no .gpf left behind" || fail "a .gpf was written"
# warpex info shows the relation and what the operators above made of each label
printf 'cut C in hide D in prio A > D D > B in %s end prio end hide end cut\n' "$PQ" > t.exp
"$W" info t.exp > out 2>&1
if grep -q '^    B < A, D$' out && grep -q '^    C  (then cut)$' out && grep -q '^    D < A  (shown as i)$' out
then pass "info lists the priorities"; else fail "info: $(grep -A4 priorities out)"; fi
# a prio whose rules relate none of B's labels changes nothing, also under a par
printf '"p.aut" ||| prio A > B in "q.aut" end prio\n' > t.exp
out=$("$W" explore t.exp --backend seq 2>&1)
echo "$out" | grep -q '^states: *6$' && echo "$out" | grep -q '^transitions: *12$' \
    && pass "a prio relating no label of its body is the identity" || fail "identity prio: $out"
