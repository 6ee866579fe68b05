# prob_gen.sh -- random probabilistic networks for the shell tests (sourced).
# gen SEED DIR: 1-3 components of 1-4 states; labels i and c interleave, a and
# b synchronise a random set of components; targets are distributions over
# up to three states with weights 1..3 (or single states); i is hidden.
gen() {
    awk -v seed="$1" -v dir="$2" 'BEGIN {
        srand(seed); nc = 1 + int(rand() * 3); split("i a b c", L, " ")
        for (c = 1; c <= nc; c++) {
            n = 1 + int(rand() * 4); m = int(rand() * 8); f = dir "/p" c ".aut"
            if (c == 1) { n += n < 2; m += m < 1 } # p1 has a distribution: the first line
            printf "des (0, %d, %d)\n", m, n > f
            for (j = 0; j < m; j++) {
                s = int(rand() * n); l = L[1 + int(rand() * 4)]
                if (c == 1 && j == 0) { l = "c"; s = 0 } # reachable and interleaved: kept
                k = n > 1 && (rand() < 0.6 || (c == 1 && j == 0)) ? 2 + int(rand() * 2) : 1; d = ""; tot = 0
                for (q = 1; q <= k; q++) { w[q] = 1 + int(rand() * 3); tot += w[q] }
                for (q = 1; q <= k; q++) {
                    d = d (q > 1 ? " " : "") (c == 1 && j == 0 && q <= 2 ? q - 1 : int(rand() * n))
                    if (q < k) d = d " " w[q] "/" tot
                }
                printf "(%d, %s, %s)\n", s, l, d > f
            }
            close(f)
        }
        e = dir "/net.exp"; printf "label par using\n" > e; sep = "  "
        for (c = 1; c <= nc; c++) for (li = 4; li <= 4; li++) {
            v = ""; for (x = 1; x <= nc; x++) v = v (x > 1 ? " * " : "") (x == c ? L[li] : "_")
            printf "%s%s -> %s\n", sep, v, L[li] > e; sep = ", "
        }
        for (li = 2; li <= 3; li++) {
            v = ""; any = 0
            for (x = 1; x <= nc; x++) { p = rand() < 0.7 || (x == nc && !any); any += p; v = v (x > 1 ? " * " : "") (p ? L[li] : "_") }
            printf "%s%s -> %s\n", sep, v, L[li] > e
        }
        printf "in" > e
        for (c = 1; c <= nc; c++) printf "%s \"p%d.aut\"", (c > 1 ? " ||" : ""), c > e
        printf "\nend par\n" > e
    }'
}
