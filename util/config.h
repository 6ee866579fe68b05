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

/* threads per block of the MEC refinement kernels: one thread per state or choice */
#define MEC_GPU_BLOCK 256
/* attractor sweep pairs between host checks: a check costs a synchronising copy */
#define MEC_GPU_SWEEP_BATCH 8

/* ---- value iteration (kernels/vi, analysis/valiter) --------------------- */

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
/* tiles3 sweeps: choices per tile at most (4 rounds of 32 held in registers) */
#define VI_GPU_T3_CHOICES 128u
/* tiles3 sweeps: blocks per SM (<= 80 registers: a whole tile's loads in flight) */
#define VI_GPU_T3_BLOCKS 3
/* level solve: a level's slice below this fraction of L2 is loaded cached (measured neutral) */
#define VI_GPU_L2_FRACTION 0.5
/* threads per block of the policy-iteration kernels (BiCGSTAB's block sums assume 8 warps) */
#define VI_GPU_PI_THREADS 256u

/* ---- cycle mean (kernels/cyclemean, analysis/cyclemean) ----------------- */

/* ---- parsers and readers: bounds on hostile input ------------------------ */

#endif
