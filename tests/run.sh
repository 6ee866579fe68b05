#!/bin/sh
# Runs every CPU test: the C test programs in bin/tests and the shell tests
# tests/t_*.sh.  Each prints "PASS ..."/"FAIL ..." lines; this script counts
# them and ends with the line "N passed, N failed".  Exit status 1 on any
# failure, including a test program that crashed or printed nothing.
cd "$(dirname "$0")/.." || exit 2
mkdir -p tests/out
pass=0; fail=0
log=tests/out/last.log; : > "$log"
run_one() {
    name=$1; shift
    out=tests/out/$name.out
    "$@" > "$out" 2>&1
    rc=$?
    p=$(grep -c '^PASS ' "$out"); f=$(grep -c '^FAIL ' "$out")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited with status $rc without a FAIL line" >> "$out"; f=1
    fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: ran no check" >> "$out"; f=1
    fi
    grep '^FAIL ' "$out"
    printf '%-32s %6d passed %4d failed\n' "$name" "$p" "$f"
    pass=$((pass + p)); fail=$((fail + f))
}
for t in bin/tests/test_*; do
    [ -x "$t" ] || continue
    run_one "$(basename "$t")" "$t"
done
for t in tests/t_*.sh; do
    [ -f "$t" ] || continue
    run_one "$(basename "$t" .sh)" sh "$t"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
