#!/bin/sh
# t_faults_io.sh -- outputs, write errors and interrupts (issue 25, items 1, 4
# and 5): every writer on a private /dev/null (still a device afterwards), a
# FIFO (a reader gets the content), a symlink (the link survives), a private
# /dev/full (exit 4, one line, the node survives); a failing run leaves an
# existing output untouched and no temporary; an output naming an input is
# refused; SIGINT/SIGTERM during an exploration print the partial counts,
# remove the outputs and exit 130/143; an interrupted `check --values F`
# leaves nothing; a failed write to stdout is exit 4.
cd "$(dirname "$0")/.." || exit 2
TAG=faults-io
. tests/lib.sh

M=examples/milner/milner_n5.exp
# a small graph, MDP and weighted graph for the standalone commands
printf '0 1\n1 2\n2 0\n2 3\n' > "$T/g.txt"
printf '0 1 3\n1 2 1\n2 0 2\n' > "$T/w.txt"
{ echo '4 5 6'; echo '0 0 1 1'; echo '1 0 2 0.5'; echo '1 0 3 0.5'; echo '1 1 0 1'
  echo '2 0 2 1'; echo '3 0 3 1'; } > "$T/m.tra"
printf '0="init" 1="goal"\n0: 0\n2: 1\n' > "$T/m.lab"
P='Pmax=? [ F "goal" ]'

# writer N OUT: runs the N-th writer (1..11) with output OUT, its name in
# $name, stdout in $T/out, stderr in $T/err; returns its exit status.
writer() {
    o=$2
    case $1 in
    1) name="explore --scc-out"; set -- explore $M --backend cpu -q --scc --scc-out "$o" ;;
    2) name="explore --mec-out"; set -- explore $M --backend cpu -q --mec --mec-out "$o" ;;
    3) name="explore --csr"; set -- explore $M --backend cpu -q --csr "$o" ;;
    4) name="explore --aut"; set -- explore $M --backend cpu -q --aut "$o" ;;
    5) name="convert --to aut"; set -- convert $M --to aut "$o" --backend cpu -q ;;
    6) name="convert --to gpf"; set -- convert $M --to gpf "$o" ;;
    7) name="scc --scc-out"; set -- scc "$T/g.txt" --backend cpu -q --scc-out "$o" ;;
    8) name="mec --mec-out"; set -- mec "$T/m.tra" --backend cpu -q --mec-out "$o" ;;
    9) name="cycle-mean --cycle-out"; set -- cycle-mean "$T/w.txt" --backend cpu -q --cycle-out "$o" ;;
    10) name="check --values"; set -- check "$T/m.tra" --lab "$T/m.lab" --prop "$P" --backend cpu -q --values "$o" ;;
    11) name="check --scheduler"; set -- check "$T/m.tra" --lab "$T/m.lab" --prop "$P" --backend cpu -q --scheduler "$o" ;;
    esac
    "$W" "$@" > "$T/out" 2> "$T/err"
}
is_node() { # is_node PATH MAJOR MINOR: a character device with that number
    [ -c "$1" ] && [ "$(stat -c '%t,%T' "$1")" = "$(printf '%x,%x' "$2" "$3")" ]
}

