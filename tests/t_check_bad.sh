#!/bin/sh
# t_check_bad.sh -- `warpex check` on the malformed inputs of tests/bad/mdp:
# every row of tests/bad/mdp/EXPECT gives exit 2 and exactly one stderr line
# located at FILE:LINE:COL with the expected message, and writes no
# --values file; the valid companions give exit 0; every file has a row.
cd "$(dirname "$0")/.." || exit 2
TAG=check-bad
. tests/lib.sh
D=tests/bad/mdp
run_role() { # FILE: runs warpex check with FILE in the role its extension says
    f=$D/$1
    case $1 in
    *.tra) "$W" check "$f" --prop 'Pmax=? [ F true ]' --values "$T/v" ;;
    *.drn) "$W" check "$f" --prop 'Pmax=? [ F "goal" ]' --values "$T/v" ;;
    *.lab) "$W" check $D/ok_model.tra --lab "$f" --prop 'Pmax=? [ F true ]' --values "$T/v" ;;
    *.srew) "$W" check $D/ok_model.tra --lab $D/ok_model.lab --srew "$f" --prop 'Rmax=? [ F "goal" ]' --values "$T/v" ;;
    *.trew) "$W" check $D/ok_model.tra --lab $D/ok_model.lab --trew "$f" --prop 'Rmax=? [ F "goal" ]' --values "$T/v" ;;
    *.sta) "$W" check $D/ok_model.tra --lab $D/ok_model.lab --sta "$f" --prop 'Pmax=? [ F "goal" ]' --values "$T/v" ;;
    *.props) "$W" check $D/ok_model.tra --lab $D/ok_model.lab --props "$f" ;;
    esac > "$T/out" 2> "$T/err"
}
listed=""
while read -r name line col msg; do
    case $name in ''|'#'*) continue;; esac
    listed="$listed $name "
    rm -f "$T/v"
    run_role "$name"; rc=$?
    if [ "$line" = 0 ]; then
        [ $rc -eq 0 ] && pass "$name: valid (exit 0)" || fail "$name: expected exit 0, found $rc: $(cat "$T/err")"
        continue
    fi
    want="warpex: $D/$name:$line:$col: "
    [ "$col" = 0 ] && want="warpex: $D/$name:$line: "   # a whole-line (or whole-file) error
    if [ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -qF "$want" "$T/err" && grep -qF -- "$msg" "$T/err" \
        && [ ! -e "$T/v" ]; then
        pass "$name: $(cat "$T/err")"
    else
        fail "$name: expected exit 2 and '$want...$msg', found exit $rc: $(cat "$T/err")"
    fi
done < $D/EXPECT
for f in $D/*; do
    b=$(basename "$f"); [ "$b" = EXPECT ] && continue
    case $listed in *" $b "*) ;; *) fail "$b has no row in $D/EXPECT";; esac
done
pass "every file of $D has a row in EXPECT"
