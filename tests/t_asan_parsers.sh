#!/bin/sh
# Runs the input readers under AddressSanitizer (leaks included) and UBSan:
#  - builds tests/asan/parse_driver.c with util/*.c, the EXP parser (bison and
#    flex output regenerated into tests/out/asan/gen) and, when parser/aut_read.c
#    exists, the AUT reader with network/lts.c;
#  - runs the driver on every file of tests/{bad,good}/{aut,exp} (manifests
#    named EXPECT* or README* excepted): one PASS/FAIL line per file.  FAIL on
#    any sanitizer report, crash, broken error contract, or output printed by
#    the reader itself; for EXP files also when a good file is rejected or a
#    bad one accepted;
#  - builds tests/test_exp_parse.c (constructs, bad files, round trips, fuzz)
#    with the same sanitizers and runs it: one PASS/FAIL line.
# Needs cc with libasan/libubsan (gcc's packages), and bison and flex or the
# parser sources make generated in build/gen.
cd "$(dirname "$0")/.." || exit 2
CC=${CC:-cc}
out=tests/out/asan
mkdir -p "$out/gen"
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
CFL="-std=c11 -D_GNU_SOURCE -g -O1 -I. -I$out/gen -pthread"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
fail() { echo "FAIL $*"; failed=1; }

# The sanitizer runtime must be installed: say so plainly when it is not.
printf 'int main(void){return 0;}\n' > "$out/probe.c"
if ! $CC $SAN "$out/probe.c" -o "$out/probe" 2> "$out/probe.log" || ! "$out/probe"; then
    fail "asan: $CC cannot build or run with -fsanitize=address,undefined (install libasan/libubsan): $(head -c 300 "$out/probe.log")"
    exit 1
fi

# Parser sources: generated here; on a machine without bison/flex (the GPU
# machine has none) the ones make generated are used when newer than the
# grammar files.
: > "$out/build.log"
if command -v bison >/dev/null && command -v flex >/dev/null; then
    if ! bison -Wall -Werror --defines="$out/gen/exp_parse.h" -o "$out/gen/exp_parse.c" parser/exp.y \
            >> "$out/build.log" 2>&1 ||
       ! flex --header-file="$out/gen/exp_lex.h" -o "$out/gen/exp_lex.c" parser/exp.l >> "$out/build.log" 2>&1; then
        fail "asan: bison/flex failed: $(head -c 300 "$out/build.log")"
        exit 1
    fi
else
    for g in exp_parse.c exp_parse.h exp_lex.c exp_lex.h; do
        if [ ! -f "build/gen/$g" ] || [ parser/exp.y -nt "build/gen/$g" ] || [ parser/exp.l -nt "build/gen/$g" ]; then
            fail "asan: no bison/flex here and build/gen/$g is missing or older than parser/exp.[ly]"
            exit 1
        fi
        cp "build/gen/$g" "$out/gen/$g"
    done
fi

src="util/*.c parser/exp_ast.c parser/exp_sugar.c parser/exp_using.c parser/exp_build.c parser/exp_prio.c $out/gen/exp_parse.c $out/gen/exp_lex.c parser/aut_read.c parser/aut_write.c network/lts.c"
def="-DWX_HAVE_AUT=1"
# shellcheck disable=SC2086
if ! $CC $CFL $SAN $def tests/asan/parse_driver.c $src -o "$out/parse_driver" -lm >> "$out/build.log" 2>&1; then
    fail "asan: building parse_driver failed: $(tail -c 600 "$out/build.log")"
    exit 1
fi

for dir in tests/bad/exp tests/good/exp tests/bad/aut tests/good/aut; do
    [ -d "$dir" ] || continue
    kind=${dir##*/}
    case $dir in tests/bad/*) want=11 ;; *) want=10 ;; esac
    for f in "$dir"/*; do
        [ -f "$f" ] || continue
        case ${f##*/} in EXPECT*|README*) continue ;; esac
        log="$out/run.log"
        "$out/parse_driver" "$kind" "$f" > "$log" 2>&1
        rc=$?
        what=$(head -n 1 "$log" | cut -c1-160)
        if grep -q 'Sanitizer\|runtime error' "$log"; then
            fail "asan $f: sanitizer report (exit $rc):"; sed 's/^/    /' "$log" | head -40
        elif [ "$(wc -l < "$log")" -ne 1 ]; then
            fail "asan $f: the reader printed something itself:"; sed 's/^/    /' "$log" | head -10
        elif [ "$rc" -ne 10 ] && [ "$rc" -ne 11 ]; then
            fail "asan $f: exit status $rc: $what"
        elif [ "$kind" = exp ] && [ "$rc" -ne "$want" ]; then
            fail "asan $f: expected $( [ "$want" = 10 ] && echo parsed || echo rejected ), got: $what"
        else
            echo "PASS asan $f: $what"
        fi
    done