# ---- private /dev/null and /dev/full nodes (mknod needs root: a failure is a FAIL)
if mknod "$T/null" c 1 3 2> "$T/mknod.err" && mknod "$T/full" c 1 7 2>> "$T/mknod.err"; then
    pass "mknod of private null and full nodes"
    for n in 1 2 3 4 5 6 7 8 9 10 11; do
        writer $n "$T/null"; rc=$?
        if [ "$rc" -eq 0 ] && is_node "$T/null" 1 3 && [ ! -s "$T/err" ]; then
            pass "$name to a null device: exit 0, still the device"
        else
            fail "$name to a null device: exit $rc, $(ls -l "$T/null"), stderr: $(head -c 300 "$T/err")"
            rm -f "$T/null"; mknod "$T/null" c 1 3
        fi
        writer $n "$T/full"; rc=$?
        if [ "$rc" -eq 4 ] && is_node "$T/full" 1 7 && [ "$(wc -l < "$T/err")" -eq 1 ] \
            && grep -q 'No space left on device' "$T/err"; then
            pass "$name to a full device: exit 4, one line, the node survives"
        else
            fail "$name to a full device: exit $rc, $(ls -l "$T/full" 2>&1), stderr: $(head -c 300 "$T/err")"
            rm -f "$T/full"; mknod "$T/full" c 1 7
        fi
    done
    no_temps "$T" && pass "devices: no temporary file beside them" || fail "devices: temporaries left: $(ls -A "$T")"
    # --mdp-out BASE writes BASE.tra and BASE.lab
    printf 'des (0, 2, 2)\n(0, a, 1 1/2 0)\n(1, b, 0)\n' > "$T/p.aut"
    rm -f "$T/mdp.tra" "$T/mdp.lab"; mknod "$T/mdp.tra" c 1 3; mknod "$T/mdp.lab" c 1 3
    expect_rc "explore --mdp-out to null devices" 0 "$W" explore "$T/p.aut" -q --mdp-out "$T/mdp"
    is_node "$T/mdp.tra" 1 3 && is_node "$T/mdp.lab" 1 3 && pass "--mdp-out: both still devices" \
        || fail "--mdp-out: $(ls -l "$T"/mdp.*)"
    rm -f "$T/mdp.tra" "$T/mdp.lab"
    # standard output on a full device
    for c in "explore $M --backend cpu --json" "explore $M --backend cpu" "scc $T/g.txt --json -q" \
             "check $T/m.tra --lab $T/m.lab --prop Pmax=?[F\"goal\"] --json"; do
        $W $c > "$T/full" 2> "$T/err"; rc=$?
        [ "$rc" -eq 4 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q 'standard output' "$T/err" \
            && pass "warpex $c > full: exit 4, one line" \
            || fail "warpex $c > full: exit $rc, stderr: $(head -c 300 "$T/err")"
    done
    rm -f "$T/null" "$T/full"
else
    fail "mknod of private null and full nodes: $(cat "$T/mknod.err")"
fi

# ---- the reference outputs, written to regular files
# (seq: the same state numbering on every run)
"$W" explore $M --backend seq -q --scc --scc-out "$T/ref.scc" --aut "$T/ref.aut" > /dev/null
"$W" check "$T/m.tra" --lab "$T/m.lab" --prop "$P" -q --values "$T/ref.val" > /dev/null

# ---- FIFO: written in place, the reader gets the content
mkfifo "$T/fifo"
cat "$T/fifo" > "$T/fifo.out" & reader=$!
expect_rc "explore --scc-out to a FIFO" 0 "$W" explore $M --backend seq -q --scc --scc-out "$T/fifo"
wait $reader
cmp -s "$T/fifo.out" "$T/ref.scc" && [ -p "$T/fifo" ] && pass "FIFO: the reader got the SCC ids, still a FIFO" \
    || fail "FIFO: $(wc -c < "$T/fifo.out") bytes read, $(ls -l "$T/fifo")"
cat "$T/fifo" > "$T/fifo.out" & reader=$!
expect_rc "check --values to a FIFO" 0 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop "$P" -q --values "$T/fifo"
wait $reader
cmp -s "$T/fifo.out" "$T/ref.val" && pass "FIFO: the reader got the values" || fail "FIFO values: $(cat "$T/fifo.out")"
# the .aut header is rewritten when done: a FIFO is refused before it is opened
expect_rc "explore --aut to a FIFO is refused (no reader needed)" 2 "$W" explore $M --backend cpu -q --aut "$T/fifo"
[ "$(wc -l < "$T/err")" -eq 1 ] && grep -q 'seekable' "$T/err" && [ -p "$T/fifo" ] \
    && pass "--aut FIFO: one line, still a FIFO" || fail "--aut FIFO: $(cat "$T/err")"
rm -f "$T/fifo" "$T/fifo.out"

# ---- symlinks: the link survives, its target gets the content
echo old > "$T/target.scc"
ln -s target.scc "$T/link.scc"
ln -s no_such.aut "$T/dangling.aut"
expect_rc "explore --scc-out and --aut through symlinks" 0 "$W" explore $M --backend seq -q --scc \
    --scc-out "$T/link.scc" --aut "$T/dangling.aut"
[ -L "$T/link.scc" ] && cmp -s "$T/target.scc" "$T/ref.scc" && pass "symlink: the link survives, its target has the ids" \
    || fail "symlink: $(ls -l "$T/link.scc" "$T/target.scc")"
[ -L "$T/dangling.aut" ] && cmp -s "$T/no_such.aut" "$T/ref.aut" \
    && pass "dangling symlink: the link survives, its target is created" || fail "dangling symlink: $(ls -l "$T")"
rm -f "$T/link.scc" "$T/target.scc" "$T/dangling.aut" "$T/no_such.aut"

# ---- a failing run leaves an existing output untouched and no temporary
# a network far larger than its memory budget: the exploration stops (exit 3)
{ echo "des (0, 16, 16)"; i=0; while [ $i -lt 16 ]; do echo "($i, a, $(( (i + 1) % 16 )))"; i=$((i + 1)); done; } > "$T/c.aut"
echo '"c.aut" ||| "c.aut" ||| "c.aut" ||| "c.aut" ||| "c.aut" ||| "c.aut" ||| "c.aut" ||| "c.aut"' > "$T/big.exp"
mkdir "$T/keep"
for f in out.aut out.csr out.scc; do echo precious > "$T/keep/$f"; done
expect_rc "exploration past its memory budget" 3 "$W" explore "$T/big.exp" --backend cpu --memory 4M -q \
    --aut "$T/keep/out.aut" --csr "$T/keep/out.csr" --scc --scc-out "$T/keep/out.scc"
[ "$(cat "$T/keep/out.aut" "$T/keep/out.csr" "$T/keep/out.scc")" = "$(printf 'precious\nprecious\nprecious')" ] \
    && [ "$(ls -A "$T/keep" | wc -l)" -eq 3 ] && pass "failed run: existing outputs untouched, no temporary" \
    || fail "failed run: $(ls -lA "$T/keep")"
expect_rc "explore --deadlock --stop-at-first stops at a violation" 1 "$W" explore \
    examples/philosophers/philosophers_n3.exp --backend cpu -q --deadlock --stop-at-first --aut "$T/keep/out.aut"
[ "$(cat "$T/keep/out.aut")" = precious ] && [ "$(ls -A "$T/keep" | wc -l)" -eq 3 ] \
    && pass "violation: the existing --aut file untouched, no temporary" || fail "violation: $(ls -lA "$T/keep")"
rm -rf "$T/keep"

# ---- an output that is one of the run's inputs is refused (exit 2), untouched
mkdir "$T/net"
cp examples/milner/milner_n5.exp examples/milner/cycler.aut "$T/net/" 2> /dev/null
grep -o '"[^"]*\.aut"' "$T/net/milner_n5.exp" | tr -d '"' | sort -u | while read -r a; do
    cp "examples/milner/$a" "$T/net/$a"; done
comp=$(grep -o '"[^"]*\.aut"' "$T/net/milner_n5.exp" | tr -d '"' | head -1)
cp "$T/net/$comp" "$T/comp.before"
expect_rc "explore --aut over a component of the network" 2 "$W" explore "$T/net/milner_n5.exp" --backend cpu -q \
    --aut "$T/net/$comp"
cmp -s "$T/net/$comp" "$T/comp.before" && grep -q 'input' "$T/err" && pass "the component is untouched" \
    || fail "component: $(cat "$T/err")"
expect_rc "explore --scc-out over the .exp" 2 "$W" explore "$T/net/milner_n5.exp" --backend cpu -q --scc \
    --scc-out "$T/net/milner_n5.exp"
cp "$T/g.txt" "$T/g.before"
expect_rc "scc --scc-out over its input" 2 "$W" scc "$T/g.txt" --scc-out "$T/g.txt"
cmp -s "$T/g.txt" "$T/g.before" && pass "scc input untouched" || fail "scc input changed"
expect_rc "check --values over the labels" 2 "$W" check "$T/m.tra" --lab "$T/m.lab" --prop "$P" --values "$T/m.lab"
expect_rc "an output that is a directory" 2 "$W" scc "$T/g.txt" --scc-out "$T"
rm -rf "$T/net"

# ---- interrupts
# start_bg ARGS...: runs warpex in the background with SIGINT at its default
# disposition (a non-interactive shell starts background jobs with SIGINT
# ignored, which warpex keeps, as nohup expects); its pid in $pid.
start_bg() {
    python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$W" "$@" > "$T/out" 2> "$T/err" &
    pid=$!
}
# wait_for PATTERN: until a file of $T/sig matches the glob (at most ~10 s)
wait_for() {
    n=0
    while [ $n -lt 200 ] && [ -z "$(find "$T/sig" -maxdepth 1 -name "$1" | head -1)" ]; do sleep 0.05; n=$((n + 1)); done
}
mkdir "$T/sig"
for b in cpu seq; do
    for s in INT TERM; do
        want=$([ $s = INT ] && echo 130 || echo 143)
        start_bg explore "$T/big.exp" --backend $b --threads 2 --memory 256M --aut "$T/sig/out.aut"
        wait_for '.out.aut.wx-*' # the exploration has started
        sleep 0.5
        kill -$s $pid; wait $pid; rc=$?
        [ "$rc" -eq "$want" ] && pass "SIG$s during explore --backend $b: exit $rc" \
            || fail "SIG$s during explore --backend $b: exit $rc, expected $want; $(tail -c 300 "$T/err")"
        grep -q '^warpex: stopped after [0-9]* states and [0-9]* transitions (incomplete' "$T/err" \
            && grep -q "SIG$s" "$T/err" && pass "SIG$s --backend $b: partial counts, marked incomplete" \
            || fail "SIG$s --backend $b: stderr $(tail -c 300 "$T/err")"
        [ -z "$(ls -A "$T/sig")" ] && pass "SIG$s --backend $b: --aut OUT absent, no temporary" \
            || fail "SIG$s --backend $b: left $(ls -A "$T/sig")"
    done
done
start_bg explore "$T/big.exp" --backend cpu --memory 256M --json --csr "$T/sig/out.csr" --aut "$T/sig/out.aut"
wait_for '.out.aut.wx-*'
sleep 0.5
kill -INT $pid; wait $pid; rc=$?
[ "$rc" -eq 130 ] && expect_json "SIGINT --json: incomplete counts" complete=false status='"interrupted"' \
    || fail "SIGINT --json: exit $rc"
[ "$(json_field states)" -gt 0 ] 2> /dev/null && [ -z "$(ls -A "$T/sig")" ] \
    && pass "SIGINT --json: states counted, no output left" || fail "SIGINT --json: $(cat "$T/out"); $(ls -A "$T/sig")"
# two signals at once: the second ends the process at once (hard path)
start_bg explore "$T/big.exp" --backend cpu --memory 256M -q --aut "$T/sig/out.aut"
wait_for '.out.aut.wx-*'
sleep 0.3
kill -INT $pid; kill -INT $pid; wait $pid; rc=$?
[ "$rc" -eq 130 ] && [ -z "$(ls -A "$T/sig")" ] && pass "two SIGINTs: exit 130, nothing left" \
    || fail "two SIGINTs: exit $rc, left $(ls -A "$T/sig")"
# the MDP explorer (a probabilistic network)
{ echo "des (0, 16, 16)"; i=0; while [ $i -lt 16 ]; do echo "($i, a, $(( (i + 1) % 16 )) 1/2 $i)"; i=$((i + 1)); done; } > "$T/p.aut"
echo '"p.aut" ||| "p.aut" ||| "p.aut" ||| "p.aut" ||| "p.aut" ||| "p.aut"' > "$T/pbig.exp"
start_bg explore "$T/pbig.exp" --backend cpu --memory 128M --mdp-out "$T/sig/mdp"
sleep 0.8
kill -TERM $pid; wait $pid; rc=$?
[ "$rc" -eq 143 ] && grep -q '^warpex: stopped after [0-9]* states and [0-9]* choices (incomplete' "$T/err" \
    && [ -z "$(ls -A "$T/sig")" ] && pass "SIGTERM during the MDP exploration: exit 143, partial counts, no output" \
    || fail "SIGTERM MDP: exit $rc, $(tail -c 300 "$T/err"), left $(ls -A "$T/sig")"
# check (no cooperative path): a random walk on which value iteration is slow
awk 'BEGIN { n = 3000; print n, n, 2 * n - 2
             for (s = 0; s < n; s++) if (s == 0 || s == n - 1) print s, 0, s, 1; else { print s, 0, s - 1, 0.5; print s, 0, s + 1, 0.5 } }' > "$T/rw.tra"
printf '0="init" 1="goal"\n0: 0\n2999: 1\n' > "$T/rw.lab"
for s in INT TERM; do
    want=$([ $s = INT ] && echo 130 || echo 143)
    start_bg check "$T/rw.tra" --lab "$T/rw.lab" --prop "$P" --backend cpu -q --values "$T/sig/values.txt"
    sleep 0.5
    kill -$s $pid; wait $pid; rc=$?
    [ "$rc" -eq "$want" ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "SIG$s" "$T/err" \
        && pass "SIG$s during check --values: exit $rc, one line" \
        || fail "SIG$s during check: exit $rc, stderr $(head -c 300 "$T/err")"
    [ -z "$(ls -A "$T/sig")" ] && pass "SIG$s during check: neither the values file nor a temporary" \
        || fail "SIG$s during check: left $(ls -A "$T/sig")"
done
