/*
 * flop_counter.c - the FLOP counter (flop_counter.h).
 *
 * FlopCounterMode's semantics: every GEMM through the kernels' single entry
 * point adds 2·m·n·k, attributed to its op name and to every module
 * executing at the time (ModuleTracker's parents: each path on the module
 * stack, its dotted prefixes, and "Global"). Everything that is not a matmul
 * (elementwise ops, norms, softmax) counts zero, the convention MFU uses.
 */
#include "checks/flop_counter.h"

#include "base/flopcount.h"
#include "base/fmt.h"
#include "base/util.h"
#include "perfgate/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_flop_counter {
    pg_instrument ins;
    const pg_instrument *next;
    char **mods;                /* module stack, innermost last (copies) */
    size_t nmods, capmods;
    pg_flop_row *rows;          /* module × op */
    size_t nrows, caprows;
    int64_t total;
    int err;
    char errmsg[200];
};

static void fc_fail(pg_flop_counter *fc, int code, const char *what, const char *name)
{
    if (fc->err)
        return;
    fc->err = code;
    snprintf(fc->errmsg, sizeof(fc->errmsg), "%s '%s'", what, name);
}

static pg_flop_row *row_for(pg_flop_counter *fc, const char *module, size_t mlen, const char *op)
{
    size_t i;
    pg_flop_row *r;

    for (i = 0; i < fc->nrows; i++)
        if (strncmp(fc->rows[i].module, module, mlen) == 0 && fc->rows[i].module[mlen] == '\0' &&
            strcmp(fc->rows[i].op, op) == 0)
            return &fc->rows[i];
    if (fc->nrows == fc->caprows) {
        size_t cap = fc->caprows ? fc->caprows * 2 : 16;
        pg_flop_row *p = realloc(fc->rows, cap * sizeof(*p));
        if (!p)
            return NULL;
        fc->rows = p;
        fc->caprows = cap;
    }
    r = &fc->rows[fc->nrows];
    r->module = strndup(module, mlen);
    r->op = pg__strdup(op);
    r->flops = 0;
    if (!r->module || !r->op) {
        free((char *)r->module);
        free((char *)r->op);
        return NULL;
    }
    fc->nrows++;
    return r;
}

/* Adds `f` to (module[0..mlen), op) unless this GEMM already added it there. */
static void add_once(pg_flop_counter *fc, const char **seen, size_t *nseen, size_t *seen_len, const char *module,
                     size_t mlen, const char *op, int64_t f)
{
    pg_flop_row *r;
    size_t i;

    for (i = 0; i < *nseen; i++)
        if (seen_len[i] == mlen && strncmp(seen[i], module, mlen) == 0)
            return;
    if (*nseen < 64) {
        seen[*nseen] = module;
        seen_len[(*nseen)++] = mlen;
    }
    if (!(r = row_for(fc, module, mlen, op))) {
        fc_fail(fc, PG_ENOMEM, "out of memory counting FLOPs of op", op);
        return;
    }
    if (__builtin_add_overflow(r->flops, f, &r->flops))
        fc_fail(fc, PG_EINVAL, "int64 overflow in the FLOP count of op", op);
}

static void on_gemm(void *payload, const char *name, int64_t m, int64_t n, int64_t k)
{
    pg_flop_counter *fc = payload;
    const char *seen[64];
    size_t seen_len[64], nseen = 0, i;
    int64_t f;

    if (fc->next && fc->next->gemm)
        fc->next->gemm(fc->next->payload, name, m, n, k);
    if (pg_flops_gemm(&f, m, n, k, 0)) {
        fc_fail(fc, PG_EINVAL, "int64 overflow in the FLOPs of a GEMM of op", name);
        return;
    }
    if (__builtin_add_overflow(fc->total, f, &fc->total))
        fc_fail(fc, PG_EINVAL, "int64 overflow in the total FLOP count at op", name);
    add_once(fc, seen, &nseen, seen_len, "Global", 6, name, f);
    for (i = 0; i < fc->nmods; i++) {
        const char *path = fc->mods[i], *dot;
        /* "mlp.1" runs inside "mlp": a parent module is executing too. */
        for (dot = strchr(path, '.'); dot; dot = strchr(dot + 1, '.'))
            add_once(fc, seen, &nseen, seen_len, path, (size_t)(dot - path), name, f);
        add_once(fc, seen, &nseen, seen_len, path, strlen(path), name, f);
    }
}

int pg_flop_counter_add(pg_flop_counter *fc, const char *op, int64_t flops, const char *const *modules, size_t n)
{
    const char *seen[64];
    size_t seen_len[64], nseen = 0, i;

    if (flops < 0)
        fc_fail(fc, PG_EINVAL, "a negative FLOP count for op", op);
    else if (__builtin_add_overflow(fc->total, flops, &fc->total))
        fc_fail(fc, PG_EINVAL, "int64 overflow in the total FLOP count at op", op);
    else {
        add_once(fc, seen, &nseen, seen_len, "Global", 6, op, flops);
        for (i = 0; i < n; i++)
            add_once(fc, seen, &nseen, seen_len, modules[i], strlen(modules[i]), op, flops);
    }
    return pg_flop_counter_status(fc);
}

static void on_op_begin(void *payload, const char *name, const char *shape)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->op_begin)
        fc->next->op_begin(fc->next->payload, name, shape);
}

static void on_op_end(void *payload, const char *name)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->op_end)
        fc->next->op_end(fc->next->payload, name);
}

