/*
 * test_prob_random.c -- the MDP explorer (explorer/explore_mdp.h) on random
 * small probabilistic networks, against a brute-force product built here
 * directly from the component LTSs and the network's rules (struct network,
 * not the image): same numbers of states, choices, entries and deadlocks,
 * and the same Pmax/Pmin of reaching each action-enabled set and the
 * deadlocks (analysis/mdpcheck.h on both MDPs, whose numberings differ).
 *
 * The reference keeps probabilities as exact fractions and states as tuples
 * of component states, so it shares neither the image nor its encoding
 * with the explorer.  Seeds are printed; WX_SEED=N reruns one family.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/mdpcheck.h"
#include "../analysis/prop.h"
#include "../explorer/explore_mdp.h"
#include "../network/image.h"
#include "../network/network.h"
#include "../parser/network_build.h"
#include "../parser/aut.h"
#include "../util/strtab.h"
#include "check.h"
#include "random_prob_net.h"
#include "../explorer/mdp_rules.h"
#include "rng.h"

#define MAXC 3

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* test_prob_random's shape: up to MAXC components of up to 4 states. */
static int random_network(struct network *net)
{
    static const struct rpn_shape shape = {MAXC, 4, 7, 4};
    return rpn_network(net, &shape);
}

/* ---- the brute-force product ---- */

struct ref {
    uint32_t nc;
    uint32_t n, cap;          /* states */
    uint32_t *tuple;          /* n * nc; a fresh state: all UINT32_MAX */
    struct mdp m;
    uint32_t *label;
    size_t cs_cap, e_cap, st_cap;
    uint64_t *num, *den;      /* per entry, exact */
};

static uint32_t ref_state(struct ref *r, const uint32_t *t)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (!memcmp(r->tuple + (size_t)i * r->nc, t, r->nc * 4))
            return i;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->tuple = realloc(r->tuple, (size_t)r->cap * r->nc * 4);
    }
    memcpy(r->tuple + (size_t)r->n * r->nc, t, r->nc * 4);
    return r->n++;
}

/* One outcome of a choice being built. */
struct out {
    uint32_t state;
    uint64_t num, den;
};

static int cmp_out(const void *a, const void *b)
{
    const struct out *x = a, *y = b;
    return x->state < y->state ? -1 : x->state > y->state;
}

/* Adds the choice (label, o[0..k)) to state s unless an equal one exists. */
static void ref_choice(struct ref *r, uint32_t s, uint32_t label, struct out *o, uint32_t k)
{
    qsort(o, k, sizeof *o, cmp_out);
    for (uint64_t c = r->m.state_start[s]; c < r->m.n_choices; c++) {
        if (r->label[c] != label || r->m.choice_start[c + 1] - r->m.choice_start[c] != k)
            continue;
        uint32_t j = 0;
        for (; j < k; j++) {
            uint64_t e = r->m.choice_start[c] + j;
            if (r->m.targets[e] != o[j].state || r->num[e] != o[j].num || r->den[e] != o[j].den)
                break;
        }
        if (j == k)
            return;
    }
    if (r->m.n_choices + 2 > r->cs_cap) {
        r->cs_cap = r->cs_cap ? 2 * r->cs_cap : 64;
        r->m.choice_start = realloc(r->m.choice_start, r->cs_cap * sizeof *r->m.choice_start);
        r->label = realloc(r->label, r->cs_cap * sizeof *r->label);
    }
    if (r->m.n_entries + k > r->e_cap) {
        r->e_cap = 2 * (r->e_cap + k);
        r->m.targets = realloc(r->m.targets, r->e_cap * sizeof *r->m.targets);
        r->m.probs = realloc(r->m.probs, r->e_cap * sizeof *r->m.probs);
        r->num = realloc(r->num, r->e_cap * sizeof *r->num);
        r->den = realloc(r->den, r->e_cap * sizeof *r->den);
    }
    r->label[r->m.n_choices] = label;
    r->m.choice_start[r->m.n_choices] = r->m.n_entries;
    for (uint32_t j = 0; j < k; j++) {
        uint64_t e = r->m.n_entries++;
        r->m.targets[e] = o[j].state;
        r->num[e] = o[j].num;
        r->den[e] = o[j].den;
        r->m.probs[e] = (double)o[j].num / (double)o[j].den;
    }
    r->m.n_choices++;
    r->m.choice_start[r->m.n_choices] = r->m.n_entries;
}

