/*
 * consensus_gen.c -- the PRISM/QVBS "consensus" MDP (randomised consensus
 * with a shared coin, Aspnes and Herlihy 1990; PRISM benchmark model
 * consensus.N.prism) for any N and K, written directly in PRISM's explicit
 * formats, so that instances larger than the shared exports (e.g. N=6 K=2,
 * 1 258 240 states) can be made on the machine that solves them.
 *
 *   consensus_gen [--no-sta] N K PREFIX
 *   consensus_gen --count N K
 *
 * writes PREFIX.tra, PREFIX.lab, PREFIX.srew, PREFIX.trew and (unless
 * --no-sta) PREFIX.sta, and prints "states=S choices=C transitions=T" on
 * stdout (--count: only that line, no files).  Exit status 0, 2 on bad arguments, 3 when the instance is too big
 * for this generator, 4 when a file cannot be written.
 *
 * SEMANTICS (as consensus.4.prism, generalised to N processes).  Global
 * counter in [0, range], range = 2(K+1)N, initially (K+1)N; left = N,
 * right = range - N.  Process i has pc_i in [0,3] and coin_i in [0,1], both
 * initially 0.  Its commands (unlabelled, at most one enabled per state):
 *   pc=0               -> 1/2: coin'=0, pc'=1  +  1/2: coin'=1, pc'=1
 *   pc=1, coin=0, counter>0      -> counter'=counter-1, pc'=2, coin'=0
 *   pc=1, coin=1, counter<range  -> counter'=counter+1, pc'=2, coin'=0
 *   pc=2, counter<=left          -> pc'=3, coin'=0
 *   pc=2, counter>=right         -> pc'=3, coin'=1
 *   pc=2, left<counter<right     -> pc'=0
 * and all processes loop together on the synchronised action "done" when
 * every pc is 3.  Labels: init, deadlock (none in this model; a state
 * without a command would get PRISM's self-loop and this label), finished
 * (all pc = 3), all_coins_equal_0, all_coins_equal_1, agree (all coins
 * equal).  Reward structure "steps": state reward 1 everywhere, no
 * transition rewards.
 *
 * NUMBERING, as PRISM's explicit engine exports it: the reachable states
 * sorted lexicographically by (counter, pc1, coin1, ..., pcN, coinN); the
 * choices of a state in PRISM's order (unlabelled commands of process 1,
 * 2, ..., N, then the synchronised "done"); the entries of a choice sorted
 * by target.  A state is encoded as the mixed-radix number
 *     counter * 8^N + sum_i (2 pc_i + coin_i) * 8^(N-i)   (i = 1..N),
 * whose numeric order is that lexicographic order, so the state number is
 * the rank of the code among the reachable codes: a bitmap over all codes
 * plus a prefix count per 64-bit word.  The bitmap needs (range+1) * 8^N
 * bits (N=6 K=2: 1.4 MB; N=8 K=2: 103 MB); bigger instances are refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 10
#define MAX_CODE_BITS (1ull << 34) /* 2 GiB of bitmap at most */

static int N, K;
static uint64_t range_, left_, right_, pow8N;
static uint64_t *bits, *prefix; /* reachable codes; reachable codes in words < w */

static void die(int code, const char *msg, const char *arg)
{
    fprintf(stderr, "consensus_gen: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(code);
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p)
        die(3, "out of memory", NULL);
    return p;
}

/* state = counter and the N (pc, coin) digits, process 1 first */
struct st {
    unsigned counter;
    unsigned char pc[MAX_N], coin[MAX_N];
};

static uint64_t encode(const struct st *s)
{
    uint64_t c = s->counter;
    for (int i = 0; i < N; i++)
        c = c * 8 + (uint64_t)(2 * s->pc[i] + s->coin[i]);
    return c;
}

static void decode(uint64_t c, struct st *s)
{
    for (int i = N - 1; i >= 0; i--) {
        unsigned d = (unsigned)(c % 8);
        c /= 8;
        s->pc[i] = (unsigned char)(d >> 1);
        s->coin[i] = (unsigned char)(d & 1);
    }
    s->counter = (unsigned)c;
}

/* One choice: 1 or 2 entries (codes, in target order), whether it is the
 * synchronised "done". */
struct choice {
    int n;
    uint64_t t[2];
    int done;
};

