/*
 * bench_gpu.c -- GPU vs CPU exploration throughput, for bench/bench_gpu.sh.
 *
 *   bench_gpu [options] FILE.exp|FILE.aut ...      (needs the front end)
 *   bench_gpu [options] --synthetic SEED:COMPS:STATES ...
 * options: --cpu (also run explore_cpu on all host cores), --reps N,
 *   -k N (iterations per launch), --blocks N, --threads N (per block),
 *   --tex 0|1, --level (level-synchronous), --hash BYTES, --group G,
 *   --cache N (cache rows), --probes N (block-cache probes), --grow-from SIZE|none (first size of the
 *   growing table; none: all free memory at once), --profile (clock64
 *   phase counters: one "prof" line per run), --proto N (insert protocol,
 *   gpu_tuning.insert_protocol), --gen auto|fast|general|anchored (successor
 *   generator, gpu_tuning.generator)
 *
 * One line per run: file, backend, states, transitions, seconds (whole call
 * and kernels only), states/s, transitions/s, peak device bytes per state
 * (table, queues, buffers: everything the call held at once), and the
 * GPU/CPU ratio of states/s when both ran.  The counts of every run are
 * compared: a GPU/CPU mismatch is printed as MISMATCH and fails the run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../explorer/explore.h"
#include "../../kernels/explore_gpu.h"
#include "../../util/size.h"
#include "gpu_ref.h"

struct knobs {
    int cpu, reps, level, tex, occ2, bps;
    uint32_t k, blocks, threads, group, cache;
    uint32_t probes;    /* gpu_tuning.cache_probes */
    uint64_t hash;
    uint64_t grow_from; /* gpu_tuning.grow_from; "none" = UINT64_MAX */
    int profile;        /* gpu_tuning.profile: a "prof" line per run */
    int proto;          /* gpu_tuning.insert_protocol */
    int gen;            /* gpu_tuning.generator */
    int por;            /* explore_options.por, GPU and CPU */
};

static int run_gpu(const char *name, const struct image *img, const struct knobs *kn, struct explore_result *out)
{
    struct explore_options opt;
    memset(&opt, 0, sizeof opt);
    opt.gpu.iterations = kn->k;
    opt.gpu.blocks = kn->blocks;
    opt.gpu.threads = kn->threads;
    opt.gpu.use_textures = kn->tex;
    opt.gpu.hash_bytes = kn->hash;
    opt.por = kn->por != 0;
    struct gpu_tuning tun;
    memset(&tun, 0, sizeof tun);
    tun.level_sync = kn->level ? 1 : -1;
    tun.group_size = kn->group;
    tun.cache_slots = kn->cache;
    tun.cache_probes = kn->probes;
    tun.occupancy2 = kn->occ2;
    tun.blocks_per_sm = (uint32_t)kn->bps;
    tun.grow_from = kn->grow_from;
    tun.profile = kn->profile;
    tun.insert_protocol = kn->proto;
    tun.generator = kn->gen;
    double best = 1e30, bestk = 1e30;
    struct gpu_run_stats st;
    int rc = 0;
    for (int r = 0; r < kn->reps; r++) {
        struct explore_result res;
        struct wx_error err;
        wx_error_clear(&err);
        rc = explore_gpu_tuned(img, &opt, &tun, &res, &st, &err);
        if (rc) {
            printf("%s gpu ERROR %d: %s\n", name, rc, err.msg);
            return rc;
        }
        if (res.seconds < best)
            best = res.seconds;
        if (st.kernel_seconds < bestk)
            bestk = st.kernel_seconds;
        *out = res;
    }
    out->seconds = best; /* the GPU/CPU ratio compares best with best */
    printf("%-44s gpu  states %12llu trans %13llu  %8.3f s (kernels %8.3f s)  %8.2f Mstates/s  %8.2f Mtrans/s  "
           "%6.1f B/state  [%s gen=%s occ2=%d blocks=%u threads=%u G=%u k=%u level=%d por=%d tex=%d smem=%u cache=%u "
           "launches=%llu direct=%llu cached=%llu iters=%llu slotw=%u slotB=%.1f table=%llu peak=%llu grows=%u restarts=%u setup=%.3f "
           "grow=%.3f]\n",
           name, (unsigned long long)out->states, (unsigned long long)out->transitions, best, bestk,
           out->states / bestk / 1e6, out->transitions / bestk / 1e6,
           out->states ? (double)st.device_bytes / out->states : 0.0, out->device, st.fast_gen ? (st.fast_anchored ? "fast-anchored" : "fast") : "general", st.occupancy2, st.blocks, st.threads,
           st.group_size, st.iters_per_launch, st.level_sync, kn->por, st.textures,
           st.smem_bytes, st.cache_slots, (unsigned long long)st.launches, (unsigned long long)st.direct_inserts,
           (unsigned long long)st.cache_inserts, (unsigned long long)st.iterations,
           st.slot_words, (double)st.table_bytes / st.table_slots, (unsigned long long)st.table_bytes,
           (unsigned long long)st.device_bytes, st.grows, st.restarts, st.setup_seconds, st.grow_seconds);
    if (kn->profile) {
        /* block phases as shares of their sum; expansion parts as shares
         * of theirs (warp cycles) */
        static const char *ph[] = {"fill", "scan", "expand", "flush", "edges", "gen", "cache", "global", "dedupe"};
        double a = 0, e = 0;
        for (int k = 0; k < 5; k++)
            a += (double)st.prof[k];
        for (int k = 5; k < 9; k++)
            e += (double)st.prof[k];
        printf("%-44s prof  phases:", name);
        for (int k = 0; k < 5; k++)
            printf(" %s %.1f%%", ph[k], a > 0 ? 100.0 * st.prof[k] / a : 0.0);
        printf("  | expand parts:");
        for (int k = 5; k < 9; k++)
            printf(" %s %.1f%%", ph[k], e > 0 ? 100.0 * st.prof[k] / e : 0.0);
        printf("  | block-cycles %.3g, warp-cycles %.3g\n", a, e);
    }
    fflush(stdout);
    return 0;
}

