#!/bin/sh
# t_gpu_por.sh -- partial-order reduction on the GPU explorer (run by
# bench/gpu_test.sh on the GPU machine): `warpex explore --por --backend
# gpu` against `--backend cpu` (3 threads) on the committed examples
# (examples/*/*.exp that --por takes) and on random networks (tests/randnet
# via bin/tests/test_random_networks; seeds printed,
# WARPEX_GPU_POR_SEEDS=N sets how many, WARPEX_GPU_POR_SEED0=S the first):
#   - plain: the same exit status and the same reduced graph's states,
#     transitions, deadlocks and depth (both build the graph of por.h's
#     stubborn sets, level by level), "por": true on the GPU backend;
#   - --deadlock --trace (random networks: those with a deadlock): the same
#     verdict and the same trace length (a shortest path in the same
#     reduced graph);
#   - --action (visible labels: the cycle proviso of explorer/por.h): each
#     model beside an idle component whose label zz_never is never enabled,
#     --action '^zz_never$' (the proviso applies, no violation: exit 0 and
#     the same counts), and, on the examples, --action on a label deep in
#     the product (the last transition of its --aut) and, on the random
#     networks, --action '^b' and '^c': the same exit status, and on a
#     violation the same verdict and trace length;
# then --backend auto with --por: util/config.h's GX_AUTO_POR; and the
# scratch bound's smaller grid (WARPEX_GPU_POR_SCRATCH) and its refusal.
# The fast generator (where GX_POR_FAST compiles it) and the general one
# (WARPEX_GPU_GENERATOR) both reduce: checked on two examples, auto's
# choice, and the random networks alternate between them.  The table's
# growth between levels (GX_LEVEL_GROW): two examples and every third
# random network start from a 4 KB table.
cd "$(dirname "$0")/../.." || exit 2
TAG=gpu-por
. tests/lib.sh
gen=$PWD/bin/tests/test_random_networks

field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$2"; }
steps() { grep -o '"label"' "$1" | wc -l; }
# same FILE [OPTS...]: gpu == cpu under --por; prints the reason or nothing
same() {
    f=$1; shift
    why=""
    "$W" explore "$f" "$@" --por --json --quiet --backend gpu > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$f" "$@" --por --json --quiet --backend cpu --threads 3 > "$T/c.json" 2> "$T/c.err"; rc=$?
    [ $rg -eq $rc ] || why="exit gpu $rg cpu $rc: $(head -c 200 "$T/g.err");"
    [ $rc -eq 0 ] || return 0
    grep -q '"backend": "gpu' "$T/g.json" || why="$why not the GPU backend;"
    grep -q '"por": true' "$T/g.json" || why="$why no \"por\": true;"
    for k in states transitions deadlocks depth; do
        [ "$(field $k "$T/g.json")" = "$(field $k "$T/c.json")" ] \
            || why="$why $k gpu $(field $k "$T/g.json") cpu $(field $k "$T/c.json");"
    done
    echo "$why"
}
# visible FILE REGEX [OPTS...]: --por --action REGEX --trace, gpu == cpu:
# the counts without a violation, the verdict and trace length with one;
# prints the reason or nothing
visible() {
    f=$1; re=$2; shift 2
    why=""
    "$W" explore "$f" "$@" --por --action "$re" --trace --json --quiet --backend gpu > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$f" "$@" --por --action "$re" --trace --json --quiet --backend cpu --threads 3 > "$T/c.json" \
        2> "$T/c.err"; rc=$?
    [ $rg -eq $rc ] || why="exit gpu $rg cpu $rc: $(head -c 200 "$T/g.err");"
    if [ $rc -eq 0 ]; then
        grep -q '"backend": "gpu' "$T/g.json" || why="$why not the GPU backend;"
        for k in states transitions deadlocks depth; do
            [ "$(field $k "$T/g.json")" = "$(field $k "$T/c.json")" ] \
                || why="$why $k gpu $(field $k "$T/g.json") cpu $(field $k "$T/c.json");"
        done
    elif [ $rc -eq 1 ]; then
        [ "$(field violation "$T/g.json")" = "$(field violation "$T/c.json")" ] \
            || why="$why violation gpu $(field violation "$T/g.json") cpu $(field violation "$T/c.json");"
        [ "$(steps "$T/g.json")" = "$(steps "$T/c.json")" ] \
            || why="$why trace length gpu $(steps "$T/g.json") cpu $(steps "$T/c.json");"
    fi
    echo "$why"
}
# idle FILE: FILE beside a component that never moves and has the label
# zz_never (never enabled): a visible label for --action that never fires
printf 'des (0, 1, 2)\n(1, "zz_never", 0)\n' > "$T/zz.aut"
idle() { printf '"%s" ||| "%s"\n' "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" "$T/zz.aut" > "$T/idle.exp"; }
# deep FILE: a regex for the label of the last transition of FILE's
# product (--aut), or nothing
deep() {
    "$W" explore "$1" --backend cpu --threads 3 --quiet --aut "$T/full.aut" > /dev/null 2>&1 || return 0
    l=$(tail -n 1 "$T/full.aut" | sed -n 's/^([0-9]*, *"\{0,1\}\(.*[^"]\)"\{0,1\}, *[0-9]*)$/\1/p')
    [ -n "$l" ] && printf '^%s$' "$(printf '%s' "$l" | sed 's/[][\\.*^$(){}+?|]/\\&/g')"
}