/* The choices of s in PRISM's order; returns their number (<= N + 1). */
static int successors(const struct st *s, struct choice *ch)
{
    int k = 0, all3 = 1;
    for (int i = 0; i < N; i++) {
        struct st u = *s;
        int on = 1;
        switch (s->pc[i]) {
        case 0:
            u.pc[i] = 1;
            u.coin[i] = 0;
            ch[k].t[0] = encode(&u);
            u.coin[i] = 1;
            ch[k].t[1] = encode(&u); /* coin is the lower digit: t[0] < t[1] */
            ch[k].n = 2;
            ch[k].done = 0;
            k++;
            on = 0;
            break;
        case 1:
            if (s->coin[i] == 0 && s->counter > 0)
                u.counter--;
            else if (s->coin[i] == 1 && s->counter < range_)
                u.counter++;
            else {
                on = 0;
                break;
            }
            u.pc[i] = 2;
            u.coin[i] = 0;
            break;
        case 2:
            if (s->counter <= left_) {
                u.pc[i] = 3;
                u.coin[i] = 0;
            } else if (s->counter >= right_) {
                u.pc[i] = 3;
                u.coin[i] = 1;
            } else
                u.pc[i] = 0;
            break;
        default: /* 3: only the synchronised loop */
            on = 0;
            break;
        }
        if (s->pc[i] != 3)
            all3 = 0;
        if (on) {
            ch[k].n = 1;
            ch[k].t[0] = encode(&u);
            ch[k].done = 0;
            k++;
        }
    }
    if (all3) {
        ch[k].n = 1;
        ch[k].t[0] = encode(s);
        ch[k].done = 1;
        k++;
    }
    return k;
}

static int test_bit(uint64_t c) { return (int)((bits[c >> 6] >> (c & 63)) & 1); }

static uint64_t rank_of(uint64_t c)
{
    return prefix[c >> 6] + (uint64_t)__builtin_popcountll(bits[c >> 6] & ((1ull << (c & 63)) - 1));
}

/* ---- buffered output with hand-made integer formatting (fprintf is the
 * bottleneck for multi-million-line files) ---- */
struct out {
    FILE *f;
    const char *path;
    char buf[1 << 16];
    size_t len;
};

static void o_flush(struct out *o)
{
    if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
        die(4, "cannot write", o->path);
    o->len = 0;
}

static void o_str(struct out *o, const char *s)
{
    size_t n = strlen(s);
    if (o->len + n > sizeof o->buf)
        o_flush(o);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void o_u(struct out *o, uint64_t v)
{
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (o->len + (size_t)(24 - i) > sizeof o->buf)
        o_flush(o);
    memcpy(o->buf + o->len, tmp + i, (size_t)(24 - i));
    o->len += (size_t)(24 - i);
}

static void o_open(struct out *o, const char *prefix_, const char *ext)
{
    static char path[5][4096];
    static int k = 0;
    char *p = path[k++ % 5];
    snprintf(p, 4096, "%s.%s", prefix_, ext);
    o->path = p;
    o->len = 0;
    o->f = fopen(p, "w");
    if (!o->f)
        die(4, strerror(errno), p);
}

static void o_close(struct out *o)
{
    o_flush(o);
    if (fclose(o->f) != 0)
        die(4, "cannot write", o->path);
}

static int parse_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return 0;
    *v = (int)x;
    return 1;
}

