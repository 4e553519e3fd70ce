/*
 * count.c - libperfgate_count.so, the preload library that counts the FLOPs
 * of an unmodified program's BLAS calls: the recorder, the ranges and the
 * count file.
 *
 * Loaded with LD_PRELOAD, it defines the BLAS level-3 and level-2 entry
 * points of both interfaces, CBLAS (count_cblas.c) and Fortran
 * (count_fortran.c): s/d/c/z gemm, gemm3m, symm, syrk, trmm, trsm, gemv, so
 * the program's calls land here first; each is forwarded to the real BLAS,
 * found at the first call (resolve.c). With PERFGATE_COUNT_DIR set each
 * call is also counted with the formulas of runner/base/flopcount.h, keyed
 * by op, calling function (its return address, named in names.c), the
 * innermost ranges the program opened (perfgate_range_push() or NVTX), and
 * shape. At exit the process writes DIR/count.PID.tsv (runner/meter/count.h
 * reads it); children that exec inherit the variable and write their own
 * file. Without the variable a call costs one load and a branch more than
 * the real one.
 *
 * It links nothing of perfgate and is never built with sanitizers, because
 * it is loaded into programs that are not.
 */
#include "base/count_abi.h"
#include "count_internal.h"
#include "base/flopcount.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ROWS 4096 /* distinct (op, caller, range, shape); more go into one "(other)" row */
#define MAX_DEPTH 64
#define MAX_RANGES 1024
#define MAX_UNFORWARDED 16

typedef struct row {
    const char *op;     /* a string literal */
    void *caller;
    const char *range;  /* interned path "outer/inner", or NULL */
    shape s;
    uint64_t calls;
    int64_t flops;
    int used;
} row;

