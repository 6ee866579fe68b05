/*
 * hostpin.h -- page-locking host memory that is already allocated, so that
 * later copies between it and the GPU run at the DMA engines' speed instead
 * of being staged through the driver's pinned buffers (on the H100's host:
 * ~7 GB/s pageable).  Used by `warpex check` (cli/cmd_check.c, through
 * mdpcheck's options) for the system arrays it builds for the GPU solve.
 *
 * hostpin_register(p, bytes) returns 1 when the range is now page-locked
 * (release it with hostpin_unregister(p) before freeing it), 0 when not
 * (no CUDA, no device, or the driver refused: harmless, copies just stay
 * pageable).  Thread-safe (the CUDA runtime's calls are).
 */
#ifndef WX_HOSTPIN_H
#define WX_HOSTPIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int hostpin_register(void *p, size_t bytes);
void hostpin_unregister(void *p);

#ifdef __cplusplus
}
#endif

#endif
