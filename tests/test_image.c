/*
 * test_image.c -- the image compiler (network/image.c, image_info.c) and the GPUexplore
 * .gpf reader/writer (parser/gpf.c).
 *
 *  (a) decode: every image is decoded back, through the image.h accessors
 *      only, into local moves and synchronising rules with per-participant
 *      transition relations, and compared with the network it came from;
 *      structural invariants of the layout are checked on the way;
 *  (b) product: a small BFS explorer that reads only the image and one that
 *      reads only the network (network.h semantics) must find the same states,
 *      transitions and deadlocks;
 *  (c) limits: every encoding limit fails loudly with WX_ELIMIT;
 *  (d) .gpf: a hand-encoded file (from the format notes, not from our writer)
 *      reads to the right product and our writer reproduces it byte for
 *      byte; image -> .gpf -> image keeps the reachable states and the
 *      unlabelled transition relation; malformed files in tests/bad/gpf/
 *      fail at the line/column their manifest EXPECT names; mutated files
 *      never crash the reader.
 *
 * Usage: test_image [SEED]        run the tests (default seed fixed, printed)
 *        test_image --traffic     print the worked example of docs/image.md
 *
 * One translation unit: this file (helpers, random numbers, network
 * building, main) includes tests/image/: oracle.c (the reference
 * explorers), decode.c (a), networks.c (the networks compiled), product.c
 * (b), limits.c (c) and gpf.c (d).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../explorer/explore.h"
#include "../network/image.h"
#include "../network/network.h"
#include "../parser/network_build.h"
#include "../parser/gpf.h"
#include "../util/strtab.h"
#include "check.h"

#define DEFAULT_SEED 20240611u
#define N_RANDOM 260          /* random networks */
#define LEVEL_CAP 1500        /* BFS stops after the level that passes this many states */
#define HARD_STATES 400000    /* give up (skip) beyond this */
#define HARD_EDGES 4000000

static void die(const char *what)
{
    fprintf(stdout, "FAIL internal: %s\n", what);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* Reads a whole file (NUL-terminated); NULL when it cannot be opened. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = xrealloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* ------------------------------------------------------------ random */

static uint64_t rng;

static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rn(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }
static int chance(uint32_t percent) { return rn(100) < percent; }

/* ------------------------------------------------------------ network building */

static uint32_t lab(struct network *net, const char *s)
{
    uint32_t id = strtab_intern(net->labels, s, strlen(s));
    if (id == UINT32_MAX)
        die("strtab");
    return id;
}

static void net_new(struct network *net, const char *hidden)
{
    struct strtab *t = strtab_new();
    if (!t)
        die("strtab_new");
    network_init(net, t, strtab_intern(t, hidden, strlen(hidden)));
}

/* spec: "src label dst; src label dst; ..." */
static void add_comp(struct network *net, const char *name, uint32_t n_states, const char *spec)
{
    struct lts l;
    lts_init(&l, n_states);
    const char *p = spec;
    while (p && *p) {
        unsigned s, d;
        char word[64];
        int used = 0;
        if (sscanf(p, " %u %63s %u %n", &s, word, &d, &used) < 3)
            break;
        if (lts_add(&l, s, lab(net, word), d) != 0)
            die("lts_add");
        p += used;
        if (*p == ';')
            p++;
    }
    if (lts_finish(&l) != 0 || network_add_comp(net, &l, name) < 0)
        die("add_comp");
}

/* spec: "comp:label comp:label ..." */
static void add_rule(struct network *net, const char *result, const char *spec)
{
    uint32_t comp[64], label[64], n = 0;
    const char *p = spec;
    while (*p) {
        unsigned c;
        char word[64];
        int used = 0;
        if (sscanf(p, " %u:%63s%n", &c, word, &used) < 2)
            break;
        comp[n] = c;
        label[n++] = lab(net, word);
        p += used;
    }
    if (network_add_rule(net, n, comp, label, lab(net, result)) != 0)
        die("add_rule");
}

#include "image/oracle.c"

#include "image/decode.c"

#include "image/networks.c"

#include "image/product.c"

#include "image/limits.c"

#include "image/gpf.c"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--traffic") == 0)
        return print_traffic();
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : DEFAULT_SEED;
    if (system("mkdir -p tests/out") != 0)
        die("mkdir tests/out");
    printf("note: seed %llu (run bin/tests/test_image SEED to repeat)\n", (unsigned long long)seed);
    test_hand_made();
    test_traffic_exp();
    test_limits();
    int fit = 0;
    test_random(seed, &fit);
    check(fit >= 150, "gpf round trip ran on %d random networks (>= 150)", fit);
    test_gpf_hand();
    test_gpf_examples();
    test_gpf_bad();
    test_gpf_fuzz(seed);
    return check_exit();
}
