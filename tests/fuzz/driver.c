/*
 * driver.c -- a main() for the fuzz targets without libFuzzer: the smoke run
 * of `make test` (tests/t_fuzz_smoke.sh), built with gcc.
 *
 *   fuzz_X [-n MUTATIONS] [-s SEED] [-d DICT] [-t SECONDS] [-o CRASHFILE] FILE|DIR...
 *
 * Feeds every file (directories: their files, sorted by name) to
 * LLVMFuzzerTestOneInput, then MUTATIONS deterministic mutations of them
 * drawn from SEED (bit flips, byte changes, insertions and deletions,
 * boundary numbers, dictionary tokens in libFuzzer's .dict format, splices
 * of two files).  Prints one line: "PASS fuzz_X: ..." (saying whether
 * AddressSanitizer with leak checks was on), or on the first finding
 * "FAIL fuzz_X: ..." with what happened, the input's origin, the seed, and
 * the input itself (escaped, and written to CRASHFILE when given); exit 1.
 *
 * Findings: a crash or abort (a broken invariant in the target aborts), a
 * sanitizer report, an input that runs longer than SECONDS (default 10),
 * and, under ASan, a leak: the input's mallocs and frees are counted through
 * the sanitizer's hooks and a leak check runs when they differ.  Without
 * ASan the address space is capped (1 GiB) so that a reader allocating by a
 * declared count fails cleanly instead of swapping; under ASan
 * an allocation over 2 GiB is a finding (as under libFuzzer's default
 * -malloc_limit_mb), unless ASAN_OPTIONS=allocator_may_return_null=1 lets it
 * fail cleanly (t_fuzz_smoke.sh sets it with WX_FUZZ_LAX=1).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FZ_ASAN 1
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
#else
#define FZ_ASAN 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_INPUT (64 * 1024) /* bytes: mutants are cut to this size */

struct blob {
    uint8_t *data;
    size_t size;
    char *name;
};

static const char *target = "fuzz";
static const char *crash_file;
static unsigned long long seed = 1;

/* The input being run, for the failure report. */
static const uint8_t *cur_data;
static size_t cur_size;
static char cur_origin[600];

static void put(const char *s) { (void)!write(1, s, strlen(s)); }

/* Prints the FAIL line with the current input; async-signal-safe (no
 * malloc, no stdio), as it runs from signal handlers and sanitizer deaths. */
static void report(const char *what)
{
    static char buf[4 * 4096 + 1024];
    static volatile int reported;
    if (reported++)
        return;
    size_t n = 0, lim = sizeof buf - 64;
    const char *parts[] = {"FAIL ", target, ": ", what, " on ", cur_origin, "; input (", NULL};
    for (int i = 0; parts[i]; i++)
        for (const char *p = parts[i]; *p && n < lim; p++)
            buf[n++] = *p;
    char num[32];
    int k = 0;
    size_t v = cur_size;
    do num[k++] = (char)('0' + v % 10); while ((v /= 10) && k < 30);
    while (k && n < lim) buf[n++] = num[--k];
    const char *mid = " bytes, C-escaped): \"";
    for (const char *p = mid; *p; p++) buf[n++] = *p;
    for (size_t i = 0; i < cur_size && n < lim - 8; i++) {
        unsigned c = cur_data[i];
        if (c == '\\' || c == '"') { buf[n++] = '\\'; buf[n++] = (char)c; }
        else if (c == '\n') { buf[n++] = '\\'; buf[n++] = 'n'; }
        else if (c >= 0x20 && c < 0x7f) buf[n++] = (char)c;
        else {
            buf[n++] = '\\'; buf[n++] = 'x';
            buf[n++] = "0123456789abcdef"[c >> 4]; buf[n++] = "0123456789abcdef"[c & 15];
        }
    }
    if (n >= lim - 8) { buf[n++] = '.'; buf[n++] = '.'; buf[n++] = '.'; }
    buf[n++] = '"'; buf[n++] = '\n';
    (void)!write(1, buf, n);
    if (crash_file) {
        int fd = open(crash_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            (void)!write(fd, cur_data, cur_size);
            close(fd);
            put("  (the input is saved in "); put(crash_file); put(")\n");
        }
    }
}

