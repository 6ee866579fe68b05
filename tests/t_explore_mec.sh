#!/bin/sh
# t_explore_mec.sh -- explore --scc-out / --mec / --mec-out against the
# standalone commands on the same graph: the explored LTS is written with
# --aut in the same run, `warpex scc` decomposes that file (Tarjan on the
# file), and the file turned into an MDP with one probability-1 choice per
# transition goes through `warpex mec` (the CPU MEC refinement, an
# independent algorithm); the per-state id files must be identical.
cd "$(dirname "$0")/.." || exit 2
TAG=explore-mec
. tests/lib.sh

# aut_to_tra AUT TRA: one Dirac choice per transition, choices of a state
# numbered 0, 1, ... in file order; states without transitions get none.
aut_to_tra() {
    sed -n 's/^(\([0-9]*\),.*,[ ]*\([0-9]*\)[ ]*)[ ]*$/\1 \2/p' "$1" | sort -n -s -k1,1 |
        awk -v n="$(sed -n '1s/.*,[ ]*\([0-9]*\)[ ]*)[ ]*$/\1/p' "$1")" '
            { if ($1 != last) { k = 0; last = $1 } line[NR] = $1 " " k++ " " $2 " 1" }
            END { print n, NR, NR; for (i = 1; i <= NR; i++) print line[i] }' > "$2"
}

# check_run NAME FILE OPTIONS...: one explore run against the two commands.
check_run() {
    name=$1; f=$2; shift 2
    "$W" explore "$f" "$@" --aut "$T/x.aut" --scc-out "$T/s1" --mec-out "$T/m1" --json >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -le 1 ] || { fail "$name: explore exit $rc: $(head -c 300 "$T/err")"; return; }
    mecs=$(json_field mecs); sccs=$(json_field sccs)
    "$W" scc "$T/x.aut" --scc-out "$T/s2" >/dev/null 2>&1 && cmp -s "$T/s1" "$T/s2" \
        && pass "$name: --scc-out == warpex scc on the --aut file ($sccs SCCs)" \
        || fail "$name: --scc-out differs from warpex scc"
    aut_to_tra "$T/x.aut" "$T/x.tra"
    "$W" mec "$T/x.tra" --mec-out "$T/m2" --json >"$T/mjson" 2>"$T/err" && cmp -s "$T/m1" "$T/m2" \
        && grep -q "\"mecs\": $mecs," "$T/mjson" \
        && pass "$name: --mec-out == warpex mec on the Dirac MDP ($mecs MECs)" \
        || fail "$name: --mec-out differs from warpex mec: $(head -c 300 "$T/err")"
}

for m in traffic/traffic philosophers/philosophers_n3 philosophers/philosophers_n5 milner/milner_n3 \
         abp/abp_d2 tokenring/tokenring_n3; do
    f=examples/$m.exp
    [ -f "$f" ] || { fail "$f missing"; continue; }
    for b in seq cpu; do
        check_run "$(basename "$m") $b" "$f" --backend $b --threads 2
    done
done

# Random networks (tests/randnet), whose products have many SCCs.
gen=bin/tests/test_random_networks
seed=1
while [ "$seed" -le "${WARPEX_MEC_SEEDS:-20}" ]; do
    set -- $(WARPEX_RANDNET_EMIT=1 WARPEX_RANDNET_SEED=$seed "$gen")
    if [ "$1" = EXPECT ]; then
        opts="--hidden $4 --memory 64M"
        [ "$5" = 1 ] && opts="$opts --rate"
        check_run "random network seed $seed" "$2" $opts --backend cpu --threads 2
        rm -rf "$3"
    else
        fail "random network seed $seed: generator said: $*"
    fi
    seed=$((seed + 1))
done

# A self-loop alone is a MEC; a state on no cycle is in none.
printf 'des (0, 4, 4)\n(0, "a", 1)\n(1, "b", 1)\n(1, "c", 2)\n(2, "d", 3)\n' > "$T/l.aut"
expect_rc "self-loop" 0 "$W" explore "$T/l.aut" --backend seq --mec-out "$T/m" --json
expect_json "self-loop counts" mecs=1 states_in_mecs=1 transitions_in_mecs=1 largest_mec=1 singleton_mecs=1
printf -- '-1\n0\n-1\n-1\n' | cmp -s - "$T/m" && pass "self-loop --mec-out" || fail "self-loop --mec-out: $(tr '\n' ' ' < "$T/m")"
expect_rc "--mec-out without FILE" 2 "$W" explore "$T/l.aut" --mec-out
expect_rc "--scc-out to a missing directory" 4 "$W" explore "$T/l.aut" --backend seq --scc-out "$T/no/such/file"
