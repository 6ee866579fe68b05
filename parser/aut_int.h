/*
 * aut_int.h -- what the Aldebaran reader (aut_read.c) and writer
 * (aut_write.c) share: the byte classes of the format.
 */
#ifndef WX_AUT_INT_H
#define WX_AUT_INT_H

#include <stdbool.h>

static inline bool is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static inline bool is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10u;
}

static inline bool is_alpha(unsigned char c)
{
    return (unsigned)((c | 0x20) - 'a') < 26u;
}

/* A byte that may not appear in a label: controls except TAB, and DEL. */
static inline bool is_bad_label_byte(unsigned char c)
{
    return (c < 0x20 && c != '\t') || c == 0x7f;
}

#endif
