#!/bin/bash
# bench/device/sanitize_cmd.sh -- runs one command under compute-sanitizer
# memcheck on the device (the prebuilt binaries from .pre, bench/device/
# prebuilt.sh), printing the first reports: which kernel faults, where.
#
#   bench/device/sanitize_cmd.sh [--tool memcheck|racecheck|initcheck] CMD ARG...
set -u
cd "$(dirname "$0")/../.." || exit 2
tool=memcheck
[ "${1:-}" = --tool ] && { tool=$2; shift 2; }
[ -x bin/warpex ] || bash bench/device/prebuilt.sh unpack >/dev/null 2>&1 || { echo "unpack failed"; exit 1; }
echo "== compute-sanitizer --tool $tool $*"
timeout 120 compute-sanitizer --tool "$tool" --print-limit 4 "$@" 2>&1 | head -80
