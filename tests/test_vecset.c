/*
 * test_vecset.c -- the sequential vector set (hash/vecset.h) against a
 * sorted reference: random vectors of 1..9 words drawn from a small pool
 * (many repeats), so put must find every earlier vector under its first id,
 * add every new one under the next id, and keep the stored vectors by id
 * through index growth; hidden vectors are stored but never found; the
 * limit stops with WX_ELIMIT and the budget message, storing nothing more.
 * Seed: WX_SEED (default fixed), printed on failure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../hash/vecset.h"

static unsigned long long seed = 20261121;

static uint64_t rng_next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* n draws from a pool of `pool` distinct vectors of `words` words. */
static void random_case(uint32_t words, uint64_t pool, uint64_t n)
{
    uint64_t rng = seed ^ (words * 1000003ull) ^ pool;
    uint32_t *p = malloc(pool * words * 4);
    uint64_t *first_id = malloc(pool * sizeof *first_id);
    for (uint64_t i = 0; i < pool; i++) {
        for (uint32_t w = 0; w < words; w++)
            p[i * words + w] = (uint32_t)rng_next(&rng) & (w == 0 ? 0xffffffffu : 0x3u);
        p[i * words] = (uint32_t)i; /* distinct by the first word */
        first_id[i] = UINT64_MAX;
    }
    struct vecset s;
    struct wx_error err;
    check(vecset_init(&s, words, pool, &err) == WX_OK, "init");
    uint64_t next = 0, wrong = 0;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t i = rng_next(&rng) % pool, id;
        int put = vecset_put(&s, p + i * words, &id, &err);
        if (first_id[i] == UINT64_MAX) {
            wrong += put != 1 || id != next;
            first_id[i] = next++;
        } else {
            wrong += put != 0 || id != first_id[i];
        }
    }
    uint64_t bad_store = 0;
    for (uint64_t i = 0; i < pool; i++)
        if (first_id[i] != UINT64_MAX)
            bad_store += memcmp(s.vec + first_id[i] * words, p + i * words, words * 4u) != 0;
    /* vecset_find_many over the whole pool, present and absent vectors:
     * the ids vecset_put gave, UINT64_MAX for the others */
    uint64_t *many = malloc(pool * sizeof *many);
    vecset_find_many(&s, p, pool, many);
    for (uint64_t i = 0; i < pool; i++) {
        uint64_t one = UINT64_MAX;
        wrong += many[i] != first_id[i] || (vecset_find(&s, p + i * words, &one) ? one : UINT64_MAX) != many[i];
    }
    free(many);
    check(wrong == 0 && bad_store == 0 && s.count == next,
          "words=%u pool=%llu draws=%llu: %llu ids, %llu wrong answers, %llu wrong stored vectors "
          "(seed %llu)", words, (unsigned long long)pool, (unsigned long long)n,
          (unsigned long long)next, (unsigned long long)wrong, (unsigned long long)bad_store, seed);
    vecset_free(&s);
    free(p);
    free(first_id);
}

static void hidden_and_limit(void)
{
    struct vecset s;
    struct wx_error err;
    uint32_t a[2] = {1, 2}, b[2] = {3, 4};
    uint64_t id;
    check(vecset_init(&s, 2, 2, &err) == WX_OK, "init (limit 2)");
    check(vecset_add_hidden(&s, a, &id, &err) == WX_OK && id == 0, "hidden vector gets id 0");
    check(vecset_put(&s, a, &id, &err) == 1 && id == 1, "a hidden vector is not found: added as 1");
    check(vecset_put(&s, a, &id, &err) == 0 && id == 1, "then found under 1");
    check(vecset_put(&s, b, &id, &err) == -1 && err.code == WX_ELIMIT &&
              strstr(err.msg, "memory budget exhausted after 2 states") && s.count == 2,
          "the limit: WX_ELIMIT, the budget message, nothing stored (%s)", err.msg);
    check(vecset_put(&s, a, &id, &err) == 0 && id == 1, "present vectors are still found at the limit");
    vecset_free(&s);
}

int main(void)
{
    const char *e = getenv("WX_SEED");
    if (e)
        seed = strtoull(e, NULL, 10);
    printf("# test_vecset seed %llu (set WX_SEED to change)\n", seed);
    random_case(1, 5000, 20000);
    random_case(2, 100000, 300000); /* index grows to 2^18 */
    random_case(3, 10, 1000);
    random_case(9, 3000, 9000);
    hidden_and_limit();
    return check_exit();
}
