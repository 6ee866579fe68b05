#!/bin/sh
# t_random_cli.sh -- the CLI end to end on random networks (tests/randnet):
# for each seed, `warpex explore FILE.exp --json` on both CPU backends (cpu
# on 1, 2, 3 and 7 threads) must report the naive oracle's states /
# transitions / deadlocks; --deadlock must exit 1 exactly when there is a
# deadlock; the product written with --aut, explored again as a plain LTS,
# must have the same counts; and the --aut files of seq and of cpu on 1, 2,
# 3 and 7 threads must have the same numbering-free signature (aut_sig).
# The oracle's counts come from bin/tests/test_random_networks in its
# WARPEX_RANDNET_EMIT mode.  Failing seeds keep their files (path printed).
cd "$(dirname "$0")/.." || exit 2
gen=bin/tests/test_random_networks
cli=bin/warpex
if [ ! -x "$gen" ] || [ ! -x "$cli" ]; then
    echo "FAIL t_random_cli: $gen or $cli missing"
    exit 1
fi
SEEDS=${WARPEX_CLI_SEEDS:-40}

# json_field NAME JSON: the number after "NAME": in JSON (empty if absent)
json_field() {
    printf '%s\n' "$2" | sed -n "s/.*\"$1\": *\([0-9][0-9]*\).*/\1/p"
}

# aut_sig FILE: what an .aut file says that does not depend on how its
# states are numbered (the cpu backend numbers the states of a BFS level in
# any order): its counts, the multiset of labels and the multiset of
# (out-degree, in-degree) pairs, as one checksum.
aut_sig() {
    awk 'NR == 1 { h = $0; gsub(/[^0-9,]/, "", h); split(h, a, ","); n = a[3]; print "des " a[2] " " n; next }
    {
        l = $0; sub(/^[ \t]*\([ \t]*/, "", l)
        src = l; sub(/[ \t]*,.*$/, "", src)
        dst = l; sub(/^.*,[ \t]*/, "", dst); sub(/[ \t]*\)[ \t]*$/, "", dst)
        sub(/^[0-9]+[ \t]*,[ \t]*/, "", l); sub(/[ \t]*,[ \t]*[0-9]+[ \t]*\)[ \t]*$/, "", l)
        print "L " l; out[src]++; inn[dst]++
    }
    END { for (s = 0; s < n; s++) print "D " out[s] + 0 " " inn[s] + 0 }' "$1" | LC_ALL=C sort | cksum
}

seed=1
while [ "$seed" -le "$SEEDS" ]; do
    line=$(WARPEX_RANDNET_PRIO=1 WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    # EXPECT exp_path dir hidden rate states transitions deadlocks
    # or REFUSE exp_path dir hidden S T D (a prio form warpex refuses; S T D
    # the oracle's counts, which warpex must give where it drops a prio that
    # relates no two labels; "- - -" where the oracle refuses it too)
    set -- $line
    if [ "$1" = REFUSE ]; then
        ok=1
        for backend in seq cpu; do
            "$cli" explore "$2" --hidden "$4" --backend $backend --json --quiet > "$3/out" 2> "$3/err"
            rc=$?
            got=$(sed -n 's/.*"states": \([0-9]*\).*"transitions": \([0-9]*\).*"deadlocks": \([0-9]*\).*/\1 \2 \3/p' "$3/out")
            if [ $rc -eq 2 ] && [ "$(wc -l < "$3/err")" -eq 1 ]; then
                echo "PASS random cli seed $seed: $backend refuses the prio form: $(cat "$3/err")"
            elif [ $rc -eq 0 ] && [ "$5" != - ] && [ "$got" = "$5 $6 $7" ]; then
                echo "PASS random cli seed $seed: $backend drops a prio relating no labels: $got = naive"
            else
                ok=0
                echo "FAIL random cli seed $seed: $backend: expected exit 2 and one line, found exit $rc: $(cat "$3/err"); files kept in $3"
            fi
        done
        [ $ok = 1 ] && rm -rf "$3"
        seed=$((seed + 1))
        continue
    fi
    if [ "$1" != EXPECT ]; then
        echo "FAIL random cli seed $seed: generator said: $line"
        seed=$((seed + 1))
        continue
    fi
    exp=$2 dir=$3 hidden=$4 rate=$5 st=$6 tr=$7 dl=$8
    opts="--hidden $hidden --memory 64M"
    [ "$rate" = 1 ] && opts="$opts --rate"
    ok=1
    why=""
    for run in seq:1 cpu:1 cpu:2 cpu:3 cpu:7; do
        backend=${run%:*} th=${run#*:}
        out=$("$cli" explore "$exp" $opts --backend $backend --threads $th --json --aut "$dir/$backend$th.aut" 2>&1)
        rc=$?
        s=$(json_field states "$out"); t=$(json_field transitions "$out")
        d=$(json_field deadlocks "$out")
        if [ $rc -ne 0 ] || [ "$s" != "$st" ] || [ "$t" != "$tr" ] || [ "$d" != "$dl" ]; then
            ok=0
            why="$why; $backend/$th: exit $rc, found $s/$t/$d ($out)"
        elif [ "$(aut_sig "$dir/$backend$th.aut")" != "$(aut_sig "$dir/seq1.aut")" ]; then
            ok=0
            why="$why; $backend/$th: --aut differs from seq's beyond numbering ($dir/$backend$th.aut)"
        fi
    done
    # --deadlock: exit 1 iff a deadlock is reachable
    "$cli" explore "$exp" $opts --backend cpu --threads 2 --deadlock --quiet >/dev/null 2>&1
    rc=$?
    want=0
    [ "$dl" != 0 ] && want=1
    if [ $rc -ne $want ]; then
        ok=0
        why="$why; --deadlock exited $rc, expected $want"
    fi
    # --aut round trip: the product as one LTS has the same counts
    out=$("$cli" explore "$exp" $opts --backend cpu --threads 2 --aut "$dir/product.aut" --quiet 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        ok=0
        why="$why; --aut: exit $rc ($out)"
    else
        out=$("$cli" explore "$dir/product.aut" --hidden "$hidden" --memory 64M --backend cpu --threads 2 --json 2>&1)
        s=$(json_field states "$out"); t=$(json_field transitions "$out")
        d=$(json_field deadlocks "$out")
        if [ "$s" != "$st" ] || [ "$t" != "$tr" ] || [ "$d" != "$dl" ]; then
            ok=0
            why="$why; product.aut re-explored: $s/$t/$d ($out)"
        fi
    fi
    if [ $ok = 1 ]; then
        echo "PASS random cli seed $seed: $st/$tr/$dl"
        rm -rf "$dir"
    else
        echo "FAIL random cli seed $seed: expected $st/$tr/$dl$why; files kept in $dir"
    fi
    seed=$((seed + 1))
done
