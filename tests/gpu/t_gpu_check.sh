#!/bin/sh
# t_gpu_check.sh -- `warpex check --backend gpu` against `--backend cpu` on
# the PRISM exports in tests/data/mdp (run by bench/gpu_test.sh on the GPU
# machine): the GPU twins of the
# precomputation and of the Jacobi sweeps are specified to give identical
# sets and bit-identical values (analysis/valiter.h), so per property the
# state classes, sweep counts and the initial states' value, lo and hi must
# be the same strings, with --all-states and by default (sweeps stop once
# the initial states' bounds meet the rule, on both: valiter.h WATCHED
# STATES); and every value must agree with reference.json
# through the CPU test (tests/test_valiter_prism.c) already.  In-place
# sweeps (--solver inplace: sound, not bit-identical): the same exit status
# and classes, and every initial state's [lo, hi] is at most epsilon wide
# and overlaps the CPU's (both contain the value; both solved for the
# initial states only).  Also
# `warpex cycle-mean --backend gpu` against the CPU on random DIMACS graphs.
cd "$(dirname "$0")/../.." || exit 2
TAG=gpu-check
. tests/lib.sh

# key fields of every property, one line each
digest() {
    sed 's/{"property"/\n{"property"/g' "$1" | grep '^{"property"' |
        sed 's/.*"name": \("[^"]*"\).*\("initial": \[[^]]*\]\).*\("relevant_states": [0-9]*\).*\("yes_states": [0-9]*\), \("no_states": [0-9]*\), \("maybe_states": [0-9]*\).*\("iterations": [0-9]*\).*/\1 \2 \3 \4 \5 \6 \7/'
}
S=tests/data/mdp
n=0 ndev=0
for d in "$S"/*/; do
    b=$(basename "$d")
    [ -f "$d$b.tra" ] && ls "$d"*.props >/dev/null 2>&1 || continue
    opts="--lab $d$b.lab"
    [ -f "$d$b.srew" ] && opts="$opts --srew $d$b.srew"
    [ -f "$d$b.trew" ] && opts="$opts --trew $d$b.trew"
    for p in "$d"*.props; do
        "$W" check "$d$b.tra" $opts --props "$p" --json --method ii --backend gpu --all-states >"$T/g" 2>"$T/ge"; rg=$?
        "$W" check "$d$b.tra" $opts --props "$p" --json --method ii --backend cpu --all-states >"$T/c" 2>"$T/ce"; rc=$?
        digest "$T/g" >"$T/gd"; digest "$T/c" >"$T/cd"
        if [ $rg -eq $rc ] && [ -s "$T/cd" ] && cmp -s "$T/gd" "$T/cd" && grep -q '"backend": "gpu"' "$T/g"; then
            pass "$b $(basename "$p"): gpu == cpu ($(wc -l < "$T/cd") properties, exit $rc)"
        else
            fail "$b $(basename "$p"): exit gpu $rg cpu $rc; $(diff "$T/gd" "$T/cd" | head -4) $(head -c 200 "$T/ge")"
        fi
        n=$((n + 1))
        # solving for the initial states (the default): the GPU stops after
        # the same sweep as the CPU (valiter.h WATCHED STATES), so Jacobi is
        # bit-identical here too; the model on the device (its cut and
        # system there) and each step uploading its own (WARPEX_CHECK_DEVICE=0)
        "$W" check "$d$b.tra" $opts --props "$p" --json --method ii --backend gpu >"$T/g" 2>"$T/ge"; rg=$?
        WARPEX_CHECK_DEVICE=0 "$W" check "$d$b.tra" $opts --props "$p" --json --method ii --backend gpu \
            >"$T/h" 2>"$T/he"; rh=$?
        "$W" check "$d$b.tra" $opts --props "$p" --json --method ii --backend cpu >"$T/c" 2>"$T/ce"; rc=$?
        digest "$T/g" >"$T/gd"; digest "$T/h" >"$T/hd"; digest "$T/c" >"$T/cd"
        if [ $rg -eq $rc ] && [ $rh -eq $rc ] && [ -s "$T/cd" ] && cmp -s "$T/gd" "$T/cd" && cmp -s "$T/hd" "$T/cd" &&
            grep -q '"backend": "gpu"' "$T/g" && ! grep -q '"solved_for": "all"' "$T/g" &&
            grep -q '"model_device": true' "$T/g" && grep -q '"model_device": false' "$T/h" &&
            ! grep -q '"cut_device": true' "$T/h"; then
            pass "$b $(basename "$p"): initial states only: gpu (model on the device, and not) == cpu ($(wc -l < "$T/cd") properties, exit $rc)"
            ndev=$((ndev + $(grep -o '"cut_device": true' "$T/g" | wc -l)))
        else
            fail "$b $(basename "$p"): initial only: exit gpu $rg host $rh cpu $rc; $(diff "$T/gd" "$T/cd" | head -4) $(diff "$T/hd" "$T/cd" | head -4) $(head -c 200 "$T/ge")"
        fi
        "$W" check "$d$b.tra" $opts --props "$p" --json --backend gpu --solver inplace >"$T/i" 2>"$T/ie"; ri=$?
        "$W" check "$d$b.tra" $opts --props "$p" --json --method ii --backend cpu >"$T/c" 2>"$T/ce"; rc=$?
        bounds() { # one "lo hi" line per initial state of every property
            grep -o '"lo": [^,]*, "hi": [^}]*' "$1" | sed 's/"lo": \([^,]*\), "hi": \(.*\)/\1 \2/; s/"//g'
        }
        bounds "$T/c" >"$T/cb"; bounds "$T/i" >"$T/ib"
        why=$(paste -d' ' "$T/ib" "$T/cb" | awk -v eps=1e-6 '
            $1 == "inf" || $3 == "inf" { if ($1 != $3 || $2 != $4) { print "inf mismatch: " $0; exit } next }
            { if ($2 - $1 > eps * (1 + 1e-9)) { print "too wide: " $0; exit }
              if ($1 > $4 + 1e-12 || $3 > $2 + 1e-12) { print "disjoint: " $0; exit } }')
        if [ $ri -eq $rc ] && [ -s "$T/cb" ] && [ "$(wc -l <"$T/ib")" = "$(wc -l <"$T/cb")" ] && [ -z "$why" ] &&
            grep -q '"solver": "inplace"' "$T/i"; then
            pass "$b $(basename "$p"): gpu in-place sound, overlaps cpu ($(wc -l < "$T/cb") values, exit $ri)"
        else
            fail "$b $(basename "$p"): in-place: exit $ri (cpu $rc) $why $(head -c 200 "$T/ie")"
        fi
    done
done
[ $n -gt 0 ] || fail "no PRISM exports under $S"
[ $ndev -gt 0 ] && pass "the cut ran on the device for $ndev properties" || fail "no cut ran on the device"

# cycle-mean: random graphs with negative weights and several SCCs
for seed in 1 2 3 4 5 6 7 8; do
    awk -v seed=$seed 'BEGIN { srand(seed); n = 50 + int(rand() * 400); m = 3 * n;
        print "p sp " n " " m;
        for (i = 0; i < m; i++) printf "a %d %d %d\n", 1 + int(rand() * n), 1 + int(rand() * n), int(rand() * 2001) - 1000 }' >"$T/g.dimacs"
    for dir in --min --max; do
        "$W" cycle-mean "$T/g.dimacs" $dir --backend gpu --json >"$T/g" 2>"$T/ge"
        "$W" cycle-mean "$T/g.dimacs" $dir --backend cpu --json >"$T/c" 2>"$T/ce"
        a=$(sed -n 's/.*"fraction": \("[^"]*"\).*/\1/p' "$T/g")
        c=$(sed -n 's/.*"fraction": \("[^"]*"\).*/\1/p' "$T/c")
        [ -n "$c" ] && [ "$(sed -n 's/.*"fraction": \("[^"]*"\).*/\1/p' "$T/g")" = "$c" ] \
            && pass "cycle-mean seed $seed $dir: gpu == cpu ($c)" \
            || fail "cycle-mean seed $seed $dir: gpu '$a' cpu '$c' $(head -c 200 "$T/ge")"
    done
done

# step-bounded and cumulative properties (tests/data/props_ref/storm.tsv):
# the GPU's k backups are bit-identical to the CPU's (kernels/bounded.cu), so
# the JSON's lo, hi and value strings must be equal; the CPU's are checked
# against Storm by tests/t_check_props.sh.
grep -v '^#' tests/data/props_ref/storm.tsv | awk -F'\t' '$2 ~ /(F|U|G|C)<=?[0-9]/' >"$T/bounded.tsv"
nb=0
while IFS="$(printf '\t')" read -r inst prop want origin; do
    d=tests/data/$inst; b=$(basename "$d")
    opts="--lab $d/$b.lab"
    for f in "$d/$b"*.srew; do [ -f "$f" ] && opts="$opts --srew $f"; done
    for f in "$d/$b"*.trew; do [ -f "$f" ] && opts="$opts --trew $f"; done
    "$W" check "$d/$b.tra" $opts --prop "$prop" --json --backend gpu >"$T/g" 2>"$T/ge"; rg=$?
    "$W" check "$d/$b.tra" $opts --prop "$prop" --json --backend cpu >"$T/c" 2>"$T/ce"; rc=$?
    vals() { grep -o '"\(lo\|hi\|value\|steps_fixed\)": [^,}]*' "$1"; }
    if [ $rg -eq $rc ] && [ -n "$(vals "$T/c")" ] && [ "$(vals "$T/g")" = "$(vals "$T/c")" ] &&
        grep -q '"backend": "gpu"' "$T/g"; then
        nb=$((nb + 1))
    else
        fail "$inst $prop: gpu (exit $rg) differs from cpu (exit $rc): $(vals "$T/g" | head -3 | tr '\n' ' ') vs $(vals "$T/c" | head -3 | tr '\n' ' ') $(head -c 200 "$T/ge")"
    fi
done <"$T/bounded.tsv"
[ "$nb" -gt 0 ] && [ "$nb" = "$(wc -l <"$T/bounded.tsv")" ] &&
    pass "step-bounded: gpu == cpu bit for bit on $nb properties of storm.tsv"

# the other forms of storm.tsv (unbounded comparisons, G, DTMC P=?, R with
# rewards): interval iteration on both backends; the answers ("result",
# "holds") must be the same strings and every initial [lo, hi] must overlap
# the CPU's (both sound) and be at most epsilon wide (1e-6, absolute)
grep -v '^#' tests/data/props_ref/storm.tsv | awk -F'\t' '$2 !~ /(F|U|G|C)<=?[0-9]/' >"$T/unbounded.tsv"
nu=0
while IFS="$(printf '\t')" read -r inst prop want origin; do
    d=tests/data/$inst; b=$(basename "$d")
    opts="--lab $d/$b.lab"
    for f in "$d/$b"*.srew; do [ -f "$f" ] && opts="$opts --srew $f"; done
    for f in "$d/$b"*.trew; do [ -f "$f" ] && opts="$opts --trew $f"; done
    "$W" check "$d/$b.tra" $opts --prop "$prop" --json --method ii --backend gpu >"$T/g" 2>"$T/ge"; rg=$?
    "$W" check "$d/$b.tra" $opts --prop "$prop" --json --method ii --backend cpu >"$T/c" 2>"$T/ce"; rc=$?
    ans() { grep -o '"\(result\|holds\)": [a-z]*' "$1"; }
    bnd() { grep -o '"lo": [^,]*, "hi": [^,}]*' "$1" | sed 's/"lo": //; s/, "hi": / /'; }
    bnd "$T/g" >"$T/gb"; bnd "$T/c" >"$T/cb"
    why=$(paste -d' ' "$T/gb" "$T/cb" | awk '
        $1 == "inf" || $3 == "inf" { if ($1 != $3 || $2 != $4) { print "inf mismatch: " $0; exit } next }
        { if ($2 - $1 > 1e-6 * (1 + 1e-9) || $1 > $4 + 1e-12 || $3 > $2 + 1e-12) { print "bounds: " $0; exit } }')
    if [ $rg -eq $rc ] && [ -s "$T/cb" ] && [ "$(wc -l <"$T/gb")" = "$(wc -l <"$T/cb")" ] && [ -z "$why" ] &&
        [ "$(ans "$T/g")" = "$(ans "$T/c")" ] && grep -q '"backend": "gpu"' "$T/g"; then
        nu=$((nu + 1))
    else
        fail "$inst $prop: gpu (exit $rg) vs cpu (exit $rc): $why $(ans "$T/g" | tr '\n' ' ') vs $(ans "$T/c" | tr '\n' ' ') $(head -c 200 "$T/ge")"
    fi
done <"$T/unbounded.tsv"
[ "$nu" -gt 0 ] && [ "$nu" = "$(wc -l <"$T/unbounded.tsv")" ] &&
    pass "comparisons, G, DTMC P=? and rewards: gpu answers == cpu, bounds overlap, on $nu properties of storm.tsv"

# optimistic value iteration (--method ovi, Jacobi sweeps on both backends):
# the GPU's bounds, sweeps and guesses are the CPU's bit for bit
# (kernels/vi/ovi.cu), so the JSON's lo, hi, iterations and guesses strings
# must be equal on every unbounded row; --method auto on the GPU must run ovi
no=0
while IFS="$(printf '\t')" read -r inst prop want origin; do
    d=tests/data/$inst; b=$(basename "$d")
    opts="--lab $d/$b.lab"
    for f in "$d/$b"*.srew; do [ -f "$f" ] && opts="$opts --srew $f"; done
    for f in "$d/$b"*.trew; do [ -f "$f" ] && opts="$opts --trew $f"; done
    "$W" check "$d/$b.tra" $opts --prop "$prop" --json --method ovi --backend gpu >"$T/g" 2>"$T/ge"; rg=$?
    "$W" check "$d/$b.tra" $opts --prop "$prop" --json --method ovi --backend cpu >"$T/c" 2>"$T/ce"; rc=$?
    ovals() { grep -o '"\(lo\|hi\|value\|iterations\|guesses\|result\|holds\)": [^,}]*' "$1"; }
    if [ $rg -eq $rc ] && [ -n "$(ovals "$T/c")" ] && [ "$(ovals "$T/g")" = "$(ovals "$T/c")" ] &&
        grep -q '"backend": "gpu"' "$T/g" && grep -q '"method": "ovi"' "$T/g"; then
        no=$((no + 1))
    else
        fail "ovi: $inst $prop: gpu (exit $rg) differs from cpu (exit $rc): $(ovals "$T/g" | head -4 | tr '\n' ' ') vs $(ovals "$T/c" | head -4 | tr '\n' ' ') $(head -c 200 "$T/ge")"
    fi
done <"$T/unbounded.tsv"
[ "$no" -gt 0 ] && [ "$no" = "$(wc -l <"$T/unbounded.tsv")" ] &&
    pass "ovi: gpu == cpu (Jacobi) bit for bit, sweeps and guesses too, on $no properties of storm.tsv"
d=tests/data/mdp/consensus-N4-K2; b=consensus-N4-K2
"$W" check "$d/$b.tra" --lab "$d/$b.lab" --prop 'Pmax=? [ F "finished"&!"agree" ]' --json --backend gpu >"$T/g" 2>"$T/ge"
# auto's method on the GPU is util/config.h's VI_GPU_AUTO_OVI
am=ii; grep -q '^#define VI_GPU_AUTO_OVI 1' util/config.h && am=ovi
grep -q "\"method\": \"$am\"" "$T/g" && grep -q '"method_auto": true' "$T/g" && grep -q '"backend": "gpu"' "$T/g" &&
    pass "--method auto on the GPU: $am" || fail "--method auto on the GPU: $(head -c 300 "$T/g") $(head -c 200 "$T/ge")"