int main(int argc, char **argv)
{
    int sta = 1, a = 1, count_only = 0;
    if (a < argc && !strcmp(argv[a], "--no-sta"))
        sta = 0, a++;
    else if (a < argc && !strcmp(argv[a], "--count"))
        count_only = 1, a++;
    if (argc - a != 3 - count_only)
        die(2, "usage: consensus_gen [--no-sta] N K PREFIX | consensus_gen --count N K", NULL);
    if (!parse_int(argv[a], 1, MAX_N, &N))
        die(2, "N must be an integer in [1, 10]", argv[a]);
    if (!parse_int(argv[a + 1], 0, 1000000, &K))
        die(2, "K must be an integer in [0, 1000000]", argv[a + 1]);
    const char *pre = count_only ? NULL : argv[a + 2];
    range_ = 2ull * (uint64_t)(K + 1) * (uint64_t)N;
    left_ = (uint64_t)N;
    right_ = range_ - (uint64_t)N;
    pow8N = 1ull << (3 * N);
    const uint64_t ncodes = (range_ + 1) * pow8N;
    if (ncodes / pow8N != range_ + 1 || ncodes > MAX_CODE_BITS)
        die(3, "instance too big for this generator ((2(K+1)N+1) * 8^N must be <= 2^34)", NULL);
    const uint64_t nwords = (ncodes + 63) / 64;
    bits = xcalloc(nwords, sizeof *bits);
    prefix = xcalloc(nwords + 1, sizeof *prefix);

    /* reachability: a stack of codes (each pushed once, when first marked) */
    struct st s0;
    memset(&s0, 0, sizeof s0);
    s0.counter = (unsigned)((K + 1) * N);
    const uint64_t init = encode(&s0);
    size_t cap = 1 << 16, top = 0;
    uint64_t *stack = xcalloc(cap, sizeof *stack);
    struct choice ch[MAX_N + 1];
    bits[init >> 6] |= 1ull << (init & 63);
    stack[top++] = init;
    while (top) {
        struct st s;
        decode(stack[--top], &s);
        const int k = successors(&s, ch);
        for (int j = 0; j < k; j++)
            for (int e = 0; e < ch[j].n; e++) {
                const uint64_t t = ch[j].t[e];
                if (test_bit(t))
                    continue;
                bits[t >> 6] |= 1ull << (t & 63);
                if (top == cap) {
                    cap *= 2;
                    stack = realloc(stack, cap * sizeof *stack);
                    if (!stack)
                        die(3, "out of memory", NULL);
                }
                stack[top++] = t;
            }
    }
    free(stack);
    for (uint64_t w = 0; w < nwords; w++)
        prefix[w + 1] = prefix[w] + (uint64_t)__builtin_popcountll(bits[w]);
    const uint64_t n = prefix[nwords];

    /* counts first (the .tra header), then the files in state order */
    uint64_t nc = 0, ne = 0;
    for (uint64_t w = 0; w < nwords; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1) {
            struct st s;
            decode(w * 64 + (uint64_t)__builtin_ctzll(b), &s);
            const int k = successors(&s, ch);
            nc += k ? (uint64_t)k : 1; /* a deadlock gets PRISM's self-loop */
            for (int j = 0; j < k; j++)
                ne += (uint64_t)ch[j].n;
            ne += k ? 0 : 1;
        }

    if (count_only) {
        printf("states=%llu choices=%llu transitions=%llu\n", (unsigned long long)n, (unsigned long long)nc,
               (unsigned long long)ne);
        return 0;
    }
    struct out *tra = xcalloc(1, sizeof *tra), *lab = xcalloc(1, sizeof *lab), *srew = xcalloc(1, sizeof *srew),
               *trew = xcalloc(1, sizeof *trew), *sf = xcalloc(1, sizeof *sf);
    o_open(tra, pre, "tra");
    o_open(lab, pre, "lab");
    o_open(srew, pre, "srew");
    o_open(trew, pre, "trew");
    if (sta)
        o_open(sf, pre, "sta");
    o_str(tra, "# Transitions (MDP)\n");
    o_u(tra, n), o_str(tra, " "), o_u(tra, nc), o_str(tra, " "), o_u(tra, ne), o_str(tra, "\n");
    o_str(lab, "# Labels\n0=\"init\" 1=\"deadlock\" 2=\"finished\" 3=\"all_coins_equal_0\" "
               "4=\"all_coins_equal_1\" 5=\"agree\"\n");
    o_str(srew, "# Reward structure \"steps\"\n# State rewards\n");
    o_u(srew, n), o_str(srew, " "), o_u(srew, n), o_str(srew, "\n");
    o_str(trew, "# Reward structure \"steps\"\n# Transition rewards\n");
    o_u(trew, n), o_str(trew, " "), o_u(trew, nc), o_str(trew, " 0\n");
    if (sta) {
        o_str(sf, "# States\n(counter");
        for (int i = 1; i <= N; i++) {
            char v[40];
            snprintf(v, sizeof v, ",pc%d,coin%d", i, i);
            o_str(sf, v);
        }
        o_str(sf, ")\n");
    }
    uint64_t id = 0;
    for (uint64_t w = 0; w < nwords; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1, id++) {
            const uint64_t code = w * 64 + (uint64_t)__builtin_ctzll(b);
            struct st s;
            decode(code, &s);
            const int k = successors(&s, ch);
            for (int j = 0; j < k; j++)
                for (int e = 0; e < ch[j].n; e++) {
                    o_u(tra, id), o_str(tra, " "), o_u(tra, (uint64_t)j), o_str(tra, " ");
                    o_u(tra, rank_of(ch[j].t[e]));
                    o_str(tra, ch[j].n == 2 ? " 0.5" : " 1");
                    o_str(tra, ch[j].done ? " done\n" : "\n");
                }
            if (!k) {
                o_u(tra, id), o_str(tra, " 0 "), o_u(tra, id), o_str(tra, " 1\n");
            }
            /* labels, in label order */
            int fin = 1, c0 = 1, c1 = 1;
            for (int i = 0; i < N; i++) {
                fin &= s.pc[i] == 3;
                c0 &= s.coin[i] == 0;
                c1 &= s.coin[i] == 1;
            }
            const int l[6] = {code == init, k == 0, fin, c0, c1, c0 || c1};
            int any = 0;
            for (int j = 0; j < 6; j++)
                if (l[j]) {
                    if (!any)
                        o_u(lab, id), o_str(lab, ":");
                    any = 1;
                    o_str(lab, " "), o_u(lab, (uint64_t)j);
                }
            if (any)
                o_str(lab, "\n");
            o_u(srew, id), o_str(srew, " 1\n");
            if (sta) {
                o_u(sf, id), o_str(sf, ":("), o_u(sf, s.counter);
                for (int i = 0; i < N; i++)
                    o_str(sf, ","), o_u(sf, s.pc[i]), o_str(sf, ","), o_u(sf, s.coin[i]);
                o_str(sf, ")\n");
            }
        }
    o_close(tra);
    o_close(lab);
    o_close(srew);
    o_close(trew);
    if (sta)
        o_close(sf);
    printf("states=%llu choices=%llu transitions=%llu\n", (unsigned long long)n, (unsigned long long)nc,
           (unsigned long long)ne);
    free(bits);
    free(prefix);
    return 0;
}