/* A component move: the states and exact probabilities of transition x of
 * component l (one state with 1/1 for a plain target). */
static uint32_t moves(const struct lts *l, uint32_t d, uint32_t *st, uint64_t *nu, uint64_t *de)
{
    if (!(d & LTS_DST_DISTRIBUTION)) {
        st[0] = d, nu[0] = 1, de[0] = 1;
        return 1;
    }
    d &= ~LTS_DST_DISTRIBUTION;
    uint32_t k = 0;
    for (uint64_t i = l->dist_start[d]; i < l->dist_start[d + 1]; i++, k++)
        st[k] = l->dist_state[i], nu[k] = l->dist_num[i], de[k] = l->dist_den[i];
    return k;
}

/* The product distribution of the moves chosen for participants p[0..k)
 * (their transitions tr[]), from tuple `from`, as one choice. */
static void ref_product(struct ref *r, const struct network *net, uint32_t s, const uint32_t *from,
                        uint32_t label, uint32_t k, const uint32_t *pc, const uint32_t *dsts)
{
    uint32_t st[MAXC][4], cnt[MAXC], idx[MAXC] = {0};
    uint64_t nu[MAXC][4], de[MAXC][4];
    for (uint32_t j = 0; j < k; j++)
        cnt[j] = moves(&net->comps[pc[j]], dsts[j], st[j], nu[j], de[j]);
    struct out o[64];
    uint32_t no = 0;
    for (;;) {
        uint32_t t[MAXC];
        memcpy(t, from, r->nc * 4);
        uint64_t n = 1, d = 1;
        for (uint32_t j = 0; j < k; j++) {
            t[pc[j]] = st[j][idx[j]];
            n *= nu[j][idx[j]];
            d *= de[j][idx[j]];
            uint64_t g = gcd(n, d);
            n /= g, d /= g;
        }
        o[no++] = (struct out){ref_state(r, t), n, d};
        uint32_t j = k;
        while (j > 0 && ++idx[j - 1] == cnt[j - 1])
            idx[--j] = 0;
        if (j == 0)
            break;
    }
    ref_choice(r, s, label, o, no);
}

