# lib.sh -- helpers shared by the shell tests (sourced from the repository
# root, after TAG is set).  Every check prints one "PASS TAG: ..." or
# "FAIL TAG: ..." line for tests/run.sh to count.
W=$PWD/bin/warpex
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS $TAG: $*"; }
fail() { echo "FAIL $TAG: $*"; }
# expect_rc NAME RC COMMAND...: runs COMMAND (stdout in $T/out, stderr in
# $T/err) and checks its exit status.
expect_rc() {
    name=$1; want=$2; shift 2
    "$@" > "$T/out" 2> "$T/err"; got=$?
    if [ "$got" -eq "$want" ]; then pass "$name (exit $got)"; else
        fail "$name: expected exit $want, found $got; stderr: $(head -c 300 "$T/err")"; fi
}
# json_field KEY: the scalar after "KEY": in the last command's JSON output.
json_field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$T/out"; }
# expect_json NAME KEY=VALUE...: every listed field has its value.
expect_json() {
    name=$1; shift
    for fv in "$@"; do
        f=${fv%%=*}; v=${fv#*=}
        got=$(json_field "$f")
        if [ "$got" != "$v" ]; then fail "$name: $f expected $v, found '$got' in $(cat "$T/out")"; return; fi
    done
    pass "$name: $*"
}
# near NAME GOT WANT [TOL]: |GOT - WANT| <= TOL (default 1e-6); an empty GOT fails.
near() {
    if awk -v g="$2" -v w="$3" -v t="${4:-1e-6}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t) }'; then
        pass "$1: $2 (expected $3)"; else fail "$1: '$2', expected $3 within ${4:-1e-6}"; fi
}
# no_temps DIR: true when DIR holds no temporary output file (util/outfile.h
# names them .NAME.wx-XXXXXX next to NAME) and no old-style NAME.tmp.
no_temps() { [ -z "$(find "$1" -maxdepth 1 \( -name '.*.wx-*' -o -name '*.tmp' \) | head -1)" ]; }

# lockstep_net DIR CYCLES: DIR/wide.exp, CYCLES lockstep cycles of 100 states
# (DIR/l*.aut, synchronised on tick0..2) beside two free components of 13
# (DIR/f0.aut, f1.aut, each with a "stopI" move): vectors of 3 words at 9
# cycles, 8 at 30, for the tree store's tests.
lockstep_net() {
    _d=$1 _n=$2 _i=0
    while [ $_i -lt "$_n" ]; do
        { echo "des (0, 100, 100)"; _j=0
          while [ $_j -lt 100 ]; do echo "($_j, \"tick$((_j % 3))\", $(((_j + 1) % 100)))"; _j=$((_j + 1)); done; } > "$_d/l$_i.aut"
        _i=$((_i + 1))
    done
    for _i in 0 1; do
        { echo "des (0, 13, 13)"; _j=0
          while [ $_j -lt 12 ]; do echo "($_j, \"f${_i}x$((_j % 4))\", $(((_j + 1) % 12)))"; _j=$((_j + 1)); done
          echo "(5, \"stop$_i\", 12)"; } > "$_d/f$_i.aut"
    done
    { echo 'par tick0, tick1, tick2 in'; _i=0
      while [ $_i -lt "$_n" ]; do [ $_i -gt 0 ] && echo '||'; echo "\"l$_i.aut\""; _i=$((_i + 1)); done
      echo 'end par'; } > "$_d/lock.exp"
    printf '"lock.exp"\n|||\n"f0.aut"\n|||\n"f1.aut"\n' > "$_d/wide.exp"
}