done

# Allocation-failure injection over every EXP file: each malloc/calloc/
# realloc of the parser failed in turn must give a clean error, no tree and
# no leak.  The parser is compiled again with its allocator renamed.
if [ -d tests/bad/exp ] || [ -d tests/good/exp ]; then
    oomdef="-Dmalloc=wx_oom_malloc -Dcalloc=wx_oom_calloc -Drealloc=wx_oom_realloc"
    objs=""
    ok=1
    for s in parser/exp_ast.c parser/exp_sugar.c parser/exp_using.c parser/exp_build.c parser/exp_prio.c "$out/gen/exp_parse.c" "$out/gen/exp_lex.c"; do
        o="$out/oom_$(basename "$s" .c).o"
        # shellcheck disable=SC2086
        $CC $CFL $SAN $oomdef -c "$s" -o "$o" >> "$out/build.log" 2>&1 || ok=0
        objs="$objs $o"
    done
    # shellcheck disable=SC2086
    if [ $ok = 1 ] && $CC $CFL $SAN -DWX_OOM_HARNESS tests/asan/parse_driver.c util/error.c util/input.c $objs \
            -o "$out/parse_driver_oom" -lm >> "$out/build.log" 2>&1; then
        files=$(ls tests/bad/exp/* tests/good/exp/* 2>/dev/null | grep -v '/EXPECT\|/README')
        # shellcheck disable=SC2086
        "$out/parse_driver_oom" oom $files > "$out/oom.log" 2>&1
        rc=$?
        n=$(grep -c 'each failure reported' "$out/oom.log")
        if [ "$rc" -ne 10 ] || grep -q 'Sanitizer\|runtime error\|contract broken' "$out/oom.log"; then
            fail "asan oom: exit $rc (log $out/oom.log):"
            grep 'contract broken\|ERROR\|SUMMARY\|runtime error' "$out/oom.log" | head -10 | sed 's/^/    /'
        else
            sum=$(sed -n 's/.*: \([0-9]*\) allocations.*/\1/p' "$out/oom.log" | awk '{s+=$1} END {print s+0}')
            echo "PASS asan oom: $sum injected allocation failures over $n EXP files, all reported, no leak"
        fi
    else
        fail "asan oom: build failed: $(tail -c 600 "$out/build.log")"
    fi
fi

# The whole EXP test program (its fuzz included) under the sanitizers.
# shellcheck disable=SC2086
if ! $CC $CFL $SAN tests/test_exp_parse.c util/error.c util/input.c parser/exp_ast.c \
        parser/exp_sugar.c parser/exp_using.c parser/exp_build.c parser/exp_prio.c "$out/gen/exp_parse.c" \
        "$out/gen/exp_lex.c" -o "$out/test_exp_parse" -lm >> "$out/build.log" 2>&1; then
    fail "asan: building test_exp_parse failed: $(tail -c 600 "$out/build.log")"
else
    "$out/test_exp_parse" 20240611 20000 > "$out/test_exp_parse.log" 2>&1
    rc=$?
    p=$(grep -c '^PASS' "$out/test_exp_parse.log"); f=$(grep -c '^FAIL' "$out/test_exp_parse.log")
    if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ] || grep -q 'Sanitizer\|runtime error' "$out/test_exp_parse.log"; then
        fail "asan test_exp_parse: exit $rc, $p passed, $f failed (log $out/test_exp_parse.log):"
        grep '^FAIL\|Sanitizer\|runtime error' "$out/test_exp_parse.log" | head -20 | sed 's/^/    /'
    else
        echo "PASS asan test_exp_parse: $p checks passed under ASan/UBSan (fuzz seed 20240611)"
    fi
fi
exit $failed
