/*
 * precompute.c -- PRECOMPUTATION of test_gpu_valiter.c:
 * random MDPs and the reference Prob0A/0E/1A/1E fixpoints, against the
 * GPU's sets.
 *
 * Part of test_gpu_valiter.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ======================================================================
 * Random MDPs
 * ====================================================================== */

enum { MK_MIXED, MK_DET, MK_NONDET, MK_CLUSTER, MK_ABSORB, MK_CHAIN, MK_SPARSE, MK_LARGE, MK_KINDS };
static const char *const mk_name[] = {"mixed", "deterministic", "nondeterministic", "end-components",
                                      "absorbing", "chain", "sparse-target", "large"};

/* Builds a random MDP of kind k plus allowed (or NULL) and target sets. */
static void gen_mdp(struct rng *r, int k, struct mdp *m, uint8_t **allowed, uint8_t **target)
{
    uint32_t n;
    switch (k) {
    case MK_LARGE: n = 1000 + rndu(r, quick ? 500 : 4000); break;
    case MK_CHAIN: n = 20 + rndu(r, 300); break;
    default: n = 1 + rndu(r, quick ? 30 : 120); break;
    }
    uint32_t csize = k == MK_CLUSTER ? 2 + rndu(r, 6) : 1;
    /* first pass: choice and entry counts */
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss);
    uint32_t *nch = xmalloc(n * sizeof *nch);
    uint64_t nc = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t c;
        switch (k) {
        case MK_DET: c = rndu(r, 20) ? 1 : 0; break;
        case MK_NONDET: c = 5 + rndu(r, 16); break;
        case MK_ABSORB: c = 1 + rndu(r, 3); break;
        case MK_CHAIN: c = 1 + rndu(r, 2); break;
        default: c = rndu(r, 10) ? 1 + rndu(r, 4) : 0; break; /* ~10% deadlocks */
        }
        nch[s] = c;
        ss[s] = nc;
        nc += c;
    }
    ss[n] = nc;
    uint64_t *cs = xmalloc((nc + 1) * sizeof *cs);
    uint32_t *ne_of = xmalloc((nc ? nc : 1) * sizeof *ne_of);
    uint64_t ne = 0;
    for (uint64_t c = 0; c < nc; c++) {
        uint32_t e = k == MK_DET ? 1 + rndu(r, 3) : 1 + rndu(r, rndu(r, 4) ? 3 : 8);
        ne_of[c] = e;
        cs[c] = ne;
        ne += e;
    }
    cs[nc] = ne;
    uint32_t *tg = xmalloc((ne ? ne : 1) * sizeof *tg);
    double *pr = xmalloc((ne ? ne : 1) * sizeof *pr);
    /* absorbing states: one probability-1 self-loop choice */
    uint8_t *absorb = calloc(n, 1);
    if (k == MK_ABSORB)
        for (uint32_t s = 0; s < n; s++)
            absorb[s] = rndu(r, 3) == 0;
    for (uint32_t s = 0; s < n; s++) {
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            double sum = 0;
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                uint32_t t;
                if (absorb[s])
                    t = s;
                else if (k == MK_CLUSTER && rndu(r, 12)) /* mostly inside the cluster */
                    t = (s / csize) * csize + rndu(r, csize);
                else if (k == MK_CHAIN)
                    t = rndu(r, 4) ? (s + 1 < n ? s + 1 : s) : (rndu(r, 2) ? s : rndu(r, s + 1));
                else if (rndu(r, 6) == 0)
                    t = s; /* self-loop */
                else if (e > cs[c] && rndu(r, 10) == 0)
                    t = tg[e - 1]; /* duplicate entry */
                else
                    t = rndu(r, n);
                if (t >= n)
                    t = n - 1;
                tg[e] = t;
                pr[e] = 0.05 + rndf(r);
                sum += pr[e];
            }
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
                pr[e] /= sum;
        }
    }
    m->n_states = n, m->n_choices = nc, m->n_entries = ne;
    m->state_start = ss, m->choice_start = cs, m->targets = tg, m->probs = pr, m->is_dtmc = 0;
    *target = xmalloc(n);
    uint32_t tdens = k == MK_SPARSE ? 40 : 3 + rndu(r, 12);
    for (uint32_t s = 0; s < n; s++)
        (*target)[s] = rndu(r, tdens) == 0;
    if (k == MK_CHAIN) /* reach the end of the chain */
        (*target)[n - 1] = 1;
    *allowed = NULL;
    if (rndu(r, 2) || k == MK_SPARSE) {
        *allowed = xmalloc(n);
        uint32_t keep = 60 + rndu(r, 40);
        for (uint32_t s = 0; s < n; s++)
            (*allowed)[s] = rndu(r, 100) < keep;
    }
    free(nch);
    free(ne_of);
    free(absorb);
}