static void ref_explore(struct ref *r, const struct network *net)
{
    memset(r, 0, sizeof *r);
    r->nc = net->n_comps;
    uint32_t t[MAXC];
    int fresh = 0;
    for (uint32_t c = 0; c < r->nc; c++)
        fresh |= net->comps[c].init_dist != 0;
    if (fresh) {
        for (uint32_t c = 0; c < r->nc; c++)
            t[c] = UINT32_MAX;
    } else {
        memset(t, 0, sizeof t);
    }
    ref_state(r, t);
    for (uint32_t s = 0; s < r->n; s++) {
        if (s + 2 > r->st_cap) {
            r->st_cap = r->st_cap ? 2 * r->st_cap : 64;
            r->m.state_start = realloc(r->m.state_start, r->st_cap * sizeof *r->m.state_start);
        }
        r->m.state_start[s] = r->m.n_choices;
        memcpy(t, r->tuple + (size_t)s * r->nc, r->nc * 4);
        if (s == 0 && fresh) {
            uint32_t pc[MAXC], d[MAXC], zero[MAXC] = {0};
            for (uint32_t c = 0; c < r->nc; c++) {
                const struct lts *l = &net->comps[c];
                pc[c] = c;
                d[c] = l->init_dist ? LTS_DST_DISTRIBUTION | (l->init_dist - 1) : 0;
            }
            ref_product(r, net, s, zero, net->hidden, r->nc, pc, d);
            continue;
        }
        for (uint32_t ru = 0; ru < net->n_rules; ru++) {
            uint32_t a = net->rule_start[ru], k = net->rule_start[ru + 1] - a;
            const uint32_t *pc = net->part_comp + a, *pl = net->part_label + a;
            /* each participant's transitions with its label, then every
             * combination of them */
            uint32_t list[MAXC][16], cnt[MAXC], idx[MAXC] = {0}, ok = 1;
            for (uint32_t j = 0; j < k; j++) {
                const struct lts *l = &net->comps[pc[j]];
                cnt[j] = 0;
                for (uint64_t x = 0; x < l->n_trans; x++)
                    if (l->src[x] == t[pc[j]] && l->label[x] == pl[j])
                        list[j][cnt[j]++] = l->dst[x];
                ok &= cnt[j] > 0;
            }
            if (!ok)
                continue;
            for (;;) {
                uint32_t d[MAXC];
                for (uint32_t j = 0; j < k; j++)
                    d[j] = list[j][idx[j]];
                ref_product(r, net, s, t, net->rule_result[ru], k, pc, d);
                uint32_t j = k;
                while (j > 0 && ++idx[j - 1] == cnt[j - 1])
                    idx[--j] = 0;
                if (j == 0)
                    break;
            }
        }
    }
    r->m.n_states = r->n;
    if (!r->m.state_start)
        r->m.state_start = malloc(2 * sizeof *r->m.state_start);
    r->m.state_start[r->n] = r->m.n_choices;
    if (!r->m.choice_start)
        r->m.choice_start = calloc(1, sizeof *r->m.choice_start);
}

/* "init", "deadlock", then one label per action: where it is enabled. */
static void make_labels(const struct mdp *m, const uint32_t *label, struct mdp_labels *out)
{
    mdp_labels_init(out, m->n_states);
    mdp_labels_add(out, "init");
    mdp_labels_add(out, "deadlock");
    for (int i = 0; i < RPN_NLAB; i++)
        mdp_labels_add(out, rpn_label[i]);
    if (m->n_states)
        mdp_labels_set(out, 0, 0);
    for (uint64_t s = 0; s < m->n_states; s++) {
        if (m->state_start[s] == m->state_start[s + 1])
            mdp_labels_set(out, 1, s);
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            if (label[c] < RPN_NLAB)
                mdp_labels_set(out, 2 + (int)label[c], s);
    }
}

static int value(const struct mdp *m, const struct mdp_labels *lab, const char *text, double *v)
{
    struct property p;
    struct wx_error e;
    struct mdpcheck_result r;
    uint8_t *init = calloc(m->n_states, 1);
    init[0] = 1;
    struct mdpcheck_options o = {.sound = 1, .solver = VI_JACOBI, .epsilon = 1e-9,
                                 .max_iterations = 1000000, .threads = 1};
    int rc = prop_parse(text, NULL, 1, &p, &e);
    if (rc == WX_OK)
        rc = mdpcheck_run(m, lab, NULL, init, &p, &o, &r, &e);
    if (rc == WX_OK) {
        *v = 0.5 * (r.lo[0] + r.hi[0]);
        mdpcheck_result_free(&r);
    }
    prop_free(&p);
    free(init);
    return rc;
}

/* The explorer's MDP written with the probabilistic .aut writer (exact
 * fractions), read back as a one-component network and explored again:
 * the same counts.  0 when they agree. */
/* The explorer on one thread gives the very same MDP as x (any threads):
 * 0 when equal. */