static void on_signal(int sig)
{
    report(sig == SIGALRM ? "timeout" : sig == SIGABRT ? "abort (a broken invariant or sanitizer)"
                                                       : "crash (fatal signal)");
    _exit(1);
}

#if FZ_ASAN
/* Defaults the environment's ASAN_OPTIONS / UBSAN_OPTIONS can override.
 * An allocation beyond 2 GiB is a finding, as under libFuzzer's default
 * -malloc_limit_mb (a reader must validate declared sizes first); reports
 * end in abort() so that on_signal names the input. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "max_allocation_size_mb=2048:allocator_may_return_null=0:detect_leaks=1:"
           "abort_on_error=1:handle_abort=0";
}
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "print_stacktrace=1:halt_on_error=1:abort_on_error=1";
}

static void on_death(void) { report("sanitizer report (above)"); }

static volatile int counting;
static volatile long long n_mallocs, n_frees;
static void malloc_hook(const volatile void *p, size_t size)
{
    (void)p; (void)size;
    if (counting) n_mallocs++;
}
static void free_hook(const volatile void *p)
{
    (void)p;
    if (counting) n_frees++;
}
#endif

/* ---- inputs ---- */

static int add_file(struct blob **v, size_t *n, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t *data = malloc(FZ_MAX_INPUT);
    size_t size = fread(data, 1, FZ_MAX_INPUT, f);
    fclose(f);
    *v = realloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = (struct blob){data, size, strdup(path)};
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int add_path(struct blob **v, size_t *n, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return add_file(v, n, path);
    struct dirent **ents;
    int k = scandir(path, &ents, NULL, by_name);
    if (k < 0)
        return -1;
    for (int i = 0; i < k; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, ents[i]->d_name);
        if (ents[i]->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode))
            add_file(v, n, p);
        free(ents[i]);
    }
    free(ents);
    return 0;
}

/* A libFuzzer dictionary: one "token" per line (optionally NAME="token"),
 * with \\, \" and \xNN escapes; '#' comments. */
static void read_dict(const char *path, struct blob **v, size_t *n)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    if (!f) {
        fprintf(stderr, "driver: cannot read %s\n", path);
        exit(2);
    }
    while (fgets(line, sizeof line, f)) {
        char *q = strchr(line, '"'), *r = strrchr(line, '"');
        if (line[strspn(line, " \t")] == '#' || !q || r == q)
            continue;
        uint8_t *tok = malloc(r - q);
        size_t k = 0;
        for (char *p = q + 1; p < r; p++) {
            if (*p == '\\' && p[1] == 'x' && p + 3 < r) {
                char hex[3] = {p[2], p[3], 0};
                tok[k++] = (uint8_t)strtoul(hex, NULL, 16);
                p += 3;
            } else if (*p == '\\' && p + 1 < r) {
                tok[k++] = (uint8_t)*++p;
            } else {
                tok[k++] = (uint8_t)*p;
            }
        }
        *v = realloc(*v, (*n + 1) * sizeof **v);
        (*v)[(*n)++] = (struct blob){tok, k, NULL};
    }
    fclose(f);
}

/* ---- mutations ---- */

static uint64_t rng_state;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static const char *const numbers[] = {
    "0", "1", "-1", "2", "255", "256", "65535", "65536", "2147483647", "2147483648",
    "4294967295", "4294967296", "9223372036854775807", "18446744073709551615",
    "18446744073709551616", "99999999999999999999999", "1e308", "1e-320", "0.5", "nan",
    "inf", "-0", "1/3", "0x10", "00000000000000000000001"};

