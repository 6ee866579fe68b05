#!/bin/sh
# Benchmark of the .aut reader: generates a >= 300 MB file in /tmp (once; kept
# for reruns), builds the timing driver against build/libwarpex.a and prints
# MB/s of aut_read (whole read: scan, intern, lts_add, lts_finish).
# usage: bench/aut_read.sh [MEGABYTES]   (default 320)
set -e
cd "$(dirname "$0")/.."
mb=${1:-320}
make -s build/libwarpex.a
mkdir -p bin/bench
CC=${CC:-cc}
$CC -std=c11 -D_GNU_SOURCE -O2 -I. -o bin/bench/aut_gen bench/aut_gen.c
$CC -std=c11 -D_GNU_SOURCE -O2 -I. -o bin/bench/aut_bench bench/aut_bench.c build/libwarpex.a -lm -pthread
f=/tmp/warpex_bench_${mb}M.aut
[ -f "$f" ] || bin/bench/aut_gen "$f" "$mb" 1
ls -l "$f"
taskset -c 0 bin/bench/aut_bench "$f" 3 2>/dev/null || bin/bench/aut_bench "$f" 3