static int same_with_one_thread(const struct image *img, const struct mdp_explore_result *x,
                                uint64_t seed)
{
    struct explore_options o;
    memset(&o, 0, sizeof o);
    o.threads = 1;
    struct mdp_explore_result y;
    struct wx_error e;
    if (explore_mdp(img, &o, false, &y, &e) != WX_OK) {
        check(0, "seed %llu: the one-thread exploration failed: %s", (unsigned long long)seed, e.msg);
        return 1;
    }
    const struct mdp *a = &x->mdp, *b = &y.mdp;
    int same = a->n_states == b->n_states && a->n_choices == b->n_choices &&
               a->n_entries == b->n_entries && x->deadlocks == y.deadlocks && x->depth == y.depth &&
               !memcmp(a->state_start, b->state_start, (a->n_states + 1) * sizeof *a->state_start) &&
               !memcmp(a->choice_start, b->choice_start, (a->n_choices + 1) * sizeof *a->choice_start) &&
               !memcmp(a->targets, b->targets, a->n_entries * sizeof *a->targets) &&
               !memcmp(a->probs, b->probs, a->n_entries * sizeof *a->probs) &&
               !memcmp(x->choice_label, y.choice_label, a->n_choices * sizeof *x->choice_label);
    if (!same)
        check(0, "seed %llu: %u threads and one thread give different MDPs", (unsigned long long)seed,
              x->threads);
    mdp_explore_result_free(&y);
    return !same;
}

static int aut_round_trip(const struct image *img, const struct mdp_explore_result *x, uint64_t seed)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/wx_prob_rt_%d.aut", (int)getpid());
    struct aut_writer *w;
    struct wx_error e;
    if (aut_writer_open(path, &w, &e) != WX_OK)
        return 1;
    uint64_t dst[64];
    for (uint64_t s = 0; s < x->mdp.n_states; s++)
        for (uint64_t c = x->mdp.state_start[s]; c < x->mdp.state_start[s + 1]; c++) {
            uint64_t a = x->mdp.choice_start[c], n = x->mdp.choice_start[c + 1] - a;
            for (uint64_t k = 0; k < n && k < 64; k++)
                dst[k] = x->mdp.targets[a + k];
            uint32_t l = x->choice_label[c];
            const char *name = l < img->n_labels ? strtab_str(img->labels, l) : "tau";
            aut_writer_add_dist(w, s, name, strlen(name), (uint32_t)n, dst, x->entry_num + a,
                                x->entry_den + a);
        }
    if (aut_writer_close(w, x->mdp.n_states, &e) != WX_OK)
        return 1;
    struct net_options no = {0};
    struct network net;
    struct image im2;
    struct mdp_explore_result y;
    int bad = 1;
    if (network_from_file(path, &no, &net, &e) == WX_OK) {
        if (image_compile(&net, &im2, &e) == WX_OK) {
            /* a file without any distribution is an LTS: nothing to compare */
            if (!im2.probabilistic)
                bad = 0;
            else if (explore_mdp(&im2, NULL, false, &y, &e) == WX_OK) {
                bad = y.mdp.n_states != x->mdp.n_states || y.mdp.n_choices != x->mdp.n_choices ||
                      y.mdp.n_entries != x->mdp.n_entries;
                mdp_explore_result_free(&y);
            }
            image_free(&im2);
        }
        network_free(&net);
    }
    if (bad)
        printf("seed %llu: .aut round trip differs (%s)\n", (unsigned long long)seed, e.msg);
    unlink(path);
    return bad;
}

static void ref_free(struct ref *r)
{
    free(r->tuple), free(r->label), free(r->num), free(r->den);
    mdp_free(&r->m);
}

/* The masks of explorer/mdp_rules.h (forced) on img: rule rr is valid
 * iff it has participants, and blocked in component c's local state s iff
 * c takes part and offers no choice of rr's class there (searched here
 * linearly); 0 when it holds. */