static void on_range_push(void *payload, const char *name)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->range_push)
        fc->next->range_push(fc->next->payload, name);
}

static void on_range_pop(void *payload, const char *name)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->range_pop)
        fc->next->range_pop(fc->next->payload, name);
}

static void on_module_push(void *payload, const char *path, int backward)
{
    pg_flop_counter *fc = payload;
    char *copy = pg__strdup(path);

    if (fc->next && fc->next->module_push)
        fc->next->module_push(fc->next->payload, path, backward);
    if (fc->nmods == fc->capmods) {
        size_t cap = fc->capmods ? fc->capmods * 2 : 8;
        char **p = realloc(fc->mods, cap * sizeof(*p));
        if (!p) {
            free(copy);
            fc_fail(fc, PG_ENOMEM, "out of memory entering module", path);
            return;
        }
        fc->mods = p;
        fc->capmods = cap;
    }
    if (!copy) {
        fc_fail(fc, PG_ENOMEM, "out of memory entering module", path);
        return;
    }
    fc->mods[fc->nmods++] = copy;
}

static void on_module_pop(void *payload, const char *path)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->module_pop)
        fc->next->module_pop(fc->next->payload, path);
    if (fc->nmods == 0 || strcmp(fc->mods[fc->nmods - 1], path) != 0) {
        fc_fail(fc, PG_EKERNEL, "a module other than the innermost one was left:", path);
        return;
    }
    free(fc->mods[--fc->nmods]);
}

int pg_flop_counter_new(pg_flop_counter **out)
{
    pg_flop_counter *fc = calloc(1, sizeof(*fc));

    *out = NULL;
    if (!fc)
        return pg_error_set(PG_ENOMEM, "out of memory for a FLOP counter");
    fc->ins.op_begin = on_op_begin;
    fc->ins.op_end = on_op_end;
    fc->ins.gemm = on_gemm;
    fc->ins.range_push = on_range_push;
    fc->ins.range_pop = on_range_pop;
    fc->ins.module_push = on_module_push;
    fc->ins.module_pop = on_module_pop;
    fc->ins.payload = fc;
    *out = fc;
    return 0;
}

void pg_flop_counter_free(pg_flop_counter *fc)
{
    size_t i;

    if (!fc)
        return;
    for (i = 0; i < fc->nmods; i++)
        free(fc->mods[i]);
    free(fc->mods);
    for (i = 0; i < fc->nrows; i++) {
        free((char *)fc->rows[i].module);
        free((char *)fc->rows[i].op);
    }
    free(fc->rows);
    free(fc);
}

const pg_instrument *pg_flop_counter_instrument(pg_flop_counter *fc, const pg_instrument *next)
{
    fc->next = next;
    return &fc->ins;
}

int64_t pg_flop_counter_total(const pg_flop_counter *fc)
{
    return fc->total;
}

int64_t pg_flop_counter_get(const pg_flop_counter *fc, const char *module, const char *op)
{
    int64_t sum = 0;
    size_t i;

    for (i = 0; i < fc->nrows; i++)
        if (strcmp(fc->rows[i].module, module) == 0 && (!op || strcmp(fc->rows[i].op, op) == 0))
            sum += fc->rows[i].flops;
    return sum;
}

const pg_flop_row *pg_flop_counter_rows(const pg_flop_counter *fc, size_t *out_n)
{
    *out_n = fc->nrows;
    return fc->rows;
}

int pg_flop_counter_status(const pg_flop_counter *fc)
{
    if (fc->err)
        return pg_error_set(fc->err, "FLOP counter: %s", fc->errmsg);
    if (fc->nmods)
        return pg_error_set(PG_EKERNEL, "FLOP counter: module '%s' was still open when the workload returned",
                            fc->mods[fc->nmods - 1]);
    return 0;
}

int pg_flop_counter_table(const pg_flop_counter *fc, pg_buf *b)
{
    size_t i, j, w = 6;
    char num[32];

    for (i = 0; i < fc->nrows; i++) {
        size_t l = strlen(fc->rows[i].module), lo = strlen(fc->rows[i].op) + 3;
        w = l > w ? l : w;
        w = lo > w ? lo : w;
    }
    pg__buf_printf(b, "    %-*s  %16s  %8s\n", (int)w, "Module", "FLOP", "% Total");
    /* Modules in the order they first counted, each followed by its ops. */
    for (i = 0; i < fc->nrows; i++) {
        const char *m = fc->rows[i].module;
        int64_t sum;
        int first = 1;
        for (j = 0; j < i; j++)
            if (strcmp(fc->rows[j].module, m) == 0)
                first = 0;
        if (!first)
            continue;
        sum = pg_flop_counter_get(fc, m, NULL);
        pg_fmt_int(num, sizeof(num), sum);
        pg__buf_printf(b, "    %-*s  %16s  %7.2f%%\n", (int)w, m, num,
                       fc->total ? 100.0 * (double)sum / (double)fc->total : 0.0);
        for (j = i; j < fc->nrows; j++) {
            if (strcmp(fc->rows[j].module, m) != 0)
                continue;
            pg_fmt_int(num, sizeof(num), fc->rows[j].flops);
            pg__buf_printf(b, "     - %-*s  %16s  %7.2f%%\n", (int)w - 3, fc->rows[j].op, num,
                           fc->total ? 100.0 * (double)fc->rows[j].flops / (double)fc->total : 0.0);
        }
    }
    if (fc->nrows == 0)
        pg__buf_puts(b, "    (no GEMM ran: 0 FLOPs)\n");
    return b->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory formatting FLOPs");
}
