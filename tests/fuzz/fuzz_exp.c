/*
 * fuzz_exp.c -- fuzz target for the EXP front end, from text to network
 * image: exp_parse_string, then network_from_exp (leaves read, operators
 * flattened) and image_compile.
 *
 * The input is the text of an .exp file.  Its leaves may name a fixed set of
 * small components written once into the private temporary directory
 * (COMPONENTS below: plain, probabilistic, rate-labelled LTSs and one .exp to
 * include); the input itself is written there as fuzz.exp, so names resolve
 * against that directory.  To stay hermetic, the network is not built when a
 * leaf names a path with '/' or a file that exists relative to the working
 * directory (the builder looks there first, like CADP).  The builder's
 * options (hidden label, --rate, --prob, --case) are drawn from a hash of the
 * input, so every option is fuzzed without a format of our own.
 *
 * Checked: the parser's contract (a tree exactly on success), the network's
 * invariants (components are finished LTSs over the network's labels; rules
 * have ascending participants and known labels) and the image's (fuzz_check.h);
 * image_compile runs with small encoding limits, so its limit checks are
 * reached too.
 */
#include "fuzz_check.h"
#include "network/network.h"
#include "parser/network_build.h"
#include "parser/exp_ast.h"

static const char *const COMPONENTS[][2] = {
    {"a.aut", "des (0, 4, 3)\n(0, A, 1)\n(1, \"G !1\", 2)\n(2, i, 0)\n(1, tau, 1)\n"},
    {"b.aut", "des (0, 3, 2)\n(0, A, 1)\n(1, B, 0)\n(1, \"G !2\", 1)\n"},
    {"c.aut", "des (0, 2, 2)\n(0, SEND, 1)\n(1, RECV, 0)\n"},
    {"x.aut", "des (0, 1, 1)\n(0, \"FAIL !0\", 0)\n"},
    {"y.aut", "des (0, 3, 3)\n(0, \"rate 0.5\", 1)\n(1, \"FAIL !1\", 2)\n(2, \"ACTIVATE !0 !TRUE\", 0)\n"},
    {"p.aut", "des (0, 3, 3)\n(0, \"flip\", 1 1/2 2)\n(1, heads, 1)\n(2, \"prob 0.5\", 0)\n"},
    {"sub.exp", "hide A in a.aut ||| \"b.aut\" end hide\n"},
};

static void write_components(void)
{
    static int done;
    if (done++)
        return;
    for (size_t i = 0; i < sizeof COMPONENTS / sizeof *COMPONENTS; i++)
        fz_write_file(COMPONENTS[i][0], COMPONENTS[i][1], strlen(COMPONENTS[i][1]));
}

/* Whether every leaf of the tree may be read: no '/', nothing by that name
 * in the working directory.  Iterative (the tree may be deep). */
static int hermetic(const struct exp_node *root)
{
    const struct exp_node *stack[4096];
    size_t n = 0;
    stack[n++] = root;
    while (n) {
        const struct exp_node *x = stack[--n];
        FZ_CHECK(x != NULL, "a NULL node in the tree");
        switch (x->kind) {
        case EXP_LEAF: {
            FZ_CHECK(x->path != NULL, "a leaf without a path");
            if (!x->path[0] || strchr(x->path, '/') || access(x->path, F_OK) == 0)
                return 0;
            char with_ext[4096];
            snprintf(with_ext, sizeof with_ext, "%s.aut", x->path);
            if (access(with_ext, F_OK) == 0)
                return 0;
            break;
        }
        case EXP_HIDE:
        case EXP_CUT:
        case EXP_RENAME:
        case EXP_PRIO:
            if (n == 4096)
                return 0;
            stack[n++] = x->body;
            break;
        case EXP_PAR_VECTORS:
        case EXP_PAR_GENERAL:
        case EXP_PAR_COMM:
            FZ_CHECK(x->n_ops >= 1, "a parallel composition without operands");
            for (size_t i = 0; i < x->n_ops; i++) {
                if (n == 4096)
                    return 0;
                stack[n++] = x->ops[i];
            }
            break;
        default:
            FZ_CHECK(0, "node kind %d", (int)x->kind);
        }
    }
    return 1;
}

static void check_network(const struct network *net)
{
    uint32_t n_labels = strtab_count(net->labels);
    FZ_CHECK(net->hidden < n_labels, "hidden label %u of %u", net->hidden, n_labels);
    for (uint32_t c = 0; c < net->n_comps; c++)
        fz_check_lts(&net->comps[c], n_labels);
    FZ_CHECK(net->n_rules == 0 || net->rule_start[0] == 0, "rule_start[0]");
    for (uint32_t r = 0; r < net->n_rules; r++) {
        FZ_CHECK(net->rule_start[r] < net->rule_start[r + 1], "rule %u has no participant", r);
        FZ_CHECK(net->rule_result[r] < n_labels, "rule %u: result %u", r, net->rule_result[r]);
        for (uint32_t p = net->rule_start[r]; p < net->rule_start[r + 1]; p++) {
            FZ_CHECK(net->part_comp[p] < net->n_comps, "rule %u: component %u of %u", r,
                     net->part_comp[p], net->n_comps);
            FZ_CHECK(p == net->rule_start[r] || net->part_comp[p - 1] < net->part_comp[p],
                     "rule %u: participants not strictly ascending", r);
            FZ_CHECK(net->part_label[p] < n_labels, "rule %u: label %u", r, net->part_label[p]);
        }
    }
}

static void build(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u; /* FNV-1a: the options */
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    static const char *const hidden[] = {NULL, "tau", "i", "A"};
    struct net_options opt = {.hidden = hidden[h & 3], .rate = h >> 2 & 1, .prob = h >> 3 & 1,
                              .case_sensitive = h >> 4 & 1};
    const char *path = fz_write_file("fuzz.exp", data, size);
    struct network net;
    struct wx_error e;
    if (fz_check_error(network_from_exp(path, &opt, &net, &e), &e) != WX_OK)
        return;
    check_network(&net);
    struct image_limits lim = {.max_words = 4, .max_act_bits = 10, .max_entries = 1u << 14,
                               .max_rule_words = 1u << 14};
    struct image img;
    if (fz_check_error(image_compile_limited(&net, &lim, &img, &e), &e) == WX_OK) {
        FZ_CHECK(img.n_comps == net.n_comps, "image of %u components, network of %u", img.n_comps,
                 net.n_comps);
        fz_check_image(&img);
        image_free(&img);
    }
    network_free(&net);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_components();
    struct exp_file *f = (struct exp_file *)1;
    struct wx_error e;
    int rc = fz_check_error(exp_parse_string((const char *)data, size, "fuzz.exp", &f, &e), &e);
    if (rc != WX_OK) {
        FZ_CHECK(f == NULL, "error %d but a tree was returned", rc);
        return 0;
    }
    FZ_CHECK(f && f->root, "success without a tree");
    int ok = hermetic(f->root);
    exp_file_free(f);
    if (ok)
        build(data, size);
    return 0;
}
