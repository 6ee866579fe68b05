#!/bin/sh
# bench_cpu.sh -- throughput and parallel efficiency of the CPU explorer.
#
#   bench/bench_cpu.sh MODEL.exp|MODEL.aut ...
#       runs `bin/warpex explore MODEL --backend cpu --threads T --json` for
#       T = 1 and T = all online cores, and prints states/s, transitions/s,
#       bytes/state and the parallel efficiency t(1) / (T * t(T)).
#       Times are the JSON "seconds" (exploration only) when the CLI reports
#       them, else the wall time of the whole command.
#   bench/bench_cpu.sh --ab OLD_BIN NEW_BIN [--reps N] [--threads "1 16"] MODEL ...
#       A/B comparison of two warpex binaries (e.g. one built from main beside
#       the working tree's bin/warpex), interleaved run by run, the order
#       alternating between rounds: prints a markdown table of min / median
#       exploration seconds, M states/s and the speed-up, and stops with exit 1
#       when the two disagree on states, transitions or deadlocks.  Threads
#       default to "1 <all cores>", reps to 3.
#   WARPEX=BIN bench/bench_cpu.sh MODEL ...: the one-binary table with BIN.
#   bench/bench_cpu.sh --variant NAME -DKNOB[=V] ...
#       builds bin/warpex_NAME: bin/warpex with explorer/explore_cpu.c and
#       hash/vtable.c recompiled with the given -D flags (their build-time
#       knobs: REHASH_BY_SLOTS, LOOKUP_LAG, VECTOR_LAG, ID_BLOCK,
#       PREFETCH_RW, GROW_LOAD_NUM/DEN, GROW_PRIVATE; EXPLORE_CPU_STATS prints per-worker
#       quiet/re-insert seconds and TSC cycles per phase to
#       stderr, x86 only), for an --ab run against bin/warpex, e.g. on the
#       device host where no profiler exists.
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
    # MPI, when the build found it (Makefile: build/mpi-config, line 2)
    [ -f build/mpi-config ] && libs="$(sed -n 2p build/mpi-config) $libs"
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
    bin/bench_synth buffers 11 3 --pad 30 --threads "$t"  # 4.2 M states, 2 words, straddling fields
}

# ab OLD NEW REPS THREADS MODEL...: see the header.
ab() {
    old=$1 new=$2 reps=$3 threads=$4
    shift 4
    for b in "$old" "$new"; do
        [ -x "$b" ] || { echo "bench_cpu.sh: $b is not executable" >&2; exit 2; }
    done
    tmp=$(mktemp) || exit 4
    bad=0
    for f in "$@"; do
        for t in $threads; do
            r=0
            while [ "$r" -lt "$reps" ]; do
                if [ $((r % 2)) -eq 0 ]; then order="old new"; else order="new old"; fi
                for which in $order; do
                    if [ "$which" = old ]; then b=$old; else b=$new; fi
                    out=$("$b" explore "$f" --backend cpu --threads "$t" --json --quiet)
                    rc=$?
                    if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
                        echo "$f: $b exited with $rc" >&2
                        bad=1
                        continue
                    fi
                    echo "$f $t $which $(num states "$out") $(num transitions "$out") $(num deadlocks "$out") $(num seconds "$out")" >> "$tmp"
                done
                r=$((r + 1))
            done
        done
    done
    echo "| model | threads | states | old s (min / median) | new s (min / median) | old M states/s | new M states/s | speed-up |"
    echo "|---|---|---|---|---|---|---|---|"
    sort -k1,1 -k2,2n -k3,3 -k7,7g "$tmp" | awk '
        function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        function flush() {
            if (key == "") return
            mo = med(so, no); mn = med(sn, nn)
            printf "| %s | %d | %d | %.3f / %.3f | %.3f / %.3f | %.2f | %.2f | %.2fx |\n", m, th, st, so[1], mo, sn[1], mn,
                   st / mo / 1e6, st / mn / 1e6, mo / mn
        }
        {
            k = $1 " " $2
            if (k != key) { flush(); key = k; m = $1; th = $2; no = nn = 0; st = $4; tr = $5; dl = $6 }
            if ($4 != st || $5 != tr || $6 != dl) { print "bench_cpu.sh: " $1 " threads " $2 ": counts differ (" $4 "/" $5 "/" $6 " vs " st "/" tr "/" dl ")" > "/dev/stderr"; bad = 1 }
            if ($3 == "old") so[++no] = $7; else sn[++nn] = $7
        }
        END { flush(); exit bad }' || bad=1
    rm -f "$tmp"
    [ "$bad" -eq 0 ] || { echo "bench_cpu.sh: the binaries disagree or failed (see above)" >&2; exit 1; }
}