# verdict FILE [OPTS...]: --deadlock --trace, gpu == cpu; prints the reason or nothing
verdict() {
    f=$1; shift
    why=""
    "$W" explore "$f" "$@" --por --deadlock --trace --json --quiet --backend gpu > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$f" "$@" --por --deadlock --trace --json --quiet --backend cpu > "$T/c.json" 2> "$T/c.err"; rc=$?
    [ $rg -eq $rc ] || why="exit gpu $rg cpu $rc: $(head -c 200 "$T/g.err");"
    [ $rc -eq 1 ] || return 0
    [ "$(field violation "$T/g.json")" = '"deadlock"' ] || why="$why gpu violation $(field violation "$T/g.json");"
    [ "$(steps "$T/g.json")" = "$(steps "$T/c.json")" ] \
        || why="$why trace length gpu $(steps "$T/g.json") cpu $(steps "$T/c.json");"
    echo "$why"
}

# The generators: with --por, the fast one (each thread its own state's
# reduced set) where util/config.h's GX_POR_FAST compiles it, and the
# general one (a group per state, lane 0 reducing), chosen by
# WARPEX_GPU_GENERATOR (auto and fast: the fast one where the image allows
# it and GX_POR_FAST is 1).  Both build the same reduced graph.
# gen_check FILE SETTING WANT: --por with WARPEX_GPU_GENERATOR=SETTING runs
# the WANT generator and gives the CPU's counts
gen_check() {
    WARPEX_GPU_GENERATOR=$2 WARPEX_GPU_TIMELINE=1 "$W" explore "$1" --por --json --quiet --backend gpu \
        > "$T/g.json" 2> "$T/g.err"
    "$W" explore "$1" --por --json --quiet --backend cpu --threads 3 > "$T/c.json" 2> /dev/null
    if grep -q -- "--por grid: .*, $3 generator" "$T/g.err" &&
        [ "$(field states "$T/g.json")" = "$(field states "$T/c.json")" ] &&
        [ "$(field transitions "$T/g.json")" = "$(field transitions "$T/c.json")" ] &&
        [ "$(field depth "$T/g.json")" = "$(field depth "$T/c.json")" ]; then
        pass "$1: --por, WARPEX_GPU_GENERATOR=$2: the $3 generator, gpu == cpu ($(field states "$T/c.json") states)"
    else
        fail "$1: --por, WARPEX_GPU_GENERATOR=$2 (want $3): states gpu $(field states "$T/g.json") cpu" \
            "$(field states "$T/c.json"): $(grep -- '--por grid' "$T/g.err" | head -1) $(head -c 200 "$T/g.err")"
    fi
}
fast_gen=general; grep -q '^#define GX_POR_FAST 1' util/config.h && fast_gen=fast
for f in examples/mutex/mutex_n4.exp examples/philosophers/philosophers_n5.exp; do
    gen_check "$f" fast $fast_gen
    gen_check "$f" general general
done
gen_check examples/mutex/mutex_n4.exp auto $fast_gen
expect_rc "WARPEX_GPU_GENERATOR=junk refused" 2 env WARPEX_GPU_GENERATOR=junk "$W" explore \
    examples/mutex/mutex_n4.exp --por --backend gpu

