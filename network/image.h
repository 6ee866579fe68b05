/*
 * image.h -- the compiled network image: flat arrays that the CPU explorers
 * read directly and the GPU explorer uploads once and reads through texture
 * objects.  The layout follows GPUexplore's ProcOffsets / StateOffsets /
 * TransArray scheme, with 64-bit transition entries and explicit rule masks
 * so that no realistic network hits a silent encoding limit.  A worked
 * example is in docs/image.md.
 *
 * State vectors.  A product state is a bit string over `words` 32-bit words,
 * LSB first (word k holds bits 32k .. 32k+31).  Component c occupies bits
 * [first_bit[c], first_bit[c+1]); width 0 is allowed (1-state components);
 * a field may straddle two words.  Invariant: first_bit[n_comps] <= 32*words-1,
 * i.e. bit 31 of the last word is never part of a field: the hash tables use
 * it as the new/old flag.  The initial state is the all-zero vector.
 *
 * Transitions.  For component c in local state s, its entries are
 *     trans[state_offsets[proc_offsets[c] + s] .. state_offsets[proc_offsets[c] + s + 1])
 * (component c has comp_states[c] + 1 consecutive state offsets).
 * Within each segment: local entries first, then synchronising entries sorted
 * by class id, entries of one class contiguous.  An entry (uint64_t):
 *     bit 0                      1 = synchronising, 0 = local
 *     bits 1 .. act_bits         local: result label id; sync: class id
 *                                (1 <= act_bits <= IMAGE_MAX_ACT_BITS)
 *     then slots of state_bits[c] bits, LSB first: target + 1, 0 = empty;
 *     slots = (63 - act_bits) / state_bits[c]; filled slots come first.
 *
 * Synchronisation.  Every network rule with >= 2 participants belongs to one
 * class; a class is a set of rules that share the result label and in which
 * each component always uses the same component label, so a component's
 * class-k entries are exactly its transitions that any rule of class k needs.
 * Class k's rules are rule_mask[class_rule_start[k] .. class_rule_start[k+1])
 * (in rules; each rule is mask_words 32-bit words, bit c%32 of word c/32 set
 * when component c participates).  Rule r fires in a state when every
 * participating component has at least one class-k entry there; successors
 * are the cartesian product of the participants' targets.  Single-participant
 * rules are compiled to local entries.
 *
 * Probabilistic networks (a component with a distribution, lts.h).  The
 * arrays above then describe the network's support graph (a distribution's
 * states appear as ordinary nondeterministic targets), which is enough for
 * reachability of states but not for probabilities; the probabilistic
 * explorer (explorer/explore_mdp.h) reads the ADDITIONAL arrays below, which
 * are NULL / 0 in every non-probabilistic image, so nothing changes for
 * those.  For component c in local state s its probabilistic choices are
 *     [pchoice_offsets[proc_offsets[c] + s], pchoice_offsets[proc_offsets[c] + s + 1])
 * each with a key (bit 31: synchronising; bits 0..30: the local result
 * label or the class id, as in an entry) and the targets
 * ptarget[pchoice_start[i] .. pchoice_start[i+1]) with probabilities pprob
 * (the exact value rounded to double; targets ascending, probabilities
 * summing to 1 exactly before rounding).  A plain transition is a choice with
 * one target of probability 1.  Within a segment choices are sorted by key
 * (local first, then by class), no two equal.  Interleaved transitions choose
 * the component's distribution; a rule of class k chooses one class-k choice
 * of every participant and moves by the product distribution.  The initial
 * state of component c is the distribution pinit_state/pinit_prob
 * [pinit_start[c], pinit_start[c+1]) (one state 0 with probability 1 unless
 * its file starts in a distribution).
 *
 * The image owns all its arrays and its label table.  Read-only after
 * image_compile(), so any number of threads may share it.
 */
#ifndef WX_IMAGE_H
#define WX_IMAGE_H

#include <stdint.h>
#include <stdio.h>

#include "../util/error.h"

#ifdef __CUDACC__
#define WX_HD __host__ __device__ __forceinline__
#else
#define WX_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct strtab;
struct network;

#define IMAGE_MAX_WORDS 64u      /* 2048-bit vectors; a loud error beyond */
#define IMAGE_MAX_ACT_BITS 31u

