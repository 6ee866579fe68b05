/*
 * naive_alpha.c -- each node's static alphabet, the label set
 * over which prio relations and parallel synchronisation are decided.
 *
 * Part of naive.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* -------------------------------------------------------- static alphabets */

/* A node's static alphabet: the labels its transitions can carry, whether or
 * not a reachable state of the whole network shows them, computed on the
 * tree alone (a prio relates these; see naive.h):
 *   leaf      the labels of the transitions reachable from its initial state
 *             in the LTS alone;
 *   hide/cut/rename   each label of the body mapped as a transition would be
 *             (node_relabel), cut labels dropped;
 *   prio      its body's;
 *   vectors   the hidden and asynchronous labels of every operand, and the
 *             result of each vector whose every element some operand label
 *             matches (gate mode: one label per element, all with the same
 *             offers, the result followed by them);
 *   general   the asynchronous labels of every operand, and each other label
 *             L of an operand for which some participant set (general_sets)
 *             has every member's alphabet contain L;
 *   CCS/mCRL  both operands' labels and every communication (comm_of) of a
 *             label of the left one with a label of the right one. */

static void alphabet(struct nx *x, struct nnode *n);

static void al_add(struct nx *x, struct nnode *n, uint32_t id)
{
    nx_grow(x, (void **)&n->alpha, &n->cap_alpha, n->n_alpha + 1, sizeof *n->alpha);
    n->alpha[n->n_alpha++] = id;
}

static bool al_has(const struct nnode *n, uint32_t id)
{
    size_t a = 0, b = n->n_alpha;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (n->alpha[m] < id)
            a = m + 1;
        else
            b = m;
    }
    return a < n->n_alpha && n->alpha[a] == id;
}

/* Has operand o a label that is not asynchronous, whose gate is g and whose
 * offers are `offers`? */
static bool al_has_gate(struct nx *x, const struct nnode *o, uint32_t g, uint32_t offers)
{
    for (size_t i = 0; i < o->n_alpha; i++)
        if (!nx_async(x, o->alpha[i]) && nx_gate(x, o->alpha[i]) == g &&
            nx_offers(x, o->alpha[i]) == offers)
            return true;
    return false;
}

static void alpha_leaf(struct nx *x, struct nnode *n)
{
    n->scratch = nx_calloc(x, n->n_states, 1 + sizeof(uint32_t));
    uint32_t *stack = n->scratch;
    uint8_t *seen = (uint8_t *)(stack + n->n_states);
    size_t top = 0;
    seen[n->initial] = 1;
    stack[top++] = n->initial;
    while (top > 0) {
        uint32_t s = stack[--top];
        for (uint32_t j = n->off[s]; j < n->off[s + 1]; j++) {
            al_add(x, n, n->tlab[j]);
            if (!seen[n->tdst[j]]) {
                seen[n->tdst[j]] = 1;
                stack[top++] = n->tdst[j];
            }
        }
    }
    free(n->scratch);
    n->scratch = NULL;
}

static void alpha_vectors(struct nx *x, struct nnode *n)
{
    for (size_t k = 0; k < n->n_ops; k++)
        for (size_t i = 0; i < n->ops[k]->n_alpha; i++)
            if (nx_async(x, n->ops[k]->alpha[i]))
                al_add(x, n, n->ops[k]->alpha[i]);
    for (size_t v = 0; v < n->n_vecs; v++) {
        const uint32_t *c = n->vcomp + v * n->n_ops;
        size_t first = 0;
        while (first < n->n_ops && c[first] == NX_NONE)
            first++;
        if (first == n->n_ops)
            continue;
        if (n->label_mode) {
            bool all = true;
            for (size_t k = 0; k < n->n_ops && all; k++)
                all = c[k] == NX_NONE || (!nx_async(x, c[k]) && al_has(n->ops[k], c[k]));
            if (all)
                al_add(x, n, n->vres[v]);
            continue;
        }
        const struct nnode *o = n->ops[first];
        for (size_t i = 0; i < o->n_alpha; i++) {
            uint32_t l = o->alpha[i];
            if (nx_async(x, l) || nx_gate(x, l) != c[first])
                continue;
            uint32_t offers = nx_offers(x, l);
            bool all = true;
            for (size_t k = first + 1; k < n->n_ops && all; k++)
                all = c[k] == NX_NONE || al_has_gate(x, n->ops[k], c[k], offers);
            if (all)
                al_add(x, n, cat_label(x, strtab_str(x->tab, n->vres[v]), offers, 0));
        }
    }
}

static void alpha_general(struct nx *x, struct nnode *n)
{
    for (size_t k = 0; k < n->n_ops; k++)
        for (size_t i = 0; i < n->ops[k]->n_alpha; i++) {
            uint32_t l = n->ops[k]->alpha[i];
            if (nx_async(x, l)) {
                al_add(x, n, l);
                continue;
            }
            general_sets(x, n, l);
            for (size_t m = 0; m < x->n_masks; m++) {
                bool all = true;
                for (size_t j = 0; j < n->n_ops && all; j++)
                    all = !(x->masks[m] >> j & 1) || al_has(n->ops[j], l);
                if (all) {
                    al_add(x, n, l);
                    break;
                }
            }
        }
}

static void alpha_comm(struct nx *x, struct nnode *n)
{
    const struct nnode *a = n->ops[0], *b = n->ops[1];
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < n->ops[k]->n_alpha; i++)
            al_add(x, n, n->ops[k]->alpha[i]);
    for (size_t i = 0; i < a->n_alpha; i++)
        for (size_t j = 0; j < b->n_alpha; j++) {
            uint32_t c = comm_of(x, n, a->alpha[i], b->alpha[j]);
            if (c != NX_NONE)
                al_add(x, n, c);
        }
}

/* Computes n->alpha (and its children's) once. */
static void alphabet(struct nx *x, struct nnode *n)
{
    if (n->has_alpha)
        return;
    if (n->body)
        alphabet(x, n->body);
    for (size_t k = 0; k < n->n_ops; k++)
        alphabet(x, n->ops[k]);
    switch (n->kind) {
    case EXP_LEAF:
        alpha_leaf(x, n);
        break;
    case EXP_PRIO:
        for (size_t i = 0; i < n->body->n_alpha; i++)
            al_add(x, n, n->body->alpha[i]);
        break;
    case EXP_HIDE:
    case EXP_CUT:
    case EXP_RENAME:
        for (size_t i = 0; i < n->body->n_alpha; i++) {
            uint32_t l = node_relabel(x, n, n->body->alpha[i]);
            if (l != NX_CUT)
                al_add(x, n, l);
        }
        break;
    case EXP_PAR_VECTORS:
        alpha_vectors(x, n);
        break;
    case EXP_PAR_GENERAL:
        alpha_general(x, n);
        break;
    case EXP_PAR_COMM:
        alpha_comm(x, n);
        break;
    }
    if (n->n_alpha > 1) {
        qsort(n->alpha, n->n_alpha, sizeof *n->alpha, cmp_u32);
        size_t u = 1;
        for (size_t i = 1; i < n->n_alpha; i++)
            if (n->alpha[i] != n->alpha[u - 1])
                n->alpha[u++] = n->alpha[i];
        n->n_alpha = u;
    }
    n->has_alpha = true;
}
