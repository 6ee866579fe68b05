/*
 * config.h -- every tunable of warpex, in one place.
 *
 * Each entry is a default with a one-line reason.  Defaults only: a value a
 * user may change at run time travels as a field of the options struct of
 * the stage that uses it (filled by cli/ from a command-line option or from
 * an environment variable documented in docs/tuning.md); library code never
 * reads the environment.  Measurements behind the defaults are in bench/.
 *
 * Usable from C11 and CUDA C (plain #defines and enums, no code).
 */
#ifndef WX_CONFIG_H
#define WX_CONFIG_H

/* ---- host: threads and memory ------------------------------------------ */

/* ---- output files (util/outfile) --------------------------------------- */

/* Temporary output files that may exist at once (a run writes at most a
 * handful: --aut, --csr, --scc-out, --mec-out, --mdp-out's few). */
#define OUTFILE_MAX_TEMPS 64
/* stdio buffer of an output stream, bytes: large writes, few system calls. */
#define OUTFILE_STREAM_BUFFER (1u << 16)

/* ---- CPU explorer ------------------------------------------------------- */

/* Partial-order reduction (explorer/por.c): the most memory one thread's
 * per-segment class sets and blocked-rule sets may take each; beyond it
 * their questions are binary searches (same answers, slower). */
#define POR_OFFER_BYTES (16u << 20)

/* tree store (hash/treestore, --store tree): */
/* the tree store's shape is chosen from this many states, the first in BFS
 * order (explorer/explore.c): enough to see which words vary together, a
 * few milliseconds to explore and to compare the words' pairings */
#define TREE_SHAPE_SAMPLE 4096u
/* a tree table (hash/ptable.h) is full at load 7/8: its 4-byte slots carry
 * a tag that skips most foreign slots without reading the pair, so the
 * longer probes of a dense table cost little against the bytes it saves */
#define PTABLE_MAX_LOAD_NUM 7u
#define PTABLE_MAX_LOAD_DEN 8u
/* a full tree table grows by NUM/DEN, so it runs at loads of 7/10 to 7/8
 * (doubling: 7/16 to 7/8) for about four times the re-insertion work of
 * doubling */
#define PTABLE_GROWTH_NUM 5u
#define PTABLE_GROWTH_DEN 4u

/* Distributed explorer (explorer/explore_dist.c): states a rank expands
 * between two exchanges; bounds the send buffers (about this many times
 * the successors per state, in records) while keeping each round's three
 * collectives rare next to the work between them. */
#define DIST_ROUND_STATES (1u << 16)
/* ... and the records rank 0 receives in one step while it gathers the
 * transitions for --aut, --csr and the analyses (explorer/dist_edges.c):
 * 4M records of 3 words, 48 MiB of receive buffer, few collectives */
#define DIST_GATHER_RECORDS (1u << 22)

/* ---- GPU explorer (kernels/explore) ------------------------------------- */
/* Run-time knobs: struct gpu_options (explorer/explore.h) and struct
 * gpu_tuning (kernels/explore_gpu.h); docs/tuning.md, "GPU explorer".
 * Measurements behind the defaults: bench/history/explorer.md. */

/* threads per block of the general generator: 2 blocks of 512 fill an SM (with GX_OCC2) */
#define GX_THREADS 512u
/* ... with vectors wider than 32 words (slots of several lines): shared memory runs out first */
#define GX_WIDE_THREADS 128u
/* threads per block of the fast generator (one state per thread) */
#define GX_FAST_THREADS 512u
/* async mode: iterations per launch at most; between launches the host moves queues and grows the table */
#define GX_ITERATIONS 64u
/* async mode: a launch ends once blocks * GX_END_SHARE / 4 blocks have left their loop, not with the slowest */
#ifndef GX_END_SHARE
#define GX_END_SHARE 2u
#endif
/* --por on the GPU: the reduction's scratch (one state's work arrays per thread, in global memory) takes
 * at most 1/GX_POR_SCRATCH_SHARE of device memory; a full grid that would take more launches fewer
 * blocks (networks of thousands of rules need tens of KB a state) */
