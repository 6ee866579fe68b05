#!/bin/sh
# t_gpu_choice.sh -- what every command does when a GPU is asked for or
# looked for.
#   * without a usable GPU, `--backend gpu` is exit 2 with one and the same
#     line in every command (explore, convert, scc, mec, cycle-mean, check),
#     saying "built without CUDA" in a CPU-only build (--version says
#     "CPU only") and "no usable CUDA device" in a CUDA build;
#   * `--backend auto` then runs on the CPU: a CUDA build says so in one
#     line ("no GPU found"), a CPU-only build says nothing about GPUs (its
#     make said it once), and -q silences the line;
#   * with a usable GPU, `--backend gpu` works in every command.
cd "$(dirname "$0")/.." || exit 2
TAG=gpu_choice
. tests/lib.sh

EX=examples/traffic/traffic.exp
G=examples/weighted/machine.aut
M=tests/data/mdp/consensus-N2-K2/consensus-N2-K2
WEIGHT='cost ([0-9]+)'

if "$W" --version | grep -q "CPU only"; then cuda=0; else cuda=1; fi
"$W" explore "$EX" --json -q > "$T/out" 2> "$T/err"
if [ "$(json_field backend)" = '"gpu"' ]; then gpu=1; else gpu=0; fi
pass "build with CUDA: $cuda, GPU usable: $gpu"
[ $cuda = 1 ] || [ $gpu = 0 ] && pass "a CPU-only build never uses a GPU" \
    || fail "a CPU-only build (--version) explored on the GPU"

# run_each: every command once with --backend $BK (and $QUIET); the exit
# status and stderr of command K go to $T/rc.K and $T/err.K.
run_each() {
    k=0
    for cmd in "explore $EX" "convert $EX $T/c.aut" "scc $G" "mec $G" "cycle-mean $G" "check $M.tra"; do
        k=$((k + 1))
        case $cmd in
        cycle-mean*) "$W" $cmd --weight "$WEIGHT" --backend "$BK" $QUIET ;;
        check*) "$W" $cmd --lab "$M.lab" --prop 'Pmax=? [ F "finished" ]' --backend "$BK" $QUIET ;;
        *) "$W" $cmd --backend "$BK" $QUIET ;;
        esac > /dev/null 2> "$T/err.$k" < /dev/null
        echo $? > "$T/rc.$k"
    done
}
NAMES="explore convert scc mec cycle-mean check"
name_of() { echo "$NAMES" | cut -d' ' -f"$1"; }

BK=gpu QUIET= run_each
if [ $gpu = 0 ]; then
    if [ $cuda = 1 ]; then want="no usable CUDA device"; else want="built without CUDA"; fi
    first=$(cat "$T/err.1")
    for k in 1 2 3 4 5 6; do
        n=$(name_of $k)
        [ "$(cat "$T/rc.$k")" = 2 ] && pass "$n --backend gpu without a GPU: exit 2" \
            || fail "$n --backend gpu without a GPU: exit $(cat "$T/rc.$k"), $(cat "$T/err.$k")"
        [ "$(wc -l < "$T/err.$k")" -eq 1 ] && grep -q "^warpex: --backend gpu: .*$want" "$T/err.$k" \
            && pass "$n: one line naming the cause ($want)" || fail "$n message: $(cat "$T/err.$k")"
        [ "$(cat "$T/err.$k")" = "$first" ] && pass "$n: the same line as explore" \
            || fail "$n says '$(cat "$T/err.$k")', explore '$first'"
    done
else
    for k in 1 2 3 4 5 6; do
        [ "$(cat "$T/rc.$k")" = 0 ] && pass "$(name_of $k) --backend gpu with a GPU: exit 0" \
            || fail "$(name_of $k) --backend gpu with a GPU: exit $(cat "$T/rc.$k"), $(cat "$T/err.$k")"
    done
fi

# auto: the CPU notice only where a GPU was to be expected, never with -q
BK=auto QUIET= run_each
for k in 1 2 3 4 5 6; do
    n=$(name_of $k)
    [ "$(cat "$T/rc.$k")" = 0 ] && pass "$n --backend auto: exit 0" \
        || fail "$n --backend auto: exit $(cat "$T/rc.$k"), $(cat "$T/err.$k")"
done
for k in 1 3 4; do # explore, scc and mec print the notice
    n=$(name_of $k)
    if [ $gpu = 1 ] || [ $cuda = 0 ]; then
        grep -qi "gpu" "$T/err.$k" && fail "$n auto says something about GPUs: $(cat "$T/err.$k")" \
            || pass "$n auto: nothing about GPUs (cuda $cuda, gpu $gpu)"
    else
        [ "$(grep -c "no GPU found; using the CPU backend" "$T/err.$k")" -eq 1 ] \
            && pass "$n auto without a GPU: the CPU notice once" || fail "$n auto notice: $(cat "$T/err.$k")"
    fi
done
BK=auto QUIET=-q run_each
for k in 1 2 3 4 5 6; do
    grep -qi "gpu" "$T/err.$k" && fail "$(name_of $k) -q says something about GPUs: $(cat "$T/err.$k")" \
        || pass "$(name_of $k) auto -q: nothing about GPUs"
done

# the probabilistic explorer's CPU note: only where a GPU could have been used
sh examples/gen_consensus.sh 2 2 "$T" > /dev/null 2>&1
"$W" explore "$T/consensus_N2_K2.exp" > /dev/null 2> "$T/err"
if [ $cuda = 0 ]; then
    grep -qi "on the CPU\|gpu" "$T/err" && fail "CPU-only build, MDP: $(cat "$T/err")" \
        || pass "CPU-only build: the MDP explorer adds no CPU note"
else
    grep -q "no GPU found; using the CPU backend" "$T/err" && pass "CUDA build: the MDP explorer says it runs on the CPU" \
        || fail "CUDA build, MDP: $(cat "$T/err")"
fi
