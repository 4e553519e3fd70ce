/*
 * flops.c - the FLOPs of a traced op: what the trace says (Kineto's
 * args.flops, recorded with torch.profiler's with_flops=True), else what
 * the shapes say for the matrix products whose formula needs nothing else
 * (args["Input Dims"] of aten::mm, addmm, bmm, baddbmm, mv, addmv), with
 * the formulas of base/flopcount.h. A convolution's FLOPs need its stride,
 * padding and dilation, which "Input Dims" does not hold, so only a trace's
 * own count gives them.
 */
#include "trace/trace.h"

#include "base/flopcount.h"

#include <stdlib.h>
#include <string.h>

#define MAX_INPUTS 8
#define MAX_DIMS 8

typedef struct dims {
    int n;                  /* inputs read */
    int rank[MAX_INPUTS];   /* -1: not a list of integers */
    int64_t d[MAX_INPUTS][MAX_DIMS];
} dims;

/* Parses "[[256], [64, 256], [256, 256], [], []]": up to 8 inputs of up to 8 dimensions. */
static int parse_dims(dims *out, const char *s)
{
    memset(out, 0, sizeof(*out));
    while (*s == ' ')
        s++;
    if (*s++ != '[')
        return -1;
    for (;;) {
        while (*s == ' ' || *s == ',')
            s++;
        if (*s == ']' || out->n == MAX_INPUTS)
            return 0;
        if (*s != '[') {
            /* Not a shape (a scalar's type, a string): skip to the next input. */
            out->rank[out->n++] = -1;
            while (*s && *s != ',' && *s != ']')
                s++;
            continue;
        }
        s++;
        for (;;) {
            char *end;
            long long v;
            while (*s == ' ' || *s == ',')
                s++;
            if (*s == ']') {
                s++;
                break;
            }
            v = strtoll(s, &end, 10);
            if (end == s || v < 0 || out->rank[out->n] == MAX_DIMS)
                return -1;
            out->d[out->n][out->rank[out->n]++] = v;
            s = end;
        }
        out->n++;
    }
}

/* 2·m·n·k of A[.., m, k]·B[.., k, n] from inputs a and b (with `batch` leading dimensions), -1 on a mismatch. */
static int64_t product(const dims *x, int a, int b, int batch, int vector)
{
    int ra = 2 + batch, rb = vector ? 1 : 2 + batch;
    int64_t f, n, scale;

    if (x->n <= a || x->n <= b)
        return -1;
    n = vector ? 1 : x->d[b][rb - 1];
    scale = batch ? x->d[a][0] : 1;
    if (x->rank[a] != ra || x->rank[b] != rb ||
        x->d[a][ra - 1] != x->d[b][rb - (vector ? 1 : 2)] || (batch && x->d[b][0] != scale))
        return -1;
    if (pg_flops_mul4(&f, scale, x->d[a][ra - 2], n, x->d[a][ra - 1]) != 0 || __builtin_mul_overflow(f, 2, &f))
        return -1;
    return f;
}

static int64_t from_shapes(const char *name, const char *shape)
{
    static const struct {
        const char *op;
        int a, batch, vector;
    } ops[] = {
        {"aten::mm", 0, 0, 0},    {"aten::addmm", 1, 0, 0}, {"aten::bmm", 0, 1, 0},
        {"aten::baddbmm", 1, 1, 0}, {"aten::mv", 0, 0, 1},    {"aten::addmv", 1, 0, 1},
    };
    dims x;
    size_t i;

    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(name, ops[i].op) == 0)
            break;
    if (i == sizeof(ops) / sizeof(ops[0]) || !shape || !*shape || parse_dims(&x, shape) != 0)
        return -1;
    return product(&x, ops[i].a, ops[i].a + 1, ops[i].batch, ops[i].vector);
}

int64_t pg_trace_op_flops(const pg_trace *t, size_t ev, int *derived)
{
    int64_t f = pg_trace_event_flops(t, ev);

    if (derived)
        *derived = 0;
    if (f >= 0 || ev >= t->nevents)
        return f;
    f = from_shapes(pg_trace_str(t, t->events[ev].name), pg_trace_str(t, t->events[ev].shape));
    if (derived && f >= 0)
        *derived = 1;
    return f;
}
