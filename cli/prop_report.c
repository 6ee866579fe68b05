/*
 * check_report.c -- the output of comparisons, ranges and step-bounded
 * properties in `warpex check` (check_report.h).
 */
#include <math.h>

#include "prop_report.h"
#include "cli.h"

static const char *answer_name(int d)
{
    return d == PROP_TRUE ? "true" : d == PROP_FALSE ? "false" : "UNDECIDED";
}

static void put_value(FILE *f, double lo, double hi)
{
    if (isinf(lo))
        fprintf(f, "inf");
    else
        fprintf(f, "%.12g in [%.12g, %.12g]", 0.5 * (lo + hi), lo, hi);
}

void check_report_state(FILE *f, const struct property *p, double lo, double hi, uint64_t s)
{
    fprintf(f, "  result: %s at state %llu: %s = ", answer_name(prop_decide(p, lo, hi)),
            (unsigned long long)s, prop_kind_name(p->kind));
    put_value(f, lo, hi);
    fprintf(f, " %s %.12g", prop_cmp_name(p->cmp), p->bound);
}

/* The smallest and the largest value over the initial states, each as
 * [lo, hi]: the least value lies in [min lo, min hi], the greatest in
 * [max lo, max hi].  Returns 0 when there is no initial state. */
static int initial_range(const struct mdpcheck_result *r, const uint8_t *initial, double mn[2],
                         double mx[2])
{
    int first = 1;
    for (uint64_t s = 0; s < r->n_states; s++) {
        if (!initial[s])
            continue;
        if (first || r->lo[s] < mn[0])
            mn[0] = r->lo[s];
        if (first || r->hi[s] < mn[1])
            mn[1] = r->hi[s];
        if (first || r->lo[s] > mx[0])
            mx[0] = r->lo[s];
        if (first || r->hi[s] > mx[1])
            mx[1] = r->hi[s];
        first = 0;
    }
    return !first;
}

static void summary_comparison(FILE *f, const struct property *p, const struct mdpcheck_result *r,
                               const uint8_t *initial, uint64_t n_init,
                               const struct propcheck_info *info)
{
    uint64_t n[3];
    int d = propcheck_decide(p, r, initial, n);
    if (n_init > 1) {
        fprintf(f, "  result: %s over the %llu initial states (true where it holds at all: ",
                answer_name(d), (unsigned long long)n_init);
        fprintf(f, "%llu true, %llu false, %llu undecided)\n", (unsigned long long)n[1],
                (unsigned long long)n[0], (unsigned long long)n[2]);
    }
    if (d == PROP_UNDECIDED)
        fprintf(f, "  UNDECIDED: %s; the answer is not known (a value equal to the bound "
                "cannot be told apart from one near it)\n", info->why);
    if (!info->bounded && info->tries > 1)
        fprintf(f, "  decided with epsilon %g (%d solves, each with a smaller epsilon)\n",
                info->epsilon, info->tries);
}

void check_report_summary(FILE *f, const struct property *p, const struct mdpcheck_result *r,
                          const uint8_t *initial, uint64_t n_init,
                          const struct propcheck_info *info)
{
    if (p->cmp != PROP_QUERY) {
        summary_comparison(f, p, r, initial, n_init, info);
    } else if (n_init > 1) {
        double mn[2], mx[2];
        initial_range(r, initial, mn, mx);
        fprintf(f, "  range over the %llu initial states: least ", (unsigned long long)n_init);
        put_value(f, mn[0], mn[1]);
        fprintf(f, ", greatest ");
        put_value(f, mx[0], mx[1]);
        fprintf(f, "\n");
    }
    if (p->path == PATH_GLOBALLY && !info->bounded)
        fprintf(f, "  computed as 1 - %s=? [ F !phi ] (the state counts below are of F !phi)\n",
                p->kind == PROP_PMIN ? "Pmax" : "Pmin");
    if (info->bounded) {
        fprintf(f, "  method: %lld steps of exact backups on the CPU, lo rounded down and hi up",
                (long long)p->steps);
        if (info->steps_fixed < (uint64_t)p->steps)
            fprintf(f, " (the values stay the same after %llu)",
                    (unsigned long long)info->steps_fixed);
        fprintf(f, "; time: solve %.3f s\n", r->solve_seconds);
    }
}

static void json_num(FILE *f, double v)
{
    if (isinf(v))
        fprintf(f, "\"inf\"");
    else
        fprintf(f, "%.17g", v);
}

void check_report_json_state(FILE *f, const struct property *p, double lo, double hi)
{
    if (p->cmp == PROP_QUERY)
        return;
    int d = prop_decide(p, lo, hi);
    fprintf(f, ", \"holds\": %s", d == PROP_TRUE ? "true" : d == PROP_FALSE ? "false" : "null");
}

void check_report_json(FILE *f, const struct property *p, const struct mdpcheck_result *r,
                       const uint8_t *initial, const struct propcheck_info *info)
{
    static const char *paths[] = {"U", "G", "C"};
    fprintf(f, ", \"path\": \"%s\"", p->path == PATH_UNTIL && !p->phi1 ? "F" : paths[p->path]);
    if (p->steps >= 0)
        fprintf(f, ", \"step_bound\": %lld, \"steps_fixed\": %llu", (long long)p->steps,
                (unsigned long long)info->steps_fixed);
    double mn[2], mx[2];
    if (!initial_range(r, initial, mn, mx)) {
        fprintf(f, ", \"range\": null");
    } else {
        fprintf(f, ", \"range\": {\"least_lo\": ");
        json_num(f, mn[0]);
        fprintf(f, ", \"least_hi\": ");
        json_num(f, mn[1]);
        fprintf(f, ", \"greatest_lo\": ");
        json_num(f, mx[0]);
        fprintf(f, ", \"greatest_hi\": ");
        json_num(f, mx[1]);
        fprintf(f, "}");
    }
    if (p->cmp == PROP_QUERY)
        return;
    int d = propcheck_decide(p, r, initial, NULL);
    fprintf(f, ", \"comparison\": \"%s\", \"bound\": %.17g, \"result\": %s",
            prop_cmp_name(p->cmp), p->bound,
            d == PROP_TRUE ? "true" : d == PROP_FALSE ? "false" : "\"undecided\"");
    if (d == PROP_UNDECIDED) {
        fprintf(f, ", \"why\": ");
        cli_json_string(f, info->why);
    }
    if (!info->bounded)
        fprintf(f, ", \"decided_epsilon\": %g, \"tries\": %d", info->epsilon, info->tries);
}
