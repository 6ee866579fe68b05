#!/bin/sh
# t_readme.sh -- runs the commands of README.md's quick start as written.
# Every line of a ```sh block under the "## Quick start" heading (up to the
# next "## " heading) is one command, run from the repository root; it must
# exit 0, or N when the line ends with the comment "# exit N".  The files the
# commands write under /tmp/wx go to a fresh temporary directory instead, so
# that runs do not share them.
cd "$(dirname "$0")/.." || exit 2
TAG=readme
. tests/lib.sh

awk '
    /^## / { on = ($0 == "## Quick start") }
    on && /^```sh$/ { code = 1; next }
    code && /^```/ { code = 0; next }
    on && code && NF && !/^#/ { print }' README.md > "$T/commands"
n=$(wc -l < "$T/commands")
[ "$n" -ge 10 ] && pass "README quick start: $n commands found" \
    || fail "README quick start: only $n commands found (heading or fences changed?)"

# the quick start needs each main job: one command at least for each
for job in 'explore [^ ]*\.exp' '--aut ' '--csr ' '--scc' '--mec' 'warpex check ' 'cycle-mean'; do
    grep -q -e "$job" "$T/commands" && pass "quick start covers '$job'" \
        || fail "quick start has no command matching '$job'"
done

i=0
while IFS= read -r line; do
    i=$((i + 1))
    want=$(printf '%s\n' "$line" | sed -n 's/.*# exit \([0-9][0-9]*\) *$/\1/p')
    [ -n "$want" ] || want=0
    cmd=$(printf '%s\n' "$line" | sed "s#/tmp/wx#$T/wx#g")
    expect_rc "quick start $i: $line" "$want" sh -c "$cmd"
    [ -s "$T/out" ] || [ "$want" -ne 0 ] || case $line in mkdir*|sh\ *) ;; *)
        fail "quick start $i printed nothing on stdout: $line" ;; esac
done < "$T/commands"

# what the commands wrote is what they say
[ -s "$T/wx/milner.aut" ] && [ -s "$T/wx/milner.csr" ] && pass "quick start wrote milner.aut and milner.csr" \
    || fail "quick start: milner.aut / milner.csr missing"
[ -s "$T/wx/c2.tra" ] && [ -s "$T/wx/c2.lab" ] && pass "quick start wrote c2.tra and c2.lab" \
    || fail "quick start: c2.tra / c2.lab missing"
