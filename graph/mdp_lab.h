/*
 * mdp_lab.h -- state labels and rewards of an MDP: PRISM's explicit .lab,
 * .srew and .trew files (formats: docs/formats.md), and the
 * label set that the Storm .drn reader (drn.h) fills too.
 *
 * LABELS.  A label is a name and a set of states (a bitmap of n_states
 * bits).  Label 0 of a PRISM file is "init", label 1 "deadlock"; a .drn
 * file names its own.  Names are unique within one set.
 *
 * .lab FORMAT: '#' comment lines anywhere, blank lines ignored; first the
 * declaration line  0="init" 1="deadlock" 2="name" ...  (ids 0, 1, 2, ...
 * in order, names in double quotes without '"' or control bytes); then lines
 * "STATE: ID ID ..." with STATE < n_states, states strictly increasing, ids
 * declared.  Errors are located (file:line:col), WX_EINPUT.
 *
 * REWARDS.  struct mdp_rewards holds per-state rewards (accumulated in each
 * state visited before the target) and per-choice expected transition
 * rewards (sum over the choice's entries of prob * reward, which for
 * PRISM's MDP files, where a choice's reward is repeated on all its lines,
 * is that reward).  Rewards are finite and >= 0.
 *   .srew: header "S N", then N lines "STATE REWARD".
 *   .trew: header "S C N" (MDP) or "S N" (DTMC), then N lines
 *          "SRC CHOICE DST REWARD" (MDP) or "SRC DST REWARD" (DTMC); the
 *          transition must exist in the MDP.
 * S (and C) must match the MDP.  Errors are located, WX_EINPUT.
 *
 * STATE VALUATIONS (.sta, optional, only for output): '#' comments, the
 * variable line "(v1,v2,...)", then one line "INDEX:(VALUES)" per state in
 * index order 0, 1, ..., n_states - 1.  struct mdp_sta keeps the variable
 * line and each state's "(VALUES)" text.
 *
 * THREAD SAFETY: reentrant; results are only read afterwards.
 */
#ifndef WX_MDP_LAB_H
#define WX_MDP_LAB_H

#include <stdint.h>

#include "../util/error.h"
#include "mdp.h"

struct mdp_labels {
    uint64_t n_states;
    uint32_t n_labels;
    char **names;      /* n_labels, owned */
    uint64_t words;    /* 64-bit words per label: (n_states + 63) / 64 */
    uint64_t *bits;    /* n_labels * words, owned */
};

/* An empty set of labels over n_states states (no label at all). */
void mdp_labels_init(struct mdp_labels *l, uint64_t n_states);
/* Adds a label with no states; returns its id, or -1 when out of memory.
 * The name is copied; it must not already exist. */
int mdp_labels_add(struct mdp_labels *l, const char *name);
/* The id of a label, or -1. */
int mdp_labels_find(const struct mdp_labels *l, const char *name);
static inline int mdp_labels_has(const struct mdp_labels *l, int id, uint64_t s)
{
    return (int)((l->bits[(uint64_t)id * l->words + s / 64] >> (s % 64)) & 1);
}
static inline void mdp_labels_set(struct mdp_labels *l, int id, uint64_t s)
{
    l->bits[(uint64_t)id * l->words + s / 64] |= 1ull << (s % 64);
}
void mdp_labels_free(struct mdp_labels *l);

/* Reads a .lab file for an MDP of n_states states (allocates; on error *out
 * is empty). */
int mdp_labels_read(const char *path, uint64_t n_states, struct mdp_labels *out,
                    struct wx_error *err);
int mdp_labels_read_buffer(const char *data, size_t len, const char *name, uint64_t n_states,
                           struct mdp_labels *out, struct wx_error *err);

struct mdp_rewards {
    double *state;  /* n_states, owned, NULL: all 0 */
    double *choice; /* n_choices, owned, NULL: all 0 */
    char *name;     /* the structure's name, owned, NULL: unnamed */
};

/* Several reward structures of one model (PRISM's R{"name"} / R{N}): in
 * the order the model declares them. */
struct mdp_reward_models {
    size_t n;
    struct mdp_rewards *models; /* n, owned */
};
/* Appends an empty structure; its index, or -1 when out of memory. */
int mdp_reward_models_add(struct mdp_reward_models *rm);
/* The index of the structure named name, or -1. */
int mdp_reward_models_find(const struct mdp_reward_models *rm, const char *name);
void mdp_reward_models_free(struct mdp_reward_models *rm);

/* Read a .srew / .trew file for m into r->state / r->choice (allocated,
 * zero where the file says nothing; replaces what was there).  A leading
 * comment '# Reward structure "NAME"' (PRISM's exports) sets r->name. */
int mdp_srew_read(const char *path, const struct mdp *m, struct mdp_rewards *r,
                  struct wx_error *err);
int mdp_srew_read_buffer(const char *data, size_t len, const char *name, const struct mdp *m,
                         struct mdp_rewards *r, struct wx_error *err);
int mdp_trew_read(const char *path, const struct mdp *m, struct mdp_rewards *r,
                  struct wx_error *err);
int mdp_trew_read_buffer(const char *data, size_t len, const char *name, const struct mdp *m,
                         struct mdp_rewards *r, struct wx_error *err);
void mdp_rewards_free(struct mdp_rewards *r);

struct mdp_sta {
    uint64_t n_states;
    char *variables;   /* "(v1,...,vk)", owned                             */
    char *text;        /* all valuations, NUL-separated, owned              */
    uint64_t *offset;  /* n_states: state s's "(...)" is text + offset[s]   */
};

/* Reads a .sta file for n_states states (allocates; mdp_sta_free). */
int mdp_sta_read(const char *path, uint64_t n_states, struct mdp_sta *out, struct wx_error *err);
int mdp_sta_read_buffer(const char *data, size_t len, const char *name, uint64_t n_states,
                        struct mdp_sta *out, struct wx_error *err);
void mdp_sta_free(struct mdp_sta *st);

#endif
