/* mylib_bench.c - mylib's benchmarks, a perfgate plugin (perfgate's docs/plugins.md). */
#include "mylib.h"

#include <perfgate/perfgate.h>

#include <stdlib.h>
#include <string.h>

/* A tenth of a second of noise (48 kHz) through ten low-pass sections, a fresh copy each time. */
static void filter(pg_state *st)
{
    size_t n = (size_t)pg_param_int(st, "n", 4800), i;
    size_t nsections = (size_t)pg_param_int(st, "sections", 10);
    mylib_biquad *s = malloc(nsections * sizeof(*s));
    float *noise = malloc(n * sizeof(*noise)), *x = malloc(n * sizeof(*x));
    unsigned seed = 7;

    if (!s || !noise || !x) {
        free(s);
        free(noise);
        free(x);
        pg_error(st, "out of memory");
        return;
    }
    for (i = 0; i < nsections; i++)
        s[i] = mylib_lowpass(0.05 + 0.01 * (double)i, 0.707);
    for (i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        noise[i] = (float)((seed >> 16) & 0x7fff) / 16384.0f - 1.0f;
    }
    pg_flops(st, 9.0 * (double)n * (double)nsections);
    while (pg_keep_running(st)) {
        memcpy(x, noise, n * sizeof(*x));
        mylib_filter(x, n, s, nsections);
    }
    free(s);
    free(noise);
    free(x);
}

/* Designing a bank of 1024 sections: the library's trigonometry. */
static void design(pg_state *st)
{
    mylib_biquad s[64];
    volatile float sink = 0;
    int i, k;

    while (pg_keep_running(st)) {
        for (k = 0; k < 16; k++)
            for (i = 0; i < 64; i++)
                s[i] = mylib_lowpass(0.01 + 0.007 * i + 0.0001 * k, 0.5 + 0.01 * i);
        sink += s[63].b0;
    }
    (void)sink;
}

static const pg_benchmark benchmarks[] = {
    {"filter", "4800 samples through ten biquad sections", filter, NULL, NULL, NULL},
    {"design", "1024 low-pass sections designed", design, NULL, NULL, NULL},
};
PG_PLUGIN_DEFINE("mylib", benchmarks)
