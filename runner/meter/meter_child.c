/*
 * meter_child.c - the measuring child of the counting instruments: runs
 * one case's iterations inside the measured region and nothing else.
 *
 * It is the body of the `perfgate-meter` program (meter/main.c), which the
 * runner starts under `valgrind --tool=callgrind --collect-atstart=no` for
 * instructions, or with the allocation counter preloaded for memory. That
 * program is built without sanitizers: Valgrind cannot run an
 * AddressSanitizer binary, and a preloaded allocator must be the only one.
 *
 * One warm-up iteration runs first, outside the region (lazy
 * initialisation, first-touch page faults, a plugin's first-call work);
 * then `--regions` measured regions of `--iters` iterations each. Around a
 * region: Callgrind's client requests (collect on, collect off, then a dump
 * of its own: one sample each), or the counter's switch (one region: its
 * figures add up over the whole process). What the child says goes to its --out file as `key value` lines.
 */
#include "meter/meter.h"

#include "kernels/kernels.h"
#include "measure/measure.h"
#include "perfgate/errors.h"
#include "plugin/plugin.h"
#include "base/region.h"
#include "base/util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PG_HAVE_CALLGRIND_H 1
#endif
#endif

/* The counter's switch and reading (meter/memshim.c), found in the preloaded library. */
typedef void (*shim_enable_fn)(int on);
typedef void (*shim_read_fn)(pg_meter_memory *out);

typedef struct child_state {
    int callgrind;
    int warming;        /* the warm-up: collected by Callgrind, not by the allocation counter */
    shim_enable_fn shim_enable;
} child_state;

static void enter_region(void *payload)
{
    child_state *s = payload;

#ifdef PG_HAVE_CALLGRIND_H
    if (s->callgrind)
        CALLGRIND_TOGGLE_COLLECT;
#endif
    if (s->shim_enable && !s->warming)
        s->shim_enable(1);
}

static void leave_region(void *payload)
{
    child_state *s = payload;

    if (s->shim_enable && !s->warming)
        s->shim_enable(0);
#ifdef PG_HAVE_CALLGRIND_H
    if (s->callgrind)
        CALLGRIND_TOGGLE_COLLECT;
#endif
}

