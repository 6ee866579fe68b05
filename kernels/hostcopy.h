/*
 * hostcopy.h -- copies of large device arrays into pageable host memory.
 *
 * Why: cudaMemcpy into pageable memory goes through the driver's own small
 * pinned buffers on one host thread, and a fresh destination takes a page
 * fault (and the zeroing of a page) per 4 KiB at first touch, all on that
 * thread.  An explored MDP of 10^8 states is tens of gigabytes, and such a
 * copy of it took longer than its exploration (bench/RESULTS.md, explore
 * --prop's timeline).  Here the device copies into two pinned
 * staging buffers in turn while a team of host threads (util/pool.h)
 * copies the previous one into the destination, so the DMA engine, the
 * page faults and the host copies of many cores overlap.
 *
 * hostcopy_down_parts(parts, n, err): each part's dst (host, pageable or
 * not) receives bytes from its src (device), in order, with one staging
 * set-up for all (pinning the two buffers and starting the team cost
 * milliseconds).  Waits for the device's earlier work first, as cudaMemcpy
 * does.  Parts below HOSTCOPY_STAGED_MIN (util/config.h), into page-locked
 * memory (the DMA writes it directly), or when no staging buffer can be
 * pinned, are one cudaMemcpy each.  Returns WX_OK, or the CUDA failure as
 * cuda_check.cuh maps it.
 *
 * hostcopy_alloc(bytes): a host block for such a copy (malloc'ed, advised
 * to use transparent huge pages: util/hugealloc.h); released with free().
 */
#ifndef WX_HOSTCOPY_H
#define WX_HOSTCOPY_H

#include <stddef.h>

#include "../util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hostcopy_part {
    void *dst;
    const void *src;
    size_t bytes;
};
int hostcopy_down_parts(const struct hostcopy_part *parts, int n, struct wx_error *err);
void *hostcopy_alloc(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
