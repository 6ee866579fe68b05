/*
 * naive_succ.c -- the operators' successors: the transitions of
 * each EXP node from a state vector (leaves, hide/cut/rename, prio,
 * vector, general and CCS/mCRL parallel composition).
 *
 * Part of naive.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* -------------------------------------------------------------- successors */

static void succ(struct nx *x, struct nnode *n, const uint32_t *vec);

/* Emits one par transition: the node's slice with operand k's slices
 * replaced by the chosen transitions chosen[k] (SIZE_MAX = does not move). */
static void par_emit(struct nx *x, struct nnode *n, const uint32_t *vec, const size_t *chosen,
                     uint32_t lab)
{
    uint32_t w = n->hi - n->lo;
    uint32_t *dst = tl_push(x, &n->out, lab);
    memcpy(dst, vec + n->lo, w * sizeof *dst);
    for (size_t k = 0; k < n->n_ops; k++) {
        if (chosen[k] == SIZE_MAX)
            continue;
        struct nnode *o = n->ops[k];
        memcpy(dst + (o->lo - n->lo), o->out.vec + chosen[k] * o->out.width,
               (o->hi - o->lo) * sizeof *dst);
    }
}

/* Vector enumeration: participant positions part[0..np), choice so far. */
static void vec_rec(struct nx *x, struct nnode *n, const uint32_t *vec, size_t v,
                    const size_t *part, size_t np, size_t i, size_t *chosen, uint32_t offers)
{
    if (i == np) {
        uint32_t res = n->vres[v];
        if (!n->label_mode && offers != NX_NONE) {
            /* gate mode: R followed by the participants' common offers */
            size_t rl = strtab_len(x->tab, res), ol = strtab_len(x->tab, offers);
            char *t = nx_realloc(x, NULL, rl + ol + 1);
            memcpy(t, strtab_str(x->tab, res), rl);
            memcpy(t + rl, strtab_str(x->tab, offers), ol);
            t[rl + ol] = 0;
            uint32_t id = strtab_intern(x->tab, t, rl + ol);
            free(t);
            if (id == UINT32_MAX)
                nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
            res = id;
        }
        par_emit(x, n, vec, chosen, res);
        return;
    }
    size_t k = part[i];
    uint32_t want = n->vcomp[v * n->n_ops + k];
    struct tlist *t = &n->ops[k]->out;
    for (size_t j = 0; j < t->n; j++) {
        uint32_t lab = t->lab[j];
        if (nx_async(x, lab))
            continue;
        uint32_t off = offers;
        if (n->label_mode) {
            if (lab != want)
                continue;
        } else {
            if (nx_gate(x, lab) != want)
                continue;
            uint32_t o = nx_offers(x, lab);
            if (i > 0 && o != offers)
                continue;
            off = o;
        }
        chosen[k] = j;
        vec_rec(x, n, vec, v, part, np, i + 1, chosen, off);
        chosen[k] = SIZE_MAX;
    }
}

static void succ_vectors(struct nx *x, struct nnode *n, const uint32_t *vec, size_t *chosen,
                         size_t *part)
{
    for (size_t k = 0; k < n->n_ops; k++) {
        struct tlist *t = &n->ops[k]->out;
        for (size_t j = 0; j < t->n; j++) {
            if (!nx_async(x, t->lab[j]))
                continue;
            chosen[k] = j;
            par_emit(x, n, vec, chosen, t->lab[j]);
            chosen[k] = SIZE_MAX;
        }
    }
    for (size_t v = 0; v < n->n_vecs; v++) {
        size_t np = 0;
        for (size_t k = 0; k < n->n_ops; k++)
            if (n->vcomp[v * n->n_ops + k] != NX_NONE)
                part[np++] = k;
        if (np > 0)
            vec_rec(x, n, vec, v, part, np, 0, chosen, NX_NONE);
    }
}

static void add_mask(struct nx *x, uint64_t m)
{
    if (!m)
        return;
    nx_grow(x, (void **)&x->masks, &x->cap_masks, x->n_masks + 1, sizeof *x->masks);
    x->masks[x->n_masks++] = m;
}