if [ $# -eq 0 ]; then
    synth
    exit
fi
if [ "$1" = "--ab" ]; then
    [ $# -ge 4 ] || { echo "usage: bench_cpu.sh --ab OLD_BIN NEW_BIN [--reps N] [--threads LIST] MODEL ..." >&2; exit 2; }
    old=$2 new=$3 reps=3 threads="1 $cores"
    shift 3
    while [ $# -gt 0 ]; do
        case $1 in
            --reps) reps=$2; shift 2 ;;
            --threads) threads=$2; shift 2 ;;
            *) break ;;
        esac
    done
    ab "$old" "$new" "$reps" "$threads" "$@"
    exit
fi
if [ "$1" = "--variant" ]; then
    [ $# -ge 2 ] || { echo "usage: bench_cpu.sh --variant NAME -DKNOB[=V] ..." >&2; exit 2; }
    name=$2
    shift 2
    make -s bin/warpex || exit 4
    dir=build/variant_$name
    mkdir -p "$dir" || exit 4
    flags="-std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -pthread -I. -Ibuild/gen"
    # shellcheck disable=SC2086
    ${CC:-cc} $flags "$@" -c explorer/explore_cpu.c -o "$dir/explore_cpu.o" || exit 4
    # shellcheck disable=SC2086
    ${CC:-cc} $flags "$@" -c hash/vtable.c -o "$dir/vtable.o" || exit 4
    # The objects come first, so the archive's own copies are not linked.
    libs="-lm -pthread"
    if nvcc=$(command -v nvcc) && ls kernels/*.cu >/dev/null 2>&1; then
        cuda=$(dirname "$(dirname "$nvcc")")
        libs="-L$cuda/lib64 -L$cuda/targets/x86_64-linux/lib -lcudart_static -ldl -lrt -lstdc++ $libs"
    fi
    # MPI, when the build found it (Makefile: build/mpi-config, line 2)
    [ -f build/mpi-config ] && libs="$(sed -n 2p build/mpi-config) $libs"
    # shellcheck disable=SC2086
    ${CC:-cc} -O2 -o "bin/warpex_$name" build/obj/cli/*.o "$dir/explore_cpu.o" "$dir/vtable.o" build/libwarpex.a \
        $libs || exit 4
    echo "bin/warpex_$name"
    exit
fi
if [ "$1" = "--synth" ]; then
    shift
    synth "$@"
    exit
fi

warpex=${WARPEX:-bin/warpex}
[ -n "${WARPEX:-}" ] || [ -x bin/warpex ] || make -s bin/warpex || exit 4
printf '%-44s %7s %12s %13s %9s %12s %12s %9s %6s\n' model threads states transitions seconds \
    'states/s' 'trans/s' 'B/state' eff
for f in "$@"; do
    t1=
    for t in 1 "$cores"; do
        [ "$t" = 1 ] || [ "$cores" -gt 1 ] || continue
        s0=$(date +%s.%N)
        out=$("$warpex" explore "$f" --backend cpu --threads "$t" --json --quiet)
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
            printf "%-44s %7d %12d %13d %9.3f %12.0f %12.0f %9s %6s\n", f, t, st, tr, sec, st / sec, tr / sec, bps, eff
        }'
    done
done
