#!/bin/bash
# bench/device/storm_gpu.sh -- warpex's GPU path against Storm's sound
# engine on the same machine, in the same run (issue "never slower than
# Storm": the GPU path >= 50x Storm on MDPs of >= 10^6 states).  Instances:
# consensus N=6 K=2 (1 258 240 states; N=6 K=4 has 2 376 448), made on the
# machine by bench/consensus_gen.c, with the repository's consensus
# properties; timing as bench/vs_storm.sh defines it (Storm: load + check in
# one Python process; warpex: one whole `warpex check --backend gpu` process
# per property, reading the model included).
#
#   bench/device/storm_gpu.sh [N K ...] [ij N ...]   (after bin/warpex is built with nvcc)
#   ij N: the Israeli-Jalfon ring of examples/gen_ij.sh (4^N - 1 states; N=10:
#   1 048 575), explored with bin/warpex, its Rmax and Rmin of steps
#   BACKEND=cpu STORM_PYTHON=PY ... runs it elsewhere (PY imports stormpy)
#
# The machine has no network: Storm comes from wheels in .whl/ (carried),
# stormpy 2.0.0 for its Python 3.12 and its dependency `deprecated`, made
# here by
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_34_x86_64 -d .whl stormpy==2.0.0 deprecated
# The wheel (49 MB) and the repository (19 MB) do not fit one call's 64 MiB
# as they are.  One call: the wheel's contents recompressed (31 MB) in
# .storm/, made by
#   mkdir w && cd w && unzip -q ../.whl/stormpy-*.whl && tar cf - . | xz -9e > ../.storm/storm.tar.xz
#   cp .whl/deprecated-*.whl .storm/
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux2014_x86_64 -d .storm 'wrapt>=1.16,<3'
# (`deprecated` needs `wrapt`; without it stormpy does not import).
# and carried as .storm (the archive is the site-packages tree itself).
# Two calls on the same warm machine: the wheel split (`split -b 25M` into
# .whlA/stormpy.part.aa and .whlB/stormpy.part.ab, `deprecated` in .whlB),
# joined here (ignored folders stay on the machine between calls).
set -u
cd "$(dirname "$0")/../.." || exit 2
WORK=${WORK:-/tmp/storm_gpu}
mkdir -p "$WORK"
. bench/device/storm_env.sh
cc -std=c11 -O2 bench/consensus_gen.c -o "$WORK/consensus_gen" || exit 4
[ $# -gt 0 ] || set -- 6 2
dirs=()
while [ $# -ge 2 ]; do
    if [ "$1" = ij ]; then # Israeli-Jalfon (examples/gen_ij.sh), explored here, its two reward properties
        d=$WORK/ij-N$2; mkdir -p "$d"
        if [ ! -s "$d/ij-N$2.tra" ]; then
            sh examples/gen_ij.sh "$2" "$WORK/ij-net-N$2" >/dev/null &&
                bin/warpex explore "$WORK/ij-net-N$2/ij_N$2.exp" --reward 'steps:^pass$=1' \
                    --mdp-out "$d/ij-N$2" -q >/dev/null || exit 4
        fi
        printf '"rmax": R{"steps"}max=? [ F "stable" ];\n"rmin": R{"steps"}min=? [ F "stable" ];\n' >"$d/ij.props"
        dirs+=("$d")
        shift 2
        continue
    fi
    d=$WORK/consensus-N$1-K$2; mkdir -p "$d"
    [ -s "$d/consensus-N$1-K$2.tra" ] || "$WORK/consensus_gen" "$1" "$2" "$d/consensus-N$1-K$2" || exit 4
    # the two properties Storm takes longest on (value 0 and value 1 ones
    # are decided by both in the precomputation)
    grep -E '^"(c2|disagree)":' tests/data/mdp/consensus-N4-K4/consensus.props > "$d/consensus.props"
    dirs+=("$d")
    shift 2
done
BACKEND=${BACKEND:-gpu} STORM_PYTHON=${STORM_PYTHON:-python3} WORK=$WORK/drn bash bench/vs_storm.sh "${dirs[@]}"
