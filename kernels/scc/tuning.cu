/*
 * tuning.cu -- the strategy knobs of the GPU SCC (struct scc_gpu_tuning,
 * kernels/scc_gpu.h): their defaults, NAME=VALUE parsing, and the
 * process-wide setting that scc_gpu_device uses.
 */
#include "scc_int.cuh"

extern "C" void scc_gpu_tuning_default(struct scc_gpu_tuning *t)
{
    /* every field, also those whose default is 0: callers keep their
     * tuning on the stack */
    memset(t, 0, sizeof *t);
    t->trim_min_share = TRIM_MIN_SHARE;
    t->trim_max_sweeps = TRIM_MAX_SWEEPS;
    t->pivot = 1;
    t->colour_dir = 0;
    t->persistent = 1;
    t->chain_hops = CHAIN_HOPS;
    t->coop_blocks_per_sm = 0;
    t->transpose_sort = 2;
    t->fb_rounds = FB_ROUNDS;
    t->residue = 1;
    t->residue_ns = RESIDUE_NS;
    t->residue_max = RESIDUE_MAX;
    t->pivot_local = PIVOT_LOCAL;
    t->pivot_wide = PIVOT_WIDE;
    t->trim_detect = TRIM_DETECT;
    t->trim_hops = TRIM_HOPS;
    t->symmetric = 1;
}

extern "C" int scc_gpu_tuning_parse(const char *spec, struct scc_gpu_tuning *t, struct wx_error *err)
{
    const char *p = spec;
    while (*p) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        if (!eq || eq > end)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                           "SCC tuning '%s': expected NAME=VALUE items separated by commas", spec);
        char *e = NULL;
        unsigned long long v = strtoull(eq + 1, &e, 0);
        size_t len = (size_t)(eq - p);
        if (e != end || eq + 1 == end)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "SCC tuning '%s': bad number for '%.*s'", spec,
                           (int)len, p);
#define TUNE(name, field, type)                                                \
        if (len == strlen(name) && !strncmp(p, name, len)) {                   \
            t->field = (type)v;                                                \
            goto next;                                                         \
        }
        TUNE("trim_min_share", trim_min_share, uint32_t)
        TUNE("trim_max_sweeps", trim_max_sweeps, uint32_t)
        TUNE("pivot", pivot, int)
        TUNE("colour_dir", colour_dir, int)
        TUNE("persistent", persistent, int)
        TUNE("chain_hops", chain_hops, uint32_t)
        TUNE("coop_blocks_per_sm", coop_blocks_per_sm, uint32_t)
        TUNE("transpose_sort", transpose_sort, int)
        TUNE("fb_rounds", fb_rounds, uint32_t)
        TUNE("residue", residue, int)
        TUNE("residue_ns", residue_ns, uint32_t)
        TUNE("residue_max", residue_max, uint64_t)
        TUNE("pivot_local", pivot_local, uint32_t)
        TUNE("pivot_wide", pivot_wide, uint32_t)
        TUNE("trim_detect", trim_detect, uint32_t)
        TUNE("trim_hops", trim_hops, uint32_t)
        if (len == strlen("symmetric") && !strncmp(p, "symmetric", len) && v > 1)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "SCC tuning '%s': symmetric is 0 or 1", spec);
        TUNE("symmetric", symmetric, int)
#undef TUNE
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "SCC tuning '%s': unknown field '%.*s'", spec,
                       (int)len, p);
    next:
        p = *end ? end + 1 : end;
    }
    return WX_OK;
}

/* The process-wide strategy of scc_gpu_device (scc_gpu_set_tuning). */
static struct scc_gpu_tuning process_tuning;
static bool process_tuning_set;

extern "C" void scc_gpu_set_tuning(const struct scc_gpu_tuning *t)
{
    process_tuning_set = t != NULL;
    if (t)
        process_tuning = *t;
}

void scc_tuning_current(struct scc_gpu_tuning *t)
{
    if (process_tuning_set)
        *t = process_tuning;
    else
        scc_gpu_tuning_default(t);
}