static uint64_t n_masked;
static int masks_ok(const struct image *img, uint64_t seed)
{
    struct mdp_rules r;
    struct wx_error e;
    if (mdp_rules_build(img, MDP_WALK_MASKS, &r, &e) != WX_OK)
        return check(0, "seed %llu: mdp_rules_build (masks): %s", (unsigned long long)seed, e.msg), 1;
    int bad = img->n_rules > 0 && r.mask_words != (img->n_rules + 63) / 64;
    n_masked += r.mask_words > 0;
    for (uint32_t k = 0; k < img->n_classes && r.mask_words && !bad; k++)
        for (uint32_t rr = img->class_rule_start[k]; rr < img->class_rule_start[k + 1]; rr++) {
            const uint64_t bit = 1ull << (rr % 64);
            bad |= r.rule_class[rr] != k;
            bad |= !(r.valid[rr / 64] & bit) != (r.part_start[rr] == r.part_start[rr + 1]);
            for (uint32_t c = 0; c < img->n_comps; c++) {
                int takes_part = 0;
                for (uint32_t q = r.part_start[rr]; q < r.part_start[rr + 1]; q++)
                    takes_part |= r.part[q] == c;
                for (uint32_t o = img->proc_offsets[c]; o + 1 < img->proc_offsets[c + 1]; o++) {
                    int offers = 0;
                    for (uint32_t i = img->pchoice_offsets[o]; i < img->pchoice_offsets[o + 1]; i++)
                        offers |= img->pchoice_key[i] == (IMAGE_PCHOICE_SYNC | k);
                    bad |= !(r.blocked[(size_t)o * r.mask_words + rr / 64] & bit) != !(takes_part && !offers);
                }
            }
        }
    mdp_rules_free(&r);
    if (bad)
        check(0, "seed %llu: the rule masks are wrong", (unsigned long long)seed);
    return bad;
}

/* explorer/mdp_rules.h on img: every rule whose participants all offer
 * its class somewhere is filed exactly once, under the participant
 * offering it in the fewest local states (ties: the lowest), and nothing
 * else is filed; 0 when it holds. */
static int rules_ok(const struct image *img, uint64_t seed)
{
    struct mdp_rules r;
    struct wx_error e;
    if (mdp_rules_build(img, MDP_WALK_ANCHORS, &r, &e) != WX_OK)
        return check(0, "seed %llu: mdp_rules_build: %s", (unsigned long long)seed, e.msg), 1;
    int bad = 0;
    uint32_t *seen = calloc(img->n_rules + 1, sizeof *seen);
    for (uint32_t c = 0; c < img->n_comps && seen; c++)
        for (uint32_t p = r.anch_start[c]; p < r.anch_start[c + 1]; p++) {
            bad |= p > r.anch_start[c] && r.anch_class[p - 1] >= r.anch_class[p];
            for (uint32_t j = r.rule_start[p]; j < r.rule_start[p + 1]; j++) {
                const uint32_t rr = r.rule[j], k = r.anch_class[p];
                seen[rr]++;
                bad |= rr < img->class_rule_start[k] || rr >= img->class_rule_start[k + 1];
                uint32_t best = UINT32_MAX, best_n = UINT32_MAX;
                for (uint32_t q = r.part_start[rr]; q < r.part_start[rr + 1]; q++) {
                    const uint32_t pc = r.part[q];
                    uint32_t n = 0;
                    for (uint32_t s = 0; s + 1 < img->proc_offsets[pc + 1] - img->proc_offsets[pc]; s++) {
                        const uint32_t o = img->proc_offsets[pc] + s;
                        for (uint32_t i = img->pchoice_offsets[o]; i < img->pchoice_offsets[o + 1]; i++)
                            if (img->pchoice_key[i] == (IMAGE_PCHOICE_SYNC | k)) {
                                n++;
                                break;
                            }
                    }
                    bad |= n == 0; /* filed, so every participant offers it */
                    if (n < best_n)
                        best = pc, best_n = n;
                }
                bad |= best != c;
            }
        }
    uint32_t filed = 0;
    for (uint32_t k = 0; k < img->n_classes && seen; k++)
        for (uint32_t rr = img->class_rule_start[k]; rr < img->class_rule_start[k + 1]; rr++) {
            bad |= seen[rr] > 1, filed += seen[rr];
            int fires = r.part_start[rr + 1] > r.part_start[rr]; /* some state could fire it */
            for (uint32_t q = r.part_start[rr]; q < r.part_start[rr + 1] && fires; q++) {
                const uint32_t pc = r.part[q], o0 = img->proc_offsets[pc];
                fires = 0;
                for (uint32_t i = img->pchoice_offsets[o0];
                     i < img->pchoice_offsets[img->proc_offsets[pc + 1] - 1] && !fires; i++)
                    fires = img->pchoice_key[i] == (IMAGE_PCHOICE_SYNC | k);
            }
            bad |= fires != (seen[rr] == 1);
        }
    bad |= !seen || filed != r.rule_start[r.n_anch];
    free(seen);
    mdp_rules_free(&r);
    if (bad)
        check(0, "seed %llu: the rules by anchor are wrong", (unsigned long long)seed);
    return bad || masks_ok(img, seed);
}

