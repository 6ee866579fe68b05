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

/* ---- GPU explorer (kernels/explore) ------------------------------------- */

/* ---- GPU SCC (kernels/scc) ---------------------------------------------- */

/* ---- MEC (kernels/mec, analysis/mec) ------------------------------------ */

/* ---- value iteration (kernels/vi, analysis/valiter) --------------------- */

/* ---- cycle mean (kernels/cyclemean, analysis/cyclemean) ----------------- */

/* ---- parsers and readers: bounds on hostile input ------------------------ */

#endif
