#!/bin/sh
# Smoke run of the fuzz targets tests/fuzz/fuzz_*.c without libFuzzer: each
# bin/fuzz-smoke/fuzz_NAME (built by make test with $(CC) and
# tests/fuzz/driver.c, under ASan/UBSan when the compiler has them) reads
# every file of tests/fuzz/corpus/NAME and FUZZ_SMOKE_RUNS (default 2000)
# deterministic mutations of them drawn from FUZZ_SMOKE_SEED (default 1),
# with tests/fuzz/NAME.dict as its dictionary.  One PASS/FAIL line per
# target; a FAIL names the input (origin, seed, escaped bytes; also saved in
# tests/out/fuzz/NAME.crash) and is followed by the end of the sanitizer's
# report (the whole of it in tests/out/fuzz/NAME.log).
cd "$(dirname "$0")/.." || exit 2
runs=${FUZZ_SMOKE_RUNS:-2000}
seed=${FUZZ_SMOKE_SEED:-1}
out=$PWD/tests/out/fuzz
# WX_FUZZ_LAX=1: skip the checks of known defect classes (tests/fuzz/README.md)
if [ -n "${WX_FUZZ_LAX:-}" ] && [ "$WX_FUZZ_LAX" != 0 ]; then
    ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export ASAN_OPTIONS
fi
mkdir -p "$out"
status=0
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    r=${name#fuzz_}
    bin=bin/fuzz-smoke/$name
    if [ ! -x "$bin" ]; then
        echo "FAIL $name: $bin is not built (make test builds it)"
        status=1
        continue
    fi
    if [ ! -d "tests/fuzz/corpus/$r" ]; then
        echo "FAIL $name: no seed corpus tests/fuzz/corpus/$r"
        status=1
        continue
    fi
    dict=
    [ -f "tests/fuzz/$r.dict" ] && dict="-d tests/fuzz/$r.dict"
    rm -f "$out/$r.crash"
    # shellcheck disable=SC2086
    "$bin" -n "$runs" -s "$seed" -t 10 -o "$out/$r.crash" $dict "tests/fuzz/corpus/$r" \
        > "$out/$r.out" 2> "$out/$r.log"
    rc=$?
    cat "$out/$r.out"
    if [ "$rc" -ne 0 ]; then
        status=1
        grep -q '^FAIL' "$out/$r.out" || echo "FAIL $name: exit status $rc without a report"
        grep -a -m1 -A12 'ERROR:\|runtime error\|invariant broken' "$out/$r.log" | sed 's/^/    /'
    fi
done
exit $status
