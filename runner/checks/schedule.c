/*
 * schedule.c - the profiler schedule and `kind: schedule` checks.
 *
 * torch.profiler.schedule's state machine over step indices: after
 * `skip_first` steps, cycles of `wait` steps (nothing recorded), `warmup`
 * steps (recorded, then discarded, so start-up cost is not charged to the
 * ops) and `active` steps (recorded; the last one fires on_trace_ready),
 * `repeat` times (0: until the loop ends). A window still active when the
 * loop ends fires then, as torch's profiler does on exit.
 */
#include "checks/checks.h"
#include "checks/kinds.h"

#include "perfgate/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ACT_NONE, ACT_WARMUP, ACT_RECORD, ACT_RECORD_AND_SAVE } action;

static const char *const action_names[] = {"wait", "warmup", "active", "active, fires"};

typedef struct sched {
    int64_t skip_first, wait, warmup, active, repeat;
} sched;

static action sched_action(const sched *s, int64_t step)
{
    int64_t cycle = s->wait + s->warmup + s->active, mod;

    if (step < s->skip_first)
        return ACT_NONE;
    step -= s->skip_first;
    if (s->repeat > 0 && step / cycle >= s->repeat)
        return ACT_NONE;
    mod = step % cycle;
    if (mod < s->wait)
        return ACT_NONE;
    if (mod < s->wait + s->warmup)
        return ACT_WARMUP;
    return mod < cycle - 1 ? ACT_RECORD : ACT_RECORD_AND_SAVE;
}

/* The loader has validated and parsed `schedule:` into the check (suite.c). */
static int sched_of(sched *out, const pg_check *check)
{
    const pg_node *n = check->schedule ? check->schedule : check->node;

    out->skip_first = check->skip_first;
    out->wait = check->wait;
    out->warmup = check->warmup;
    out->active = check->active;
    out->repeat = check->repeat;
    if (!check->schedule || out->active < 1 || out->skip_first < 0 || out->wait < 0 || out->warmup < 0 ||
        out->repeat < 0)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: a schedule check needs 'schedule: {wait, warmup, active >= 1, repeat}'",
                            n->file, n->line, n->col);
    return 0;
}

typedef struct window {
    pg_trace *trace;
    int64_t first_step, last_step;
    int partial;                 /* fired at the end of the loop, not by its last active step */
} window;

