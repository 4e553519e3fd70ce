/*
 * count.c - libperfgate_count.so, the preload library that counts the FLOPs
 * of an unmodified program's BLAS calls.
 *
 * Loaded with LD_PRELOAD, it defines the CBLAS level-3 and level-2 entry
 * points (s/d/c/z gemm, gemm3m, symm, syrk, trmm, trsm, gemv), so the
 * program's calls land here first; each is forwarded to the next definition
 * (the real BLAS, found with dlsym(RTLD_NEXT)). With PERFGATE_COUNT_DIR set
 * each call is also counted with the formulas of runner/base/flopcount.h, keyed
 * by op, calling function (its return address), the innermost ranges the
 * program opened (perfgate_range_push() or NVTX), and shape. At exit the
 * process writes DIR/count.PID.tsv (runner/meter/count.h reads it); children that
 * exec inherit the variable and write their own file. Without the variable
 * a call costs one load and a branch more than the real one.
 *
 * It links nothing of perfgate and is never built with sanitizers, because
 * it is loaded into programs that are not.
 */
#include "base/count_abi.h"
#include "count_internal.h"
#include "base/flopcount.h"

#include <cblas.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_ROWS 4096 /* distinct (op, caller, range, shape); more go into one "(other)" row */
#define MAX_DEPTH 64
#define MAX_RANGES 1024

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

/* The next definition of `name` (the real BLAS); a program that calls it must have one. */
void *pg__count_next(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);

    if (!p) {
        fprintf(stderr, "libperfgate_count: no definition of %s after this library: %s\n", name, dlerror());
        abort();
    }
    return p;
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

/* ---- the wrappers --------------------------------------------------------- */

/*
 * Each wrapper: resolve the real function once, count (when on and not
 * already inside a counted call), forward. `caller` is the return address
 * of the wrapper: the call site in the program.
 */
#define PG_COUNT_CALL(op, fn_type, name, shape_init, formula, call_args)                                     \
    do {                                                                                                  \
        static fn_type real;                                                                              \
        if (!real)                                                                                        \
            *(void **)&real = pg__count_next(name);                                                          \
        if (pg__count_on && !pg__count_inside) {                                                                          \
            shape shp = shape_init;                                                                       \
            int64_t f;                                                                                    \
            int bad = formula;                                                                            \
            pg__count_record(op, __builtin_return_address(0), &shp, f, bad);                                      \
            pg__count_inside = 1;                                                                                 \
            real call_args;                                                                               \
            pg__count_inside = 0;                                                                                 \
        } else {                                                                                          \
            real call_args;                                                                               \
        }                                                                                                 \
    } while (0)

/* A call's shape (inside PG_COUNT_CALL): kind, side, three dimensions. */
#define SHAPE(kind, side, a, b, c) {kind, {(int)(a), (int)(b), (int)(c)}, side, 1}

/* GEMM family: X is the letter, S the scalar type (a value for s/d, a pointer for c/z), P the array type. */
#define GEMM(X, S, P, CPLX, SUFFIX)                                                                                  \
    typedef void (*X##gemm##SUFFIX##_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,                         \
                                         const enum CBLAS_TRANSPOSE, const blasint, const blasint, const blasint, S, \
                                         const P *, const blasint, const P *, const blasint, S, P *, const blasint); \
    EXPORT void cblas_##X##gemm##SUFFIX(const enum CBLAS_ORDER o, const enum CBLAS_TRANSPOSE ta,                    \
                                        const enum CBLAS_TRANSPOSE tb, const blasint m, const blasint n,             \
                                        const blasint k, S alpha, const P *a, const blasint lda, const P *b,         \
                                        const blasint ldb, S beta, P *c, const blasint ldc)                          \
    {                                                                                                                \
        PG_COUNT_CALL(#X "gemm" #SUFFIX, X##gemm##SUFFIX##_fn, "cblas_" #X "gemm" #SUFFIX,                          \
                      SHAPE(SHAPE_GEMM, 0, m, n, k), pg_flops_gemm(&f, m, n, k, CPLX),               \
                      (o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));                                    \
    }

