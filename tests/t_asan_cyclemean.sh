#!/bin/sh
# t_asan_cyclemean.sh -- the cycle-mean cores and the weighted graph reader
# under AddressSanitizer (leaks included) and UBSan: builds
# tests/test_cyclemean.c and tests/test_cyclemean_read.c from the sources
# (not libwarpex.a) with the sanitizers and runs them; one PASS/FAIL line
# each, FAIL on any sanitizer report, crash or failed check.  The random
# graphs and every malformed file of tests/bad/cm thus run sanitized.
cd "$(dirname "$0")/.." || exit 2
CC=${CC:-cc}
out=tests/out/asan_cm
mkdir -p "$out"
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
src="util/*.c parser/aut_read.c parser/aut_write.c network/lts.c graph/*.c analysis/scc.c analysis/cyclemean.c"
for t in test_cyclemean test_cyclemean_read; do
    # shellcheck disable=SC2086
    if ! $CC -std=c11 -D_GNU_SOURCE -g -O1 -I. -pthread $SAN tests/$t.c $src -o "$out/$t" -lm \
            > "$out/$t.build.log" 2>&1; then
        echo "FAIL asan-cm: $t does not build with sanitizers: $(head -c 300 "$out/$t.build.log")"
        continue
    fi
    "$out/$t" > "$out/$t.log" 2>&1; rc=$?
    p=$(grep -c '^PASS ' "$out/$t.log"); f=$(grep -c '^FAIL ' "$out/$t.log")
    if [ $rc -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -gt 0 ] && ! grep -q 'Sanitizer\|runtime error' "$out/$t.log"; then
        echo "PASS asan-cm: $t clean under ASan + UBSan ($p checks)"
    else
        echo "FAIL asan-cm: $t exit $rc, $f failed checks: $(grep -m3 'FAIL\|ERROR\|runtime error' "$out/$t.log" | head -c 400)"
    fi
done
