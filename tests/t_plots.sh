#!/bin/sh
# t_plots.sh -- the bench charts and their data (bench/plot.sh), without
# matplotlib:
#   * every bench/data/*.tsv has a header comment naming the script that
#     took its numbers and the chart it feeds, a header line, and rows of
#     that many fields whose numeric columns are numbers;
#   * the derived columns agree with the measured ones (medians, rates,
#     ratios, the fastest of the listed runs), and the rows copied from a
#     bench/RESULTS.md table are still rows of it (or of bench/history/);
#   * every image a page of docs/ (or the README) shows exists and is a PNG
#     under 100 KB, every PNG in docs/img is shown somewhere, and every
#     chart bench/plot.py writes is committed.
#
#   sh tests/t_plots.sh [ROOT]     (default: this repository)
cd "${1:-$(dirname "$0")/..}" || exit 2
TAG=plots
. tests/lib.sh
D=bench/data

# rows FILE: the data lines of FILE (no comments, no header), tab-separated
rows() { grep -v '^#' "$1" | sed 1d; }

# shape FILE COL...: header comment, header line, field counts, numeric COLs
shape() {
    f=$D/$1; shift
    [ -f "$f" ] || { fail "$f missing"; return; }
    if ! grep '^#' "$f" | grep -v '^# Plots:' | grep -q 'bench/[a-z_]*\.sh' ||
        ! grep -q '^# Plots: bench/plot.sh -> docs/img/.*\.png' "$f"; then
        fail "$f: no header comment naming its bench script and its chart"; return
    fi
    msg=$(grep -v '^#' "$f" | awk -F'\t' -v cols="$*" '
        NR == 1 { n = NF; for (i = 1; i <= NF; i++) idx[$i] = i
                  k = split(cols, c, " "); for (j = 1; j <= k; j++) if (!(c[j] in idx)) { print "no column " c[j]; exit } next }
        NF != n { print "data line " NR - 1 ": " NF " fields, header has " n; exit }
        { for (j = 1; j <= k; j++) { v = $idx[c[j]]
              if (v !~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ && v != "-") { print "data line " NR - 1 ": " c[j] " = \"" v "\" is not a number"; exit } } }
        END { if (NR < 2) print "no data rows" }')
    if [ -z "$msg" ]; then pass "$f: $(rows "$f" | wc -l) rows of $(grep -v '^#' "$f" | head -1 | awk -F'\t' '{ print NF }') fields"
    else fail "$f: $msg"; fi
}
shape explorer_h100.tsv states gpu_s gpu_states_per_s cpu16_s cpu16_states_per_s speedup
shape check_vs_storm.tsv session warpex_s storm_s
shape por.tsv states_full states_por states_factor trans_full trans_por trans_factor mstates_s_full mstates_s_por time_ratio
shape tree.tsv words states flat_bytes_per_state tree_bytes_per_state rate_ratio

# close NAME AWK-CONDITION FILE: every row satisfies the condition; rel(a, b)
# is |a - b| / |b|, near1(p, x) says p is x printed with one decimal, and
# fastest(s) is the least of the "/"-separated runs in s
close() {
    bad=$(rows "$D/$3" | awk -F'\t' "
        function rel(a, b) { return (a - b < 0 ? b - a : a - b) / (b < 0 ? -b : b) }
        function near1(p, x) { return (p - x < 0 ? x - p : p - x) <= 0.05 + 1e-9 * x }
        function fastest(s,   r, k, i, m) { k = split(s, r, \"/\"); m = r[1] + 0
            for (i = 2; i <= k; i++) if (r[i] + 0 < m) m = r[i] + 0; return m }
        function median3(s,   r) { if (split(s, r, \"/\") != 3) return -1
            if ((r[1] - r[2]) * (r[1] - r[3]) <= 0) return r[1] + 0
            if ((r[2] - r[1]) * (r[2] - r[3]) <= 0) return r[2] + 0
            return r[3] + 0 }
        { if (!($2)) { print NR \": \" \$0; exit } }" 2>&1) || bad="awk failed: $bad"
    if [ -z "$bad" ]; then pass "$1"; else fail "$1: data row $bad"; fi
}
close "explorer: gpu_s is the median of gpu_runs_s" 'median3($4) == $5 + 0' explorer_h100.tsv
close "explorer: rates are states over seconds, speedup CPU over GPU time" \
    'rel($6, $3 / $5) < 1e-3 && rel($8, $3 / $7) < 1e-3 && near1($9, $7 / $5)' explorer_h100.tsv
close "vs Storm: warpex_s is the fastest of warpex_runs_s" 'fastest($9) == $7 + 0' check_vs_storm.tsv
close "por: factors are full over reduced" 'near1($5, $3 / $4) && near1($8, $6 / $7)' por.tsv

# copied: each row of por.tsv and tree.tsv, and each "repository" row of
# check_vs_storm.tsv, is (part of) a table row of the results
R="bench/RESULTS.md bench/history/*.md"
copied() {
    name=$1; shift
    n=0; miss=
    while IFS= read -r pat; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        grep -qF -- "$pat" $R || { miss=$pat; break; }
    done
    if [ -z "$miss" ] && [ "$n" -gt 0 ]; then pass "$name: $n rows found in the results"
    else fail "$name: not in bench/RESULTS.md or bench/history: '$miss'"; fi
}
rows $D/por.tsv | awk -F'\t' '{ s = "| " $1; for (i = 2; i <= NF; i++) s = s " | " $i; print s " |" }' | copied "por.tsv"
rows $D/tree.tsv | awk -F'\t' '{ print "| " $4 " | " $5 " | " $6 " |" }' | copied "tree.tsv (bytes, rates)"
rows $D/tree.tsv | awk -F'\t' '{ print "| " $1 " | " $2 " | " }' | copied "tree.tsv (networks)"
# the repository rows: instance, property, warpex after and Storm as in one
# row of the twelfth session's table (| instance | `property` | before | after | Storm |)
# shellcheck disable=SC2086
bad=$( { rows $D/check_vs_storm.tsv; echo "@@"; cat $R; } | awk -F'\t' '
    $0 == "@@" { past = 1; FS = "|"; next }
    !past { if ($3 == "repository") { want[$4 " | `" $5 "`"] = $7 " " $8; n++ } next }
    { k = $2 " | " $3; gsub(/^ +| +$/, "", k); sub(/ +\| +/, " | ", k)
      if (k in want) { v = $5 " " $6; gsub(/  +/, " ", v); sub(/^ /, "", v); sub(/ $/, "", v)
                       if (v == want[k]) found[k] = 1 } }
    END { for (k in want) if (!(k in found)) { print k " " want[k]; exit }
          if (!n) print "no repository rows" }')
if [ -z "$bad" ]; then pass "check_vs_storm.tsv: every repository row's times are in a results row"
else fail "check_vs_storm.tsv: not in bench/RESULTS.md or bench/history: $bad"; fi
rows $D/explorer_h100.tsv | awk -F'\t' '{ printf "| %s %s | %s |\n", $1, $2, $3 }' |
    sed 's/| \([0-9]\{1,3\}\)\([0-9]\{3\}\)\([0-9]\{3\}\) |/| \1 \2 \3 |/' | copied "explorer_h100.tsv (states)"

# images shown in the docs: ![alt](PATH) and src="PATH", relative to the page
: > "$T/shown"
for page in README.md docs/*.md; do
    [ -f "$page" ] || continue
    dir=$(dirname "$page")
    grep -o '!\[[^]]*\]([^)]*)\|src="[^"]*"' "$page" | sed 's/.*(\(.*\))$/\1/; s/^src="\(.*\)"$/\1/' |
        while IFS= read -r img; do
            case $img in http*) continue ;; esac
            echo "$page $dir/$img"
        done >> "$T/shown"
done
n=$(wc -l < "$T/shown")
bad=$(while read -r page img; do
    if ! [ -f "$img" ]; then echo "$page shows $img, which does not exist"
    elif [ "$(head -c 8 "$img" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then echo "$page: $img is not a PNG"
    elif [ "$(wc -c < "$img")" -ge 102400 ]; then echo "$page: $img is 100 KB or more"
    fi; done < "$T/shown")
if [ "$n" -gt 0 ] && [ -z "$bad" ]; then pass "$n images shown in docs/ exist (PNG, < 100 KB)"
else fail "images in docs: ${bad:-none shown}"; fi

# every chart is shown, and every chart plot.py writes is committed
for png in docs/img/*.png; do
    [ -f "$png" ] || continue
    b=$(basename "$png")
    if awk -v b="$b" '{ n = split($2, p, "/"); if (p[n] == b) f = 1 } END { exit !f }' "$T/shown"; then
        pass "$png is shown in the docs"
    else fail "$png is shown by no page of docs/"; fi
done
for png in $(grep -o '"[a-z_0-9]*\.png"' bench/plot.py | tr -d '"'); do
    if [ -f "docs/img/$png" ]; then pass "bench/plot.py's $png is committed in docs/img"
    else fail "bench/plot.py writes $png, missing from docs/img"; fi
done