static struct {
    pid_t pid;
    char dir[4096];
    pthread_mutex_t lock;
    row rows[MAX_ROWS];
    size_t nrows;
    uint64_t other_calls;
    int64_t other_flops;
    int overflow;       /* a count overflowed int64 */
    char *ranges[MAX_RANGES];
    size_t nranges;
    const char *unforwarded[MAX_UNFORWARDED]; /* names called with no real function to reach */
    size_t nunforwarded;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static PG_COUNT_TLS const char *t_stack[MAX_DEPTH];
static PG_COUNT_TLS int t_depth; /* may exceed MAX_DEPTH: deeper ranges are not named */
PG_COUNT_TLS int pg__count_inside;
int pg__count_on;

static void reset(void)
{
    memset(g.rows, 0, sizeof(g.rows));
    g.nrows = 0;
    g.other_calls = 0;
    g.other_flops = 0;
    g.overflow = 0;
    g.nunforwarded = 0;
    g.pid = getpid();
}

/* A forked child starts from zero: its parent reports what ran before the fork. */
static void after_fork_child(void)
{
    pthread_mutex_init(&g.lock, NULL);
    reset();
}

static void write_counts(void);

__attribute__((constructor)) static void count_init(void)
{
    const char *d = getenv(PG_COUNT_ENV_DIR);

    if (!d || !*d || strlen(d) >= sizeof(g.dir))
        return;
    strcpy(g.dir, d);
    reset();
    pthread_atfork(NULL, NULL, after_fork_child);
    pg__count_on = 1;
}

__attribute__((destructor)) static void count_fini(void)
{
    if (pg__count_on && g.pid == getpid())
        write_counts();
}

void pg__count_unforwarded(const char *name)
{
    size_t i;
    int first = 1;

    pthread_mutex_lock(&g.lock);
    for (i = 0; i < g.nunforwarded; i++)
        first &= strcmp(g.unforwarded[i], name) != 0;
    if (first && g.nunforwarded < MAX_UNFORWARDED)
        g.unforwarded[g.nunforwarded++] = name;
    pthread_mutex_unlock(&g.lock);
    if (first)
        fprintf(stderr,
                "libperfgate_count: %s was called, but no library loaded in this process defines it (the "
                "program found perfgate's counting wrapper in its place); the call did nothing, and this "
                "run's counts and results are not to be trusted\n",
                name);
}

static uint64_t hash_row(const char *op, void *caller, const char *range, const shape *s)
{
    uint64_t h = 1469598103934665603ull;

    h = (h ^ (uint64_t)(uintptr_t)op) * 1099511628211ull;
    h = (h ^ (uint64_t)(uintptr_t)caller) * 1099511628211ull;
    h = (h ^ (uint64_t)(uintptr_t)range) * 1099511628211ull;
    h = (h ^ ((uint64_t)(uint32_t)s->d[0] << 32 | (uint32_t)s->d[1])) * 1099511628211ull;
    h = (h ^ ((uint64_t)(uint32_t)s->d[2] << 8 | (unsigned char)s->side)) * 1099511628211ull;
    h = (h ^ (uint64_t)(uint32_t)s->batch) * 1099511628211ull;
    return h;
}

static int same_shape(const shape *a, const shape *b)
{
    return a->kind == b->kind && a->side == b->side && a->d[0] == b->d[0] && a->d[1] == b->d[1] &&
           a->d[2] == b->d[2] && a->batch == b->batch;
}

void pg__count_record(const char *op, void *caller, const shape *shp, int64_t flops, int bad)
{
    const char *range = t_depth > 0 ? t_stack[(t_depth > MAX_DEPTH ? MAX_DEPTH : t_depth) - 1] : NULL;
    uint64_t h = hash_row(op, caller, range, shp);
    size_t probe;

    pthread_mutex_lock(&g.lock);
    g.overflow |= bad;
    for (probe = 0; probe < MAX_ROWS; probe++) {
        row *r = &g.rows[(h + probe) % MAX_ROWS];
        if (!r->used) {
            if (g.nrows >= MAX_ROWS * 3 / 4)
                break;
            r->used = 1;
            r->op = op;
            r->caller = caller;
            r->range = range;
            r->s = *shp;
            g.nrows++;
        } else if (r->op != op || r->caller != caller || r->range != range || !same_shape(&r->s, shp)) {
            continue;
        }
        r->calls++;
        g.overflow |= __builtin_add_overflow(r->flops, flops, &r->flops);
        pthread_mutex_unlock(&g.lock);
        return;
    }
    g.other_calls++;
    g.overflow |= __builtin_add_overflow(g.other_flops, flops, &g.other_flops);
    pthread_mutex_unlock(&g.lock);
}

/* ---- ranges -------------------------------------------------------------- */

/* The interned path of `name` under the current range (lives until exit). */
static const char *intern_path(const char *name)
{
    const char *parent = t_depth > 0 && t_depth <= MAX_DEPTH ? t_stack[t_depth - 1] : NULL;
    size_t i, n = (parent ? strlen(parent) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(n);
    const char *found = NULL;

    if (!p)
        return NULL;
    snprintf(p, n, "%s%s%s", parent ? parent : "", parent ? "/" : "", name);
    pthread_mutex_lock(&g.lock);
    for (i = 0; i < g.nranges && !found; i++)
        if (strcmp(g.ranges[i], p) == 0)
            found = g.ranges[i];
    if (!found && g.nranges < MAX_RANGES)
        found = g.ranges[g.nranges++] = p;
    pthread_mutex_unlock(&g.lock);
    if (found != p)
        free(p);
    return found;
}

EXPORT void perfgate_range_push(const char *name)
{
    if (pg__count_on && name && t_depth < MAX_DEPTH)
        t_stack[t_depth] = intern_path(name);
    t_depth++;
}

EXPORT void perfgate_range_pop(void)
{
    if (t_depth > 0)
        t_depth--;
}

/* NVTX v2 (libnvToolsExt): ranges the program already marks, forwarded when the real library is there. */
EXPORT int nvtxRangePushA(const char *message)
{
    int (*real)(const char *);

    *(void **)&real = dlsym(RTLD_NEXT, "nvtxRangePushA");
    perfgate_range_push(message);
    return real ? real(message) : t_depth - 1;
}

EXPORT int nvtxRangePop(void)
{
    int (*real)(void);

    *(void **)&real = dlsym(RTLD_NEXT, "nvtxRangePop");
    perfgate_range_pop();
    return real ? real() : t_depth;
}

/* ---- the count file ------------------------------------------------------ */

static void shape_text(char *out, size_t len, const shape *s)
{
    switch (s->kind) {
    case SHAPE_GEMM:
        if (s->batch > 1)
            snprintf(out, len, "%dx[%d,%d]x[%d,%d]", s->batch, s->d[0], s->d[2], s->d[2], s->d[1]);
        else
            snprintf(out, len, "[%d,%d]x[%d,%d]", s->d[0], s->d[2], s->d[2], s->d[1]);
        break;
    case SHAPE_GEMV:
        snprintf(out, len, "[%d,%d]x[%d]", s->d[0], s->d[1], s->d[2]);
        break;
    case SHAPE_SIDED:
        snprintf(out, len, "%c[%d,%d]", s->side, s->d[0], s->d[1]);
        break;
    default:
        snprintf(out, len, "[%d,%d]", s->d[0], s->d[1]);
    }
}

/* Tabs and newlines would break the file's fields. */
static void put_field(FILE *f, const char *s)
{
    for (; s && *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void write_counts(void)
{
    char path[4200], tmp[4300], name[512], text[96];
    FILE *f;
    size_t i;

    snprintf(path, sizeof(path), "%s/count.%ld.tsv", g.dir, (long)getpid());
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if (!(f = fopen(tmp, "w"))) {
        fprintf(stderr, "libperfgate_count: cannot write %s\n", tmp);
        return;
    }
    pthread_mutex_lock(&g.lock);
    fprintf(f, "%s\n", PG_COUNT_MAGIC);
    for (i = 0; i < MAX_ROWS; i++) {
        const row *r = &g.rows[i];
        if (!r->used)
            continue;
        pg__count_caller_name(name, sizeof(name), r->caller);
        fprintf(f, "%s\t", r->op);
        put_field(f, name);
        fputc('\t', f);
        put_field(f, r->range);
        shape_text(text, sizeof(text), &r->s);
        fprintf(f, "\t%s\t%llu\t%lld\n", text, (unsigned long long)r->calls, (long long)r->flops);
    }
    if (g.other_calls)
        fprintf(f, "(other)\t(other)\t\t\t%llu\t%lld\n", (unsigned long long)g.other_calls, (long long)g.other_flops);
    if (g.overflow)
        fprintf(f, "%s\n", PG_COUNT_OVERFLOW);
    for (i = 0; i < g.nunforwarded; i++)
        fprintf(f, "%s\t%s\n", PG_COUNT_UNFORWARDED, g.unforwarded[i]);
    pthread_mutex_unlock(&g.lock);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "libperfgate_count: cannot write %s\n", path);
        unlink(tmp);
    }
}
