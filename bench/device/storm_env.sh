# bench/device/storm_env.sh -- sourced by the device scripts that run Storm
# (storm_gpu.sh, storm_prism.sh) from the repository root, with WORK set:
# installs stormpy from what the call carried (.storm/, or .whl/, or the
# split .whlA/ + .whlB/; storm_gpu.sh's header says how each is made) into
# /tmp/site and exports PYTHONPATH; nothing when STORM_PYTHON names a
# python3 that imports stormpy already.
WHL=.whl
if [ ! -d "$WHL" ] && [ -d .whlA ] && [ -d .whlB ]; then
    WHL=$WORK/whl; mkdir -p "$WHL"
    cat .whlA/stormpy.part.* .whlB/stormpy.part.* > "$WHL/stormpy-2.0.0-cp312-cp312-manylinux_2_34_x86_64.whl"
    cp .whlB/*.whl "$WHL/"
fi
if [ -z "${STORM_PYTHON:-}" ] && [ -f .storm/storm.tar.xz ]; then
    mkdir -p /tmp/site && tar xJf .storm/storm.tar.xz -C /tmp/site &&
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/site .storm/*.whl || { echo "$0: .storm does not install"; exit 3; }
    export PYTHONPATH=/tmp/site
elif [ -z "${STORM_PYTHON:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site "$WHL"/*.whl || { echo "$0: the carried wheels do not install"; exit 3; }
    export PYTHONPATH=/tmp/site
fi