#define GX_POR_SCRATCH_SHARE 8u
/* threads per state of the general generator, at most: more states in flight per block measured faster */
#define GX_MAX_GROUP 8u
/* fast generator: fewer threads per block once its successor sets pass 1/GX_FAST_SET_SHARE of device memory */
#define GX_FAST_SET_SHARE 6u
/* global-table buckets probed per insert before the table counts as full */
#define GX_PROBE_BOUND 64u
/* block-cache probes per successor (8-byte and smaller rows) */
#define GX_CACHE_PROBES 16u
/* ... for the one-shot cache's 16-byte rows: a nearly full cache sends successors to the table sooner */
#define GX_CACHE_PROBES_WIDE 2u
/* fewest block-cache rows worth launching with */
#define GX_MIN_CACHE 32u
/* most distinct successors of one state (successor-set entries) */
#define GX_MAX_DEDUPE 16384u
/* device memory left free when the table takes the rest (bytes) */
#define GX_SLACK (512ull << 20)
/* buckets a warp claims per step when it scans the table for work */
#define GX_SCAN_CHUNK 64u
/* default kernel variant: compiled for 2 blocks per SM (64 registers), faster than 1 block without spills */
#define GX_OCC2 1
/* one-CAS inserts for slots of <= 2 words */
#define GX_ONESHOT 1
/* ... and for 3- and 4-word vectors in 16-byte slots (a zero fourth word): one 128-bit CAS per insert */
#define GX_ONESHOT_WIDE 1
/* first size of a growing table (bytes): 10^8 states of up to 3 words at a quarter fill, without growing */
#define GX_GROW_FROM (8ull << 30)
/* ... and at least this many slots (16-byte slots start at 16 GiB) */
#define GX_GROW_FROM_SLOTS (1ull << 30)
/* a growing table grows by this factor (up to the largest table) */
#define GX_GROW_FACTOR 8u
/* the edge buffer: 1/GX_EDGE_SHARE of the free memory in entries, so that edges and their CSR sort fit later */
#define GX_EDGE_SHARE 50u
/* seconds between progress callbacks */
#define GX_PROGRESS_SECONDS 1.0
/* GPU tree run (--store tree): 1/GX_TREE_QUEUE_SHARE of the budget holds the two level queues
   (root slot + vector per entry), the rest the node and root tables, which cannot grow */
#define GX_TREE_QUEUE_SHARE 4u
/* GPU tree run with edges (--aut, --csr, --scc, ...): 1/GX_TREE_EDGE_SHARE of the budget holds one
   level's edges (20 bytes each), staged to host memory after every level */
#define GX_TREE_EDGE_SHARE 4u
/* GPU tree store: a put probes at most this many windows of 32 slots before it calls the table full,
   so that a nearly full table fails in bounded time instead of scanning every window */
#define TREE_GPU_MAX_WINDOWS 4096u
/* fast generator: a run of local moves this long is shared with the warp's idle lanes (fx_share) */
#ifndef GPU_SHARE_MIN
#define GPU_SHARE_MIN 16u
#endif
/* a wait for a reserved table slot or cache row longer than this (ns) is a bug, reported, not a hang */
#ifndef GPU_SPIN_NS
#define GPU_SPIN_NS 10000000000ull
#endif
/* re-reads of a one-CAS insert loop (each failed CAS means a slot was filled) before it reports a bug */
#define GPU_SPIN_LIMIT (1u << 22)

/* ---- GPU MDP explorer (kernels/explore_mdp) ----------------------------- */

/* MDP explorers' rule masks (explorer/mdp_rules.h): at most this many bytes of masks (one
 * word per 64 rules per local state; small enough to stay in the caches) */
#define MDP_MASK_MAX_BYTES (1u << 20)
/* ... and at most this many words per mask under the automatic choice (a state ORs one per
 * component) */
#define MDP_MASK_MAX_WORDS 32u
/* ... chosen when a state's mask words (components x words) are below this many times the
 * anchors' expected tries (a try is a search in a participant's choices, several loads) */
#define MDP_MASK_COST_RATIO 4.0

/* Threads per block of its kernels (one thread per state or entry). */
#define MDPX_THREADS 256u
/* States expanded per batch: a level larger than this is cut; halved
 * while the batch's scratch does not fit the device. */
#define MDPX_BATCH_DEFAULT (1ull << 20)
/* First hash-table size in slots (grows by doubling, kept half full). */
#define MDPX_TABLE_DEFAULT (1ull << 20)
/* Smallest size of a growing device buffer, bytes: buffers at least double,
 * so a run of 10^8 states allocates each a few dozen times, not hundreds
 * (every cudaFree waits for the device). */
#define MDPX_DBUF_MIN (1ull << 20)

/* ---- copies from the device into large host arrays (kernels/hostcopy) ---- */

/* Below this many bytes a copy into pageable host memory is one cudaMemcpy: the staged copy's
 * set-up (two pinned buffers, a team of threads) costs more than it saves */
