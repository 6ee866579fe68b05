/*
 * treeshape.c -- tree shapes for the tree store: the balanced one and the
 * greedy choice from a sample (treeshape.h).
 */
#include "treeshape.h"

#include <stdlib.h>
#include <string.h>

static void balanced(uint32_t n, struct tree_shape *sh, uint32_t *pos)
{
    if (n < 2)
        return;
    const uint32_t nl = (n + 1) / 2;
    sh->left[(*pos)++] = (uint8_t)nl;
    balanced(nl, sh, pos);
    balanced(n - nl, sh, pos);
}

void tree_shape_balanced(uint32_t words, struct tree_shape *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->words = words;
    for (uint32_t i = 0; i < words; i++)
        sh->perm[i] = (uint8_t)i;
    uint32_t pos = 0;
    balanced(words, sh, &pos);
}

/* Checks the subtree of n leaves at internal node *pos. */
static bool valid_sub(const struct tree_shape *sh, uint32_t n, uint32_t *pos)
{
    if (n < 2)
        return true;
    if (*pos >= sh->words - 1)
        return false;
    const uint32_t nl = sh->left[(*pos)++];
    return nl >= 1 && nl < n && valid_sub(sh, nl, pos) && valid_sub(sh, n - nl, pos);
}

bool tree_shape_valid(const struct tree_shape *sh)
{
    if (sh->words == 0 || sh->words > TREE_SHAPE_MAX_WORDS)
        return false;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < sh->words; i++) {
        if (sh->perm[i] >= sh->words || (seen >> sh->perm[i] & 1))
            return false;
        seen |= 1ull << sh->perm[i];
    }
    uint32_t pos = 0;
    return valid_sub(sh, sh->words, &pos) && pos == sh->words - 1;
}

/* The operand that leaves [lo, lo + n) fold to, their inner nodes
 * appended to o in postorder; *pos walks sh->left in preorder. */
static uint8_t postorder(const struct tree_shape *sh, uint32_t lo, uint32_t n, uint32_t *pos,
                         struct tree_shape_order *o)
{
    if (n == 1)
        return sh->perm[lo];
    const uint32_t nl = sh->left[(*pos)++];
    const uint8_t a = postorder(sh, lo, nl, pos, o);
    const uint8_t b = postorder(sh, lo + nl, n - nl, pos, o);
    o->a[o->inner] = a;
    o->b[o->inner] = b;
    return (uint8_t)(TREE_SHAPE_NODE + o->inner++);
}

void tree_shape_postorder(const struct tree_shape *sh, struct tree_shape_order *o)
{
    memset(o, 0, sizeof *o);
    uint32_t pos = 0;
    (void)postorder(sh, 0, sh->words, &pos, o);
}

/* ---- the greedy choice ---- */

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t join(uint64_t a, uint64_t b) { return mix(a * 0x9e3779b97f4a7c15ull ^ b); }

/* A subtree of the forest: a leaf (word) or the join of two subtrees, with
 * the hash of its words' values in each sampled vector. */
struct sub {
    int child[2];       /* -1 for a leaf */
    uint32_t leaves, low; /* leaves; the lowest word below */
    uint64_t *h;        /* n hashes; NULL once joined into a parent */
};

struct picker {
    size_t n;
    struct sub *subs;   /* 2 * words - 1 */
    uint64_t *set;      /* nset slots, for counting distinct hashes */
    size_t nset;
};

/* Distinct values of the join of subtrees a and b over the sample. */
static uint64_t joint_count(struct picker *p, int a, int b)
{
    memset(p->set, 0, p->nset * sizeof *p->set);
    const uint64_t *ha = p->subs[a].h, *hb = p->subs[b].h;
    uint64_t count = 0;
    for (size_t i = 0; i < p->n; i++) {
        const uint64_t v = join(ha[i], hb[i]) | 1; /* 0 marks an empty slot */
        size_t j = v & (p->nset - 1);
        while (p->set[j] && p->set[j] != v)
            j = (j + 1) & (p->nset - 1);
        if (!p->set[j])
            p->set[j] = v, count++;
    }
    return count;
}

