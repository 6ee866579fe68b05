/*
 * size.h -- byte sizes as users write them: a number (decimals allowed)
 * with an optional suffix K, M, G or T (powers of 1024, any case, an
 * optional trailing B), e.g. "8G", "1.5g", "512MB", "4096".
 */
#ifndef WX_SIZE_H
#define WX_SIZE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *out = the size s names; 0, or -1 (and *out untouched) when s is not a
 * size or exceeds 2^64. */
int wx_parse_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif
