#include "strtab.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing on FNV-1a hashes; slots hold id+1 (0 = empty).  The load
 * factor stays below 1/2, so probe chains are short and always end. */
struct strtab {
    char **str;
    size_t *len;
    uint32_t count, cap_str;
    uint32_t *slot;
    uint32_t nslot; /* power of two */
};

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

struct strtab *strtab_new(void)
{
    struct strtab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->nslot = 64;
    t->slot = calloc(t->nslot, sizeof *t->slot);
    if (!t->slot) {
        free(t);
        return NULL;
    }
    return t;
}

void strtab_free(struct strtab *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->count; i++)
        free(t->str[i]);
    free(t->str);
    free(t->len);
    free(t->slot);
    free(t);
}

static uint32_t lookup(const struct strtab *t, const char *s, size_t len, uint64_t h)
{
    uint32_t mask = t->nslot - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        uint32_t v = t->slot[i];
        if (v == 0)
            return i | 0x80000000u; /* free slot, flagged */
        if (t->len[v - 1] == len && memcmp(t->str[v - 1], s, len) == 0)
            return i;
    }
}

static int grow(struct strtab *t)
{
    uint32_t n = t->nslot * 2;
    uint32_t *slot = calloc(n, sizeof *slot);
    if (!slot)
        return -1;
    for (uint32_t id = 0; id < t->count; id++) {
        uint32_t i = (uint32_t)hash_bytes(t->str[id], t->len[id]) & (n - 1);
        while (slot[i])
            i = (i + 1) & (n - 1);
        slot[i] = id + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = n;
    return 0;
}

uint32_t strtab_find(const struct strtab *t, const char *s, size_t len)
{
    uint32_t i = lookup(t, s, len, hash_bytes(s, len));
    return (i & 0x80000000u) ? UINT32_MAX : t->slot[i] - 1;
}

uint32_t strtab_intern(struct strtab *t, const char *s, size_t len)
{
    uint64_t h = hash_bytes(s, len);
    uint32_t i = lookup(t, s, len, h);
    if (!(i & 0x80000000u))
        return t->slot[i] - 1;
    if (t->count == t->cap_str) {
        uint32_t cap = t->cap_str ? t->cap_str * 2 : 32;
        char **str = realloc(t->str, cap * sizeof *str);
        if (!str)
            return UINT32_MAX;
        t->str = str;
        size_t *l = realloc(t->len, cap * sizeof *l);
        if (!l)
            return UINT32_MAX;
        t->len = l;
        t->cap_str = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return UINT32_MAX;
    memcpy(copy, s, len);
    copy[len] = '\0';
    uint32_t id = t->count++;
    t->str[id] = copy;
    t->len[id] = len;
    t->slot[i & 0x7fffffffu] = id + 1;
    if (2 * t->count > t->nslot && grow(t) != 0) {
        /* The entry is in; a failed grow only leaves the table fuller. */
    }
    return id;
}

uint32_t strtab_count(const struct strtab *t) { return t->count; }
const char *strtab_str(const struct strtab *t, uint32_t id) { return t->str[id]; }
size_t strtab_len(const struct strtab *t, uint32_t id) { return t->len[id]; }
