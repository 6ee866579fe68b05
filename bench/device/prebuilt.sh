#!/bin/bash
# bench/device/prebuilt.sh -- carry binaries built here instead of building
# on the device (a device call's build takes minutes of its time; the GPU
# code is compiled for sm_90 by the same nvcc either way).
#
#   bench/device/prebuilt.sh pack [--define NAME=VALUE ...] [PROGRAM ...]   here: builds (bash
#        bench/gpu_test.sh --build-only, after deleting every object
#        without its .d file: make cannot know what such an object was
#        compiled from, and an object built against an older struct
#        layout links without complaint and fails on the device), strips bin/warpex,
#        bin/tests/test_random_networks and bin/gpu/PROGRAM (default: all
#        of bin/gpu) into .pre/bin.tar.xz (git-ignored; carry ".pre").
#        --define: util/config.h's `#define NAME ...` set to VALUE for this
#        build only (a path a device call must run before its default
#        changes, e.g. --define GX_POR_BITS=1), restored afterwards; the
#        commit and the defines go into bin/packed.txt, which unpack shows
#   bench/device/prebuilt.sh old OLD_TREE [NAME]   here: OLD_TREE's bin/warpex
#        (a source tree of an older version, e.g. `git archive fe333fa`
#        unpacked, with its build/gen) built, stripped and compressed into
#        .pre/NAME_warpex.xz (NAME: old), for bench/device/parity.sh; on the
#        device `xz -dc .pre/NAME_warpex.xz > .pre/NAME/bin/warpex` (pending.sh
#        does it for old)
#   bench/device/prebuilt.sh unpack               on the device, before
#        `bash bench/gpu_test.sh --prebuilt ...`
set -eu
cd "$(dirname "$0")/../.."
case ${1:-} in
pack)
    shift
    defs=()
    while [ "${1:-}" = --define ]; do defs+=("$2"); shift 2; done
    if [ ${#defs[@]} -gt 0 ]; then
        cp util/config.h .pre_config.h.orig
        # restored with a fresh time, so that the next build compiles its dependents again
        trap 'mv -f .pre_config.h.orig util/config.h && touch util/config.h' EXIT
        for d in "${defs[@]}"; do
            n=${d%%=*} v=${d#*=}
            grep -q "^#define $n " util/config.h || { echo "prebuilt: util/config.h has no #define $n" >&2; exit 2; }
            sed -i "s|^#define $n .*|#define $n $v|" util/config.h
            echo "prebuilt: $n = $v for this build"
        done
    fi
    find build/obj -name '*.o' 2>/dev/null | while read -r o; do
        [ -f "${o%.o}.d" ] || { echo "prebuilt: $o has no dependency file; rebuilt"; rm -f "$o"; }
    done
    bash bench/gpu_test.sh --build-only >/dev/null || { echo "prebuilt: the build failed"; exit 1; }
    files=(bin/warpex bin/tests/test_random_networks)
    if [ $# -gt 0 ]; then for p in "$@"; do files+=("bin/gpu/$p"); done
    else
        files+=(bin/gpu/test_*)
        # the cycle-mean graphs' generator of parity.sh (linked here: the
        # device has the library's objects only in a full build)
        cuda=$(dirname "$(dirname "$(command -v nvcc)")")
        cc -std=c11 -D_GNU_SOURCE -O2 -I. bench/cm_gpu_gen.c -o bin/gpu/cm_gpu_gen build/libwarpex.a \
            -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" -lcudart_static -ldl -lrt -lstdc++ -lm -pthread
        files+=(bin/gpu/cm_gpu_gen)
        # bench_gpu, the explorer's tuning driver (bench_gpu.sh, por_breakdown.sh)
        cc -std=c11 -D_GNU_SOURCE -O2 -DHAVE_EXPLORE_CPU -I. tests/gpu/bench_gpu.c -o bin/gpu/bench_gpu \
            build/libwarpex.a -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" -lcudart_static -ldl -lrt \
            -lstdc++ -lm -pthread
        files+=(bin/gpu/bench_gpu)
    fi
    tmp=$(mktemp -d)
    for f in "${files[@]}"; do
        mkdir -p "$tmp/$(dirname "$f")"
        strip --strip-debug -o "$tmp/$f" "$f"
    done
    # what was packed: the commit, uncommitted changes, the defines
    { echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!util/config.h' || echo ' (with uncommitted changes)')"
      for d in ${defs[@]+"${defs[@]}"}; do echo "define $d"; done; } >"$tmp/bin/packed.txt"
    mkdir -p .pre
    tar -C "$tmp" -cf - bin | xz -6 -T2 > .pre/bin.tar.xz
    rm -rf "$tmp"
    ls -l .pre/bin.tar.xz ;;
old)
    [ -d "${2:-}" ] || { echo "usage: $0 old OLD_TREE [NAME]" >&2; exit 2; }
    name=${3:-old}
    make -C "$2" -j"$(nproc)" bin/warpex >/dev/null || { echo "prebuilt: the old tree's build failed"; exit 1; }
    mkdir -p .pre
    strip --strip-debug -o ".pre/${name}_warpex" "$2/bin/warpex"
    xz -6 -T2 -f ".pre/${name}_warpex"
    ls -l ".pre/${name}_warpex.xz" ;;
unpack)
    tar xJf .pre/bin.tar.xz
    [ -f bin/packed.txt ] && sed 's/^/prebuilt: packed /' bin/packed.txt
    touch bin/warpex bin/gpu/* bin/tests/* ;;
*) echo "usage: $0 pack [--define NAME=VALUE ...] [PROGRAM ...] | old OLD_TREE [NAME] | unpack" >&2; exit 2 ;;
esac
