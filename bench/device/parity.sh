#!/bin/bash
# bench/device/parity.sh -- the pre-redesign binary against the current one,
# on one GPU machine, in one call: explorer, SCC, MEC, value iteration and
# cycle mean (issue "one house", item 10: every stage within 3 %).
#
#   bench/device/parity.sh OLD_TREE [--build] [--rounds N] [--only explore,scc,mec,vi,cm] [--new BIN]
#
# --new BIN: the binary measured against OLD_TREE's (default bin/warpex),
# e.g. one built as OLD_TREE's was (prebuilt.sh old: the Makefile's
# NVFLAGS, no -lineinfo), where bin/warpex came from prebuilt.sh pack.
# --only may be repeated (--only mec --only vi), which call.sh's sh: stages
# need (their commas become spaces).
# OLD_TREE is a source tree of the old version (e.g. `git archive fe333fa`
# unpacked, with build/gen/ carried when the machine has no flex/bison).
# --build builds both trees with all cores first.  Every measurement runs the
# old and the new binary alternately, N rounds (default 3), fresh processes,
# and reads the stage's own seconds from --json:
#   explore: "seconds"      of  warpex explore FAMILY --backend gpu --json -q
#   scc:     "scc_seconds"  of  warpex scc abp.csr --backend gpu --json
#   mec:     "mec_seconds"  of  warpex mec consensus.tra --backend gpu --json
#   vi:      "seconds"      of  warpex check consensus N=6 K=2 Pmax --backend gpu --json
#   cm:      "solve_seconds" of warpex cycle-mean sprand.dimacs --backend gpu --json
# Inputs are generated on the machine (examples/gen.py --large,
# bench/consensus_gen.c, bench/cm_gpu_gen.c --write) under $WORK (default
# /tmp/parity).  A markdown table (old median, new median, new/old) is printed
# last; logs go to $OUT or bench/out/parity.
set -u
cd "$(dirname "$0")/../.." || exit 2
OLD=$1; shift
LOG=${OUT:-bench/out/parity}; WORK=${WORK:-/tmp/parity}
mkdir -p "$LOG" "$WORK"
build=0; rounds=3; only=",explore,scc,mec,vi,cm,"; only_given=0; new_bin=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=1 ;;
    --new) new_bin=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --only) [ $only_given = 1 ] || only=","; only="$only$2,"; only_given=1; shift ;;
    *) echo "usage: $0 OLD_TREE [--build] [--rounds N] [--only LIST] [--new BIN]"; exit 2 ;;
    esac
    shift
done
export PATH=$PATH:/usr/local/cuda/bin
if [ $build = 1 ]; then
    (make -C "$OLD" -j"$(nproc)" bin/warpex >"$LOG/build_old.log" 2>&1) &
    make -j"$(nproc)" bin/warpex >"$LOG/build_new.log" 2>&1 || { tail -20 "$LOG/build_new.log"; exit 1; }
    wait $! || { tail -20 "$LOG/build_old.log"; exit 1; }
fi
NEW_W=$PWD/bin/warpex; OLD_W=$(cd "$OLD" && pwd)/bin/warpex
[ -n "$new_bin" ] && NEW_W=$(cd "$(dirname "$new_bin")" && pwd)/$(basename "$new_bin")
rows=()

# med FILE: the median of the numbers in FILE, one per line
med() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# key JSON NAME: the number after "NAME": in JSON
key() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }

# measure NAME KEY ARGS...: rounds of old/new alternating
measure() {
    local name=$1 k=$2; shift 2
    local tag=${name//[^A-Za-z0-9._-]/_}
    : >"$LOG/$tag.old"; : >"$LOG/$tag.new"
    for r in $(seq "$rounds"); do
        for v in old new; do
            local w=$OLD_W; [ $v = new ] && w=$NEW_W
            "$w" "$@" >"$LOG/$tag.$v.$r.json" 2>"$LOG/$tag.$v.$r.err"
            local rc=$?
            [ $rc -le 1 ] || { echo "$name ($v): exit $rc"; tail -3 "$LOG/$tag.$v.$r.err"; }
            key "$LOG/$tag.$v.$r.json" "$k" >>"$LOG/$tag.$v"
        done
    done
    local o n; o=$(med "$LOG/$tag.old"); n=$(med "$LOG/$tag.new")
    rows+=("| $name | $k | $(paste -sd' ' "$LOG/$tag.old") | $(paste -sd' ' "$LOG/$tag.new") | $o | $n | $(awk -v o="$o" -v n="$n" 'BEGIN{printf "%.3f", n/o}') |")
}

if [[ $only == *,explore,* || $only == *,scc,* ]]; then
    [ -f "$WORK/large/counts.tsv" ] || python3 examples/gen.py --large "$WORK/large" >"$LOG/gen.log" 2>&1
fi
if [[ $only == *,explore,* ]]; then
    for f in milner/milner_n22 tokenring/tokenring_n21 buffers/buffers_n27_d1 philosophers/philosophers_n12 abp/abp_d4000; do
        measure "explore ${f#*/}" seconds explore "$WORK/large/$f.exp" --backend gpu --json -q
    done
fi
if [[ $only == *,scc,* ]]; then
    [ -f "$WORK/abp.csr" ] || "$NEW_W" explore "$WORK/large/abp/abp_d4000.exp" --backend gpu -q --csr "$WORK/abp.csr" >/dev/null
    measure "scc abp d=4000" scc_seconds scc "$WORK/abp.csr" --backend gpu --json
fi
if [[ $only == *,mec,* || $only == *,vi,* ]]; then
    [ -x "$WORK/consensus_gen" ] || cc -std=c11 -O2 bench/consensus_gen.c -o "$WORK/consensus_gen"
    [ -f "$WORK/c62.tra" ] || "$WORK/consensus_gen" --no-sta 6 2 "$WORK/c62" >"$LOG/consensus_gen.log" 2>&1
fi
[[ $only == *,mec,* ]] && measure "mec consensus N=6 K=2" mec_seconds mec "$WORK/c62.tra" --backend gpu --json
[[ $only == *,vi,* ]] && measure "check consensus N=6 K=2 Pmax" seconds check "$WORK/c62.tra" --lab "$WORK/c62.lab" \
    --prop 'Pmax=? [ F "finished"&!"agree" ]' --backend gpu --json
if [[ $only == *,cm,* ]]; then
    if [ ! -f "$WORK/sprand.dimacs" ]; then
        gen=bin/gpu/cm_gpu_gen # prebuilt.sh pack's; else built here from the library
        if [ ! -x "$gen" ]; then
            gen=$WORK/cm_gpu_gen
            cuda=$(dirname "$(dirname "$(command -v nvcc)")")
            cc -std=c11 -D_GNU_SOURCE -O2 -I. bench/cm_gpu_gen.c -o "$gen" build/libwarpex.a \
                -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" -lcudart_static -ldl -lrt -lstdc++ -lm -pthread
        fi
        "$gen" --n 1000000 --m 10000000 --seed 1 --no-cpu --reps 1 --write "$WORK/sprand.dimacs" >"$LOG/cm_gen.log" 2>&1
    fi
    measure "cycle-mean sprand 1M/10M" solve_seconds cycle-mean "$WORK/sprand.dimacs" --backend gpu --json
fi
echo
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); old: $OLD; rounds: $rounds"
echo "| stage and input | key | old (s) | new (s) | old median | new median | new/old |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
