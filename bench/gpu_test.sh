#!/bin/bash
# bench/gpu_test.sh -- the GPU test suite, on a machine with an sm_90 GPU.
#
#   bench/gpu_test.sh [--prebuilt | --build-only] [--no-sanitizer] [--seed N] [--images N] [--big]
#                     [--only NAME,NAME...]
#
# 1. builds warpex with nvcc for sm_90 (the Makefile's NVARCH) and the GPU
#    test programs tests/gpu/test_*.c (with -DHAVE_EXPLORE_SEQ when the
#    library has explore_seq, so that the CPU oracle is compared too);
#    --prebuilt skips the build when bin/gpu/test_gpu exists and runs here;
#    --build-only builds and stops (on a machine without a GPU, to carry
#    bin/ to one);
# 2. runs every test program: test_gpu (the explorer: hand-made pitfalls,
#    random images under random knobs, stress cases) and one per further GPU
#    module, each comparing the GPU with its CPU twin.  Contract of a test
#    program: `--seed N` (printed on failure), `--quick` (the small subset
#    the sanitizers run), `--probe` (exit 0 when a GPU is usable); PASS/FAIL
#    lines on stdout; non-zero exit on failure;
# 3. runs compute-sanitizer memcheck, racecheck and synccheck on each
#    program's --quick subset;
# 4. prints a short table last.  Logs go to $OUT (or tests/out/gpu).
# --only runs just the named steps (test programs and CLI scripts, e.g.
# test_gpu,t_gpu_check): the whole suite can then be split over device calls
# that each stay inside the device's per-call limit.
# Exit status 1 when any step failed.
set -u
cd "$(dirname "$0")/.." || exit 2
LOG=${OUT:-tests/out/gpu}
mkdir -p "$LOG"
prebuilt=0; sanitize=1; seed=$(date +%s); images=240; big=""; only=""
while [ $# -gt 0 ]; do
    case $1 in
    --prebuilt) prebuilt=1 ;;
    --build-only) prebuilt=2 ;;
    --no-sanitizer) sanitize=0 ;;
    --seed) seed=$2; shift ;;
    --images) images=$2; shift ;;
    --big) big=--big ;;
    --only) only=",$2," ; shift ;;
    *) echo "usage: $0 [--prebuilt | --build-only] [--no-sanitizer] [--seed N] [--images N] [--big] [--only NAME,...]"; exit 2 ;;
    esac
    shift
done
export PATH=$PATH:/usr/local/cuda/bin
declare -A result
status=0
t0=$(date +%s)

build() {
    command -v nvcc >/dev/null || { echo "gpu_test: nvcc not found"; return 1; }
    # -lineinfo: compute-sanitizer reports name source lines (no effect on code)
    make -j"$(nproc)" all NVFLAGS='-O3 -std=c++17 $(NVARCH) -Xcompiler -Wall -Xcompiler -Werror --expt-relaxed-constexpr -lineinfo' \
        >"$LOG/build.log" 2>&1 || { tail -20 "$LOG/build.log"; return 1; }
    local def=""
    local syms; syms=$(nm build/libwarpex.a 2>/dev/null)
    grep -q ' T explore_seq$' <<<"$syms" && def=-DHAVE_EXPLORE_SEQ
    grep -q ' T valiter_solve_cpu$' <<<"$syms" && def="$def -DHAVE_VALITER_CPU"
    grep -q ' T network_from_file$' <<<"$syms" && grep -q ' T image_compile$' <<<"$syms" && def="$def -DHAVE_FRONTEND"
    grep -q ' T cyclemean_howard_cpu$' <<<"$syms" && def="$def -DHAVE_CYCLEMEAN_CPU"
    local cuda; cuda=$(dirname "$(dirname "$(command -v nvcc)")")
    mkdir -p bin/gpu
    local t
    for t in tests/gpu/test_*.c; do
        cc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -pthread $def -I. \
            "$t" -o "bin/gpu/$(basename "$t" .c)" build/libwarpex.a \
            -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" -lcudart_static -ldl -lrt -lstdc++ -lm \
            >>"$LOG/build.log" 2>&1 || { tail -20 "$LOG/build.log"; return 1; }
    done
    echo "test_gpu built with: ${def:-no CPU oracle, no front end}" >>"$LOG/build.log"
}

