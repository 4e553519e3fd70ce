/*
 * diagnose.c - what changed behind a timed regression of an interleaved
 * gate (gate.h): the counting instruments on both builds for that case
 * alone (ab/ab_exact.h, each build in one process of two measured regions:
 * the regions agreeing is the determinism check, and the cost stays one
 * Valgrind process per build), the BLAS calls of a `count: blas` command,
 * and the diagnosis made of them (cause/cause.h).
 */
#include "gate/gate.h"

#include "ab/ab_exact.h"
#include "cause/cause.h"
#include "meter/count.h"
#include "perfgate/errors.h"
#include "plugin/plugin.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* The directory {build} stands for: `path`, or the folder of a library file. */
static char *build_dir(const char *path)
{
    struct stat st;
    char *abs = path ? realpath(path, NULL) : NULL, *slash;

    if (!abs || stat(abs, &st) != 0 || S_ISDIR(st.st_mode))
        return abs;
    if ((slash = strrchr(abs, '/')) != NULL)
        *slash = '\0';
    return abs;
}

/* One run of command `c` with {build} = `dir` under the BLAS counter. */
static int count_side(pg_counts *out, const pg_case *c, const char *dir)
{
    size_t n = 0, i;
    char **argv, **envp;
    int err = 0;

    while (c->command[n])
        n++;
    if (!(argv = calloc(n + 1, sizeof(*argv))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < n && !err; i++)
        err = pg_plugin_subst(&argv[i], c->command[i], c, dir);
    envp = err ? NULL : pg_case_environ(c, environ);
    if (!err && !envp)
        err = pg_error_set(PG_ENOMEM, "out of memory");
    if (!err)
        err = pg_count_run_env(out, argv, envp, c->timeout > 0 ? c->timeout : 60.0, PG_COUNT_QUIET);
    for (i = 0; i < n; i++)
        free(argv[i]);
    free(argv);
    free(envp);
    return err;
}

/* Appends "; " and a copy of the library's last message to `note`, with `what` first. */
static void say(pg_buf *note, const char *what)
{
    pg__buf_printf(note, "%s%s: %s", note->len ? "; " : "", what, pg_error_last());
}

/* Counts case `c` on both builds and attaches the diagnosis to `v`. */
static int diagnose_case(pg_case_verdict *v, const pg_case *c, const pg_suite_set *set, const pg_gate_options *o)
{
    pg_meter_options mo = PG_METER_OPTIONS_INIT;
    pg_ab_options ao = PG_AB_OPTIONS_INIT;
    pg_ab_result ab;
    pg_counts blas[2];
    pg_cause_counts in = {NULL, NULL, NULL, NULL, NULL, 0};
    pg_buf note = PG_BUF_INIT;
    const char *keys[1];
    unsigned inst = 0;
    int64_t t0 = pg__mono_ns();
    int err = 0, i;

    memset(&ab, 0, sizeof(ab));
    memset(blas, 0, sizeof(blas));
    if (o->exec.meter)
        mo = *o->exec.meter;
    /* One process per build: its two regions must agree, so nondeterminism is still seen. */
    mo.processes = 1;
    mo.regions = 2;
    if (pg_meter_ready(PG_INSTRUMENT_INSTRUCTIONS, &mo) == 0)
        inst |= PG_INSTRUMENT_INSTRUCTIONS;
    else
        say(&note, "instructions not counted");
    if (pg_meter_ready(PG_INSTRUMENT_MEMORY, &mo) == 0)
        inst |= PG_INSTRUMENT_MEMORY;
    keys[0] = v->key;
    ao.base = o->base_build;
    ao.head = o->head_build;
    ao.keys = keys;
    ao.nkeys = 1;
    if (inst && (err = pg_ab_exact_run(&ab, set, &ao, inst, &mo)) != 0) {
        if (err == PG_ENOMEM)
            goto done;
        say(&note, "not counted");
        err = 0;
    }
    if (c->command && c->count_blas) {
        char *dir[2] = {build_dir(o->base_build), build_dir(o->head_build)};
        for (i = 0; i < 2 && !err; i++)
            if ((err = count_side(&blas[i], c, dir[i])) != 0 && err != PG_ENOMEM) {
                say(&note, "BLAS calls not counted");
                err = 0;
                pg_counts_clear(&blas[0]);
                pg_counts_clear(&blas[1]);
                break;
            }
        in.base_blas = blas[0].n || blas[1].n ? &blas[0] : NULL;
        in.head_blas = in.base_blas ? &blas[1] : NULL;
        free(dir[0]);
        free(dir[1]);
    }
    if (err)
        goto done;
    in.base = ab.base;
    in.head = ab.head;
    in.note = note.len ? note.ptr : NULL;
    in.seconds = (double)(pg__mono_ns() - t0) * 1e-9;
    err = pg_cause_from_counts(&v->diag, v, &in);

done:
    pg_ab_result_clear(&ab);
    pg_counts_clear(&blas[0]);
    pg_counts_clear(&blas[1]);
    pg__buf_clear(&note);
    return err;
}

int pg__gate_diagnose(pg_comparison *cmp, const pg_suite_set *set, const pg_gate_options *o, pg_buf *said)
{
    int64_t t0 = pg__mono_ns();
    size_t i, n = 0, explained = 0;
    int err = 0;

    for (i = 0; i < cmp->ncases && !err; i++) {
        pg_case_verdict *v = &cmp->cases[i];
        const pg_case *c;
        if (v->verdict != PG_VERDICT_REGRESSED || v->diag || !v->head || !v->head->metric ||
            strcmp(v->head->metric, "time") != 0 || !(c = pg__gate_find_case(set, v->key)) || c->trace)
            continue;
        n++;
        err = diagnose_case(v, c, set, o);
        explained += v->diag && v->diag->line;
    }
    if (n && !err)
        pg__buf_printf(said, "diagnosing %zu regressed case%s: counted both builds in %.1fs; %zu explained", n,
                       n == 1 ? "" : "s", (double)(pg__mono_ns() - t0) * 1e-9, explained);
    return err;
}