#define HOSTCOPY_STAGED_MIN (64ull << 20)
/* Bytes per staging buffer: large enough that each DMA and each parallel host copy amortise
 * their start, small enough that pinning two of them takes milliseconds */
#define HOSTCOPY_CHUNK (64ull << 20)

/* ---- GPU SCC (kernels/scc) ---------------------------------------------- */

/* ---- MEC (kernels/mec, analysis/mec) ------------------------------------ */

/* threads per block of the MEC refinement kernels: one thread per state or choice */
#define MEC_GPU_BLOCK 256
/* attractor sweep pairs between host checks: a check costs a synchronising copy */
#define MEC_GPU_SWEEP_BATCH 8

/* ---- value iteration (kernels/vi, analysis/valiter) --------------------- */

/* --method auto on the GPU: 1 = optimistic value iteration, 0 = interval iteration; OVI's plain sweeps
 * (one vector) beat interval iteration's on the large instances (bench/bench_ovi_gpu.sh, RESULTS) */
#define VI_GPU_AUTO_OVI 1
/* --backend auto with --por: 1 = the GPU explorer's reduction, 0 = the CPU's; 0 while the GPU
 * reduction's speed against the CPU's is unmeasured (bench/bench_por.sh's gpu column) */
#define GX_AUTO_POR 0
/* --por on the GPU: 1 = the fast generator where the image allows it (each thread computes its own
 * state's reduced set, where the general one's lane 0 computes it while its group waits), 0 = always
 * the general one.  1: less kernel time on mutex n=5, and its 4 kernel variants leave the plain
 * explorer's times within noise of the build without them (bench/RESULTS.md) */
#define GX_POR_FAST 1
/* --por on the GPU: 1 = the stubborn-set choice on bit sets where the network has at most 64
 * components (explorer/por_core.h; the CPU explorers' way, fewer scratch accesses than Tarjan's),
 * 0 = Tarjan's algorithm on edge lists.  Both choose the same set (tests/test_por.c); 0 until the
 * bit sets have run on a device */
#define GX_POR_BITS 0
/* level-by-level runs without traces or a proviso (plain --por): 1 = the table starts small and grows
 * between levels, as the asynchronous run's grows between launches; 0 = the largest table from the
 * start (0.17 s of allocation and clearing before the first launch on an 80 GB card).  0 until the
 * growth between levels has run on a device */
#define GX_LEVEL_GROW 0
/* explore --prop on the GPU with nothing else that reads the MDP: 1 = only its skeleton (state
 * offsets, choice labels) comes to the host, the choices on demand (mdpcheck.h host_model); 0 = the
 * whole MDP comes down after the exploration.  0 until the skeleton's path has run on a device */
#define MDP_GPU_SKELETON 0
/* threads per block of every VI kernel but the policy steps' (8 warps: 4 tile blocks fill an SM) */
#define VI_GPU_THREADS 256u
/* sweeps (and search levels) in the first batch between host looks at the device */
#define VI_GPU_BATCH_MIN 4u
/* launches per batch at most: bounds the no-op launches after convergence */
#define VI_GPU_BATCH_MAX 64u
/* lanes per frontier state in the backward searches of the precomputation */
#define VI_GPU_FRONT_LANES 8u
/* blocks per SM of a search level: 8 fills the device; 2 measured no faster */
#define VI_GPU_FRONT_BLOCKS_PER_SM 8
/* entries (and choices) per sweep tile: 8 B per entry and vector of shared memory per warp */
#define VI_GPU_TILE_ENTRIES 256u
/* persistent sweeps per launch: the first launch's, doubled up to the next */
#define VI_GPU_PCHUNK_MIN 64u
/* ... at most: a launch after convergence returns at once, so long chunks cost nothing */
#define VI_GPU_PCHUNK_MAX 4096u
/* watched states a persistent launch checks itself after each sweep (every block reads them all);
   longer watch lists take the launched sweeps and a one-block check between them */
#define VI_GPU_PERSIST_WATCH_MAX 256u
/* tiles3 sweeps: choices per tile at most (4 rounds of 32 held in registers) */
#define VI_GPU_T3_CHOICES 128u
/* tiles3 sweeps: blocks per SM (<= 80 registers: a whole tile's loads in flight) */
#define VI_GPU_T3_BLOCKS 3
/* level solve: a level's slice below this fraction of L2 is loaded cached (measured neutral) */
#define VI_GPU_L2_FRACTION 0.5
/* threads per block of the policy-iteration kernels (BiCGSTAB's block sums assume 8 warps) */
#define VI_GPU_PI_THREADS 256u