/* ======================================================================
 * Reference precomputation: the textbook fixpoints, iterated naively
 * (every round re-examines every state) until nothing changes.
 * ====================================================================== */

static int ref_elig(const uint8_t *allowed, const uint8_t *target, uint64_t s)
{
    return (!allowed || allowed[s]) && !target[s];
}

/* s in R when some choice (usable) has an entry into R; seeds given in r. */
static void ref_exists(const struct mdp *m, const uint8_t *allowed, const uint8_t *target, const uint8_t *usable,
                       uint8_t *r)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint64_t s = 0; s < m->n_states; s++) {
            if (r[s] || !ref_elig(allowed, target, s))
                continue;
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1] && !r[s]; c++) {
                if (usable && !usable[c])
                    continue;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                    if (r[m->targets[e]]) {
                        r[s] = 1, changed = 1;
                        break;
                    }
            }
        }
    }
}

static void ref_precompute(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp which, uint8_t *out, int *formulations_agree)
{
    uint64_t n = m->n_states;
    uint8_t *r = xmalloc(n), *u = xmalloc(n), *v = xmalloc(n);
    uint8_t *usable = xmalloc(m->n_choices);
    switch (which) {
    case VI_PMAX0: /* Pmax > 0: least fixpoint, some choice reaches R */
        memcpy(r, target, n);
        ref_exists(m, allowed, target, NULL, r);
        for (uint64_t s = 0; s < n; s++)
            out[s] = !r[s];
        break;
    case VI_PMIN0: /* Pmin > 0: least fixpoint, every choice (at least one) reaches R */
        memcpy(r, target, n);
        for (int changed = 1; changed;) {
            changed = 0;
            for (uint64_t s = 0; s < n; s++) {
                uint64_t c0 = m->state_start[s], c1 = m->state_start[s + 1];
                if (r[s] || !ref_elig(allowed, target, s) || c0 == c1)
                    continue;
                int all = 1;
                for (uint64_t c = c0; c < c1 && all; c++) {
                    int hit = 0;
                    for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                        hit |= r[m->targets[e]];
                    all = hit;
                }
                if (all)
                    r[s] = 1, changed = 1;
            }
        }
        for (uint64_t s = 0; s < n; s++)
            out[s] = !r[s];
        break;
    case VI_PMAX1: /* nu U. mu V. T + {s eligible : exists c: succ(c) in U and succ(c) meets V} */
        memset(u, 1, n);
        for (;;) {
            for (uint64_t c = 0; c < m->n_choices; c++) {
                usable[c] = 1;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                    usable[c] &= u[m->targets[e]];
            }
            memcpy(v, target, n);
            ref_exists(m, allowed, target, usable, v);
            if (!memcmp(u, v, n))
                break;
            memcpy(u, v, n);
        }
        memcpy(out, u, n);
        break;
    case VI_PMIN1: {
        /* (a) PRISM's nested fixpoint: nu U. mu V. T + {s eligible with a
         * choice : for all c: succ(c) in U and succ(c) meets V} */
        memset(u, 1, n);
        for (;;) {
            memcpy(v, target, n);
            for (int changed = 1; changed;) {
                changed = 0;
                for (uint64_t s = 0; s < n; s++) {
                    uint64_t c0 = m->state_start[s], c1 = m->state_start[s + 1];
                    if (v[s] || !ref_elig(allowed, target, s) || c0 == c1)
                        continue;
                    int all = 1;
                    for (uint64_t c = c0; c < c1 && all; c++) {
                        int in_u = 1, meets = 0;
                        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                            in_u &= u[m->targets[e]], meets |= v[m->targets[e]];
                        all = in_u && meets;
                    }
                    if (all)
                        v[s] = 1, changed = 1;
                }
            }
            if (!memcmp(u, v, n))
                break;
            memcpy(u, v, n);
        }
        memcpy(out, u, n);
        /* (b) complement of the states that reach Prob0E's set through eligible states */
        ref_precompute(m, allowed, target, VI_PMIN0, r, NULL);
        ref_exists(m, allowed, target, NULL, r);
        int agree = 1;
        for (uint64_t s = 0; s < n; s++)
            agree &= out[s] == !r[s];
        if (formulations_agree)
            *formulations_agree = agree;
        break;
    }
    }
    free(r), free(u), free(v), free(usable);
}

