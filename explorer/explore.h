/*
 * explore.h -- the backend-neutral explorer API.
 *
 * explore_seq (simple sequential reference, the test oracle), explore_cpu
 * (multi-threaded, lock-free table) and explore_gpu (kernels/explore/)
 * take the same image and options and fill the same result, so the CLI and
 * the twin tests drive them uniformly.
 *
 * What is promised (and so what tests compare):
 *   - when result.complete: states = number of distinct reachable vectors,
 *     transitions = number of distinct (source, label, target) triples,
 *     deadlocks = number of reachable states without successors; identical
 *     on every backend;
 *   - state ids are dense and 0 is the initial state.  explore_seq and
 *     explore_cpu assign ids in BFS level order (every state of depth d has a
 *     smaller id than every state of depth d+1; order within a level may
 *     vary between runs of explore_cpu; explore_seq is deterministic).  The
 *     GPU backend promises dense ids only;
 *   - a trace is a shortest path from the initial state to the violation
 *     (all backends agree on its length, not on the path);
 *   - with finish_after_violation, a violation is recorded (the same one,
 *     and the same trace, as when stopping) and the exploration goes on to
 *     the end: complete, counts and sink edges are those of a run without
 *     the checks;
 *   - on WX_ELIMIT (table or memory full) and WX_EINTERRUPT (options.cancel
 *     was raised) the counts in the result are the partial counts so far and
 *     result.complete is false: never a result.
 */
#ifndef WX_EXPLORE_H
#define WX_EXPLORE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../graph/dgraph.h"
#include "../network/image.h"
#include "../util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum explore_backend { EXPLORE_AUTO, EXPLORE_SEQ, EXPLORE_CPU, EXPLORE_GPU };

enum explore_violation { VIOLATION_NONE = 0, VIOLATION_DEADLOCK, VIOLATION_ACTION };

/* How the CPU explorers store states (docs/storage.md): a flat vector table
 * (hash/vtable.h, hash/vecset.h), or tree-compressed (hash/treestore.h:
 * fewer bytes per state on wide vectors, slower).  AUTO is flat
 * (explore_store_pick), and through explore_run the tree when flat fills
 * up.  The GPU backend takes TREE as it is (kernels/explore/tree_run.cu);
 * AUTO is flat there. */
enum explore_store { STORE_AUTO, STORE_FLAT, STORE_TREE };

/* One distinct product transition. */
struct product_edge {
    uint64_t src, dst;
    uint32_t label;
};

/* Receives every distinct product transition exactly once, in batches, from
 * worker threads (so emit must be thread-safe).  A non-zero return (a WX_E
 * code, with err filled) aborts the exploration with that code. */
struct edge_sink {
    int (*emit)(void *ctx, const struct product_edge *edges, size_t n, struct wx_error *err);
    void *ctx;
};

struct explore_stats {
    uint64_t states, transitions, bytes;
    uint32_t depth;
    double seconds;
};

struct gpu_options {
    uint32_t blocks;          /* 0 = default for the device */
    uint32_t threads;         /* per block, multiple of 32; 0 = default */
    uint32_t iterations;      /* iterations per launch (-k); 0 = default */
    uint64_t hash_bytes;      /* global table size; 0 = from free memory */
    uint32_t probe_bound;     /* bounded double hashing; 0 = default */
    int use_textures;         /* 1 textures, 0 plain loads, -1 default */
    int compact_slots;        /* 1: 3-word vectors in 12-byte slots
                                 (reserve/write/publish inserts): a third
                                 more states in the same memory, slower;
                                 0: 16-byte one-CAS slots */
    uint64_t grow_from;       /* asynchronous mode without a graph or a
                                 fixed table size: bytes of the first
                                 table, which grows; 0 = default
                                 (util/config.h GX_GROW_FROM), UINT64_MAX =
                                 no growth (all free memory at once);
                                 gpu_tuning.grow_from overrides it */
    int timeline;             /* 1: print where the time goes to stderr
                                 (kernels/explore/timeline.cu); each mark
                                 waits for the device, so a timed run is
                                 not a benchmark */
    uint64_t por_scratch;     /* --por: bytes the reduction's scratch may
                                 take (fewer blocks where a full grid's
                                 would take more); 0 = 1/GX_POR_SCRATCH_SHARE
                                 of device memory (util/config.h) */
    int generator;            /* successor generator: 0 default, 1 the fast
                                 one where the image allows it, 2 the
                                 general one; gpu_tuning.generator
                                 overrides it */
};

struct explore_options {
    unsigned threads;         /* explore_cpu, explore_mdp: 0 = all online
                                 cores; above WX_POOL_MAX (256, util/pool.h)
                                 cut to it */
    uint64_t memory_bytes;    /* table + state store budget; 0 = default */
    enum explore_store store; /* --store; AUTO: explore_store_pick */
    bool stop_on_deadlock;    /* --deadlock: first deadlock is a violation */
    const uint8_t *action_match; /* NULL, or n_labels flags: a reachable
                                  transition with a flagged label is a violation */
    bool trace;               /* build a shortest trace to the violation */
    bool finish_after_violation; /* record the first violation but explore
                                  the whole state space (explore_int.h);
                                  false: stop at it, counts partial */
    bool keep_vectors;        /* result.vectors gets every state's vector */
    int mdp_rule_walk;        /* probabilistic networks: how a state's rules
                                 are found, enum mdp_rule_walk
                                 (explorer/mdp_rules.h); 0 = automatic     */
    bool por;                 /* partial-order reduction (explorer/por.h):
                                 explore_seq and explore_cpu explore a
                                 reduced graph that keeps deadlocks and the
                                 reachability of action_match's labels; the
                                 counts are the reduced graph's.
                                 explore_dist: without action_match's
                                 labels only (explore_dist.h);
                                 explore_gpu: without them too (its general
                                 generator filters each state's records by
                                 the same stubborn sets, level by level) */
    struct edge_sink *sink;   /* NULL, or receives all distinct transitions */
    bool keep_device_graph;   /* GPU backend: leave the product graph on the
                                 device (result.device_graph) for the next
                                 stage; a graph that cannot be kept there is
                                 an error (WX_ELIMIT).  Others ignore it.   */
    void (*progress)(void *ctx, const struct explore_stats *s); /* ~1/s */
    void *progress_ctx;
    /* NULL, or a flag polled during the exploration (every few thousand
     * states; on the GPU between launches): once non-zero, the explorer
     * stops its workers and returns WX_EINTERRUPT with the partial counts
     * (result.complete false, as for WX_ELIMIT).  Set by the caller's signal
     * handler; the explorer only reads it. */
    const volatile sig_atomic_t *cancel;
    struct gpu_options gpu;
};

struct trace {
    uint32_t len;             /* number of transitions */
    uint32_t *labels;         /* len result-label ids */
    uint64_t *states;         /* len + 1 state ids, states[0] == 0 */
    uint32_t *vectors;        /* (len + 1) * words */
};

struct explore_result {
    uint64_t states, transitions, deadlocks;
    uint32_t depth;           /* largest BFS level reached */
    bool complete;            /* whole reachable space explored */
    enum explore_violation violation;
    uint64_t violation_state; /* id of the deadlock / source of the action */
    struct trace trace;       /* filled when violation and options.trace */
    uint32_t *vectors;        /* keep_vectors: states * words, by id */
    uint64_t bytes;           /* memory used by table and store */
    double seconds;
    const char *backend;      /* "seq", "cpu" or "gpu" */
    const char *store;        /* "flat" or "tree" */
    uint64_t flat_full;       /* store AUTO (explore_run): the flat store
                                 filled up after this many states and the
                                 run was repeated with the tree; 0: not */
    bool store_full;          /* WX_ELIMIT because the state store filled
                                 up (the GPU explorers say so) */
    char device[128];         /* GPU name or "" */
    unsigned threads;         /* CPU threads used */
    struct dgraph device_graph; /* keep_device_graph: the product graph on
                                   the device (graph/dgraph.h), labelled
                                   with result-label ids, owned; released
                                   by explore_result_free */
};

int explore_seq(const struct image *img, const struct explore_options *opt,
                struct explore_result *res, struct wx_error *err);
int explore_cpu(const struct image *img, const struct explore_options *opt,
                struct explore_result *res, struct wx_error *err);
int explore_gpu(const struct image *img, const struct explore_options *opt,
                struct explore_result *res, struct wx_error *err);

/* 1 when a usable CUDA device exists (name copied out), 0 otherwise
 * (including builds without CUDA). */
int gpu_available(char *name, size_t size);

/* gpu_available(), and when it says yes, also creates the device's primary
 * CUDA context (the driver's start-up, ~0.15 s), so that a caller can
 * overlap that cost with other work by calling this on a thread of its
 * own (cli/gpu_probe.h); every thread uses that context afterwards.
 * Returns 1 when the GPU is usable, else 0. */
int gpu_start(void);

/* Dispatches on backend; EXPLORE_AUTO = GPU when available, else CPU.
 * With options.store AUTO, a run on vectors of 3 or more words whose flat
 * store fills up (WX_ELIMIT; on the GPU result.store_full) is repeated with
 * the tree store (result.flat_full says so), unless an edge sink already
 * received edges (the CPU explorers stream them; the GPU's leave the device
 * only after a complete run).
 * A probabilistic image (img->probabilistic) is WX_EINPUT here and in
 * explore_seq: its product is an MDP (explorer/explore_mdp.h). */
int explore_run(enum explore_backend backend, const struct image *img,
                const struct explore_options *opt, struct explore_result *res,
                struct wx_error *err);

/* Whether options.action_match flags some label of img: with options.por
 * the reduction then needs the cycle proviso (explorer/por.h), which every
 * backend applies. */
bool explore_por_visible(const struct image *img, const struct explore_options *opt);

void explore_result_free(struct explore_result *res);

/* The store a run with these options starts with: options.store, with
 * AUTO settled (flat: the tree is the slower of the two, and nothing known
 * before the run says that flat will not fit; explore_run repeats a run
 * whose flat store filled up) and TREE flat for vectors of 1 or 2 words (a
 * tree of one pair is the flat table; the result's store then says
 * "flat"). */
enum explore_store explore_store_pick(const struct explore_options *opt, const struct image *img);

/* The tree store's shape for img (words >= 3) from a sample, the first
 * TREE_SHAPE_SAMPLE states in BFS order (docs/storage.md), as the CPU
 * explorers pick it; *states: the sample's size, *nodes: the inner nodes
 * the sample's vectors take in a tree of that shape (for sizing). */
struct tree_shape;
int explore_tree_sample(const struct image *img, struct tree_shape *sh, uint64_t *states, uint64_t *nodes,
                        struct wx_error *err);

/* Default memory budget: half of physical RAM (bytes). */
uint64_t explore_default_memory(void);

#ifdef __cplusplus
}
#endif

#endif
