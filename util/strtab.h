/*
 * strtab.h -- interning of label strings.
 *
 * A strtab maps byte strings (any bytes, embedded quotes included; not
 * NUL-terminated on input) to dense ids 0, 1, 2, ... in order of first
 * insertion, and back.  Ids are stable for the table's lifetime.  The text of
 * every id is stored NUL-terminated, so strtab_str() can be passed to C string
 * functions (labels never contain NUL bytes: readers reject them).
 *
 * Not thread-safe for writers; concurrent readers are fine once no writer runs.
 */
#ifndef WX_STRTAB_H
#define WX_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab;

/* Allocates an empty table; NULL when out of memory. */
struct strtab *strtab_new(void);
void strtab_free(struct strtab *t);

/* Returns the id of s[0..len), inserting it if new; UINT32_MAX on OOM. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t len);

/* Returns the id of s[0..len) or UINT32_MAX when absent. */
uint32_t strtab_find(const struct strtab *t, const char *s, size_t len);

uint32_t strtab_count(const struct strtab *t);
const char *strtab_str(const struct strtab *t, uint32_t id);
size_t strtab_len(const struct strtab *t, uint32_t id);

#endif