#ifdef HAVE_EXPLORE_CPU
static int run_cpu(const char *name, const struct image *img, const struct knobs *kn, const struct explore_result *g)
{
    struct explore_options opt;
    memset(&opt, 0, sizeof opt);
    opt.por = kn->por != 0;
    double best = 1e30;
    struct explore_result res;
    for (int r = 0; r < kn->reps; r++) {
        struct wx_error err;
        wx_error_clear(&err);
        int rc = explore_cpu(img, &opt, &res, &err);
        if (rc) {
            printf("%s cpu ERROR %d: %s\n", name, rc, err.msg);
            return rc;
        }
        if (res.seconds < best)
            best = res.seconds;
    }
    const int same = !g || (g->states == res.states && g->transitions == res.transitions &&
                            g->deadlocks == res.deadlocks);
    printf("%-44s cpu  states %12llu trans %13llu  %8.3f s  %8.2f Mstates/s  %8.2f Mtrans/s  threads %u%s",
           name, (unsigned long long)res.states, (unsigned long long)res.transitions, best, res.states / best / 1e6,
           res.transitions / best / 1e6, res.threads, same ? "" : "  MISMATCH");
    if (g)
        printf("  gpu/cpu %.2fx (whole calls)", best / g->seconds);
    printf("\n");
    fflush(stdout);
    return same ? 0 : 1;
}
#else
static int run_cpu(const char *name, const struct image *img, const struct knobs *kn, const struct explore_result *g)
{
    (void)img, (void)kn, (void)g;
    printf("%-44s cpu  (explore_cpu not in this build)\n", name);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    struct knobs kn = {0, 1, 0, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    int status = 0, synthetic = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(a, "--cpu"))
            kn.cpu = 1;
        else if (!strcmp(a, "--level"))
            kn.level = 1;
        else if (!strcmp(a, "--synthetic"))
            synthetic = 1;
        else if (!strcmp(a, "--reps"))
            kn.reps = atoi(v), i++;
        else if (!strcmp(a, "-k"))
            kn.k = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "--blocks"))
            kn.blocks = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "--threads"))
            kn.threads = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "--group"))
            kn.group = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "--probes"))
            kn.probes = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "--cache"))
            kn.cache = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "--bps"))
            kn.bps = atoi(v), i++;
        else if (!strcmp(a, "--occ2"))
            kn.occ2 = atoi(v), i++;
        else if (!strcmp(a, "--tex"))
            kn.tex = atoi(v), i++;
        else if (!strcmp(a, "--hash"))
            kn.hash = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--proto"))
            kn.proto = atoi(v), i++;
        else if (!strcmp(a, "--gen"))
            kn.gen = !strcmp(v, "fast") ? 1 : !strcmp(v, "general") ? 2 : !strcmp(v, "anchored") ? 3 : atoi(v), i++;
        else if (!strcmp(a, "--profile"))
            kn.profile = 1;
        else if (!strcmp(a, "--por"))
            kn.por = 1;
        else if (!strcmp(a, "--grow-from")) {
            uint64_t gb = 0;
            if (strcmp(v, "none") && (wx_parse_size(v, &gb) || gb == 0)) {
                fprintf(stderr, "bench_gpu: --grow-from takes a size (e.g. 16G) or none, not '%s'\n", v);
                return 2;
            }
            kn.grow_from = strcmp(v, "none") ? gb : ~0ull, i++;
        } else {
            struct image img;
            struct explore_result g;
            memset(&g, 0, sizeof g);
            if (synthetic) {
                /* SEED:COMPS:STATES -- an interleaving-heavy random network */
                unsigned long long seed = 1, comps = 8, states = 6;
                sscanf(a, "%llu:%llu:%llu", &seed, &comps, &states);
                struct gen_params gp = {(uint32_t)comps, (uint32_t)comps, (uint32_t)states, 0, 4, 3, 2, 2, 40,
                                        0, 10, 0, 0, 0, ~0ull >> 1, 1};
                struct rng r = {seed};
                img_random(&img, &r, &gp);
            } else {
#ifdef NO_FRONTEND
                fprintf(stderr, "bench_gpu: built without the front end; use --synthetic\n");
                return 2;
#else
                struct wx_error err;
                if (ref_image_from_file(a, &img, &err)) {
                    printf("%s: %s\n", a, err.msg);
                    status = 1;
                    continue;
                }
#endif
            }
            const char *name = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
            int rc = run_gpu(name, &img, &kn, &g);
            if (kn.cpu)
                rc |= run_cpu(name, &img, &kn, rc ? NULL : &g);
            status |= rc != 0;
            free(g.vectors);
            if (synthetic)
                image_free(&img);
#ifndef NO_FRONTEND
            else
                image_free(&img);
#endif
        }
    }
    return status;
}
