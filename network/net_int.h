/*
 * net_int.h -- internals shared by the network transforms (net_*.c).
 *
 * struct rule_buf accumulates rules with geometric growth (network_add_rule
 * reallocates per rule, which is quadratic for the millions of rules a wide
 * par can produce) and enforces the explosion guard; rule_buf_install()
 * swaps the finished rule arrays into a network.
 */
#ifndef WX_NET_INT_H
#define WX_NET_INT_H

#include <stdint.h>

#include "network_transform.h"

struct rule_buf {
    uint32_t n_rules, cap_rules;
    uint32_t *start;     /* n_rules + 1 */
    uint32_t *result;    /* n_rules */
    uint64_t n_parts, cap_parts;
    uint32_t *comp, *label;
    uint64_t max_rules;
};

void rule_buf_init(struct rule_buf *b, const struct net_ctx *ctx);
void rule_buf_free(struct rule_buf *b);

/* Appends a rule of n participants, given in any order; WX_OK, WX_ELIMIT
 * (too many rules or participants) or WX_ESYSTEM (OOM).  Sets no error
 * text: callers locate it (rule_buf_fail). */
int rule_buf_add(struct rule_buf *b, uint32_t n, const uint32_t *comp,
                 const uint32_t *label, uint32_t result);

/* Appends rule r of `net` with components shifted by `offset`. */
int rule_buf_copy(struct rule_buf *b, const struct network *net, uint32_t r,
                  uint32_t offset);

/* Replaces net's rules by b's (b is emptied).  WX_OK or WX_ESYSTEM. */
int rule_buf_install(struct rule_buf *b, struct network *net);

/* Fills err for status rc of rule_buf_add at the given construct. */
int rule_buf_fail(int rc, const struct net_ctx *ctx, const struct rule_buf *b,
                  struct exp_loc loc, struct wx_error *err);

/* Interns s[0..len); UINT32_MAX on OOM. */
uint32_t net_intern(struct net_ctx *ctx, const char *s, size_t len);

/* Moves the components of `from` to the end of `to` (from keeps its rules);
 * WX_OK or WX_ESYSTEM. */
int net_move_comps(struct network *to, struct network *from);

/* Scratch space of rule_buf_product (zero-initialise; free when done). */
struct product_scratch {
    uint32_t *comp, *label;  /* participants of the rule being built */
    uint64_t cap;
    uint32_t *cur;           /* odometer */
    size_t cur_cap;
};
void product_scratch_free(struct product_scratch *s);

/* Adds one rule per choice of an index x_j in [lo[j], hi[j]) for every
 * j < k: the union of the participants of rules rules[j][x_j] of network
 * ops[op[j]] (components shifted by offset[op[j]]), result `res`.  The op[j]
 * must be distinct.  Nothing is added when a range is empty. */
int rule_buf_product(struct rule_buf *b, const struct network *ops,
                     const uint32_t *offset, size_t k, const size_t *op,
                     uint32_t *const *rules, const uint32_t *lo,
                     const uint32_t *hi, uint32_t res,
                     struct product_scratch *s);

/* Frees ops[0..n). */
void net_discard_all(struct network *ops, size_t n);

#endif
