/*
 * test_props_ref.c -- PRISM's property forms against Storm.  Every row of
 * tests/data/props_ref/storm.tsv (written by tests/ref/storm_props.py with
 * stormpy: the origin of each value is in the row) is checked with
 * propcheck_run on its instance's NAME.tra, NAME.lab and reward files
 * (.srew files, then .trew files, each joining the structure of its name,
 * as `warpex check` pairs them):
 *  - a step-bounded value (F<=k, F<k, U<=k, G<=k, C<=k): Storm's value must
 *    lie in [lo, hi] widened by 1e-12 (relative: Storm sums rounding to
 *    nearest, warpex's bounds hold the exact value), and hi - lo must be
 *    below 1e-12 relative.  The rows hold k - 1, k and k + 1 with values
 *    apart by more than 1e-7 somewhere, so a solver one step off fails;
 *    the bounds are also bit-identical with 1 and 2 threads;
 *  - an unbounded value (G, R [ F ]): Storm's (sound, relative precision
 *    1e-10) in [lo, hi] widened by 1e-9 relative, the midpoint within 1e-6
 *    relative (epsilon 1e-6); "inf" exactly;
 *  - unbounded rows also with optimistic and with sound value iteration
 *    (each Jacobi and Gauss-Seidel), the same checks;
 *  - a comparison: the answer over the initial states, true or false, as
 *    Storm's (never undecided: the bounds are at least 1e-4 from the value,
 *    or exactly a value that precomputation finds).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/propcheck.h"
#include "graph/mdp.h"
#include "graph/mdp_lab.h"
#include "tests/check.h"
#include "tests/mdp_instance.h"

#define REF "tests/data/props_ref/storm.tsv"

/* An instance of tests/data, read once for its consecutive rows. */
static int load(struct mdp_instance *in, const char *name)
{
    struct wx_error err;
    int rc = mdp_instance_load(in, name, &err);
    return check(rc == WX_OK, "%s: read (%s)", name, rc ? err.msg : "ok");
}

/* method 0: interval iteration (Jacobi); 1: optimistic value iteration
 * (Jacobi); 2: optimistic value iteration (Gauss-Seidel); 3: sound value
 * iteration (Jacobi); 4: sound value iteration (Gauss-Seidel). */
static const char *const method_name[] = {"ii", "ovi", "ovi gs", "svi", "svi gs"};

static int run(struct mdp_instance *in, const struct property *p, int threads, int method,
               struct mdpcheck_result *r, struct propcheck_info *info, struct wx_error *err)
{
    int ri = 0;
    int rc = prop_reward_model(p, &in->rew, &ri, err);
    if (rc != WX_OK)
        return rc;
    const struct mdp_rewards *rew = p->kind >= PROP_RMIN && in->rew.n ? &in->rew.models[ri] : NULL;
    struct mdpcheck_options o = {.sound = 1,
                                 .solver = method == 2 || method == 4 ? VI_GAUSS_SEIDEL : VI_JACOBI,
                                 .optimistic = method == 1 || method == 2, .svi = method >= 3,
                                 .epsilon = 1e-6,
                                 .max_iterations = 1000000, .threads = threads};
    return propcheck_run(&in->m, &in->labels, rew, in->initial, p, &o, r, info, err);
}