/* Replaces buf[at .. at+del) by ins[0..k); keeps size <= FZ_MAX_INPUT. */
static void splice_in(uint8_t *buf, size_t *size, size_t at, size_t del, const uint8_t *ins, size_t k)
{
    if (at > *size) at = *size;
    if (del > *size - at) del = *size - at;
    if (*size - del + k > FZ_MAX_INPUT) k = FZ_MAX_INPUT - (*size - del);
    memmove(buf + at + k, buf + at + del, *size - at - del);
    if (k)
        memcpy(buf + at, ins, k);
    *size = *size - del + k;
}

/* A cheap "digits" locator: the start of a random number in buf, or a random
 * position when there is none. */
static size_t some_number(const uint8_t *buf, size_t size, size_t *len)
{
    size_t at = below(size + 1);
    for (size_t i = 0; i < size; i++) {
        size_t p = (at + i) % size;
        if (buf[p] >= '0' && buf[p] <= '9' && (p == 0 || buf[p - 1] < '0' || buf[p - 1] > '9')) {
            *len = 0;
            while (p + *len < size && buf[p + *len] >= '0' && buf[p + *len] <= '9') ++*len;
            return p;
        }
    }
    *len = 0;
    return at;
}

static void mutate(uint8_t *buf, size_t *size, const struct blob *files, size_t n_files,
                   const struct blob *dict, size_t n_dict)
{
    uint8_t tmp[64];
    size_t len, at = below(*size + 1);
    switch (below(10)) {
    case 0: /* flip a bit */
        if (*size) buf[below(*size)] ^= (uint8_t)(1u << below(8));
        break;
    case 1: /* any byte */
        if (*size) buf[below(*size)] = (uint8_t)rnd();
        break;
    case 2: /* insert a byte, often a delimiter */
        tmp[0] = below(2) ? (uint8_t)" \n\t\"(),:;[]{}#/\\\r\0"[below(17)] : (uint8_t)rnd();
        splice_in(buf, size, at, 0, tmp, 1);
        break;
    case 3: /* delete a range */
        splice_in(buf, size, at, 1 + below(below(2) ? 4 : 64), NULL, 0);
        break;
    case 4: /* duplicate a range (a line, often) */
        if (*size) {
            size_t from = below(*size), k = 1 + below(*size - from < 80 ? *size - from : 80);
            uint8_t copy[80];
            memcpy(copy, buf + from, k);
            splice_in(buf, size, at, 0, copy, k);
        }
        break;
    case 5:
    case 6: { /* a number replaced by a boundary value */
        size_t p = some_number(buf, *size, &len);
        const char *s = numbers[below(sizeof numbers / sizeof *numbers)];
        splice_in(buf, size, p, len, (const uint8_t *)s, strlen(s));
        break;
    }
    case 7: /* a number changed by a little */
        if (*size) {
            size_t p = some_number(buf, *size, &len);
            if (len && len < 19) {
                char digits[24];
                memcpy(digits, buf + p, len);
                digits[len] = 0;
                long long x = strtoll(digits, NULL, 10) + (long long)below(5) - 2;
                int k = snprintf((char *)tmp, sizeof tmp, "%lld", x);
                splice_in(buf, size, p, len, tmp, (size_t)k);
            }
        }
        break;
    case 8: /* a dictionary token */
        if (n_dict) {
            const struct blob *t = &dict[below(n_dict)];
            splice_in(buf, size, at, below(3) ? 0 : below(8), t->data, t->size);
        }
        break;
    case 9: { /* splice: a piece of another file */
        const struct blob *o = &files[below(n_files)];
        if (o->size) {
            size_t from = below(o->size), k = 1 + below(o->size - from);
            splice_in(buf, size, at, below(2) ? 0 : k, o->data + from, k);
        }
        break;
    }
    }
}

