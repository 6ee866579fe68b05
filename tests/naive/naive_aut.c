/*
 * naive_aut.c -- the oracle's LTS I/O: naive_lts in and out of
 * Aldebaran (.aut) files, independent of the library's reader.
 *
 * Part of naive.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------------ LTS I/O */

void naive_lts_free(struct naive_lts *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_trans; i++)
        free(l->label[i]);
    free(l->label);
    free(l->src);
    free(l->dst);
    memset(l, 0, sizeof *l);
}

static int aut_push(struct naive_lts *l, size_t *cap, uint32_t s, const char *lab, size_t len,
                    uint32_t d)
{
    if (l->n_trans == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        uint32_t *ns = realloc(l->src, nc * sizeof *ns);
        if (!ns)
            return -1;
        l->src = ns;
        uint32_t *nd = realloc(l->dst, nc * sizeof *nd);
        if (!nd)
            return -1;
        l->dst = nd;
        char **nl = realloc(l->label, nc * sizeof *nl);
        if (!nl)
            return -1;
        l->label = nl;
        *cap = nc;
    }
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, lab, len);
    c[len] = 0;
    l->src[l->n_trans] = s;
    l->dst[l->n_trans] = d;
    l->label[l->n_trans] = c;
    l->n_trans++;
    return 0;
}

/* Parses an unsigned decimal at *p (blanks skipped first). */
static int aut_num(const char **p, uint64_t *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    uint64_t x = 0;
    while (isdigit((unsigned char)*s)) {
        x = x * 10 + (uint64_t)(*s - '0');
        if (x > 0xffffffffull)
            return -1;
        s++;
    }
    *v = x;
    *p = s;
    return 0;
}

static int aut_sym(const char **p, char c)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != c)
        return -1;
    *p = s + 1;
    return 0;
}

int naive_read_aut(const char *path, struct naive_lts *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot open: %s", strerror(errno));
    char *line = NULL;
    size_t lcap = 0, tcap = 0;
    ssize_t n;
    int lineno = 0, rc = WX_OK;
    uint64_t init = 0, ntr = 0, nst = 0;
    bool header = false;
    while ((n = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            continue;
        if (!header) {
            /* des ( initial , transitions , states ) */
            if (strncmp(p, "des", 3) != 0) {
                rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "expected 'des' header");
                break;
            }
            p += 3;
            if (aut_sym(&p, '(') || aut_num(&p, &init) || aut_sym(&p, ',') || aut_num(&p, &ntr) ||
                aut_sym(&p, ',') || aut_num(&p, &nst) || aut_sym(&p, ')')) {
                rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "malformed header");
                break;
            }
            if (nst == 0 || init >= nst) {
                rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "bad state count or initial state");
                break;
            }
            header = true;
            continue;
        }
        /* ( src , label , dst ): the label lies between the first comma and
         * the last comma; a quoted label between the leftmost and the
         * rightmost quote (quotes inside are part of it). */
        uint64_t s, d;
        const char *q = p;
        if (aut_sym(&q, '(') || aut_num(&q, &s) || aut_sym(&q, ',')) {
            rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "malformed transition");
            break;
        }
        const char *lq = strchr(q, '"'), *rq = strrchr(q, '"');
        const char *lab, *labend, *rest;
        if (lq && rq > lq) {
            lab = lq + 1;
            labend = rq;
            rest = rq + 1;
        } else {
            const char *lc = strrchr(q, ',');
            if (!lc) {
                rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "malformed transition");
                break;
            }
            lab = q;
            labend = lc;
            rest = lc;
            while (lab < labend && (*lab == ' ' || *lab == '\t'))
                lab++;
            while (labend > lab && (labend[-1] == ' ' || labend[-1] == '\t'))
                labend--;
        }
        if (aut_sym(&rest, ',') || aut_num(&rest, &d) || aut_sym(&rest, ')')) {
            rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "malformed transition");
            break;
        }
        if (s >= nst || d >= nst) {
            rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "state out of range");
            break;
        }
        if (aut_push(out, &tcap, (uint32_t)s, lab, (size_t)(labend - lab), (uint32_t)d)) {
            rc = wx_fail(err, WX_ESYSTEM, path, lineno, 1, "out of memory");
            break;
        }
    }
    free(line);
    fclose(f);
    if (rc == WX_OK && !header)
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "missing 'des' header");
    if (rc == WX_OK && out->n_trans != ntr)
        rc = wx_fail(err, WX_EINPUT, path, lineno, 0, "header announces %llu transitions, found %zu",
                     (unsigned long long)ntr, out->n_trans);
    if (rc != WX_OK) {
        naive_lts_free(out);
        return rc;
    }
    out->n_states = (uint32_t)nst;
    out->initial = (uint32_t)init;
    return WX_OK;
}

int naive_write_aut(const char *path, const struct naive_lts *l, struct wx_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot create: %s", strerror(errno));
    fprintf(f, "des (%u, %zu, %u)\n", l->initial, l->n_trans, l->n_states);
    for (size_t i = 0; i < l->n_trans; i++) {
        if (strcmp(l->label[i], "i") == 0)
            fprintf(f, "(%u, i, %u)\n", l->src[i], l->dst[i]);
        else
            fprintf(f, "(%u, \"%s\", %u)\n", l->src[i], l->label[i], l->dst[i]);
    }
    if (fclose(f) != 0)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "write failed");
    return WX_OK;
}