/* Whether joining (a, b) at `cost` beats the best so far. */
static bool better(const struct picker *p, int a, int b, uint64_t cost, int ba, int bb, uint64_t bcost)
{
    if (ba < 0 || cost != bcost)
        return ba < 0 || cost < bcost;
    const uint32_t l = p->subs[a].leaves + p->subs[b].leaves, bl = p->subs[ba].leaves + p->subs[bb].leaves;
    if (l != bl)
        return l < bl;
    if (p->subs[a].low != p->subs[ba].low)
        return p->subs[a].low < p->subs[ba].low;
    return p->subs[b].low < p->subs[bb].low;
}

/* Writes the subtree x: its leaves into perm, its internal nodes' left
 * counts into left, both in order. */
static void emit(const struct picker *p, int x, struct tree_shape *sh, uint32_t *leaf, uint32_t *pos)
{
    const struct sub *s = &p->subs[x];
    if (s->child[0] < 0) {
        sh->perm[(*leaf)++] = (uint8_t)s->low;
        return;
    }
    sh->left[(*pos)++] = (uint8_t)p->subs[s->child[0]].leaves;
    emit(p, s->child[0], sh, leaf, pos);
    emit(p, s->child[1], sh, leaf, pos);
}

/* Joins the forest's subtrees pairwise until one is left; returns it. */
static int agglomerate(struct picker *p, uint32_t words, uint64_t *cost, int *live)
{
    const uint32_t m = 2 * words - 1;
    uint32_t nlive = words;
    for (uint32_t a = 0; a < words; a++)
        for (uint32_t b = a + 1; b < words; b++)
            cost[a * m + b] = joint_count(p, (int)a, (int)b);
    for (uint32_t next = words; next < m; next++) {
        int ba = -1, bb = -1;
        uint64_t bcost = 0;
        for (uint32_t i = 0; i < nlive; i++)
            for (uint32_t j = 0; j < nlive; j++) {
                const int a = live[i], b = live[j];
                if (p->subs[a].low < p->subs[b].low && better(p, a, b, cost[a * m + b], ba, bb, bcost))
                    ba = a, bb = b, bcost = cost[a * m + b];
            }
        struct sub *s = &p->subs[next];
        s->child[0] = ba, s->child[1] = bb;
        s->leaves = p->subs[ba].leaves + p->subs[bb].leaves;
        s->low = p->subs[ba].low;
        s->h = p->subs[ba].h; /* reused in place */
        for (size_t i = 0; i < p->n; i++)
            s->h[i] = join(s->h[i], p->subs[bb].h[i]);
        p->subs[ba].h = NULL;
        uint32_t k = 0;
        for (uint32_t i = 0; i < nlive; i++)
            if (live[i] != ba && live[i] != bb)
                live[k++] = live[i];
        live[k] = (int)next;
        nlive = k + 1;
        for (uint32_t i = 0; i < k; i++) {
            const int a = live[i];
            const int lo = p->subs[a].low < s->low ? a : (int)next, hi = lo == a ? (int)next : a;
            cost[(uint32_t)lo * m + (uint32_t)hi] = joint_count(p, lo, hi);
        }
    }
    return live[0];
}

int tree_shape_pick(uint32_t words, const uint32_t *sample, size_t n, struct tree_shape *sh,
                    struct wx_error *err)
{
    tree_shape_balanced(words, sh);
    if (n == 0 || words < 3)
        return WX_OK;
    const uint32_t m = 2 * words - 1;
    struct picker p = { .n = n, .nset = 16 };
    while (p.nset < 2 * n)
        p.nset *= 2;
    p.subs = calloc(m, sizeof *p.subs);
    p.set = malloc(p.nset * sizeof *p.set);
    uint64_t *cost = calloc((size_t)m * m, sizeof *cost);
    int *live = malloc(m * sizeof *live);
    uint64_t *h = malloc((size_t)words * n * sizeof *h);
    int rc = WX_OK;
    if (!p.subs || !p.set || !cost || !live || !h) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "tree shape: out of memory");
        goto out;
    }
    for (uint32_t w = 0; w < words; w++) {
        p.subs[w] = (struct sub){ .child = { -1, -1 }, .leaves = 1, .low = w, .h = h + (size_t)w * n };
        for (size_t i = 0; i < n; i++)
            p.subs[w].h[i] = mix(sample[i * words + w] + 0x9e3779b97f4a7c15ull);
        live[w] = (int)w;
    }
    const int root = agglomerate(&p, words, cost, live);
    uint32_t leaf = 0, pos = 0;
    emit(&p, root, sh, &leaf, &pos);
out:
    free(p.subs);
    free(p.set);
    free(cost);
    free(live);
    free(h);
    return rc;
}