/* Adds every subset of `elig` with exactly `size` members. */
static void add_subsets(struct nx *x, uint64_t elig, int size)
{
    if (size <= 0)
        return;
    for (uint64_t s = elig;; s = (s - 1) & elig) {
        if (s && __builtin_popcountll(s) == size)
            add_mask(x, s);
        if (!s)
            break;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Participant sets of label `lab` in a generalised par (see naive.h). */
static void general_sets(struct nx *x, struct nnode *n, uint32_t lab)
{
    x->n_masks = 0;
    uint64_t all = n->n_ops == 64 ? ~0ull : (1ull << n->n_ops) - 1;
    if (nx_is_term(x, lab)) {
        add_mask(x, all);
        return;
    }
    uint32_t key = n->label_mode ? lab : nx_gate(x, lab);
    bool in_global = n->global_all;
    if (n->global_all)
        add_mask(x, all);
    for (size_t e = 0; e < n->n_glob; e++) {
        if (n->glob[e].key != key)
            continue;
        in_global = true;
        if (n->glob[e].degree < 0)
            add_mask(x, all);
        else
            add_subsets(x, all, n->glob[e].degree);
    }
    /* local elements: group by degree */
    for (size_t k = 0; k < n->n_ops; k++) {
        bool in_local = false;
        for (size_t e = 0; e < n->n_lif[k]; e++) {
            if (n->lif[k][e].key != key)
                continue;
            in_local = true;
            int d = n->lif[k][e].degree;
            uint64_t elig = 0;       /* operands listing the same element */
            for (size_t j = 0; j < n->n_ops; j++)
                for (size_t f = 0; f < n->n_lif[j]; f++)
                    if (n->lif[j][f].key == key && n->lif[j][f].degree == d)
                        elig |= 1ull << j;
            if (d < 0)
                add_mask(x, elig);
            else
                add_subsets(x, elig, d);
        }
        if (!in_global && !in_local)
            add_mask(x, 1ull << k);
    }
    if (x->n_masks > 1) {
        qsort(x->masks, x->n_masks, sizeof *x->masks, cmp_u64);
        size_t u = 1;
        for (size_t i = 1; i < x->n_masks; i++)
            if (x->masks[i] != x->masks[u - 1])
                x->masks[u++] = x->masks[i];
        x->n_masks = u;
    }
}

/* Cartesian product over the members of `mask` of their `lab` transitions. */
static void general_rec(struct nx *x, struct nnode *n, const uint32_t *vec, uint64_t mask,
                        uint32_t lab, size_t k, size_t *chosen)
{
    while (k < n->n_ops && !(mask >> k & 1))
        k++;
    if (k == n->n_ops) {
        par_emit(x, n, vec, chosen, lab);
        return;
    }
    struct tlist *t = &n->ops[k]->out;
    for (size_t j = 0; j < t->n; j++) {
        if (t->lab[j] != lab)
            continue;
        chosen[k] = j;
        general_rec(x, n, vec, mask, lab, k + 1, chosen);
        chosen[k] = SIZE_MAX;
    }
}

static void succ_general(struct nx *x, struct nnode *n, const uint32_t *vec, size_t *chosen)
{
    x->n_labs = 0;
    for (size_t k = 0; k < n->n_ops; k++) {
        struct tlist *t = &n->ops[k]->out;
        for (size_t j = 0; j < t->n; j++) {
            if (nx_async(x, t->lab[j])) {
                chosen[k] = j;
                par_emit(x, n, vec, chosen, t->lab[j]);
                chosen[k] = SIZE_MAX;
                continue;
            }
            nx_grow(x, (void **)&x->labs, &x->cap_labs, x->n_labs + 1, sizeof *x->labs);
            x->labs[x->n_labs++] = t->lab[j];
        }
    }
    /* x->labs / x->masks are shared scratch: copy the label list first */
    size_t nl = x->n_labs;
    uint32_t *labs = nx_realloc(x, NULL, (nl ? nl : 1) * sizeof *labs);
    if (nl) {
        memcpy(labs, x->labs, nl * sizeof *labs);
        qsort(labs, nl, sizeof *labs, cmp_u32);
    }
    for (size_t i = 0; i < nl; i++) {
        if (i > 0 && labs[i] == labs[i - 1])
            continue;
        general_sets(x, n, labs[i]);
        for (size_t m = 0; m < x->n_masks; m++)
            general_rec(x, n, vec, x->masks[m], labs[i], 0, chosen);
    }
    free(labs);
}

/* The label whose text is `pre` followed by the text of `id` minus its
 * first `skip` bytes (a CCS co-name, or an mCRL result with offers). */
static uint32_t cat_label(struct nx *x, const char *pre, uint32_t id, size_t skip)
{
    size_t pl = strlen(pre), il = strtab_len(x->tab, id) - skip;
    char *t = nx_realloc(x, NULL, pl + il + 1);
    memcpy(t, pre, pl);
    memcpy(t + pl, strtab_str(x->tab, id) + skip, il);
    t[pl + il] = 0;
    uint32_t r = strtab_intern(x->tab, t, pl + il);
    free(t);
    if (r == UINT32_MAX)
        nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
    return r;
}

/* The label two operand transitions a, b communicate to, or NX_NONE. */
static uint32_t comm_of(struct nx *x, struct nnode *n, uint32_t a, uint32_t b)
{
    if (a == x->hidden || b == x->hidden || nx_async(x, a) || nx_async(x, b))
        return NX_NONE;
    if (n->ccs) {
        const char *t = strtab_str(x->tab, a);
        uint32_t co = t[0] == '\'' ? cat_label(x, "", a, 1) : cat_label(x, "'", a, 0);
        return co == b ? x->hidden : NX_NONE;
    }
    if (nx_offers(x, a) != nx_offers(x, b))
        return NX_NONE;
    uint32_t ga = nx_gate(x, a), gb = nx_gate(x, b);
    for (size_t i = 0; i < n->n_comm; i++) {
        if ((ga == n->comm_a[i] && gb == n->comm_b[i]) ||
            (ga == n->comm_b[i] && gb == n->comm_a[i]))
            return cat_label(x, strtab_str(x->tab, n->comm_c[i]), nx_offers(x, a), 0);
    }
    return NX_NONE;
}

/* CCS | and mCRL ||: every transition of either side, plus each pair of
 * transitions that communicate. */
static void succ_comm(struct nx *x, struct nnode *n, const uint32_t *vec, size_t *chosen)
{
    for (size_t k = 0; k < 2; k++) {
        struct tlist *t = &n->ops[k]->out;
        for (size_t j = 0; j < t->n; j++) {
            chosen[k] = j;
            par_emit(x, n, vec, chosen, t->lab[j]);
            chosen[k] = SIZE_MAX;
        }
    }
    struct tlist *l = &n->ops[0]->out, *r = &n->ops[1]->out;
    for (size_t i = 0; i < l->n; i++) {
        for (size_t j = 0; j < r->n; j++) {
            uint32_t c = comm_of(x, n, l->lab[i], r->lab[j]);
            if (c == NX_NONE)
                continue;
            chosen[0] = i, chosen[1] = j;
            par_emit(x, n, vec, chosen, c);
            chosen[0] = chosen[1] = SIZE_MAX;
        }
    }
}

/* prio: a transition of the body fires unless the body also has, in the same
 * state, a transition whose label is above its own. */
static void succ_prio(struct nx *x, struct nnode *n, const uint32_t *vec)
{
    succ(x, n->body, vec);
    struct tlist *b = &n->body->out;
    for (size_t j = 0; j < b->n; j++) {
        uint32_t l = b->lab[j];
        uint32_t u = l < n->uidx_n ? n->uidx[l] : NX_NONE;
        if (u == NX_NONE)
            nx_fail(x, WX_EINPUT, &n->loc,
                    "oracle: label '%s' missing from the prio body's alphabet",
                    strtab_str(x->tab, l));
        bool blocked = false;
        for (size_t i = 0; i < b->n && !blocked; i++) {
            uint32_t h = b->lab[i];
            uint32_t v = h < n->uidx_n ? n->uidx[h] : NX_NONE;
            blocked = v != NX_NONE && n->above[(size_t)v * n->n_names + u];
        }
        if (blocked)
            continue;
        uint32_t *d = tl_push(x, &n->out, l);
        memcpy(d, b->vec + j * b->width, b->width * sizeof *d);
    }
}

static void succ(struct nx *x, struct nnode *n, const uint32_t *vec)
{
    tl_reset(&n->out, n->hi - n->lo);
    switch (n->kind) {
    case EXP_PRIO:
        succ_prio(x, n, vec);
        break;
    case EXP_LEAF: {
        uint32_t s = vec[n->lo];
        for (uint32_t j = n->off[s]; j < n->off[s + 1]; j++)
            *tl_push(x, &n->out, n->tlab[j]) = n->tdst[j];
        break;
    }
    case EXP_HIDE:
    case EXP_CUT:
    case EXP_RENAME: {
        succ(x, n->body, vec);
        struct tlist *b = &n->body->out;
        for (size_t j = 0; j < b->n; j++) {
            uint32_t l = node_relabel(x, n, b->lab[j]);
            if (l == NX_CUT)
                continue;
            uint32_t *d = tl_push(x, &n->out, l);
            memcpy(d, b->vec + j * b->width, b->width * sizeof *d);
        }
        break;
    }
    case EXP_PAR_VECTORS:
    case EXP_PAR_GENERAL:
    case EXP_PAR_COMM: {
        for (size_t k = 0; k < n->n_ops; k++)
            succ(x, n->ops[k], vec);
        /* scratch for the recursion; freed right away, so allocation
         * failure inside leaks at most these two blocks */
        size_t *chosen = nx_realloc(x, NULL, 2 * n->n_ops * sizeof *chosen);
        for (size_t k = 0; k < n->n_ops; k++)
            chosen[k] = SIZE_MAX;
        if (n->kind == EXP_PAR_VECTORS)
            succ_vectors(x, n, vec, chosen, chosen + n->n_ops);
        else if (n->kind == EXP_PAR_COMM)
            succ_comm(x, n, vec, chosen);
        else
            succ_general(x, n, vec, chosen);
        free(chosen);
        break;
    }
    }
}