static int add_param(pg_case *c, const char *spec)
{
    const char *eq = strchr(spec, '=');
    pg_param *p, *grown;
    size_t i;

    if (!eq || eq == spec)
        return pg_error_set(PG_EUSAGE, "--param wants NAME=VALUE, not '%s'", spec);
    if (!(grown = realloc(c->params, (c->nparams + 1) * sizeof(*grown))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    c->params = grown;
    /* Kept sorted by name, as a suite's cases are. */
    for (i = c->nparams; i > 0 && strncmp(c->params[i - 1].name, spec, (size_t)(eq - spec) + 1) > 0; i--)
        c->params[i] = c->params[i - 1];
    p = &c->params[i];
    memset(p, 0, sizeof(*p));
    p->name = strndup(spec, (size_t)(eq - spec));
    p->value = pg__strdup(eq + 1);
    if (!p->name || !p->value)
        return pg_error_set(PG_ENOMEM, "out of memory");
    {
        char *end = NULL;
        double v = strtod(p->value, &end);
        p->is_number = end != p->value && *end == '\0';
        p->num = p->is_number ? v : 0;
    }
    c->nparams++;
    return 0;
}

/*
 * The warm-up iteration runs as a region too, through the same code, with
 * the allocation counter off; Callgrind collects it into a dump the runner
 * drops (callgrind.out.1). The simulated caches then hold what one
 * iteration and the region switches left before every measured region,
 * the first included: the regions start from the same cache state and
 * their estimated cycles compare exactly.
 */

/* After a measured region (or the warm-up): Callgrind writes its counts to a file of their own (callgrind.out.N) and zeroes them. */
static void end_region(const child_state *s)
{
#ifdef PG_HAVE_CALLGRIND_H
    if (s->callgrind)
        CALLGRIND_DUMP_STATS_AT("perfgate-region");
#else
    (void)s;
#endif
}

static int run_kernel(const pg_case *c, int64_t iters, int regions, child_state *s)
{
    const pg_kernel *k = pg_kernel_find_for(c->kernel, "cpu");
    void *state = NULL;
    int err, r;

    if (!k)
        return pg_error_set(PG_ENOTFOUND, "no CPU kernel '%s'", c->kernel);
    if ((err = k->setup(&state, c)) != 0)
        return err;
    /* The warm-up, through the same code as a region (warm_up()). */
    s->warming = 1;
    pg__region_enter();
    err = k->run(state, 1);
    pg__region_leave();
    s->warming = 0;
    end_region(s);
    for (r = 0; r < regions && !err; r++) {
        pg__region_enter();
        err = k->run(state, iters);
        pg__region_leave();
        end_region(s);
    }
    k->teardown(state);
    return err;
}

static int run_plugin(const pg_case *c, int64_t iters, int regions, child_state *s)
{
    pg_plugin_lib *lib = NULL;
    const pg_benchmark *b;
    pg_region_hooks hooks = {enter_region, leave_region, NULL};
    int err, r;

    hooks.payload = s;
    if ((err = pg_plugin_open(&lib, c->plugin)) != 0)
        return err;
    if ((err = pg_plugin_find(&b, lib, c->symbol)) != 0)
        goto cleanup;
    s->warming = 1;
    pg__region_set(&hooks);
    err = pg_plugin_run_iterations(b, c, 1);
    pg__region_set(NULL);
    s->warming = 0;
    end_region(s);
    if (err)
        goto cleanup;
    /* Each region is a run of its own (setup and teardown outside it), so the regions can be compared. */
    for (r = 0; r < regions && !err; r++) {
        pg__region_set(&hooks);
        err = pg_plugin_run_iterations(b, c, iters);
        pg__region_set(NULL);
        end_region(s);
    }

cleanup:
    pg_plugin_close(lib);
    return err;
}

int pg_meter_child_main(int argc, char **argv)
{
    pg_case c;
    child_state s = {0, 0, NULL};
    pg_region_hooks hooks = {enter_region, leave_region, NULL};
    shim_read_fn shim_read;
    const char *out_path = NULL;
    int64_t iters = 1;
    int regions = 1;
    FILE *out;
    int i, err = 0;

    memset(&c, 0, sizeof(c));
    c.threads = 1;
    for (i = 1; i < argc && !err; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            err = pg_error_set(PG_EUSAGE, "%s wants a value", a);
            break;
        }
        i++;
        if (strcmp(a, "--out") == 0)
            out_path = v;
        else if (strcmp(a, "--iters") == 0)
            iters = strtoll(v, NULL, 10);
        else if (strcmp(a, "--regions") == 0)
            regions = atoi(v);
        else if (strcmp(a, "--kernel") == 0)
            c.kernel = pg__strdup(v);
        else if (strcmp(a, "--plugin") == 0)
            c.plugin = pg__strdup(v);
        else if (strcmp(a, "--symbol") == 0)
            c.symbol = pg__strdup(v);
        else if (strcmp(a, "--key") == 0)
            c.key = pg__strdup(v);
        else if (strcmp(a, "--param") == 0)
            err = add_param(&c, v);
        else
            err = pg_error_set(PG_EUSAGE, "unknown option '%s'", a);
    }
    if (!out_path || iters < 1 || regions < 1 || (!c.kernel && !(c.plugin && c.symbol))) {
        fprintf(stderr, "usage: perfgate-meter --out FILE --iters N [--regions R] (--kernel K | --plugin P --symbol S) "
                        "[--param NAME=VALUE]...\n");
        pg_case_clear(&c);
        return 2;
    }
    c.device = pg__strdup("cpu");
    if (!c.key)
        c.key = pg__strdup(c.kernel ? c.kernel : c.symbol);
    pg_measure_stable_layout();
    if (!err)
        err = pg_measure_set_threads(NULL, 1);
#ifdef PG_HAVE_CALLGRIND_H
    s.callgrind = RUNNING_ON_VALGRIND != 0;
#endif
    s.shim_enable = (shim_enable_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pg_memshim_enable");
    shim_read = (shim_read_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pg_memshim_read");
    hooks.payload = &s;
#ifdef PG_HAVE_CALLGRIND_H
    if (s.callgrind)
        CALLGRIND_ZERO_STATS;
#endif
    if (!err) {
        if (c.plugin) {
            err = run_plugin(&c, iters, regions, &s);
        } else {
            pg__region_set(&hooks);
            err = run_kernel(&c, iters, regions, &s);
            pg__region_set(NULL);
        }
    }
    if (!(out = fopen(out_path, "w"))) {
        perror(out_path);
        pg_case_clear(&c);
        return 3;
    }
    if (err == PG_ESKIP) {
        fprintf(out, "skip %s\n", pg_error_last());
    } else if (err == PG_ENOTFOUND && c.plugin) {
        /* No such plugin file or benchmark in this build (pg_result.absent). */
        fprintf(out, "absent %s\n", pg_error_last());
    } else if (err) {
        fprintf(out, "error %s\n", pg_error_last());
    } else {
        fprintf(out, "ok\niterations %lld\nregions %d\ncallgrind %d\n", (long long)iters, regions, s.callgrind);
        if (shim_read) {
            pg_meter_memory m;
            shim_read(&m);
            fprintf(out, "alloc_bytes %lld\nallocs %lld\npeak %lld\nlive_end %lld\n", (long long)m.bytes,
                    (long long)m.allocs, (long long)m.peak, (long long)m.live_end);
        }
    }
    fclose(out);
    pg_case_clear(&c);
    return 0;
}
