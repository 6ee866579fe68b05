/*
 * prism_ref.h -- the PRISM reference instances of tests/data/mdp (origin and
 * licence in its README.md) for tests: iteration over the instances and a
 * minimal reader for the numbers in their reference.json files.  Tests run
 * from the repository root (tests/run.sh changes there).
 */
#ifndef WX_PRISM_REF_H
#define WX_PRISM_REF_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The number after "key": inside the object that follows "obj": { (brace
 * matched, so nested objects stay inside), or at the first "key": anywhere
 * when obj is NULL; -1 when absent. */
__attribute__((unused)) static long long prism_json_get(const char *json, const char *obj,
                                                        const char *key)
{
    char pat[96];
    const char *o = json, *end = json + strlen(json);
    if (obj) {
        snprintf(pat, sizeof pat, "\"%s\": {", obj);
        if (!(o = strstr(json, pat)))
            return -1;
        o += strlen(pat);
        end = o;
        for (int depth = 1; *end && depth; end++)
            depth += *end == '{' ? 1 : *end == '}' ? -1 : 0;
    }
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *k = strstr(o, pat);
    if (!k || k >= end)
        return -1;
    return strtoll(k + strlen(pat), NULL, 10);
}

static char *prism_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

/* The instances' folder, relative to the repository root. */
#define PRISM_DATA "tests/data/mdp"

/* Calls fn(name, tra_path, json) for every instance with a reference.json,
 * in name order (readdir's order is the file system's), and checks that
 * there was at least one and that every folder had one: missing data is a
 * FAIL, never a skip. */
__attribute__((unused)) static void prism_for_each(const char *tag,
                                                   void (*fn)(const char *name, const char *tra,
                                                              const char *json))
{
    const char *base = PRISM_DATA;
    struct dirent **names = NULL;
    int n = scandir(base, &names, NULL, alphasort);
    if (n < 0) {
        check(0, "%s: cannot read %s (run the tests from the repository root)", tag, base);
        return;
    }
    int instances = 0, dirs = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        dirs += name[0] != '.' && names[i]->d_type == DT_DIR;
        char tra[2048], ref[2048];
        snprintf(tra, sizeof tra, "%s/%s/%s.tra", base, name, name);
        snprintf(ref, sizeof ref, "%s/%s/reference.json", base, name);
        char *json = name[0] == '.' ? NULL : prism_slurp(ref);
        if (json) {
            instances++;
            fn(name, tra, json);
            free(json);
        }
        free(names[i]);
    }
    free(names);
    check(instances > 0 && instances == dirs,
          "%s: %d instances with reference.json under %s (%d folders)", tag, instances, base, dirs);
}

#ifdef WX_SCC_H
/* Checks an SCC decomposition r of an instance's graph (n_vertices
 * vertices) against its reference.json: states, all SCCs, non-trivial SCCs,
 * the states they cover, the largest, and the bottom SCCs.  ok: whether the
 * decomposition itself succeeded; what: "" or a prefix such as "GPU ". */
__attribute__((unused)) static void prism_check_sccs(const char *what, const char *name,
                                                     const char *json, unsigned long long n_vertices,
                                                     const struct scc_result *r, int ok)
{
    long long states = prism_json_get(json, NULL, "states"),
              all = prism_json_get(json, "sccs", "all_including_trivial"),
              nontriv = prism_json_get(json, "sccs", "count"),
              covered = prism_json_get(json, "sccs", "states_covered"),
              largest = prism_json_get(json, "sccs", "largest"),
              bsccs = prism_json_get(json, "bsccs", "count");
    ok = ok && (long long)n_vertices == states && (long long)r->n_sccs == all &&
         (long long)(r->n_sccs - r->n_trivial) == nontriv &&
         (long long)r->n_in_nontrivial == covered &&
         (nontriv == 0 || (long long)r->largest == largest) &&
         (long long)(r->n_bottom - r->n_bottom_trivial) == bsccs;
    check(ok,
          "prism %s: %sstates/SCCs/non-trivial/covered/largest/BSCCs expected "
          "%lld/%lld/%lld/%lld/%lld/%lld, found %llu/%llu/%llu/%llu/%llu/%llu",
          name, what, states, all, nontriv, covered, largest, bsccs, n_vertices,
          (unsigned long long)r->n_sccs, (unsigned long long)(r->n_sccs - r->n_trivial),
          (unsigned long long)r->n_in_nontrivial, (unsigned long long)r->largest,
          (unsigned long long)(r->n_bottom - r->n_bottom_trivial));
}
#endif

#endif
