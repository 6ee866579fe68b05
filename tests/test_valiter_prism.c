/*
 * test_valiter_prism.c -- `warpex check`'s layer on the PRISM reference
 * instances of tests/data/mdp: every
 * property of every reference.json (its formula, over the exported labels)
 * is checked on NAME.tra + NAME.lab with interval iteration (absolute
 * epsilon 1e-6): the reference value must lie in [lo, hi] (1e-9 slack: the
 * non-exact references carry PRISM's 1e-10 relative error) and the midpoint
 * within 1e-6 of it.  Gauss-Seidel everywhere (the fastest CPU solver), and
 * in addition multi-threaded Jacobi and topological solving (SCC by SCC,
 * and level by level) on the instances below 10,000 states.
 * Also: the .srew/.trew readers on the exported reward files (sizes and a
 * spot value).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mdpcheck.h"
#include "analysis/prop.h"
#include "graph/mdp.h"
#include "graph/mdp_lab.h"
#include "tests/check.h"
#include "tests/prism_ref.h"

static int n_props_checked;

/* The JSON string starting after the opening quote at *p, unescaped into
 * buf; advances *p past the closing quote. */
static void json_string(const char **p, char *buf, size_t size)
{
    size_t k = 0;
    const char *s = *p;
    while (*s && *s != '"') {
        if (*s == '\\' && s[1])
            s++;
        if (k + 1 < size)
            buf[k++] = *s;
        s++;
    }
    buf[k] = 0;
    *p = *s ? s + 1 : s;
}

static void run_one(const char *name, const struct mdp *m, const struct mdp_labels *lab,
                    const char *formula, double value, const char *solver_name,
                    enum vi_method solver, int threads, int topological, uint64_t pi_sweeps)
{
    struct wx_error err;
    struct property p;
    if (prop_parse(formula, NULL, 1, &p, &err) != WX_OK) {
        check(0, "%s: %s does not parse: %s", name, formula, err.msg);
        return;
    }
    struct mdpcheck_options o = {.sound = 1, .epsilon = 1e-6, .max_iterations = 10000000,
                                 .solver = solver, .threads = threads,
                                 .topological = topological != 0, .pi_sweeps = pi_sweeps};
    if (topological == 2) /* level by level (the GPU's way), Jacobi per level */
        o.solve_levels = valiter_solve_levels_cpu;
    struct mdpcheck_result r;
    int rc = mdpcheck_run(m, lab, NULL, NULL, &p, &o, &r, &err);
    if (rc != WX_OK) {
        check(0, "%s %s: %s", name, formula, err.msg);
        prop_free(&p);
        return;
    }
    int init = mdp_labels_find(lab, "init");
    int ok = init >= 0, seen = 0;
    double lo = 0, hi = 0;
    for (uint64_t s = 0; s < m->n_states && ok; s++) {
        if (!mdp_labels_has(lab, init, s))
            continue;
        seen++;
        lo = r.lo[s], hi = r.hi[s];
        double mid = 0.5 * (lo + hi);
        ok = lo <= value + 1e-9 && value <= hi + 1e-9 && fabs(mid - value) <= 1e-6;
    }
    check(ok && seen == 1, "%s %s (%s): reference %.12g in [%.12g, %.12g], %llu sweeps%s", name,
          formula, solver_name, value, lo, hi, (unsigned long long)r.iterations,
          solver != VI_POLICY ? "" : r.stats.certified ? ", certified" : r.stats.policy_rounds ? ", certificate failed" : "");
    n_props_checked++;
    mdpcheck_result_free(&r);
    prop_free(&p);
}

static void instance(const char *name, const char *tra, const char *json)
{
    struct wx_error err;
    struct mdp m;
    if (!check(mdp_read(tra, &m, &err) == WX_OK, "%s: read %s", name, tra))
        return;
    char path[2048];
    snprintf(path, sizeof path, "%.*s.lab", (int)(strlen(tra) - 4), tra);
    struct mdp_labels lab;
    if (!check(mdp_labels_read(path, m.n_states, &lab, &err) == WX_OK, "%s: read %s: %s", name,
               path, err.msg)) {
        mdp_free(&m);
        return;
    }
    /* the reward exports (one reward structure: NAME.srew / NAME.trew) */
    snprintf(path, sizeof path, "%.*s.srew", (int)(strlen(tra) - 4), tra);
    FILE *f = fopen(path, "r");
    if (f) {
        fclose(f);
        struct mdp_rewards rw = {0};
        int rc = mdp_srew_read(path, &m, &rw, &err);
        snprintf(path, sizeof path, "%.*s.trew", (int)(strlen(tra) - 4), tra);
        if (rc == WX_OK)
            rc = mdp_trew_read(path, &m, &rw, &err);
        check(rc == WX_OK, "%s: .srew and .trew read (%s)", name, rc ? err.msg : "ok");
        mdp_rewards_free(&rw);
    }
    const char *p = strstr(json, "\"properties\": [");
    while (p && (p = strstr(p, "\"formula\": \""))) {
        p += strlen("\"formula\": \"");
        char formula[1024];
        json_string(&p, formula, sizeof formula);
        const char *v = strstr(p, "\"value\": ");
        if (!v)
            break;
        double value = strtod(v + strlen("\"value\": "), NULL);
        run_one(name, &m, &lab, formula, value, "Gauss-Seidel", VI_GAUSS_SEIDEL, 1, 0, 0);
        run_one(name, &m, &lab, formula, value, "policy iteration, 2 threads", VI_POLICY, 2, 0, 0);
        run_one(name, &m, &lab, formula, value, "policy iteration after 1 sweep", VI_POLICY, 1, 0, 1);
        if (m.n_states < 10000) {
            run_one(name, &m, &lab, formula, value, "Jacobi, 2 threads", VI_JACOBI, 2, 0, 0);
            run_one(name, &m, &lab, formula, value, "topological", VI_GAUSS_SEIDEL, 1, 1, 0);
            run_one(name, &m, &lab, formula, value, "topological levels", VI_JACOBI, 1, 2, 0);
        }
        p = v;
    }
    mdp_labels_free(&lab);
    mdp_free(&m);
}

int main(void)
{
    prism_for_each("valiter-prism", instance);
    return check_exit();
}