struct image {
    uint32_t n_comps;
    uint32_t n_labels;         /* result label ids are < n_labels */
    struct strtab *labels;     /* owned; names of result labels */
    uint32_t hidden;           /* hidden label id, UINT32_MAX if none */

    uint32_t words;            /* 32-bit words per state vector */
    uint32_t *first_bit;       /* n_comps + 1 */
    uint32_t *comp_states;     /* n_comps; states of each component */

    uint32_t *proc_offsets;    /* n_comps + 1 */
    uint32_t *state_offsets;   /* proc_offsets[n_comps] */
    uint64_t *trans;           /* n_entries */
    uint32_t n_entries;
    uint32_t act_bits;
    uint32_t *state_bits;      /* n_comps; slot width, holds target + 1 */

    uint32_t n_classes;
    uint32_t *class_result;    /* n_classes */
    uint32_t *class_rule_start;/* n_classes + 1, in rules */
    uint32_t mask_words;       /* ceil(n_comps / 32) */
    uint32_t n_rules;          /* synchronising rules */
    uint32_t *rule_mask;       /* n_rules * mask_words */
    uint32_t max_class_entries;/* most entries one (c, s, class) has */

    char **comp_names;         /* n_comps, owned; may be NULL for .gpf input */

    /* ---- added by the image module: descriptive data, not needed to explore.
     * They let image_print_info (and traces) name component labels.  Filled
     * by image_compile (so also for .gpf input, where the labels are the
     * synthetic ones documented in parser/gpf.h); all NULL / 0 in an image
     * built some other way, and every user must accept that. */
    uint32_t *class_part_start; /* n_classes + 1: participants of class k are
                                   [class_part_start[k], class_part_start[k+1]) */
    uint32_t *class_part_comp;  /* component, ascending within a class */
    uint32_t *class_part_label; /* the component label (id in labels) it uses in
                                   every rule of the class */
    uint32_t n_local_rules;     /* single-participant rules, sorted by
                                   (comp, label, result), no duplicates */
    uint32_t *local_rule_comp, *local_rule_label, *local_rule_result;
    uint64_t *comp_trans;       /* n_comps: transitions of each component LTS */

    /* ---- probabilistic networks only (see above); NULL / 0 otherwise ---- */
    uint32_t probabilistic;     /* 1 when some component has a distribution */
    uint32_t *pchoice_offsets;  /* proc_offsets[n_comps] */
    uint32_t n_pchoices;
    uint32_t *pchoice_key;      /* n_pchoices: sync << 31 | label or class */
    uint32_t *pchoice_start;    /* n_pchoices + 1, into ptarget / pprob */
    uint32_t n_ptargets;
    uint32_t *ptarget;          /* component-local target states */
    double *pprob;              /* their probabilities */
    uint64_t *pnum, *pden;      /* the same, exact: reduced fractions */
    uint32_t *pinit_start;      /* n_comps + 1, into pinit_state / pinit_prob */
    uint32_t *pinit_state;
    double *pinit_prob;
    uint64_t *pinit_num, *pinit_den;
    uint32_t *comp_dists;       /* n_comps: distributions of each component */

    /* ---- priority (network.h); 0 / NULL when the network has none ----
     * In a state, a transition labelled l (a local entry's or a class's
     * result) exists only when no transition whose label is in
     * prio_above[prio_above_start[l] .. prio_above_start[l + 1]) leaves the
     * state too (each list ascending); it then shows the label prio_out[l], or does not exist when
     * that is IMAGE_PRIO_CUT.  Every result label is < prio_n.  The
     * explorers apply it per state, after generating every transition
     * (image_prio_filter in explorer/successors.h). */
    uint32_t prio_n;
    uint32_t *prio_above_start; /* prio_n + 1 */
    uint32_t *prio_above;
    uint32_t *prio_out;         /* prio_n */
};

#define IMAGE_PRIO_CUT UINT32_MAX

#define IMAGE_PCHOICE_SYNC 0x80000000u

/* Encoding limits checked by image_compile.  The defaults are the format's
 * real limits; image_compile_limited accepts lower ones (values above a
 * default are clamped to it), which is how the tests reach every limit check
 * without building gigabyte-sized networks. */
