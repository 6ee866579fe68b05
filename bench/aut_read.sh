#!/bin/sh
# Benchmark of the .aut reader.  Generates a >= 300 MB file in /tmp (kept for
# reruns), builds the timing driver bench/aut_bench.c and prints MB/s
# (MB = 10^6 bytes) of aut_read on one core, three ways:
#   1. the library as it is (scan + intern + lts_add + lts_finish);
#   2. scanner and label interning only (lts builder stubbed out,
#      bench/aut_lts_stub.c);
#   3. with the linear-time lts_finish proposed in bench/aut_lts_bucket.c.
# usage: bench/aut_read.sh [MEGABYTES]   (default 320)
set -e
cd "$(dirname "$0")/.."
mb=${1:-320}
make -s build/libwarpex.a
d=bin/bench
mkdir -p $d
CC=${CC:-cc}
C="$CC -std=c11 -D_GNU_SOURCE -O2 -I."
$C -o $d/aut_gen bench/aut_gen.c
$C -o $d/aut_bench bench/aut_bench.c build/libwarpex.a -lm -pthread
$C -o $d/aut_bench_scan bench/aut_bench.c bench/aut_lts_stub.c build/obj/parser/aut.o \
   build/obj/util/strtab.o build/obj/util/error.o
objcopy --weaken-symbol=lts_finish build/obj/network/lts.o $d/lts_weak.o
$C -o $d/aut_bench_bucket bench/aut_bench.c bench/aut_lts_bucket.c $d/lts_weak.o \
   build/obj/parser/aut.o build/obj/util/strtab.o build/obj/util/error.o
f=/tmp/warpex_bench_${mb}M.aut
[ -f "$f" ] || $d/aut_gen "$f" "$mb" 1
ls -l "$f"
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
echo "== 1. aut_read (library as is)"
$pin $d/aut_bench "$f" 3
echo "== 2. scanner + interning only (lts builder stubbed: no dedup, so 0 duplicates)"
$pin $d/aut_bench_scan "$f" 3 | grep -v memchr
echo "== 3. aut_read with the proposed linear-time lts_finish"
$pin $d/aut_bench_bucket "$f" 3 | grep -v memchr