/* optimistic value iteration (analysis/valiter_ovi.c): verification sweeps per guess at
 * least, however short the iteration phase before it (a guess needs a few sweeps to settle) */
#define VI_OVI_VERIFY_MIN 16u
/* ... and at most this many times the sweeps so far: the budget grows with every failed guess,
 * so a guess that needs long to settle (values leak out slowly) is verified in the end, and a
 * wrong one costs at most that share more (its sweeps move the lower bound on too) */
#define VI_OVI_VERIFY_FACTOR 1u
/* OVI block by block: a block whose lower bound moves by at most this share of err in a sweep
 * counts as settled whatever its estimated contraction (rounding noise stops no block) */
#define VI_OVI_SETTLED_FLOOR 1e-3
/* ... and settles when its estimated distance to the fixpoint is within this share of err (the
 * estimate from successive changes runs low on slowly converging blocks, and a guess above a
 * lower bound still more than epsilon away fails; shares compared in bench/RESULTS.md) */
#define VI_OVI_SETTLED_MARGIN 0.25

/* ---- cycle mean (kernels/cyclemean, analysis/cyclemean) ----------------- */

/* ---- property checking (analysis/propcheck, analysis/bounded) ----------- */

/* A comparison P~p whose interval still contains p at some initial state is
 * solved again with epsilon divided by this: each try costs about as much
 * as the last one again (sweeps grow with log(1/epsilon)), and two decimal
 * digits a try reach the floor below in a few tries. */
#define WX_DECIDE_SHRINK 100.0

/* The smallest epsilon tried before a comparison is reported undecided:
 * the bounds of interval iteration are computed in double precision, and
 * below about 1e-12 the rounding summed over a sweep is no longer far
 * below the gap it is asked to close. */
#define WX_DECIDE_EPSILON_MIN 1e-12

/* States per thread at least in a step-bounded backup: below, waking the
 * threads costs more than the backup of the states. */
#define WX_BOUNDED_GRAIN 4096

/* GPU step-bounded backups launched between two looks at whether a bound
 * still moves: one round trip per batch instead of per step. */
#define WX_BOUNDED_GPU_BATCH 64

/* ---- parsers and readers: bounds on hostile input ------------------------ */

/* Deepest nesting a recursive reader accepts (a property's '!' and '(', an
 * EXP behaviour's levels): far beyond hand-written or generated inputs, and
 * shallow enough that the parsers' and the tree walks' recursion (a few
 * hundred bytes of stack per level) stays within a 8 MiB main-thread stack. */
#define WX_MAX_NESTING 1000

/* Bison's stack for the EXP grammar, in entries (its default): every level
 * of an EXP tree holds at least two entries while it is parsed, so a tree is
 * at most WX_EXP_MAX_STACK / 2 levels deep, and deeper input is a located
 * error rather than a stack overflow in the tree walks that follow. */
#define WX_EXP_MAX_STACK 10000

/* Deepest EXP tree flattened, counting the levels of the .exp files a leaf
 * includes (each file alone is bounded by the parser stack above). */
#define WX_EXP_MAX_DEPTH (WX_EXP_MAX_STACK / 2)

/* Most labels one EXP "prio" operator may relate (labels named by one of
 * its sets): its transitive closure is a bit matrix of this size squared
 * (2 MiB at 4096) built in O(n^3 / 64) word operations. */
#define WX_PRIO_MAX_LABELS 4096

/* Most labels above others in a prio on the GPU explorer: each has one bit of a 64-bit mask per state
 * (gpu_int.cuh's prio_mark); --backend auto explores a network past it on the CPU */
#define GX_PRIO_MAX_ABOVE 64

/* Largest file an EXP "using FILE" form reads (vectors, patterns, rules):
 * such files are hand-written lists; a bigger one is almost surely a wrong
 * path, refused rather than read into memory. */
#define WX_EXP_USING_MAX_BYTES (64 << 20)

/* Plausibility of a declared count or a vertex/state id against the size of
 * the input (bytes): ids up to WX_IDS_PER_BYTE * bytes + WX_IDS_FLOOR are
 * accepted, larger ones refused before any per-vertex array is allocated
 * (a 16-byte file must not make the reader allocate gigabytes).  16 ids per
 * byte leaves room for isolated states; the floor (2^20 ids, a few MiB of
 * arrays) keeps small sparse test graphs readable. */
#define WX_IDS_PER_BYTE 16ull
#define WX_IDS_FLOOR 1048576ull

#endif