#define GEMV(X, S, P, CPLX)                                                                                          \
    typedef void (*X##gemv_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE, const blasint, const blasint, S,  \
                               const P *, const blasint, const P *, const blasint, S, P *, const blasint);           \
    EXPORT void cblas_##X##gemv(const enum CBLAS_ORDER o, const enum CBLAS_TRANSPOSE t, const blasint m,            \
                                const blasint n, S alpha, const P *a, const blasint lda, const P *x,                 \
                                const blasint incx, S beta, P *y, const blasint incy)                                \
    {                                                                                                                \
        PG_COUNT_CALL(#X "gemv", X##gemv_fn, "cblas_" #X "gemv",                              \
                      SHAPE(SHAPE_GEMV, 0, m, n, t == CblasNoTrans ? n : m),                      \
                      pg_flops_gemv(&f, m, n, CPLX), (o, t, m, n, alpha, a, lda, x, incx, beta, y, incy));           \
    }

#define SYMM(X, S, P, CPLX)                                                                                          \
    typedef void (*X##symm_fn)(const enum CBLAS_ORDER, const enum CBLAS_SIDE, const enum CBLAS_UPLO, const blasint,  \
                               const blasint, S, const P *, const blasint, const P *, const blasint, S, P *,         \
                               const blasint);                                                                       \
    EXPORT void cblas_##X##symm(const enum CBLAS_ORDER o, const enum CBLAS_SIDE side, const enum CBLAS_UPLO uplo,   \
                                const blasint m, const blasint n, S alpha, const P *a, const blasint lda,            \
                                const P *b, const blasint ldb, S beta, P *c, const blasint ldc)                      \
    {                                                                                                                \
        PG_COUNT_CALL(#X "symm", X##symm_fn, "cblas_" #X "symm",                              \
                      SHAPE(SHAPE_SIDED, side == CblasLeft ? 'L' : 'R', m, n, 0), pg_flops_symm(&f, side == CblasLeft, m, n, CPLX),                         \
                      (o, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc));                                   \
    }

#define SYRK(X, S, P, CPLX)                                                                                          \
    typedef void (*X##syrk_fn)(const enum CBLAS_ORDER, const enum CBLAS_UPLO, const enum CBLAS_TRANSPOSE,            \
                               const blasint, const blasint, S, const P *, const blasint, S, P *, const blasint);    \
    EXPORT void cblas_##X##syrk(const enum CBLAS_ORDER o, const enum CBLAS_UPLO uplo, const enum CBLAS_TRANSPOSE t, \
                                const blasint n, const blasint k, S alpha, const P *a, const blasint lda, S beta,   \
                                P *c, const blasint ldc)                                                             \
    {                                                                                                                \
        PG_COUNT_CALL(#X "syrk", X##syrk_fn, "cblas_" #X "syrk", SHAPE(SHAPE_SYRK, 0, n, k, 0),                     \
                      pg_flops_syrk(&f, n, k, CPLX), (o, uplo, t, n, k, alpha, a, lda, beta, c, ldc));               \
    }

/* trmm and trsm share a signature and a count. */
#define TRXM(X, S, P, CPLX, OP)                                                                                      \
    typedef void (*X##OP##_fn)(const enum CBLAS_ORDER, const enum CBLAS_SIDE, const enum CBLAS_UPLO,                 \
                               const enum CBLAS_TRANSPOSE, const enum CBLAS_DIAG, const blasint, const blasint, S,   \
                               const P *, const blasint, P *, const blasint);                                        \
    EXPORT void cblas_##X##OP(const enum CBLAS_ORDER o, const enum CBLAS_SIDE side, const enum CBLAS_UPLO uplo,     \
                              const enum CBLAS_TRANSPOSE t, const enum CBLAS_DIAG diag, const blasint m,            \
                              const blasint n, S alpha, const P *a, const blasint lda, P *b, const blasint ldb)     \
    {                                                                                                                \
        PG_COUNT_CALL(#X #OP, X##OP##_fn, "cblas_" #X #OP,                              \
                      SHAPE(SHAPE_SIDED, side == CblasLeft ? 'L' : 'R', m, n, 0), pg_flops_trmm(&f, side == CblasLeft, m, n, CPLX),                         \
                      (o, side, uplo, t, diag, m, n, alpha, a, lda, b, ldb));                                        \
    }

