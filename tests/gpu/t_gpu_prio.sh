#!/bin/sh
# t_gpu_prio.sh -- EXP priorities on the GPU explorers (run by
# bench/gpu_test.sh on the GPU machine): the hand-checked networks of
# tests/t_prio.sh and random prioritised networks (seeds printed,
# WARPEX_GPU_PRIO_SEEDS=N sets how many), `--backend gpu` against
# `--backend seq`: states, transitions and deadlocks equal, and the same
# number of transitions per label in the --aut output; on probabilistic
# networks the --mdp-out files byte-identical to the CPU's.
cd "$(dirname "$0")/../.." || exit 2
TAG=gpu-prio
. tests/lib.sh
cd "$T" || exit 2

field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$2"; }
labels() { sed -n 's/^([0-9]*, *"\{0,1\}\([^,"]*\)"\{0,1\}, *[0-9]*)$/\1/p' "$1" | sort | uniq -c; }
# same NAME FILE: gpu == seq; prints the reason or nothing
same() {
    why=""
    "$W" explore "$2" --json --quiet --backend gpu --aut g.aut > g.json 2> g.err; rg=$?
    "$W" explore "$2" --json --quiet --backend seq --aut s.aut > s.json 2> s.err; rs=$?
    [ $rg -eq $rs ] || why="exit gpu $rg seq $rs: $(head -c 200 g.err);"
    grep -q '"backend": "gpu' g.json || why="$why not the GPU backend: $(head -c 200 g.err);"
    for k in states transitions deadlocks; do
        [ "$(field $k g.json)" = "$(field $k s.json)" ] || why="$why $k gpu $(field $k g.json) seq $(field $k s.json);"
    done
    [ "$(labels g.aut)" = "$(labels s.aut)" ] || why="$why labels differ;"
    echo "$why"
}
printf 'des (0, 3, 3)\n(0, "A", 1)\n(0, "B", 2)\n(1, "C", 0)\n' > p.aut
printf 'des (0, 2, 2)\n(0, "B", 1)\n(1, "D", 0)\n' > q.aut
PQ='"p.aut" ||| "q.aut"'
while IFS='@' read -r text; do
    [ -n "$text" ] || continue
    printf '%s\n' "$text" > t.exp
    why=$(same x t.exp)
    [ -z "$why" ] && pass "$text: gpu == seq" || fail "$text:$why"
done <<CASES
prio A > B in $PQ end prio
prio A > D D > B in $PQ end prio
prio all but A > A in $PQ end prio
hide A in prio A > B in $PQ end prio end hide
rename B -> X in prio A > B in $PQ end prio end rename
cut A in prio A > B in $PQ end prio end cut
prio A > B in "p.aut" |[B]| "q.aut" end prio
prio "i" > A in hide B in $PQ end hide end prio
CASES

# random networks: 3 components over labels A..E, a random parallel
# operator, a prio of 1-3 random rules, sometimes hide/cut/rename above
SEEDS=${WARPEX_GPU_PRIO_SEEDS:-120}
seed0=${WARPEX_GPU_PRIO_SEED0:-$(date +%s)}
echo "random prioritised networks: seeds $seed0 .. $((seed0 + SEEDS - 1))"
bad=0; n_prob=0
for i in $(seq 0 $((SEEDS - 1))); do
    s=$((seed0 + i))
    awk -v seed=$s 'BEGIN {
        srand(seed); L = "ABCDE";
        prob = rand() < 0.3;
        for (c = 0; c < 3; c++) {
            n = 2 + int(rand() * 4); m = 1 + int(rand() * 2 * n); f = "c" c ".aut";
            printf "des (0, %d, %d)\n", m, n > f;
            for (t = 0; t < m; t++) {
                lab = substr(L, 1 + int(rand() * 5), 1);
                if (prob && c == 0 && rand() < 0.4)
                    printf "(%d, %s, %d 1/2 %d)\n", int(rand() * n), lab, int(rand() * n), int(rand() * n) > f;
                else
                    printf "(%d, %s, %d)\n", int(rand() * n), lab, int(rand() * n) > f;
            }
            close(f);
        }
        g = substr(L, 1 + int(rand() * 5), 1);
        par = rand() < 0.5 ? "\"c0.aut\" ||| \"c1.aut\" |[" g "]| \"c2.aut\"" : "\"c0.aut\" |[" g "]| (\"c1.aut\" ||| \"c2.aut\")";
        rules = "";
        nr = 1 + int(rand() * 3);
        for (r = 0; r < nr; r++) {
            a = 1 + int(rand() * 5); b = 1 + int(rand() * 5); if (a == b) b = a % 5 + 1;
            x = substr(L, a, 1); y = substr(L, b, 1);
            if (a < b) rules = rules " " x " > " y; else rules = rules " " y " > " x;
        }
        if (rand() < 0.2) rules = " all but A > A";
        body = "prio" rules " in " par " end prio";
        u = rand();
        if (u < 0.15) body = "hide B in " body " end hide";
        else if (u < 0.3) body = "cut C in " body " end cut";
        else if (u < 0.4) body = "rename D -> A in " body " end rename";
        print body > "r.exp";
        print prob > "prob";
    }'
    if [ "$(cat prob)" = 1 ]; then
        n_prob=$((n_prob + 1))
        "$W" explore r.exp --quiet --json --backend gpu --mdp-out g > g.json 2> g.err; rg=$?
        "$W" explore r.exp --quiet --json --backend cpu --mdp-out c > c.json 2> c.err; rc=$?
        why=""
        [ $rg -eq $rc ] || why="exit gpu $rg cpu $rc: $(head -c 200 g.err)"
        [ $rc -ne 0 ] || { cmp -s g.tra c.tra && cmp -s g.lab c.lab; } || why="$why MDP files differ"
    else
        why=$(same x r.exp)
    fi
    [ -z "$why" ] || { fail "seed $s: $(cat r.exp):$why"; bad=1; }
done
[ $bad = 0 ] && pass "$SEEDS random prioritised networks ($n_prob probabilistic): gpu == seq/cpu"