/* ---- running ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double slowest;
static char slowest_origin[600];
static unsigned timeout_s = 10;

static void run(const uint8_t *data, size_t size)
{
    cur_data = data;
    cur_size = size;
    double t0 = now();
    alarm(timeout_s);
#if FZ_ASAN
    n_mallocs = n_frees = 0;
    counting = 1;
#endif
    LLVMFuzzerTestOneInput(data, size);
#if FZ_ASAN
    counting = 0;
    if (n_mallocs != n_frees && __lsan_do_recoverable_leak_check()) {
        report("memory leak (LeakSanitizer report above)");
        _exit(1);
    }
#endif
    alarm(0);
    double dt = now() - t0;
    if (dt > slowest) {
        slowest = dt;
        snprintf(slowest_origin, sizeof slowest_origin, "%s", cur_origin);
    }
}

int main(int argc, char **argv)
{
    long n_mut = 2000;
    struct blob *files = NULL, *dict = NULL;
    size_t n_files = 0, n_dict = 0;
    int opt;

    target = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    while ((opt = getopt(argc, argv, "n:s:d:t:o:")) != -1) {
        switch (opt) {
        case 'n': n_mut = strtol(optarg, NULL, 10); break;
        case 's': seed = strtoull(optarg, NULL, 10); break;
        case 'd': read_dict(optarg, &dict, &n_dict); break;
        case 't': timeout_s = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'o': crash_file = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-n MUTATIONS] [-s SEED] [-d DICT] [-t SECONDS] [-o CRASHFILE] FILE|DIR...\n",
                    argv[0]);
            return 2;
        }
    }
    for (int i = optind; i < argc; i++)
        if (add_path(&files, &n_files, argv[i]) != 0) {
            printf("FAIL %s: cannot read %s: %s\n", target, argv[i], strerror(errno));
            return 1;
        }
    if (n_files == 0) {
        printf("FAIL %s: no input file\n", target);
        return 1;
    }
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGILL, on_signal);
    signal(SIGABRT, on_signal);
    signal(SIGALRM, on_signal);
#if FZ_ASAN
    __sanitizer_set_death_callback(on_death);
    __sanitizer_install_malloc_and_free_hooks(malloc_hook, free_hook);
#else
    struct rlimit rl = {1ull << 30, 1ull << 30};
    setrlimit(RLIMIT_AS, &rl);
#endif

    for (size_t i = 0; i < n_files; i++) {
        snprintf(cur_origin, sizeof cur_origin, "corpus file %s", files[i].name);
        run(files[i].data, files[i].size);
    }
    uint8_t *buf = malloc(FZ_MAX_INPUT);
    rng_state = seed;
    for (long m = 0; m < n_mut; m++) {
        const struct blob *b = &files[below(n_files)];
        size_t size = b->size;
        memcpy(buf, b->data, size);
        int edits = 1 + (int)below(4);
        for (int k = 0; k < edits; k++)
            mutate(buf, &size, files, n_files, dict, n_dict);
        snprintf(cur_origin, sizeof cur_origin, "mutation %ld of %s (seed %llu, %d edits)", m, b->name,
                 seed, edits);
        run(buf, size);
    }
    cur_data = NULL;
    cur_size = 0;
    snprintf(cur_origin, sizeof cur_origin, "no input (the exit-time leak check)");
    printf("PASS %s: %zu corpus files and %ld mutations (seed %llu) without a finding, %s; "
           "slowest input %.0f ms (%s)\n",
           target, n_files, n_mut, seed,
           FZ_ASAN ? "under AddressSanitizer+UBSan with leak checks"
                   : "plain build (no sanitizer: crashes and broken invariants only)",
           slowest * 1e3, slowest_origin);
    for (size_t i = 0; i < n_files; i++) {
        free(files[i].data);
        free(files[i].name);
    }
    for (size_t i = 0; i < n_dict; i++)
        free(dict[i].data);
    free(files);
    free(dict);
    free(buf);
    return 0;
}