/* Storm's value at each initial state against [lo, hi]. */
static void compare_values(struct mdp_instance *in, const struct property *p, const char *expected,
                           const struct mdpcheck_result *r, const struct propcheck_info *info,
                           int method)
{
    const char *e = expected;
    int bad = 0, n = 0;
    char why[300] = "";
    for (uint64_t s = 0; s < in->m.n_states && !bad; s++) {
        if (!in->initial[s])
            continue;
        char *end;
        double ref = !strncmp(e, "inf", 3) ? (end = (char *)e + 3, INFINITY) : strtod(e, &end);
        e = *end == ',' ? end + 1 : end;
        n++;
        double lo = r->lo[s], hi = r->hi[s], mid = 0.5 * (lo + hi), scale = fmax(1, fabs(ref));
        if (isinf(ref)) {
            bad = !(isinf(lo) && isinf(hi));
        } else if (info->bounded) {
            bad = !(lo - 1e-12 * scale <= ref && ref <= hi + 1e-12 * scale) ||
                  !(hi - lo <= 1e-12 * scale);
        } else {
            bad = !(lo - 1e-9 * scale <= ref && ref <= hi + 1e-9 * scale) ||
                  !(fabs(mid - ref) <= 1e-6 * scale);
        }
        if (bad)
            snprintf(why, sizeof why, "state %llu: Storm %.17g, warpex [%.17g, %.17g]",
                     (unsigned long long)s, ref, lo, hi);
    }
    check(!bad && n > 0, "%s: %s (%s): Storm's value at %d initial state%s %s", in->name, p->text,
          method_name[method], n, n == 1 ? "" : "s", bad ? why : "within the bounds");
}

/* The bounds of a step-bounded property do not depend on the threads. */
static void compare_threads(struct mdp_instance *in, const struct property *p,
                            const struct mdpcheck_result *r2)
{
    struct mdpcheck_result r1;
    struct propcheck_info info;
    struct wx_error err;
    if (run(in, p, 1, 0, &r1, &info, &err) != WX_OK) {
        check(0, "%s: %s with 1 thread: %s", in->name, p->text, err.msg);
        return;
    }
    int same = !memcmp(r1.lo, r2->lo, in->m.n_states * sizeof *r1.lo) &&
               !memcmp(r1.hi, r2->hi, in->m.n_states * sizeof *r1.hi);
    check(same, "%s: %s: bounds bit-identical with 1 and 2 threads", in->name, p->text);
    mdpcheck_result_free(&r1);
}

/* One row with one method (0 when the property is step-bounded: the
 * others do not apply); 0 when the property was not solved. */
static int row_method(struct mdp_instance *in, struct property *p, const char *expected, int method,
                      int *bounded)
{
    struct mdpcheck_result r;
    struct propcheck_info info;
    struct wx_error err;
    int rc = prop_check_model(p, &in->m, &err);
    if (rc == WX_OK)
        rc = run(in, p, 2, method, &r, &info, &err);
    if (!check(rc == WX_OK, "%s: %s (%s): checked (%s)", in->name, p->text, method_name[method],
               rc ? err.msg : "ok"))
        return 0;
    *bounded = info.bounded;
    if (p->cmp != PROP_QUERY) {
        int want = !strcmp(expected, "true") ? PROP_TRUE : PROP_FALSE;
        check(info.result == want, "%s: %s (%s): %s as Storm says (found %d after %d solves)",
              in->name, p->text, method_name[method], expected, info.result, info.tries);
    } else {
        compare_values(in, p, expected, &r, &info, method);
    }
    if (info.bounded)
        compare_threads(in, p, &r);
    mdpcheck_result_free(&r);
    return 1;
}

static void row(struct mdp_instance *in, const char *text, const char *expected)
{
    struct property p;
    struct wx_error err;
    if (!check(prop_parse(text, REF, 0, &p, &err) == WX_OK, "%s: parses: %s (%s)", in->name,
               text, err.msg))
        return;
    int bounded = 0;
    for (int method = 0; method < 5 && row_method(in, &p, expected, method, &bounded) && !bounded;
         method++)
        ;
    prop_free(&p);
}

int main(void)
{
    FILE *f = fopen(REF, "r");
    if (!check(f != NULL, "reference file %s", REF))
        return check_exit();
    char line[4096];
    struct mdp_instance in = {0};
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = 0;
        char *inst = strtok(line, "\t"), *text = strtok(NULL, "\t"), *exp = strtok(NULL, "\t");
        if (!check(inst && text && exp, "row %d has instance, property and value", rows + 1))
            continue;
        if (!in.loaded || strcmp(in.name, inst)) {
            mdp_instance_free(&in);
            if (!load(&in, inst))
                continue;
        }
        row(&in, text, exp);
        rows++;
    }
    fclose(f);
    mdp_instance_free(&in);
    check(rows >= 200, "%d reference rows checked", rows);
    return check_exit();
}
