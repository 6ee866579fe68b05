#!/bin/sh
# bench_cpu.sh -- throughput and parallel efficiency of the CPU explorer.
#
#   bench/bench_cpu.sh MODEL.exp|MODEL.aut ...
#       runs `bin/warpex explore MODEL --backend cpu --threads T --json` for
#       T = 1 and T = all online cores, and prints states/s, transitions/s,
#       bytes/state and the parallel efficiency t(1) / (T * t(T)).
#       Times are the JSON "seconds" (exploration only) when the CLI reports
#       them, else the wall time of the whole command.
#   bench/bench_cpu.sh
#       without files: builds bench/bench_synth (synthetic images made in C,
#       see its header) and runs its standard set.  Extra arguments after
#       `--synth` are passed to one bench_synth run instead, e.g.
#       bench/bench_cpu.sh --synth buffers 12 3 --threads 1,2 --seq
#
# Large models belong here, not in tests/: the standard set needs ~1 GiB.
set -u
cd "$(dirname "$0")/.." || exit 2
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

num() { # num KEY JSON -> the number after "KEY": in JSON, or empty
    printf '%s' "$2" | tr -d '\n' | sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\([0-9.eE+-]*\).*/\1/p"
}

synth() {
    make -s build/libwarpex.a || exit 4
    libs="-lm -pthread"
    if nvcc=$(command -v nvcc) && ls kernels/*.cu >/dev/null 2>&1; then
        cuda=$(dirname "$(dirname "$nvcc")")
        libs="-L$cuda/lib64 -L$cuda/targets/x86_64-linux/lib -lcudart_static -ldl -lrt -lstdc++ $libs"
    fi
    mkdir -p bin
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -I. -pthread bench/bench_synth.c -o bin/bench_synth \
        build/libwarpex.a $libs || exit 4
    if [ $# -gt 0 ]; then
        bin/bench_synth "$@"
        return
    fi
    t="1,$cores"
    [ "$cores" -gt 2 ] && t="1,2,$cores"
    bin/bench_synth cycles 8 8 --threads "$t" --seq       # 16.8 M states, 1 word, local only
    bin/bench_synth buffers 12 3 --threads "$t" --seq     # 16.8 M states, 1 word, synchronising
    bin/bench_synth buffers 11 3 --pad 40 --threads "$t"  # 4.2 M states, 3 words, straddling
}

if [ $# -eq 0 ]; then
    synth
    exit
fi
if [ "$1" = "--synth" ]; then
    shift
    synth "$@"
    exit
fi

[ -x bin/warpex ] || make -s bin/warpex || exit 4
printf '%-36s %7s %12s %13s %9s %12s %12s %9s %6s\n' model threads states transitions seconds \
    'states/s' 'trans/s' 'B/state' eff
for f in "$@"; do
    t1=
    for t in 1 "$cores"; do
        [ "$t" = 1 ] || [ "$cores" -gt 1 ] || continue
        s0=$(date +%s.%N)
        out=$(bin/warpex explore "$f" --backend cpu --threads "$t" --json --quiet)
        rc=$?
        s1=$(date +%s.%N)
        if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
            echo "$f: warpex exited with $rc" >&2
            continue
        fi
        st=$(num states "$out"); tr=$(num transitions "$out")
        sec=$(num seconds "$out"); by=$(num bytes "$out")
        [ -n "$sec" ] || sec=$(echo "$s1 - $s0" | bc -l)
        [ "$t" = 1 ] && t1=$sec
        awk -v f="$f" -v t="$t" -v st="$st" -v tr="$tr" -v sec="$sec" -v by="$by" -v t1="$t1" 'BEGIN {
            if (sec <= 0) sec = 1e-9
            bps = by == "" ? "-" : sprintf("%.1f", by / st)
            eff = t1 == "" ? "-" : sprintf("%.2f", t1 / (t * sec))
            printf "%-36s %7d %12d %13d %9.3f %12.0f %12.0f %9s %6s\n", f, t, st, tr, sec, st / sec, tr / sec, bps, eff
        }'
    done
done
