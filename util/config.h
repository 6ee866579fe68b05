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

/* ---- CPU explorer ------------------------------------------------------- */

/* ---- GPU explorer (kernels/explore) ------------------------------------- */

/* ---- GPU SCC (kernels/scc) ---------------------------------------------- */

/* ---- MEC (kernels/mec, analysis/mec) ------------------------------------ */

/* ---- value iteration (kernels/vi, analysis/valiter) --------------------- */

/* ---- cycle mean (kernels/cyclemean, analysis/cyclemean) ----------------- */

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

/* Plausibility of a declared count or a vertex/state id against the size of
 * the input (bytes): ids up to WX_IDS_PER_BYTE * bytes + WX_IDS_FLOOR are
 * accepted, larger ones refused before any per-vertex array is allocated
 * (a 16-byte file must not make the reader allocate gigabytes).  16 ids per
 * byte leaves room for isolated states; the floor (2^20 ids, a few MiB of
 * arrays) keeps small sparse test graphs readable. */
#define WX_IDS_PER_BYTE 16ull
#define WX_IDS_FLOOR 1048576ull

#endif