n=0
for f in examples/*/*.exp; do
    "$W" explore "$f" --por --backend cpu --quiet > /dev/null 2>&1
    [ $? -eq 2 ] && continue # --por refuses it (probabilistic, a prio)
    why=$(same "$f")
    [ -z "$why" ] && pass "$f: --por gpu == cpu ($(field states "$T/c.json") states, depth $(field depth "$T/c.json"))" \
        || fail "$f:$why"
    why=$(verdict "$f")
    [ -z "$why" ] && pass "$f: --por --deadlock gpu == cpu" || fail "$f --deadlock:$why"
    idle "$f"
    why=$(visible "$T/idle.exp" '^zz_never$')
    [ -z "$why" ] && pass "$f: --por --action (proviso, no violation) gpu == cpu ($(field states "$T/c.json") states)" \
        || fail "$f --action zz_never:$why"
    if [ "$(field states "$T/c.json")" -le 20000 ] 2>/dev/null && re=$(deep "$f") && [ -n "$re" ]; then
        why=$(visible "$f" "$re")
        [ -z "$why" ] && pass "$f: --por --action '$re' gpu == cpu (violation: $(field violation "$T/c.json"))" \
            || fail "$f --action '$re':$why"
    fi
    n=$((n + 1))
done
[ $n -gt 10 ] && pass "$n examples compared" || fail "only $n examples compared"

SEEDS=${WARPEX_GPU_POR_SEEDS:-300}
seed0=${WARPEX_GPU_POR_SEED0:-$(date +%s)}
echo "random networks: seeds $seed0 .. $((seed0 + SEEDS - 1))"
ASEEDS=${WARPEX_GPU_POR_ACTION_SEEDS:-100} # of these, with --action too
bad=0; ran=0; acted=0
for i in $(seq 0 $((SEEDS - 1))); do
    s=$((seed0 + i))
    # odd seeds on the general generator, even ones on the fast one (where
    # the network allows it)
    WARPEX_GPU_GENERATOR=fast; [ $((i % 2)) = 1 ] && WARPEX_GPU_GENERATOR=general
    export WARPEX_GPU_GENERATOR
    # every third seed from a tiny table (growth between levels where GX_LEVEL_GROW is 1)
    unset WARPEX_GPU_GROW_FROM; [ $((i % 3)) = 2 ] && export WARPEX_GPU_GROW_FROM=4K
    set -- $(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$s "$gen")
    # EXPECT exp_path dir hidden rate states transitions deadlocks
    if [ "${1:-}" != EXPECT ]; then
        fail "seed $s: generator said: $*"; bad=1; continue
    fi
    opts="--hidden $4"
    [ "$5" = 1 ] && opts="$opts --rate"
    # shellcheck disable=SC2086
    why=$(same "$2" $opts)
    # (without a deadlock, equal deadlock counts already say the verdicts agree)
    # shellcheck disable=SC2086
    [ -n "$why" ] || [ "$(field deadlocks "$T/c.json")" = 0 ] || why=$(verdict "$2" $opts)
    if [ -z "$why" ] && [ $i -lt "$ASEEDS" ]; then
        idle "$2"
        # shellcheck disable=SC2086
        why=$(visible "$T/idle.exp" '^zz_never$' $opts)
        for re in '^b' '^c'; do
            # shellcheck disable=SC2086
            [ -n "$why" ] || why=$(visible "$2" "$re" $opts)
        done
        acted=$((acted + 1))
    fi
    [ -z "$why" ] || { fail "seed $s ($2):$why"; bad=1; }
    [ -n "$why" ] || rm -rf "$3"
    ran=$((ran + 1))
done
unset WARPEX_GPU_GENERATOR WARPEX_GPU_GROW_FROM
[ $bad = 0 ] && pass "$ran random networks (odd seeds on the general generator, every third from a 4 KB table): --por gpu == cpu (counts, depth, --deadlock verdicts and trace lengths;" \
    "$acted of them with --action: proviso counts, verdicts and trace lengths)"

printf 'des (0, 2, 3)\n(0, "a", 1)\n(1, "b", 2)\n' > "$T/c.aut"
printf '"c.aut" ||| "c.aut" ||| "c.aut"\n' > "$T/three.exp"
expect_rc "--por --action --backend gpu" 1 "$W" explore "$T/three.exp" --por --action '^b$' --backend gpu --json --trace
expect_json "--por --action --backend gpu: the GPU" backend='"gpu"' violation='"action"'
# auto's backend with --por is util/config.h's GX_AUTO_POR
ab=cpu; grep -q '^#define GX_AUTO_POR 1' util/config.h && ab=gpu
expect_rc "--por --action --backend auto" 1 "$W" explore "$T/three.exp" --por --action '^b$' --json
expect_json "--por --action --backend auto: the $ab" backend="\"$ab\"" violation='"action"'
expect_rc "--por --backend auto" 0 "$W" explore "$T/three.exp" --por --json
expect_json "--por --backend auto: the $ab" backend="\"$ab\"" states=7 transitions=6 deadlocks=1 depth=6

# the reduction's scratch bound (WARPEX_GPU_POR_SCRATCH, kernels/explore/plan.cu
# gx_por_blocks): a bound below the full grid's launches fewer blocks and
# keeps the reduced graph; a bound below one block's scratch is refused
for f in examples/mutex/mutex_n4.exp examples/abp/abp_d16.exp; do
    WARPEX_GPU_POR_SCRATCH=4M WARPEX_GPU_TIMELINE=1 "$W" explore "$f" --por --json --quiet --backend gpu \
        > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$f" --por --json --quiet --backend cpu --threads 3 > "$T/c.json" 2> /dev/null
    nb=$(sed -n 's/.*--por grid: \([0-9]*\) blocks.*/\1/p' "$T/g.err" | head -1)
    if [ $rg -eq 0 ] && [ -n "$nb" ] && [ "$nb" -ge 1 ] && [ "$nb" -lt 64 ] &&
        [ "$(field states "$T/g.json")" = "$(field states "$T/c.json")" ] &&
        [ "$(field transitions "$T/g.json")" = "$(field transitions "$T/c.json")" ]; then
        pass "$f: --por within 4 MB of scratch: $nb blocks, gpu == cpu ($(field states "$T/c.json") states)"
    else
        fail "$f: --por within 4 MB of scratch: exit $rg, '$nb' blocks, states gpu $(field states "$T/g.json")" \
            "cpu $(field states "$T/c.json"): $(head -c 300 "$T/g.err")"
    fi
