#!/bin/bash
# bench/device/rules_walk.sh -- the GPU MDP explorer finding a state's rules
# by anchor and by masks (explorer/mdp_rules.h; WARPEX_MDP_RULES), counts
# only, on the consensus networks N K ... (default 8 2 8 4), REPEAT GPU
# rounds each (default 3), with one timeline run each
# (bench/device/mdp_explore.sh; no CPU run, no property).
#
#   bench/device/rules_walk.sh [N K ...]
set -u
cd "$(dirname "$0")/../.." || exit 2
[ $# -gt 0 ] || set -- 8 2 8 4
for walk in anchors masks; do
    echo "== rules by $walk"
    WARPEX_MDP_RULES=$walk REPEAT=${REPEAT:-3} PROPS= CPU_MAX=0 bash bench/device/mdp_explore.sh "$@"
done
