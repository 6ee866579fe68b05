#!/bin/sh
# t_mdp_aps.sh -- the atomic propositions of an explored MDP
# (explorer/mdp_aps.h) against an oracle read off the written .tra file:
# every state's propositions are "init" (state 0), "deadlock" (no choice)
# and the actions of its choices, numbered in order of their first choice.
# consensus N=5 K=2 (574 720 choices) is large enough for the parallel
# passes (chunks of at least 2^16 choices); the .lab must not depend on the
# thread count or the explorer.
cd "$(dirname "$0")/.." || exit 2
TAG=mdp-aps
. tests/lib.sh

sh examples/gen_consensus.sh 5 2 "$T/net" > /dev/null 2>&1 || { fail "gen_consensus.sh 5 2"; exit 1; }
NET=$T/net/consensus_N5_K2.exp
for run in "cpu 1" "cpu 3" "cpu 8" "seq 1"; do
    set -- $run
    expect_rc "explore --backend $1 --threads $2 --mdp-out" 0 "$W" explore "$NET" --backend "$1" --threads "$2" \
        --mdp-out "$T/m_$1_$2" -q
done
for o in cpu_3 cpu_8 seq_1; do
    cmp -s "$T/m_cpu_1.lab" "$T/m_$o.lab" && pass ".lab of $o == .lab of cpu_1" || fail ".lab of $o differs from cpu_1's"
done

# The oracle: the .tra's lines "SRC CHOICE DST PROB [ACTION]" give each
# state's actions; the ids follow the first appearance of each action that
# the .lab header names (the hidden action and unnameable names are none).
awk -v LAB="$T/m_cpu_1.lab" '
    BEGIN {
        getline hdr < LAB
        n = split(hdr, f, " ")
        for (i = 1; i <= n; i++) {
            split(f[i], kv, "="); name = kv[2]; gsub(/"/, "", name); id[name] = kv[1]; names[kv[1]] = name
        }
        if (names[0] != "init" || names[1] != "deadlock") { print "header: " hdr; bad = 1 }
        next_id = 2
        while ((getline line < LAB) > 0) { split(line, p, ": "); got[p[1] + 0] = p[2] }
    }
    NR == 1 { ns = $1; next }
    {
        s = $1 + 0; has[s] = 1
        if (NF >= 5 && ($5 in id)) {
            if (!($5 in seen)) {
                seen[$5] = 1
                if (id[$5] != next_id) { printf "action %s has id %s, first appearance says %d\n", $5, id[$5], next_id; bad = 1 }
                next_id++
            }
            if (!((s, id[$5]) in set)) { set[s, id[$5]] = 1; want[s] = want[s] " " id[$5] }
        }
    }
    END {
        if (ns < 100000 || next_id < 5) { printf "too small to test: %d states, %d actions\n", ns, next_id - 2; exit 1 }
        for (s = 0; s < ns; s++) {
            w = want[s]
            if (s == 0) w = " 0" w
            if (!(s in has)) w = w " 1"
            k = split(w, a, " "); delete v
            for (i = 1; i <= k; i++) v[a[i] + 0] = 1
            k2 = split(got[s], b, " ")
            same = k2 == length(v)
            for (i = 1; i <= k2 && same; i++) same = (b[i] + 0) in v
            if (!same) { printf "state %d: .lab has \"%s\", the .tra says \"%s\"\n", s, got[s], w; if (++shown > 5) exit 1; bad = 1 }
        }
        exit bad
    }' "$T/m_cpu_1.tra" > "$T/oracle" 2>&1 &&
    pass "every state's propositions and the ids' order agree with the .tra ($(sed -n 1p "$T/m_cpu_1.tra" | cut -d' ' -f1) states)" ||
    fail "oracle: $(head -c 600 "$T/oracle")"
