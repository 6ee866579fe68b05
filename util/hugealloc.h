/*
 * hugealloc.h -- large host arrays with transparent huge pages.
 *
 * Why: the explorers' state tables and parent links, and the model
 * checker's work arrays, run to gigabytes (explorer) or hundreds of
 * megabytes (a system of 10^6..10^7 states).  With 4 KiB pages, random
 * accesses over them miss the TLB on nearly every access, and a fresh array
 * costs a page fault (with the zeroing of a page) per 4 KiB at first touch;
 * a 2 MiB page divides both by 512.  Users: the state table's slot and
 * vector arrays (hash/vtable.c), the CPU explorer's parent links, and
 * `warpex check`'s work arrays (analysis/mdpcheck.c; on with the GPU
 * backend, where the host's construction is the bottleneck: cli/cmd_check.c).
 *
 * Advice only: where transparent huge pages are off, nothing changes, and a
 * failing madvise is ignored.  Blocks from wx_big_alloc / wx_big_zalloc are
 * ordinary malloc blocks, released with free().  Thread-safe.
 */
#ifndef WX_HUGEALLOC_H
#define WX_HUGEALLOC_H

#include <stddef.h>

/* Asks for huge pages on the 2 MiB-aligned interior of [p, p + bytes). */
void wx_advise_huge(void *p, size_t bytes);

/* malloc / calloc of bytes (at least 1), advised with wx_advise_huge when
 * huge is set; NULL when out of memory. */
void *wx_big_alloc(size_t bytes, int huge);
void *wx_big_zalloc(size_t bytes, int huge);

#endif