#define FAMILY(X, S, P, CPLX)                                                                                        \
    GEMM(X, S, P, CPLX, )                                                                                            \
    GEMV(X, S, P, CPLX)                                                                                              \
    SYMM(X, S, P, CPLX)                                                                                              \
    SYRK(X, S, P, CPLX)                                                                                              \
    TRXM(X, S, P, CPLX, trmm)                                                                                        \
    TRXM(X, S, P, CPLX, trsm)

FAMILY(s, const float, float, 0)
FAMILY(d, const double, double, 0)
FAMILY(c, const void *, void, 1)
FAMILY(z, const void *, void, 1)
/* The 3M forms do fewer multiplies but count as the GEMM they compute, as every counter here does. */
GEMM(c, const void *, void, 1, 3m)
GEMM(z, const void *, void, 1, 3m)

/* ---- naming callers --------------------------------------------------------- */

/* The function containing `addr` in the ELF file `path` mapped at `base`, from .symtab, else .dynsym. */
static int elf_symbol(char *out, size_t len, const char *path, uintptr_t base, uintptr_t addr)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0, pass;
    struct stat st;
    const unsigned char *m;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh;
    size_t i, j;

    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return 0;
    }
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return 0;
    eh = (const Elf64_Ehdr *)m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size)
        goto done;
    sh = (const Elf64_Shdr *)(m + eh->e_shoff);
    /* Symbol values are addresses in the file's own layout: absolute in a fixed executable. */
    if (eh->e_type != ET_EXEC)
        addr -= base;
    for (pass = 0; pass < 2 && !found; pass++) {
        for (i = 0; i < eh->e_shnum && !found; i++) {
            const Elf64_Sym *sym;
            const char *str;
            size_t nsym, strsz;
            if (sh[i].sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) || sh[i].sh_link >= eh->e_shnum ||
                sh[i].sh_offset + sh[i].sh_size > (uint64_t)st.st_size ||
                sh[sh[i].sh_link].sh_offset + sh[sh[i].sh_link].sh_size > (uint64_t)st.st_size)
                continue;
            sym = (const Elf64_Sym *)(m + sh[i].sh_offset);
            nsym = sh[i].sh_size / sizeof(Elf64_Sym);
            str = (const char *)(m + sh[sh[i].sh_link].sh_offset);
            strsz = sh[sh[i].sh_link].sh_size;
            for (j = 0; j < nsym; j++) {
                if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC || sym[j].st_shndx == SHN_UNDEF ||
                    addr < sym[j].st_value || addr >= sym[j].st_value + sym[j].st_size || sym[j].st_name >= strsz)
                    continue;
                snprintf(out, len, "%.*s", (int)strnlen(str + sym[j].st_name, strsz - sym[j].st_name),
                         str + sym[j].st_name);
                found = 1;
                break;
            }
        }
    }
done:
    munmap((void *)m, (size_t)st.st_size);
    return found;
}

/* "function", else "file+0xOFFSET", else "?". */
static void caller_name(char *out, size_t len, void *caller)
{
    Dl_info info;
    uintptr_t addr = (uintptr_t)caller - 1; /* inside the call instruction, not after it */

    if (!caller || !dladdr((void *)addr, &info) || !info.dli_fname) {
        snprintf(out, len, "?");
        return;
    }
    /* The main program's name as dladdr gives it may be relative to a directory left since. */
    if (elf_symbol(out, len, info.dli_fname, (uintptr_t)info.dli_fbase, addr) ||
        elf_symbol(out, len, "/proc/self/exe", (uintptr_t)info.dli_fbase, addr))
        return;
    if (info.dli_sname)
        snprintf(out, len, "%s", info.dli_sname);
    else
        snprintf(out, len, "%s+0x%lx", info.dli_fname, (unsigned long)(addr - (uintptr_t)info.dli_fbase));
}

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
        caller_name(name, sizeof(name), r->caller);
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
    pthread_mutex_unlock(&g.lock);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "libperfgate_count: cannot write %s\n", path);
        unlink(tmp);
    }
}
