#!/bin/bash
# bench/peers/gpuexplore.sh -- GPUexplore 2.0 (Wijs, Neele, Bošnački:
# github.com/ajwijs/GPUexplore, branches master, cample-por and
# stubborn-por: the partial-order reductions of Neele et al., ATVA 2016)
# beside warpex on the same networks, in one device call: reachable states
# and seconds, full and with --por (issue "partial-order reduction", item 5).
#
#   bench/peers/gpuexplore.sh build GITDIR    here: GITDIR is the git
#       directory that the `fetch` tool returned for github:ajwijs/GPUexplore;
#       builds the three branches for sm_90 into .peers/gpuexplore/
#       (git-ignored; name ".peers" in the device call's carry).
#   bench/peers/gpuexplore.sh run [MODEL.exp ...]   on the device: each
#       model converted with `warpex convert --to gpf` (models beyond the
#       format's limits are skipped with the reason), then GPUexplore
#       master (full), cample-por --por and stubborn-por --por, warpex
#       --backend gpu full and --por; a markdown table of states and
#       seconds.  Default models: the committed examples with a
#       reduction (bench/bench_por.sh's list) and mutex n=4.
#
# The port to CUDA 13 is mechanical and happens only in .peers/: texture
# references (removed in CUDA 12) become device pointers read with __ldg,
# and the warp votes and shuffles without _sync take the full mask.  No
# GPUexplore code enters this repository.  GPUexplore prints states as a
# 32-bit count ("nr. of states in hash table") and times its exploration
# ("Exploration time"); warpex's seconds are --json "seconds" (exploration
# only, as GPUexplore's).  Both explore without a property: --por then
# keeps deadlocks (GPUexplore's ample sets, warpex's stubborn sets).
set -u
cd "$(dirname "$0")/../.." || exit 2
P=.peers/gpuexplore
case ${1:-} in
build)
    git_dir=${2:?usage: $0 build GITDIR}
    mkdir -p "$P"
    for b in master cample-por stubborn-por; do
        git --git-dir="$git_dir" show "$b:GPUexplore/src/GPUexplore.cu" >"$P/$b.orig.cu" || exit 1
        sed -E -e 's/__ballot\(/__ballot_sync(0xffffffffu, /g' -e 's/__any\(/__any_sync(0xffffffffu, /g' \
            -e 's/__shfl\(/__shfl_sync(0xffffffffu, /g' \
            -e 's/^texture<inttype, 1, cudaReadModeElementType> (tex_[a-z_]+);/__device__ const inttype *\1;/' \
            -e 's/tex1Dfetch\((tex_[a-z_]+), /__ldg(\1 + /g' \
            -e 's/cudaBindTexture\(NULL, (tex_[a-z_]+), ([a-z_]+), [^;]*\);/cudaMemcpyToSymbol(\1, \&\2, sizeof(\2));/' \
            "$P/$b.orig.cu" >"$P/$b.cu"
        nvcc -O3 -arch=sm_90 -w -o "$P/$b" "$P/$b.cu" || { echo "gpuexplore: $b does not build"; exit 1; }
        rm -f "$P/$b.orig.cu"
        echo "built $P/$b ($(git --git-dir="$git_dir" rev-parse --short "$b"))"
    done ;;
run)
    shift
    [ -x "$P/master" ] || { echo "gpuexplore: $P is not built (run 'build' here, carry .peers)"; exit 2; }
    W=bin/warpex
    T=${WORK:-/tmp/gpuexplore}
    mkdir -p "$T"
    if [ $# -eq 0 ]; then
        set -- examples/abp/abp_d16.exp examples/buffers/buffers_n16_d1.exp examples/leader/leader_87654321.exp \
            examples/milner/milner_n12.exp examples/philosophers/philosophers_n7.exp \
            examples/tokenring/tokenring_n12.exp "$T/mutex/mutex_n4.exp"
        [ -f "$T/mutex/mutex_n4.exp" ] || (mkdir -p "$T/mutex" && cd examples && python3 -c "
import families, os, sys
for name, text in families.Mutex().files({'n': 4}).items():
    open(os.path.join(sys.argv[1], name), 'w').write(text)
" "$T/mutex") || exit 2
    fi
    num() { sed -n "s/.*\"$1\": *\([0-9.e+-]*\).*/\1/p" "$2" | head -1; }
    gx() { # gx BRANCH MODEL_BASE [--por]: "states seconds" or "- -"
        local out; out=$("$P/$1" "$2" -q $((1 << 28)) "${@:3}" 2>&1)
        local s t
        s=$(sed -n 's/^nr. of states in hash table: \([0-9]*\).*/\1/p' <<<"$out")
        t=$(sed -n 's/^Exploration time \([0-9.]*\).*/\1/p' <<<"$out")
        echo "${s:--} ${t:--}"
    }
    echo "| model | GPUexplore full | cample-por --por | stubborn-por --por | warpex full | warpex --por | states: GPUexplore best --por / warpex --por |"
    echo "|---|---|---|---|---|---|---:|"
    for m in "$@"; do
        n=$(basename "$m" .exp)
        if ! "$W" convert "$m" --to gpf "$T/$n.gpf" -q 2>"$T/$n.conv.err"; then
            echo "| $n | skipped: $(head -1 "$T/$n.conv.err") | | | | | |"
            continue
        fi
        read -r fs ft < <(gx master "$T/$n")
        read -r cs ct < <(gx cample-por "$T/$n" --por)
        read -r ss st < <(gx stubborn-por "$T/$n" --por)
        "$W" explore "$m" --backend gpu -q --json >"$T/$n.full.json" 2>/dev/null
        "$W" explore "$m" --backend gpu --por -q --json >"$T/$n.por.json" 2>/dev/null
        ws=$(num states "$T/$n.full.json") wt=$(num seconds "$T/$n.full.json")
        ps=$(num states "$T/$n.por.json") pt=$(num seconds "$T/$n.por.json")
        best=$(printf '%s\n%s\n' "$cs" "$ss" | grep -E '^[0-9]+$' | sort -n | head -1)
        ratio=$(awk -v b="${best:-0}" -v p="${ps:-0}" 'BEGIN { if (b > 0 && p > 0) printf "%.2f", b / p; else print "-" }')
        echo "| $n | $fs in $ft s | $cs in $ct s | $ss in $st s | ${ws:--} in ${wt:--} s | ${ps:--} in ${pt:--} s | $ratio |"
    done ;;
*) echo "usage: $0 build GITDIR | run [MODEL.exp ...]" >&2; exit 2 ;;
esac
