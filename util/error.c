#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void wx_error_clear(struct wx_error *e)
{
    memset(e, 0, sizeof *e);
}

int wx_fail(struct wx_error *e, int code, const char *file, int line, int col,
            const char *fmt, ...)
{
    va_list ap;

    e->code = code;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    e->col = col;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
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