static const char *const which_name[] = {"Pmax=0 (Prob0A)", "Pmin=0 (Prob0E)", "Pmax=1 (Prob1E)", "Pmin=1 (Prob1A)"};

static uint64_t first_diff(const uint8_t *a, const uint8_t *b, uint64_t n)
{
    for (uint64_t s = 0; s < n; s++)
        if (a[s] != b[s])
            return s;
    return n;
}

static void precompute_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    struct mdp m;
    uint8_t *allowed, *target;
    gen_mdp(&r, k, &m, &allowed, &target);
    uint64_t n = m.n_states;
    uint8_t *ref = xmalloc(n), *got = xmalloc(n);
    char tag[200];
    snprintf(tag, sizeof tag, "precompute %s seed=%llu n=%llu choices=%llu entries=%llu allowed=%s",
             mk_name[k], (unsigned long long)seed, (unsigned long long)n, (unsigned long long)m.n_choices,
             (unsigned long long)m.n_entries, allowed ? "subset" : "all");
    int ok = 1;
    char why[1200] = "";
    for (int w = VI_PMAX0; w <= VI_PMIN1; w++) {
        int agree = 1;
        ref_precompute(&m, allowed, target, (enum vi_precomp)w, ref, &agree);
        if (!agree) {
            ok = 0;
            snprintf(why, sizeof why, "the two reference formulations of Prob1A disagree");
            break;
        }
        struct wx_error err;
        wx_error_clear(&err);
        memset(got, 0xee, n);
        int rc = ref_only ? 0 : valiter_precompute_gpu(&m, allowed, target, (enum vi_precomp)w, got, &err);
        uint64_t d = rc ? 0 : first_diff(ref, got, n);
        if (!ref_only && (rc || d < n)) {
            ok = 0;
            if (rc)
                snprintf(why, sizeof why, "%s: GPU returned %d: %s", which_name[w], rc, err.msg);
            else
                snprintf(why, sizeof why, "%s: state %llu expected %d, GPU %d", which_name[w],
                         (unsigned long long)d, ref[d], got[d]);
            break;
        }
#ifdef HAVE_VALITER_CPU
        memset(got, 0xee, n);
        rc = valiter_precompute_cpu(&m, allowed, target, (enum vi_precomp)w, got, &err);
        d = rc ? 0 : first_diff(ref, got, n);
        if (rc || d < n) {
            ok = 0;
            if (rc)
                snprintf(why, sizeof why, "%s: CPU twin returned %d: %s", which_name[w], rc, err.msg);
            else
                snprintf(why, sizeof why, "%s: state %llu expected %d, CPU twin %d", which_name[w],
                         (unsigned long long)d, ref[d], got[d]);
            break;
        }
#endif
    }
    check(ok, "%s: four sets identical%s%s", tag, ok ? "" : ": ", why);
    free(ref), free(got), free(allowed), free(target);
    mdp_free(&m);
}