struct image_limits {
    uint32_t max_words;      /* 32-bit words per state vector: IMAGE_MAX_WORDS */
    uint32_t max_act_bits;   /* bits of the label/class field: IMAGE_MAX_ACT_BITS */
    uint64_t max_entries;    /* transition entries: UINT32_MAX (32-bit offsets) */
    uint64_t max_rule_words; /* n_rules * mask_words: UINT32_MAX (32-bit indices) */
};

/* Fills *lim with the defaults above. */
void image_default_limits(struct image_limits *lim);

/* Compiles a network.  Allocates *img's arrays (free with image_free).
 * Fails loudly (WX_ELIMIT) when an encoding limit is exceeded: vector wider
 * than IMAGE_MAX_WORDS, label/class ids beyond IMAGE_MAX_ACT_BITS, a
 * component too large for one slot in a 64-bit entry, more than 2^32 - 1
 * entries.  The network is not modified. */
int image_compile(const struct network *net, struct image *img, struct wx_error *err);
/* image_compile with explicit limits (NULL = the defaults). */
int image_compile_limited(const struct network *net, const struct image_limits *lim,
                          struct image *img, struct wx_error *err);
/* Frees what image_compile allocated and zeroes *img; safe on a zeroed or
 * partially built image. */
void image_free(struct image *img);

/* How many distinct labels the priority puts above some other label (0
 * without a priority). */
uint32_t image_prio_above_labels(const struct image *img);

/* Checks that img is safe to read: every offset, id and target in range,
 * fields inside the vector, entry segments ordered (local entries first,
 * sync entries sorted by class, filled slots first).  WX_EINPUT when not.
 * Linear in the image size; the explorers (CPU and GPU) call it once per
 * run, since an image may come from a file rather than image_compile. */
int image_check(const struct image *img, struct wx_error *err);

/* Writes a human-readable description (components, sizes, labels, rules,
 * bits per field, words per vector) like exp.open's -network. */
void image_print_info(const struct image *img, FILE *out);

/* ---- accessors shared by host and device code ---- */

WX_HD uint32_t image_entry_is_sync(uint64_t e) { return (uint32_t)(e & 1u); }

WX_HD uint32_t image_entry_label(uint64_t e, uint32_t act_bits)
{
    return (uint32_t)((e >> 1) & ((1ull << act_bits) - 1));
}

WX_HD uint32_t image_entry_slots(uint32_t act_bits, uint32_t state_bits)
{
    return (63u - act_bits) / state_bits;
}

/* Target of slot k, or UINT32_MAX when the slot is empty. */
WX_HD uint32_t image_entry_target(uint64_t e, uint32_t act_bits, uint32_t state_bits, uint32_t k)
{
    uint64_t v = (e >> (1u + act_bits + k * state_bits)) & ((1ull << state_bits) - 1);
    return v ? (uint32_t)(v - 1) : 0xffffffffu;
}

/* Reads the field [first, first + width) of a vector (width <= 32). */
WX_HD uint32_t image_get_field(const uint32_t *vec, uint32_t first, uint32_t width)
{
    if (width == 0)
        return 0;
    uint32_t w = first >> 5, b = first & 31u;
    uint64_t lo = vec[w];
    if (b + width > 32)
        lo |= (uint64_t)vec[w + 1] << 32;
    return (uint32_t)((lo >> b) & ((1ull << width) - 1));
}

WX_HD void image_set_field(uint32_t *vec, uint32_t first, uint32_t width, uint32_t value)
{
    if (width == 0)
        return;
    uint32_t w = first >> 5, b = first & 31u;
    uint64_t mask = ((1ull << width) - 1) << b;
    uint64_t v = (uint64_t)value << b;
    vec[w] = (uint32_t)((vec[w] & ~(uint32_t)mask) | ((uint32_t)v & (uint32_t)mask));
    if (b + width > 32)
        vec[w + 1] = (uint32_t)((vec[w + 1] & ~(uint32_t)(mask >> 32)) | ((uint32_t)(v >> 32) & (uint32_t)(mask >> 32)));
}

#ifdef __cplusplus
}
#endif

#endif
