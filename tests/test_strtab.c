/*
 * test_strtab.c -- label interning against a brute-force list, with
 * embedded quotes, commas, empty strings and long labels.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/strtab.h"

int main(void)
{
    enum { N = 5000 };
    static char text[N][40];
    static size_t len[N];
    uint64_t x = 88172645463325252ull;
    struct strtab *t = strtab_new();
    int ok = 1;
    uint32_t distinct = 0;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        len[i] = x % 6; /* short strings over a tiny alphabet: many repeats */
        for (size_t k = 0; k < len[i]; k++)
            text[i][k] = "a\",( "[(x >> (8 + 3 * k)) % 5];
        uint32_t expect = UINT32_MAX;
        for (int j = 0; j < i && expect == UINT32_MAX; j++)
            if (len[j] == len[i] && !memcmp(text[j], text[i], len[i]))
                expect = strtab_find(t, text[j], len[j]);
        uint32_t id = strtab_intern(t, text[i], len[i]);
        if (expect == UINT32_MAX)
            ok &= id == distinct++;
        else
            ok &= id == expect;
        ok &= strtab_len(t, id) == len[i] && !memcmp(strtab_str(t, id), text[i], len[i]) &&
              strtab_str(t, id)[len[i]] == '\0';
    }
    check(ok, "intern gives first-insertion ids, stable and byte-exact (5000 random strings)");
    CHECK_EQ_U64(strtab_count(t), distinct, "distinct count");
    check(strtab_find(t, "zzz", 3) == UINT32_MAX, "absent string not found");
    char big[100000];
    memset(big, 'q', sizeof big);
    uint32_t id = strtab_intern(t, big, sizeof big);
    check(id != UINT32_MAX && strtab_len(t, id) == sizeof big && strtab_find(t, big, sizeof big) == id,
          "100000-byte label interned");
    strtab_free(t);
    return check_exit();
}
