#!/bin/sh
# Benchmark of the .aut reader.  Generates a >= 300 MB file in /tmp (kept for
# reruns), builds the timing driver bench/aut_bench.c and prints MB/s
# (MB = 10^6 bytes) of aut_read on one core, two ways:
#   1. the library as it is (scan + intern + lts_add + lts_finish);
#   2. scanner and label interning only (lts builder stubbed out,
#      bench/aut_lts_stub.c);
# and the writer's speed (aut_write of the LTS just read).  Appends a summary
# to bench/RESULTS.md.
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
f=/tmp/warpex_bench_${mb}M.aut
[ -f "$f" ] || $d/aut_gen "$f" "$mb" 1
ls -l "$f"
# Single-threaded code, so "one core"; not pinned: on a shared machine a
# pinned core may be the busy one.
log=$(mktemp)
echo "== 1. aut_read (library as is)" | tee -a "$log"
$d/aut_bench "$f" 3 | tee -a "$log"
echo "== 2. scanner + interning only (lts builder stubbed: no dedup, so 0 duplicates)" | tee -a "$log"
$d/aut_bench_scan "$f" 3 | grep -v memchr | tee -a "$log"
# As the Makefile's bench target promises: a summary in bench/RESULTS.md.
best() { grep 'aut_read best' "$log" | sed -n "${1}p" | sed 's/aut_read best: //'; }
wr=$(grep '^aut_write' "$log" | head -1 | sed 's/.*MB: //')
{
  echo ""
  echo "### aut_read.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), one core"
  echo "file: $(basename "$f") ($(wc -c < "$f") bytes, $(sed -n 's/.*, \([0-9]*\) transitions.*/\1/p' "$log" | head -1) transitions);" \
       "best of 3, MB = 10^6 bytes"
  echo "- aut_read, library as is: $(best 1)"
  echo "- scanner + interning only: $(best 2)"
  echo "- aut_write (same LTS, to /tmp): $wr"
} >> bench/RESULTS.md
rm -f "$log"
