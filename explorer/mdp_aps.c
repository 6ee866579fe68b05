/*
 * mdp_aps.c -- the atomic propositions of an explored MDP (mdp_aps.h), in
 * two parallel passes:
 *
 *   first   per chunk of choices, each label's first choice in the chunk;
 *           combined in chunk order into each label's first choice, which
 *           orders the ids (serially: few labels)
 *   mark    per chunk of states (whole 64-state words, so no two chunks
 *           write one word), the deadlock bit and each choice's label bit
 */
#include <stdlib.h>
#include <string.h>

#include "../util/pool.h"
#include "../util/strtab.h"
#include "mdp_aps.h"

/* Choices (or states) per chunk at least: below it a chunk's start costs more than its work. */
enum { APS_MIN_CHUNK = 1 << 16 };

int mdp_aps_nameable(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s == '"' || (unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

int mdp_aps_id(const struct image *img, uint32_t l, int *id, struct mdp_labels *lab, uint32_t *skipped)
{
    if (id[l] != -1)
        return id[l];
    const char *name = strtab_str(img->labels, l);
    if (!mdp_aps_nameable(name) || !strcmp(name, "init") || !strcmp(name, "deadlock")) {
        (*skipped)++;
        return id[l] = -2;
    }
    return id[l] = mdp_labels_add(lab, name);
}

struct aps_job {
    const struct mdp *m;
    const uint32_t *label;
    uint32_t n_labels;
    uint64_t *first; /* chunks x n_labels: first choice of each label in the chunk, or UINT64_MAX */
    const int *id;
    struct mdp_labels *lab;
};

static void aps_first(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    const struct aps_job *j = arg;
    uint64_t *f = j->first + (uint64_t)chunk * j->n_labels;
    for (uint32_t l = 0; l < j->n_labels; l++)
        f[l] = UINT64_MAX;
    for (uint64_t c = lo; c < hi; c++) {
        const uint32_t l = j->label[c];
        if (l < j->n_labels && f[l] == UINT64_MAX)
            f[l] = c;
    }
}

/* States [64 lo, 64 hi) (lo, hi count words). */
static void aps_mark(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    (void)chunk;
    const struct aps_job *j = arg;
    const struct mdp *m = j->m;
    const uint64_t end = hi * 64 < m->n_states ? hi * 64 : m->n_states;
    for (uint64_t s = lo * 64; s < end; s++) {
        if (m->state_start[s] == m->state_start[s + 1])
            mdp_labels_set(j->lab, 1, s);
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            const uint32_t l = j->label[c];
            if (l < j->n_labels && j->id[l] >= 0)
                mdp_labels_set(j->lab, j->id[l], s);
        }
    }
}

struct aps_seen {
    uint64_t first;
    uint32_t label;
};

static int by_first(const void *a, const void *b)
{
    const uint64_t x = ((const struct aps_seen *)a)->first, y = ((const struct aps_seen *)b)->first;
    return (x > y) - (x < y);
}

/* The enabled labels in order of their first choice get their ids; -1 when
 * out of memory. */
static int aps_order(const struct image *img, const uint64_t *first, int *id, struct mdp_labels *lab,
                     uint32_t *skipped)
{
    const uint32_t nl = img->n_labels;
    struct aps_seen *seen = malloc((nl ? nl : 1) * sizeof *seen);
    uint32_t k = 0;
    if (!seen)
        return -1;
    for (uint32_t l = 0; l < nl; l++)
        if (first[l] != UINT64_MAX)
            seen[k++] = (struct aps_seen){first[l], l};
    qsort(seen, k, sizeof *seen, by_first); /* distinct keys: the order is total */
    int rc = 0;
    for (uint32_t i = 0; i < k && rc == 0; i++)
        if (mdp_aps_id(img, seen[i].label, id, lab, skipped) == -1)
            rc = -1;
    free(seen);
    return rc;
}

/* Chunks for n items: one per member at most, none below APS_MIN_CHUNK items. */
static int aps_chunks(const struct wx_pool *pool, uint64_t n)
{
    uint64_t c = n / APS_MIN_CHUNK;
    const uint64_t t = (uint64_t)wx_pool_size(pool);
    return c < 1 ? 1 : c > t ? (int)t : (int)c;
}

int mdp_aps_build(const struct image *img, const struct mdp *m, const uint32_t *choice_label, int threads,
                  struct mdp_labels *lab, uint32_t *skipped, struct wx_error *err)
{
    const uint32_t nl = img->n_labels;
    *skipped = 0;
    mdp_labels_init(lab, m->n_states);
    struct wx_pool *pool = m->n_choices >= 2 * (uint64_t)APS_MIN_CHUNK ? wx_pool_new(threads) : NULL;
    const int chunks = aps_chunks(pool, m->n_choices);
    int *id = malloc(((size_t)nl + 1) * sizeof *id);
    uint64_t *first = malloc(((size_t)chunks * nl + 1) * sizeof *first);
    int rc = id && first && mdp_labels_add(lab, "init") == 0 && mdp_labels_add(lab, "deadlock") == 1 ? 0 : -1;
    struct aps_job j = {.m = m, .label = choice_label, .n_labels = nl, .first = first, .id = id, .lab = lab};
    if (rc == 0) {
        for (uint32_t l = 0; l < nl; l++)
            id[l] = -1;
        wx_pool_for(pool, m->n_choices, chunks, aps_first, &j);
        for (int c = 1; c < chunks; c++) /* chunk 0's first choices come first; fill its gaps in order */
            for (uint32_t l = 0; l < nl; l++)
                if (first[l] == UINT64_MAX)
                    first[l] = first[(uint64_t)c * nl + l];
        rc = aps_order(img, first, id, lab, skipped);
    }
    if (rc == 0) {
        if (m->n_states)
            mdp_labels_set(lab, 0, 0);
        const uint64_t words = (m->n_states + 63) / 64;
        wx_pool_for(pool, words, aps_chunks(pool, m->n_states), aps_mark, &j);
        uint32_t unused = 0; /* the note counts enabled actions only */
        for (uint32_t l = 0; l < nl && rc == 0; l++)
            if (mdp_aps_id(img, l, id, lab, &unused) == -1)
                rc = -1;
    }
    wx_pool_free(pool);
    free(id);
    free(first);
    if (rc != 0) {
        mdp_labels_free(lab);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    return WX_OK;
}
