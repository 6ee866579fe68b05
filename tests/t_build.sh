#!/bin/sh
# t_build.sh -- the build's manners (Makefile), in a scratch build directory
# (B=...) so that the tree's own build is not touched:
#   * one job per core unless -j is given;
#   * one short line per step, the full commands with V=1, nothing with -s;
#   * an object is compiled once, and again when CC/CFLAGS/WARN change;
#   * WARN can be overridden (e.g. without -Werror);
#   * a CPU-only link (NVCC=) says once that the binary has no GPU support;
#   * the C sources pass clang's -Wall -Wextra -Werror (when clang is here).
cd "$(dirname "$0")/.." || exit 2
TAG=build
. tests/lib.sh
# this test may run under `make test`: the make it starts is a top-level one
unset MAKEFLAGS MFLAGS MAKELEVEL
mk() { make --no-print-directory B="$T/b" NVCC= "$@"; }
OBJ=$T/b/obj/util/strtab.o
steps() { grep -v "is up to date\|Nothing to be done" "$T/out"; }

mk -pq nothing > "$T/db" 2>/dev/null
grep -q "^MAKEFLAGS = .*-j$(nproc)\b" "$T/db" && pass "parallel by default: -j$(nproc)" \
    || fail "MAKEFLAGS without -j$(nproc): $(grep '^MAKEFLAGS' "$T/db")"
make --no-print-directory B="$T/b" NVCC= -j1 -pq nothing > "$T/db" 2>/dev/null
grep -q "^MAKEFLAGS = .*-j1\b" "$T/db" && pass "-j1 on the command line wins" \
    || fail "-j1 on the command line was overridden: $(grep '^MAKEFLAGS' "$T/db")"

mk "$OBJ" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -s "$OBJ" ] && pass "an object builds in a scratch directory" || fail "make $OBJ: exit $rc, $(cat "$T/out")"
if [ -z "$(steps | grep -v '^  [A-Z][A-Z]* *[^ ]*$')" ] && steps | grep -q "^  CC  *$OBJ$"; then
    pass "one short line per step: $(steps | tr '\n' ';')"
else
    fail "step lines: $(cat "$T/out")"
fi
mk "$OBJ" > "$T/out" 2>&1
[ -z "$(steps)" ] && pass "nothing is compiled twice" || fail "second make: $(cat "$T/out")"
mk "$OBJ" CFLAGS=-O1 > "$T/out" 2>&1
steps | grep -q "^  CC  *$OBJ$" && pass "another CFLAGS compiles the object again" || fail "CFLAGS=-O1: $(cat "$T/out")"
mk "$OBJ" CFLAGS=-O1 V=1 -W util/strtab.c > "$T/out" 2>&1
grep -q "^[^ ]*cc .*-Werror.* -c util/strtab.c -o $OBJ" "$T/out" && pass "V=1 prints the compiler command" \
    || fail "V=1: $(cat "$T/out")"
mk "$OBJ" CFLAGS=-O1 -s -W util/strtab.c > "$T/out" 2>&1
[ ! -s "$T/out" ] && pass "-s prints nothing" || fail "-s: $(cat "$T/out")"
mk "$OBJ" WARN=-Wall V=1 > "$T/out" 2>&1
grep -q -- "-Wall .*-c util/strtab.c" "$T/out" && ! grep -q -- "-Werror" "$T/out" \
    && pass "WARN=-Wall replaces the warning flags" || fail "WARN=-Wall: $(cat "$T/out")"

make --no-print-directory -n B="$T/b" NVCC= bin/warpex > "$T/out" 2>&1
[ "$(grep -c "bin/warpex has no GPU support (built with NVCC=)" "$T/out")" -eq 1 ] \
    && pass "a CPU-only link says it has no GPU support, once" || fail "NVCC= link: $(grep -i gpu "$T/out")"
make --no-print-directory -n B="$T/b" NVCC=/bin/true bin/warpex > "$T/out" 2>&1
grep -q "no GPU support" "$T/out" && fail "a CUDA link claims no GPU support" \
    || pass "a CUDA link does not say it has no GPU support"

if command -v clang > /dev/null 2>&1 && [ -f build/gen/exp_parse.h ]; then
    ls util/*.c parser/*.c network/*.c explorer/*.c hash/*.c graph/*.c analysis/*.c cli/*.c kernels/nogpu*.c \
        tests/*.c | xargs -P "$(nproc)" -n 8 nice clang -fsyntax-only -std=c11 -D_GNU_SOURCE -Wall -Wextra \
        -Werror -Wno-unused-parameter -pthread -I. -Ibuild/gen > "$T/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && pass "clang -Wall -Wextra -Werror accepts every C source" \
        || fail "clang: $(grep -m3 'error' "$T/out")"
else
    pass "clang or build/gen missing: the clang check is skipped"
fi
