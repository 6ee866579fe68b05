#include "error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void wx_error_clear(struct wx_error *e)
{
    memset(e, 0, sizeof *e);
}

/* Length of the valid UTF-8 sequence at s[0..n) that is not a C1 control,
 * or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, cp = s[0] & 0x07u;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    /* overlong forms, surrogates, beyond U+10FFFF, C1 controls */
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
        return 0;
    return len;
}

size_t wx_escape(char *dst, size_t size, const char *src, size_t n)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t o = 0;
    if (size == 0)
        return 0;
    for (size_t i = 0; i < n;) {
        size_t k = s[i] >= 0x20 && s[i] < 0x7f ? 1 : s[i] >= 0x80 ? utf8_len(s + i, n - i) : 0;
        if (k) {
            if (o + k >= size)
                break;
            memcpy(dst + o, s + i, k);
            o += k, i += k;
        } else {
            if (o + 4 >= size)
                break;
            snprintf(dst + o, 5, "\\x%02x", s[i]);
            o += 4, i++;
        }
    }
    dst[o] = 0;
    return o;
}

int wx_fail(struct wx_error *e, int code, const char *file, int line, int col,
            const char *fmt, ...)
{
    va_list ap;
    char raw[sizeof e->msg];

    e->code = code;
    file = file ? file : "";
    wx_escape(e->file, sizeof e->file, file, strlen(file));
    e->line = line;
    e->col = col;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    wx_escape(e->msg, sizeof e->msg, raw, strlen(raw));
    return code;
}

void wx_error_format(const struct wx_error *e, char *buf, size_t size)
{
    if (e->file[0] && e->line > 0 && e->col > 0)
        snprintf(buf, size, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
    else if (e->file[0] && e->line > 0)
        snprintf(buf, size, "%s:%d: %s", e->file, e->line, e->msg);
    else if (e->file[0])
        snprintf(buf, size, "%s: %s", e->file, e->msg);
    else
        snprintf(buf, size, "%s", e->msg);
}