int main(void)
{
    const char *env = getenv("WX_SEED");
    uint64_t first = env ? strtoull(env, NULL, 10) : 1, n_nets = env ? 1 : 300;
    uint64_t agree = 0, probabilistic = 0, fresh = 0, bad = 0, values = 0, exact = 0, plain = 0;
    uint64_t round_trips = 0;
    for (uint64_t seed = first; seed < first + n_nets; seed++) {
        rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
        struct network net;
        if (random_network(&net) != 0) {
            check(0, "seed %llu: building the random network", (unsigned long long)seed);
            return check_exit();
        }
        struct image img;
        struct wx_error e;
        int rc = image_compile(&net, &img, &e);
        if (rc != WX_OK) {
            check(0, "seed %llu: image_compile: %s", (unsigned long long)seed, e.msg);
            network_free(&net);
            bad++;
            continue;
        }
        if (!img.probabilistic) { /* no distribution drawn: the image is a plain one */
            if (img.pchoice_offsets || img.pchoice_key || img.ptarget || img.pprob || img.pinit_start ||
                img.n_pchoices || img.comp_dists)
                bad++, check(0, "seed %llu: a non-probabilistic image has probabilistic arrays",
                             (unsigned long long)seed);
            plain++;
            image_free(&img);
            network_free(&net);
            continue;
        }
        probabilistic++;
        if (rules_ok(&img, seed))
            bad++;
        struct mdp_explore_result x;
        struct ref r;
        struct explore_options xo;
        memset(&xo, 0, sizeof xo);
        static const unsigned team[] = {2, 3, 7};
        xo.threads = team[seed % 3]; /* checked against one thread below */
        xo.mdp_rule_walk = (int)(seed / 3 % 3); /* automatic, anchors, masks */
        rc = explore_mdp(&img, &xo, seed % 2 == 0, &x, &e);
        ref_explore(&r, &net);
        int ok = rc == WX_OK && x.complete && x.mdp.n_states == r.m.n_states &&
                 x.mdp.n_choices == r.m.n_choices && x.mdp.n_entries == r.m.n_entries;
        uint64_t dl = 0;
        for (uint64_t s = 0; s < r.m.n_states; s++)
            dl += r.m.state_start[s] == r.m.state_start[s + 1];
        ok &= rc == WX_OK && x.deadlocks == dl && x.fresh_initial == (r.tuple[0] == UINT32_MAX);
        if (ok && same_with_one_thread(&img, &x, seed))
            ok = 0;
        if (ok && x.entry_den) { /* exact: each choice's fractions sum to 1, match the doubles */
            for (uint64_t c = 0; c < x.mdp.n_choices; c++) {
                unsigned __int128 sn = 0, sd = 1;
                for (uint64_t k = x.mdp.choice_start[c]; k < x.mdp.choice_start[c + 1]; k++) {
                    uint64_t n = x.entry_num[k], d = x.entry_den[k];
                    ok &= d != 0 && n > 0 && n <= d && gcd(n, d) == 1 &&
                          fabs((double)n / (double)d - x.mdp.probs[k]) <= 1e-15;
                    if (d) {
                        sn = sn * d + (unsigned __int128)n * sd;
                        sd *= d;
                    }
                }
                ok &= sn == sd;
            }
            exact++;
            if (ok && aut_round_trip(&img, &x, seed))
                ok = 0;
            else
                round_trips++;
        }
        if (!ok) {
            check(0, "seed %llu: explorer %llu states %llu choices %llu entries %llu deadlocks "
                     "(rc %d), reference %llu / %llu / %llu / %llu",
                  (unsigned long long)seed, (unsigned long long)x.mdp.n_states,
                  (unsigned long long)x.mdp.n_choices, (unsigned long long)x.mdp.n_entries,
                  (unsigned long long)x.deadlocks, rc, (unsigned long long)r.m.n_states,
                  (unsigned long long)r.m.n_choices, (unsigned long long)r.m.n_entries,
                  (unsigned long long)dl);
            bad++;
        } else {
            fresh += x.fresh_initial;
            struct mdp_labels lx, lr;
            make_labels(&x.mdp, x.choice_label, &lx);
            make_labels(&r.m, r.label, &lr);
            static const char *props[] = {
                "Pmax=? [ F \"a\" ]", "Pmin=? [ F \"a\" ]", "Pmax=? [ F \"b\" ]",
                "Pmin=? [ F \"c\" ]", "Pmax=? [ F \"deadlock\" ]", "Pmin=? [ F \"deadlock\" ]",
                "Pmax=? [ !\"b\" U \"c\" ]"};
            int vok = 1;
            for (size_t i = 0; i < sizeof props / sizeof *props; i++) {
                double a = -1, b = -2;
                int r1 = value(&x.mdp, &lx, props[i], &a), r2 = value(&r.m, &lr, props[i], &b);
                if (r1 != WX_OK || r2 != WX_OK || fabs(a - b) > 1e-6) {
                    check(0, "seed %llu: %s: explorer %.12g, reference %.12g (rc %d %d)",
                          (unsigned long long)seed, props[i], a, b, r1, r2);
                    vok = 0;
                }
                values++;
            }
            mdp_labels_free(&lx);
            mdp_labels_free(&lr);
            if (vok)
                agree++;
            else
                bad++;
        }
        ref_free(&r);
        mdp_explore_result_free(&x);
        image_free(&img);
        network_free(&net);
    }
    check(bad == 0 && probabilistic >= (env ? 0 : 100) && n_masked >= (env ? 0 : 50),
          "%llu random probabilistic networks (seeds %llu..%llu, %llu with an initial "
          "distribution, %llu with exact fractions checked; rules found by anchor, by masks (%llu "
          "with rules) or as chosen): the explorer's MDP (2, 3 or 7 threads, identical to one "
          "thread's) has the brute-force product's states, choices, entries, deadlocks and %llu "
          "Pmin/Pmax values; %llu disagree",
          (unsigned long long)probabilistic, (unsigned long long)first,
          (unsigned long long)(first + n_nets - 1), (unsigned long long)fresh,
          (unsigned long long)exact, (unsigned long long)n_masked,
          (unsigned long long)values, (unsigned long long)bad);
    (void)agree;
    check(bad == 0 && round_trips >= (env ? 0 : 50) && plain > 0,
          "%llu MDPs written as probabilistic .aut (exact fractions) and read back: same counts; "
          "%llu networks without a distribution give images without probabilistic arrays",
          (unsigned long long)round_trips, (unsigned long long)plain);
    return check_exit();
}
