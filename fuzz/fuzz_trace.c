/*
 * fuzz_trace.c - libFuzzer target for the Chrome-trace reader.
 *
 * Any byte string must either read into a trace whose parent links stay in
 * range (and which key_averages(), the FLOPs of each op and the exporter can
 * walk) or fail with PG_EFORMAT and a one-line message; never crash, leak or
 * read out of bounds.
 */
#include "trace/steps.h"
#include "trace/trace.h"

#include "perfgate/errors.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_trace *t = NULL;
    pg_trace_stat *rows = NULL;
    size_t n = 0, i;
    int err = pg_trace_read_buffer(&t, "fuzz", (const char *)data, size, NULL);

    if (err) {
        if (err != PG_EFORMAT && err != PG_ENOMEM)
            abort();
        if (strchr(pg_error_last(), '\n'))
            abort();
        return 0;
    }
    for (i = 0; i < t->nevents; i++) {
        int32_t p = t->events[i].parent;
        if (p >= (int32_t)t->nevents || p < -1)
            abort();
        (void)pg_trace_inside(t, i, 0);
        /* args.flops, else the shapes of a matrix product: a count is never below -1. */
        if (pg_trace_op_flops(t, i, NULL) < -1)
            abort();
    }
    if (pg_trace_aggregate(&rows, &n, t, 1, PG_TRACE_SORT_SELF) == 0)
        free(rows);
    {
        /* Every event a step: the split, the paths and the GPU analysis walk everything. */
        pg_trace_steps_options so = PG_TRACE_STEPS_OPTIONS_INIT;
        pg_trace_steps *st = NULL;
        so.step = "*";
        if (pg_trace_steps_new(&st) == 0)
            (void)pg_trace_steps_add(st, t, "fuzz", &so);
        pg_trace_steps_free(st);
    }
    pg_trace_free(t);
    return 0;
}
