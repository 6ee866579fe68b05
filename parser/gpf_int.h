/*
 * gpf_int.h -- GPUexplore's limits, shared by the .gpf reader and writer.
 */
#ifndef WX_GPF_INT_H
#define WX_GPF_INT_H

#define GPF_MAX_PROCS 31u   /* vector groups live in one warp; masks use 1 << nr_procs */
#define GPF_MAX_INTS 9u     /* MAX_SIZE: ints per state vector */
#define GPF_MAX_DIGITS 12   /* longest accepted number, sign excluded */

#endif