int pg__check_schedule(pg_check_result *out, const pg_suite *suite, const pg_check *check,
                       const pg_check_options *opts)
{
    const pg_node *ex = check->expect, *nwin = NULL, *per = NULL;
    pg__workload w;
    pg_recorder *rec = NULL;
    window *wins = NULL;
    size_t nwins = 0, i, j, k;
    sched sc;
    int64_t step, want_windows = -1, *want_counts = NULL, window_first = -1;
    pg_buf expected = PG_BUF_INIT, actual = PG_BUF_INIT, msg = PG_BUF_INIT, detail = PG_BUF_INIT;
    size_t failures = 0;
    action act = ACT_NONE;
    int err;

    memset(&w, 0, sizeof(w));
    if (check->trace) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: a schedule check runs a workload; use kind: ops for a trace file",
                           check->trace->file, check->trace->line, check->trace->col);
        goto cleanup;
    }
    if ((err = sched_of(&sc, check)) != 0)
        goto cleanup;
    if (check->steps <= 0) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: a schedule check needs 'steps: N' (the length of the loop)",
                           check->node->file, check->node->line, check->node->col);
        goto cleanup;
    }
    if (ex->type != PG_NODE_MAP) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: expect must be a mapping (windows, per_window)", ex->file, ex->line,
                           ex->col);
        goto cleanup;
    }
    for (i = 0; i < ex->count; i++) {
        if (pg_node_is(ex->keys[i], "windows"))
            nwin = ex->items[i];
        else if (pg_node_is(ex->keys[i], "per_window"))
            per = ex->items[i];
        else {
            err = pg__check_unknown_key(ex->keys[i], "schedule", "windows, per_window");
            goto cleanup;
        }
    }
    if (!nwin && !per) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: a schedule check expects windows or per_window", ex->file, ex->line,
                           ex->col);
        goto cleanup;
    }
    if (per && per->type != PG_NODE_MAP) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: per_window must map names (globs) to counts", per->file, per->line,
                           per->col);
        goto cleanup;
    }
    if ((err = pg__workload_open(&w, suite, check)) != 0)
        goto cleanup;
    if (nwin && (err = pg__check_eval(&want_windows, nwin, &w.c, "expect.windows")) != 0)
        goto cleanup;
    if (per) {
        if (!(want_counts = calloc(per->count + 1, sizeof(*want_counts)))) {
            err = pg_error_set(PG_ENOMEM, "out of memory");
            goto cleanup;
        }
        for (i = 0; i < per->count; i++) {
            char what[160];
            snprintf(what, sizeof(what), "expect.per_window.%s", per->keys[i]->scalar);
            if ((err = pg__check_eval(&want_counts[i], per->items[i], &w.c, what)) != 0)
                goto cleanup;
        }
    }
    if ((err = pg_recorder_new(&rec)) != 0)
        goto cleanup;

    pg__buf_puts(&detail, "    step  action\n");
    for (step = 0; step < check->steps; step++) {
        const pg_instrument *prev;
        pg_trace *t = NULL;
        act = sched_action(&sc, step);
        pg__buf_printf(&detail, "    %4lld  %s\n", (long long)step, act == ACT_NONE && step >= sc.skip_first &&
                       sc.repeat > 0 && (step - sc.skip_first) / (sc.wait + sc.warmup + sc.active) >= sc.repeat
                                                      ? "done" : step < sc.skip_first ? "skip" : action_names[act]);
        if (act == ACT_NONE) {
            if ((err = pg__workload_step(&w, 0)) != 0)
                goto cleanup;
            continue;
        }
        prev = pg__instrument_set(pg_recorder_instrument(rec, NULL));
        err = pg__workload_step(&w, 1);
        pg__instrument_set(prev);
        if (err || (err = pg_recorder_status(rec)) != 0)
            goto cleanup;
        if (act == ACT_WARMUP) {
            /* Warm-up steps are recorded and thrown away. */
            if ((err = pg_recorder_take(&t, rec)) != 0)
                goto cleanup;
            pg_trace_free(t);
            continue;
        }
        if (window_first < 0)
            window_first = step;
        if (act == ACT_RECORD_AND_SAVE || step == check->steps - 1) {
            window *p = realloc(wins, (nwins + 1) * sizeof(*p));
            if (!p) {
                err = pg_error_set(PG_ENOMEM, "out of memory");
                goto cleanup;
            }
            wins = p;
            if ((err = pg_recorder_take(&wins[nwins].trace, rec)) != 0)
                goto cleanup;
            wins[nwins].first_step = window_first;
            wins[nwins].last_step = step;
            wins[nwins].partial = act != ACT_RECORD_AND_SAVE;
            nwins++;
            window_first = -1;
        }
    }

    for (i = 0; i < nwins; i++) {
        char suffix[32];
        snprintf(suffix, sizeof(suffix), "window%zu", i + 1);
        if ((err = pg__check_export(opts, suite, check, suffix, wins[i].trace)) != 0)
            goto cleanup;
    }

    /* What was expected, what happened, and per window what differed. */
    if (nwin)
        pg__buf_printf(&expected, "windows %lld", (long long)want_windows);
    for (i = 0; per && i < per->count; i++)
        pg__buf_printf(&expected, "%s%s %lld", expected.len ? (i ? ", " : "; per window ") : "per window ",
                       per->keys[i]->scalar, (long long)want_counts[i]);
    pg__buf_printf(&actual, "windows %zu", nwins);
    for (i = 0; i < nwins; i++) {
        pg__buf_printf(&actual, "; window %zu (steps %lld-%lld%s):", i + 1, (long long)wins[i].first_step,
                       (long long)wins[i].last_step, wins[i].partial ? ", fired at loop end" : "");
        for (j = 0; per && j < per->count; j++) {
            int64_t n = 0;
            const pg_trace *t = wins[i].trace;
            for (k = 0; k < t->nevents; k++)
                n += pg__glob(per->keys[j]->scalar, pg_trace_str(t, t->events[k].name));
            pg__buf_printf(&actual, "%s %s %lld", j ? "," : "", per->keys[j]->scalar, (long long)n);
            if (n != want_counts[j] && failures++ < 4)
                pg__buf_printf(&msg, "%swindow %zu (steps %lld-%lld) holds %lld x '%s', expected %lld (%+lld)",
                               msg.len ? "; " : "", i + 1, (long long)wins[i].first_step, (long long)wins[i].last_step,
                               (long long)n, per->keys[j]->scalar, (long long)want_counts[j],
                               (long long)(n - want_counts[j]));
        }
    }
    if (nwin && (int64_t)nwins != want_windows) {
        pg_buf fired = PG_BUF_INIT;
        for (i = 0; i < nwins; i++)
            pg__buf_printf(&fired, "%s%lld", i ? ", " : "", (long long)wins[i].last_step);
        pg__buf_printf(&msg, "%sexpected %lld window%s, %zu fired%s%s%s over %lld steps", msg.len ? "; " : "",
                       (long long)want_windows, want_windows == 1 ? "" : "s", nwins, nwins ? " (after steps " : "",
                       nwins ? fired.ptr : "", nwins ? ")" : "", (long long)check->steps);
        pg__buf_clear(&fired);
        failures++;
    }
    if (failures > 5)
        pg__buf_printf(&msg, "; and %zu more differences", failures - 5);
    err = pg__check_fill(out, expected.ptr, actual.ptr, failures ? msg.ptr : NULL, detail.ptr);

cleanup:
    pg__workload_close(&w);
    pg_recorder_free(rec);
    for (i = 0; i < nwins; i++)
        pg_trace_free(wins[i].trace);
    free(wins);
    free(want_counts);
    pg__buf_clear(&expected);
    pg__buf_clear(&actual);
    pg__buf_clear(&msg);
    pg__buf_clear(&detail);
    return err;
}