if [ $prebuilt = 2 ]; then
    # on a machine without a GPU: build the programs (and the tests the
    # CLI checks use) for a later --prebuilt run elsewhere
    build && make -j"$(nproc)" $(ls tests/test_*.c | sed 's|tests/\(.*\)\.c|bin/tests/\1|') >>"$LOG/build.log" 2>&1 \
        && echo "gpu_test: built bin/warpex, bin/gpu/test_* and bin/tests/*" && exit 0
    echo "gpu_test: build failed (log: $LOG/build.log)"; exit 1
fi
if [ $prebuilt = 1 ] && [ -x bin/gpu/test_gpu ] && bin/gpu/test_gpu --probe >/dev/null 2>&1; then
    result[build]="prebuilt"
else
    if build; then result[build]="ok ($(($(date +%s) - t0)) s)"; else result[build]="FAILED"; status=1; fi
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$LOG/device.txt" 2>&1

order=()
for prog in bin/gpu/test_*; do
    [ -x "$prog" ] || continue
    name=$(basename "$prog")
    [ -z "$only" ] || [[ "$only" == *",$name,"* ]] || continue
    extra=()
    [ "$name" = test_gpu ] && extra=(--images "$images" $big)
    t1=$(date +%s)
    timeout "${GPU_TEST_TIMEOUT:-300}" "$prog" --seed "$seed" "${extra[@]}" >"$LOG/$name.log" 2>&1
    rc=$?
    p=$(grep -c '^PASS ' "$LOG/$name.log"); f=$(grep -c '^FAIL ' "$LOG/$name.log")
    grep '^FAIL ' "$LOG/$name.log" | head -20
    order+=("$name")
    result[$name]="$p passed, $f failed, rc $rc ($(($(date +%s) - t1)) s, seed $seed)"
    [ "$rc" -ne 0 ] || [ "$f" -ne 0 ] || [ "$p" -eq 0 ] && status=1
    if [ $sanitize = 1 ] && command -v compute-sanitizer >/dev/null; then
        for tool in memcheck racecheck synccheck; do
            t1=$(date +%s)
            extra=()
            [ "$name" = test_gpu ] && extra=(--images "${GPU_SAN_IMAGES:-3}")
            timeout "${GPU_SAN_TIMEOUT:-150}" compute-sanitizer --tool $tool --error-exitcode 97 --print-limit 20 \
                "$prog" --quick --seed "$seed" "${extra[@]}" >"$LOG/$name.$tool.log" 2>&1
            rc=$?
            errs=$(grep -E '^========= (ERROR SUMMARY|RACECHECK SUMMARY)' "$LOG/$name.$tool.log" | tail -1)
            f=$(grep -c '^FAIL ' "$LOG/$name.$tool.log")
            order+=("$name $tool")
            result["$name $tool"]="rc $rc, ${errs#========= }, $f failed checks ($(($(date +%s) - t1)) s)"
            # a sanitizer cut off by the timeout checked only part of the run:
            # that is a failure too, but say so (GPU_SAN_TIMEOUT raises it)
            [ "$rc" = 124 ] && result["$name $tool"]="TIMED OUT after ${GPU_SAN_TIMEOUT:-150} s (no verdict; GPU_SAN_TIMEOUT)"
            [ "$rc" -ne 0 ] && { status=1; grep -E '^=========' "$LOG/$name.$tool.log" | head -30; }
        done
    fi
done

# CLI-level GPU checks (tests/gpu/t_*.sh: PASS/FAIL lines like tests/run.sh).
for t in tests/gpu/t_*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    [ -z "$only" ] || [[ "$only" == *",$name,"* ]] || continue
    t1=$(date +%s)
    timeout "${GPU_TEST_TIMEOUT:-300}" sh "$t" >"$LOG/$name.log" 2>&1
    rc=$?
    p=$(grep -c '^PASS ' "$LOG/$name.log"); f=$(grep -c '^FAIL ' "$LOG/$name.log")
    grep '^FAIL ' "$LOG/$name.log" | head -20
    order+=("$name")
    result[$name]="$p passed, $f failed, rc $rc ($(($(date +%s) - t1)) s)"
    [ "$rc" -ne 0 ] || [ "$f" -ne 0 ] || [ "$p" -eq 0 ] && status=1
done

echo
echo "| gpu_test step | result |"
echo "|---|---|"
echo "| device | $(head -1 "$LOG/device.txt" 2>/dev/null) |"
echo "| build | ${result[build]} |"
for k in "${order[@]}"; do
    echo "| $k | ${result[$k]} |"
done
echo "| total | $(($(date +%s) - t0)) s, status $status |"
exit $status
