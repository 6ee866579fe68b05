/*
 * fuzz_prop.c -- fuzz target for the property language of `warpex check`
 * (analysis/prop.h): --prop text and property files.
 *
 * Per input: prop_parse of the text up to its first NUL (as --prop sees
 * it) and prop_read_file of the bytes written to a temporary file; every
 * property parsed is checked (well-formed formula tree, reward references
 * only on R properties), evaluated with prop_eval on a fixed MDP with labels
 * (tests/bad/mdp/ok_model: 3 states, labels init, deadlock, goal) and
 * resolved with prop_reward_model against two named reward structures.
 */
#include <float.h>

#include "analysis/prop.h"
#include "fuzz_check.h"

static const char MODEL[] =
    "3 4 6\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 1 1\n2 0 0 0.25\n2 0 2 0.75\n";
static const char LABELS[] = "0=\"init\" 1=\"deadlock\" 2=\"goal\"\n0: 0\n1: 2\n";

static struct mdp model;
static struct mdp_labels labels;
static struct mdp_reward_models rewards;

static void load_model(void)
{
    static int done;
    if (done++)
        return;
    struct wx_error e;
    if (mdp_read_buffer(MODEL, strlen(MODEL), "model.tra", &model, &e) != WX_OK ||
        mdp_labels_read_buffer(LABELS, strlen(LABELS), "model.lab", 3, &labels, &e) != WX_OK ||
        mdp_reward_models_add(&rewards) != 0 || mdp_reward_models_add(&rewards) != 1) {
        fprintf(stderr, "fuzz_prop: the fixed model: %s\n", e.msg);
        abort();
    }
    rewards.models[0].name = strdup("time");
    rewards.models[1].name = strdup("cost");
}

/* The tree's shape; iterative, as a formula may be deeper than the C stack
 * allows recursion in this harness. */
static void check_phi(const struct phi *root)
{
    size_t cap = 64, n = 0;
    const struct phi **stack = malloc(cap * sizeof *stack);
    stack[n++] = root;
    while (n) {
        const struct phi *f = stack[--n];
        FZ_CHECK(f != NULL, "a NULL formula");
        FZ_CHECK((f->op == PHI_LABEL) == (f->label != NULL), "op %d with label %p", (int)f->op,
                 (const void *)f->label);
        int arity = f->op == PHI_NOT ? 1 : f->op == PHI_AND || f->op == PHI_OR ? 2 : 0;
        FZ_CHECK((arity >= 1) == (f->a != NULL) && (arity == 2) == (f->b != NULL),
                 "op %d with operands %p %p", (int)f->op, (const void *)f->a, (const void *)f->b);
        if (n + 2 > cap)
            stack = realloc(stack, (cap *= 2) * sizeof *stack);
        if (f->a)
            stack[n++] = f->a;
        if (f->b)
            stack[n++] = f->b;
    }
    free(stack);
}

static void check_property(const struct property *p)
{
    FZ_CHECK(p->kind >= PROP_PMIN && p->kind <= PROP_RMAX, "kind %d", (int)p->kind);
    FZ_CHECK(p->text != NULL, "no text");
    FZ_CHECK((p->phi2 == NULL) == (p->path == PATH_CUMULATIVE), "path %d with target %p",
             (int)p->path, (const void *)p->phi2);
    FZ_CHECK(p->steps >= -1 && p->steps <= PROP_MAX_STEPS, "steps %lld", (long long)p->steps);
    FZ_CHECK(p->cmp == PROP_QUERY || (p->bound >= 0 && p->bound <= DBL_MAX), "bound %g", p->bound);
    if (p->phi2)
        check_phi(p->phi2);
    if (p->phi1)
        check_phi(p->phi1);
    int is_r = p->kind == PROP_RMIN || p->kind == PROP_RMAX;
    FZ_CHECK(is_r || (!p->reward_name && p->reward_index == 0), "a reward reference on a P property");
    FZ_CHECK(!is_r || !p->phi1, "an until on an R property");
    FZ_CHECK(p->reward_index >= 0 && !(p->reward_name && p->reward_index), "reward reference");

    struct wx_error e;
    uint8_t out[3];
    for (int k = 0; k < 2; k++) {
        const struct phi *phi = k ? p->phi1 : p->phi2;
        if (!phi)
            continue;
        memset(out, 7, sizeof out);
        if (fz_check_error(prop_eval(p, phi, &model, &labels, NULL, out, &e), &e) == WX_OK)
            for (int s = 0; s < 3; s++)
                FZ_CHECK(out[s] <= 1, "prop_eval: state %d gets %d", s, out[s]);
        else
            FZ_CHECK(e.code == WX_EINPUT, "prop_eval fails with %d", e.code);
    }
    int index = -1;
    if (fz_check_error(prop_reward_model(p, &rewards, &index, &e), &e) == WX_OK)
        FZ_CHECK(index >= 0 && (size_t)index < rewards.n, "reward model %d of %zu", index, rewards.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load_model();
    char *text = fz_cstr(data, size);
    struct property p;
    struct wx_error e;
    if (fz_check_error(prop_parse(text, NULL, 1, &p, &e), &e) == WX_OK) {
        check_property(&p);
        prop_free(&p);
    }
    free(text);

    const char *path = fz_write_file("fuzz.props", data, size);
    struct property *props = NULL;
    size_t n = 0;
    if (fz_check_error(prop_read_file(path, &props, &n, &e), &e) == WX_OK) {
        for (size_t i = 0; i < n; i++)
            check_property(&props[i]);
        prop_free_all(props, n);
    }
    return 0;
}