done
# the table's growth between levels (util/config.h GX_LEVEL_GROW): from a
# tiny first table (WARPEX_GPU_GROW_FROM) --por grows it (the timeline's
# "grow to" marks) and keeps the CPU's reduced graph; at 0 a level-by-level
# run never grows
grows=0; grep -q '^#define GX_LEVEL_GROW 1' util/config.h && grows=1
for f in examples/mutex/mutex_n4.exp examples/philosophers/philosophers_n7.exp; do
    WARPEX_GPU_GROW_FROM=4K WARPEX_GPU_TIMELINE=1 "$W" explore "$f" --por --json --quiet --backend gpu \
        > "$T/g.json" 2> "$T/g.err"; rg=$?
    "$W" explore "$f" --por --json --quiet --backend cpu --threads 3 > "$T/c.json" 2> /dev/null
    ng=$(grep -c "grow to" "$T/g.err")
    why=""
    [ $rg -eq 0 ] || why="exit $rg: $(head -c 200 "$T/g.err");"
    for k in states transitions deadlocks depth; do
        [ "$(field $k "$T/g.json")" = "$(field $k "$T/c.json")" ] \
            || why="$why $k gpu $(field $k "$T/g.json") cpu $(field $k "$T/c.json");"
    done
    if [ $grows = 1 ]; then [ "$ng" -ge 1 ] || why="$why no growth;"; else [ "$ng" = 0 ] || why="$why $ng growths;"; fi
    [ -z "$why" ] && pass "$f: --por from a 4 KB table: $ng growths (GX_LEVEL_GROW $grows), gpu == cpu" \
        || fail "$f: --por from a 4 KB table:$why"
done

expect_rc "--por with less scratch than one block's refused" 3 env WARPEX_GPU_POR_SCRATCH=1K "$W" explore \
    examples/mutex/mutex_n4.exp --por --backend gpu
grep -q "may take" "$T/err" && pass "the refusal names the bound" || fail "refusal: $(head -c 300 "$T/err")"
expect_rc "WARPEX_GPU_POR_SCRATCH=junk refused" 2 env WARPEX_GPU_POR_SCRATCH=junk "$W" explore \
    examples/mutex/mutex_n4.exp --por --backend gpu
