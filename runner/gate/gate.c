/*
 * gate.c - the gate's workflow (gate.h): measure, store, choose the baseline,
 * compare, confirm.
 *
 * Two ways to a comparison. History mode reads the baseline from the store:
 * it works for any setup, but separate processes on a shared machine differ
 * by a few percent, so confirmation re-measures what regressed before the
 * build fails. Interleaved mode measures the base build itself in rounds
 * alternating with the head, so a machine phase hits both sides alike; its
 * confirmation is a fresh set of rounds.
 */
#include "gate/gate.h"

#include "ab/ab.h"
#include "ab/ab_exact.h"
#include "ab/build_id.h"
#include "cause/cause.h"
#include "meter/meter.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a result owns beyond its public fields. */
typedef struct gate_state {
    pg_ab_result ab;              /* interleaved mode: the rounds; owns the base side and the comparison */
    pg_stored_comparison stored;  /* history mode: the baseline runs and the comparison */
    pg_comparison *own_cmp;       /* nothing compared: every case NEW */
    int64_t t_rounds;             /* interleaved mode: when the rounds began (--max-time) */
    pg_roof_table roofs;          /* the machine's roofs: as stored, plus those this run measured */
} gate_state;

static void notify(const pg_gate_options *o, const pg_gate_result *r, pg_gate_step step, const char *text)
{
    if (o->notify)
        o->notify(r, step, text, o->payload);
}

static void note(const pg_gate_options *o, const pg_gate_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* One line of progress; build paths make it long, so it is cut at 1 KiB rather than allocated. */
static void note(const pg_gate_options *o, const pg_gate_result *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    if (!o->notify)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    notify(o, r, PG_GATE_NOTE, text);
}

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

const pg_case *pg__gate_find_case(const pg_suite_set *set, const char *key)
{
    size_t i, j;

    for (i = 0; i < set->count; i++)
        for (j = 0; j < set->suites[i]->ncases; j++)
            if (strcmp(set->suites[i]->cases[j].key, key) == 0)
                return &set->suites[i]->cases[j];
    return NULL;
}

static pg_compare_options compare_options(const pg_gate_options *o)
{
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;

    co.threshold = o->threshold;
    co.alpha = o->alpha;
    return co;
}

/*
 * Fresh processes a history-mode confirmation re-measures a case in. A
 * process can sit in a mode of its own for all its samples (saxpy at 0.6 or
 * 1.05 us per process), so one more process may share the first one's
 * luck; a verdict stands only when every re-run gives it and all the head's
 * processes pooled do (verdict.h, pg_verdict_confirm_processes).
 */
#define PG_CONFIRM_PROCESSES 3

/*
 * History-mode confirmation: re-measures the REGRESSED cases, then the
 * IMPROVED ones (a false improvement is as wrong; the ones that fail the
 * build come first while the budget lasts), in the order of the comparison,
 * each in PG_CONFIRM_PROCESSES fresh processes taken in turns (case by case,
 * then again), and decides them again against the same baseline runs. The
 * re-runs are not stored: the stored run stays the first measurement, and
 * the reason shows them all.
 */
static int confirm_stored(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o)
{
    static const pg_verdict order[] = {PG_VERDICT_REGRESSED, PG_VERDICT_IMPROVED};
    gate_state *st = r->internal;
    pg_compare_options co = compare_options(o);
    pg_comparison *cmp = r->cmp;
    pg_run *reruns[PG_CONFIRM_PROCESSES] = {NULL};
    int64_t t0 = pg__mono_ns();
    size_t i, k, p, n = 0, want = cmp->counts[PG_VERDICT_REGRESSED] + cmp->counts[PG_VERDICT_IMPROVED];
    int err = 0, spent = 0;

    if (want == 0)
        return 0;
    for (p = 0; p < PG_CONFIRM_PROCESSES; p++)
        if ((err = pg_run_new(&reruns[p])) != 0)
            goto cleanup;
    for (p = 0; p < PG_CONFIRM_PROCESSES && !spent; p++)
        for (k = 0; k < 2 && !spent; k++)
            for (i = 0; i < cmp->ncases; i++) {
                const pg_case *c;
                pg_result *res;
                if (cmp->cases[i].verdict != order[k] || !(c = pg__gate_find_case(set, cmp->cases[i].key)))
                    continue;
                if ((spent = (double)(pg__mono_ns() - t0) * 1e-9 >= o->confirm_budget))
                    break;
                /* A fresh process on other CPUs: a re-run that shares the first one's placement would repeat it. */
                if ((err = pg_run_add_result(&res, reruns[p])) != 0 || (err = pg_exec_case_fresh(res, c, &o->exec)) != 0)
                    goto cleanup;
                n++;
            }
    note(o, r, "confirming %zu regressed or improved case%s in up to %d fresh processes each: %zu re-runs in %.1fs "
         "(budget %.0fs)", want, plural(want), PG_CONFIRM_PROCESSES, n, (double)(pg__mono_ns() - t0) * 1e-9,
         o->confirm_budget);
    err = pg_verdict_confirm_processes(cmp, (const pg_run *const *)reruns, PG_CONFIRM_PROCESSES,
                                       (const pg_run *const *)st->stored.bases, st->stored.nbases, &co);

cleanup:
    for (p = 0; p < PG_CONFIRM_PROCESSES; p++)
        pg_run_free(reruns[p]);
    return err;
}

/* The interleaved gate's A/B options; `keys` narrows it to a confirmation. */
static pg_ab_options ab_options(const pg_gate_options *o, const char *const *keys, size_t nkeys)
{
    pg_ab_options ao = PG_AB_OPTIONS_INIT;

    ao.base = o->base_build;
    ao.head = o->head_build;
    ao.rounds = o->rounds;
    ao.filter = keys || o->keys ? NULL : o->exec.filter;
    ao.keys = keys ? keys : o->keys;
    ao.nkeys = keys ? nkeys : o->nkeys;
    ao.threshold = o->threshold;
    ao.alpha = o->alpha;
    ao.progress = o->ab_progress;
    ao.fixed = o->fixed_rounds;
    ao.max_time = o->max_time;
    return ao;
}

/* The counting instruments --instrument asks for alone (no time): counted per side, not interleaved. */
static unsigned counted_only(const pg_gate_options *o)
{
    unsigned i = o->exec.instruments;

    return i & PG_INSTRUMENT_TIME ? 0 : i & (PG_INSTRUMENT_INSTRUCTIONS | PG_INSTRUMENT_MEMORY);
}

/*
 * Interleaved mode: the exact checks into the run as usual, then both builds
 * in interleaved rounds. The head's rounds become the run's results (moved,
 * so the comparison's case pointers stay valid) and the comparison is the
 * paired one, bound to the run.
 */
static int measure_interleaved(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o)
{
    gate_state *st = r->internal;
    pg_exec_options checks = o->exec;
    pg_ab_options ao = ab_options(o, NULL, 0);
    int err;

    checks.checks_only = 1;
    checks.canary = 0;
    if (!o->timed_only && (err = pg_exec_run(r->run, set, &checks)) != 0)
        return err;
    st->t_rounds = pg__mono_ns();
    if (counted_only(o)) {
        /* Counts do not move between processes: each side counted once, no rounds (ab/ab_exact.h). */
        note(o, r, "counting base %s and head %s, no rounds", o->base_build, o->head_build);
        err = pg_ab_exact_run(&st->ab, set, &ao, counted_only(o), o->exec.meter);
    } else {
        note(o, r, "interleaving base %s and head %s over %s%d rounds", o->base_build, o->head_build,
             o->fixed_rounds ? "" : "at most ", o->rounds > 0 ? o->rounds : PG_AB_DEFAULT_ROUNDS);
        err = pg_ab_run(&st->ab, set, &ao);
    }
    if (err)
        return err;
    pg_run_swap_results(r->run, st->ab.head);
    r->run->mode = PG_MODE_INTERLEAVED_HEAD;
    pg_comparison_rebind_head(st->ab.cmp, r->run);
    /* What the baseline was: no stored run names it, so its path, commit and files do. */
    if ((err = pg_ab_build_identity(&st->ab.cmp->build, set, o->base_build, o->exec.filter)) != 0)
        return err;
    r->cmp = st->ab.cmp;
    r->interleaved = 1;
    r->base_build = o->base_build;
    r->rounds = st->ab.rounds;
    r->max_rounds = st->ab.max_rounds;
    r->time_out = st->ab.time_out;
    r->busy_stop = st->ab.busy_stop;
    r->seed = st->ab.seed;
    return 0;
}

/* Interleaved confirmation: fresh interleaved rounds of the REGRESSED and IMPROVED cases only. */
static int confirm_interleaved(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o)
{
    pg_comparison *cmp = r->cmp;
    pg_ab_options ao;
    pg_ab_result again;
    const char **keys;
    int64_t t0 = pg__mono_ns();
    size_t i, n = 0;
    int err;

    /* A re-count gives the same count: counted verdicts need no confirmation. */
    if (cmp->counts[PG_VERDICT_REGRESSED] + cmp->counts[PG_VERDICT_IMPROVED] == 0 || counted_only(o))
        return 0;
    if (!(keys = calloc(cmp->ncases, sizeof(*keys))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < cmp->ncases; i++)
        if (pg_verdict_to_confirm(&cmp->cases[i], 1))
            keys[n++] = cmp->cases[i].key;
    if (n == 0) {
        free(keys);
        return 0;
    }
    ao = ab_options(o, keys, n);
    /* --max-time covers the whole gate: the confirmation gets what the first rounds left. */
    if (o->max_time > 0) {
        ao.max_time = o->max_time - (double)(pg__mono_ns() - ((gate_state *)r->internal)->t_rounds) * 1e-9;
        if (ao.max_time <= 0) {
            free(keys);
            note(o, r, "confirming %zu regressed or improved case%s: no time left of --max-time", n, plural(n));
            /* Unconfirmed for want of time, not on evidence: the verdicts it leaves UNSURE say so. */
            r->time_out = 1;
            return pg_verdict_confirm_paired(cmp, NULL);
        }
    }
    err = pg_ab_run(&again, set, &ao);
    free(keys);
    if (err)
        return err;
    note(o, r, "confirming %zu regressed or improved case%s: %s%d fresh interleaved rounds in %.1fs", n, plural(n),
         again.rounds < again.max_rounds ? "up to " : "", again.rounds, (double)(pg__mono_ns() - t0) * 1e-9);
    r->time_out |= again.time_out;
    err = pg_verdict_confirm_paired(cmp, again.cmp);
    pg_ab_result_clear(&again);
    return err;
}

/* History mode: the stored baseline, the comparison and its confirmation. */
static int compare_history(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o)
{
    gate_state *st = r->internal;
    pg_select_options so = PG_SELECT_OPTIONS_INIT;
    pg_compare_options co = compare_options(o);
    int err;

    so.allow_other_machine = o->allow_other_machine;
    /* A branch named on purpose (the nightly's --branch nightly) compares with its own earlier runs. */
    so.own_branch = o->meta.branch != NULL;
    if ((err = pg_stored_select(&st->stored, o->store, r->run, o->base, &so)) != 0)
        return err;
    r->nbases = st->stored.nbases;
    r->described = st->stored.selection.described;
    notify(o, r, PG_GATE_BASELINE, NULL);
    if ((err = pg_stored_compare(&st->stored, &co)) != 0)
        return err;
    r->cmp = st->stored.cmp;
    r->compared = r->nbases > 0;
    return o->confirm ? confirm_stored(r, set, o) : 0;
}

/*
 * A plain run: the cases and checks, with the machine's stored roofs (from
 * the store, else from opts->roofs_from, which is only read); the roofs this
 * run had to measure are stored for the next runs, never in roofs_from.
 */
static int measure_plain(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o)
{
    gate_state *st = r->internal;
    pg_exec_options eo = o->exec;
    pg_store *from = o->store ? o->store : o->roofs_from;
    size_t i, fresh = 0;
    int err;

    if (from && r->run->machine_hash && (err = pg_store_roofs_load(&st->roofs, from, r->run->machine_hash)) != 0) {
        if (o->store)
            return err;
        note(o, r, "roofs: %s; measuring them for this run", pg_error_last());
    }
    eo.roofs = &st->roofs;
    if ((err = pg_exec_run(r->run, set, &eo)) != 0)
        return err;
    for (i = 0; i < st->roofs.n; i++)
        fresh += st->roofs.items[i].fresh != 0;
    if (fresh && !o->store)
        note(o, r, "the machine's roofs were measured for this run only: --no-store keeps nothing; perfgate doctor "
                   "--roofs stores them once for every later run");
    else if (fresh)
        note(o, r, "the machine's roofs were measured and stored: later runs on this machine reuse them (perfgate "
                   "doctor --roofs measures them again)");
    return o->store && r->run->machine_hash ? pg_store_roofs_save(o->store, r->run->machine_hash, &st->roofs) : 0;
}

/* How the run was measured when it was not interleaved: counted when no case was timed and some were counted. */
static pg_run_mode measured_mode(const pg_run *run)
{
    size_t i, counted = 0;

    for (i = 0; i < run->nresults; i++) {
        if (!run->results[i].metric || strcmp(run->results[i].metric, "time") == 0)
            return PG_MODE_PLAIN;
        counted++;
    }
    return counted ? PG_MODE_COUNTED : PG_MODE_PLAIN;
}

/*
 * The base side of an interleaved gate, stored beside the head as a run of
 * its own (mode interleaved-base): the decision's baseline, its rounds kept
 * as raw samples. Saved before the head, so `latest` stays the head.
 */
static int store_base_side(pg_gate_result *r, const pg_gate_options *o)
{
    gate_state *st = r->internal;
    pg_run *base = st->ab.base, *head = r->run;

    if (!base)
        return 0;
    free(base->source);
    base->source = pg__strdup(head->source ? head->source : "perfgate");
    base->mode = PG_MODE_INTERLEAVED_BASE;
    base->commit = st->ab.cmp->build.commit ? pg__strdup(st->ab.cmp->build.commit) : NULL;
    base->suite_set = head->suite_set ? pg__strdup(head->suite_set) : NULL;
    base->tool_version = head->tool_version ? pg__strdup(head->tool_version) : NULL;
    base->machine_hash = head->machine_hash ? pg__strdup(head->machine_hash) : NULL;
    base->machine_json = head->machine_json ? pg__strdup(head->machine_json) : NULL;
    base->started_at = head->started_at;
    base->finished_at = head->finished_at;
    if (!base->source || (head->suite_set && !base->suite_set) || (head->machine_json && !base->machine_json))
        return pg_error_set(PG_ENOMEM, "out of memory");
    return pg_store_save_run(o->store, base);
}

/*
 * What changed behind each REGRESSED or IMPROVED case: what the compared
 * results say themselves (counts, traces), then, for an interleaved gate's
 * timed regressions, the counting instruments on both builds (diagnose.c)
 * unless turned off. A gate without a regression runs nothing here. Then
 * the suites' accept: entries (accepted.c).
 */
static int explain(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o)
{
    pg_buf said = PG_BUF_INIT;
    int err = pg_cause_attach(r->cmp);

    if (!err && r->interleaved && !o->no_diagnose && r->cmp->counts[PG_VERDICT_REGRESSED] &&
        (err = pg__gate_diagnose(r->cmp, set, o, &said)) == 0 && said.len)
        note(o, r, "%s", said.ptr);
    said.len = 0;
    /* Regressions the suite accepts on purpose, for the commits it names. */
    if (!err && (err = pg__gate_accept_suites(r, set, o, &said)) == 0 && said.len)
        note(o, r, "%s", said.ptr);
    pg__buf_clear(&said);
    return err;
}

/* The decision, stored beside the run: every later report shows it rather than deciding again. */
static int store_decision(pg_gate_result *r, const pg_gate_options *o)
{
    gate_state *st = r->internal;
    pg_decision_context ctx = {NULL, 0, NULL, o->confirm, o->origin};
    const pg_run *base = st->ab.base;
    pg_decision d;
    int err;

    if (r->interleaved) {
        ctx.bases = base && base->id ? &base : NULL;
        ctx.nbases = base && base->id ? 1 : 0;
    } else {
        ctx.bases = (const pg_run *const *)st->stored.bases;
        ctx.nbases = st->stored.nbases;
        ctx.described = st->stored.selection.described;
    }
    if ((err = pg_decision_from(&d, r->cmp, r->run->id, &ctx)) != 0)
        return err;
    err = pg_store_save_decision(o->store, &d);
    pg_decision_clear(&d);
    return err;
}

/* Whether every case that was measured (not skipped) ended in ERROR: `run` then measured nothing. */
static int all_failed(const pg_run *run)
{
    size_t i, failed = 0;

    for (i = 0; i < run->nresults; i++) {
        if (run->results[i].status == PG_STATUS_OK)
            return 0;
        failed += run->results[i].status == PG_STATUS_ERROR;
    }
    return failed > 0;
}

static int suite_names(pg_run *run, const pg_suite_set *set)
{
    pg_buf names = PG_BUF_INIT;
    size_t i;

    for (i = 0; i < set->count; i++)
        pg__buf_printf(&names, "%s%s", i ? "," : "", set->suites[i]->name);
    run->suite_set = pg__buf_detach(&names);
    return run->suite_set ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

int pg_gate_run(pg_gate_result *out, const pg_suite_set *set, const pg_gate_options *opts)
{
    int interleaved = opts->compare && (opts->base_build || opts->head_build);
    gate_state *st;
    pg_run *run;
    size_t i;
    int err;

    assert(out && set && opts && opts->version == PG_GATE_OPTIONS_VERSION);
    memset(out, 0, sizeof(*out));
    if (interleaved && (!opts->base_build || !opts->head_build || opts->base))
        return pg_error_set(PG_EINVAL, "an interleaved gate needs both builds and no stored baseline selector");
    /* A counting instrument that cannot run here is bad setup (exit 2), said before anything is measured. */
    if ((err = pg_exec_ready(set, &opts->exec)) != 0)
        return err;
    if (interleaved && (opts->exec.instruments & PG_INSTRUMENT_TIME) &&
        (opts->exec.instruments & ~(unsigned)PG_INSTRUMENT_TIME))
        return pg_error_set(PG_EUSAGE, "--instrument: with --base-build, time is interleaved and counts are not; "
                                       "gate time and counts separately");
    if (!(st = calloc(1, sizeof(*st))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    out->internal = st;
    if ((err = pg_run_new(&out->run)) != 0 || (err = pg_meta_fill(out->run, &opts->meta)) != 0 ||
        (err = suite_names(out->run, set)) != 0)
        return err;
    run = out->run;
    /* A damaged database can neither give a baseline nor take a run: say so before measuring. */
    if (opts->store && (err = pg_store_quick_check(opts->store)) != 0)
        return err;
    if (!interleaved && (err = measure_plain(out, set, opts)) != 0)
        return err;
    err = interleaved ? measure_interleaved(out, set, opts) : 0;
    /* Counts alone compare across machines of one software setup: their fingerprint says which. */
    if (!err)
        err = pg_meter_fingerprint_run(run);
    if (err)
        return err;
    run->finished_at = pg__now_unix();
    if (!interleaved)
        run->mode = measured_mode(run);
    if (run->nresults == 0 && run->nchecks == 0)
        return pg_error_set(PG_EINVAL, "no case or check matched%s%s", opts->exec.filter ? " the filter " : "",
                            opts->exec.filter ? opts->exec.filter : "");
    notify(opts, out, PG_GATE_MEASURED, NULL);
    if (opts->store) {
        if ((interleaved && (err = store_base_side(out, opts)) != 0) || (err = pg_store_save_run(opts->store, run)) != 0)
            return err;
        notify(opts, out, PG_GATE_STORED, NULL);
    }
    /* A check that could not run is bad input (2) or broken infrastructure (3), never a regression. */
    for (i = 0; i < run->nchecks; i++)
        if (run->checks[i].error && pg_error_exit_code(run->checks[i].error) > out->check_error_code)
            out->check_error_code = pg_error_exit_code(run->checks[i].error);

    if (interleaved) {
        out->compared = 1;
        if ((opts->confirm && (err = confirm_interleaved(out, set, opts)) != 0) ||
            (err = explain(out, set, opts)) != 0)
            return err;
    } else if (opts->compare && opts->store) {
        if ((err = compare_history(out, set, opts)) != 0 || (err = explain(out, set, opts)) != 0)
            return err;
    } else {
        if ((err = pg_compare(&st->own_cmp, run, NULL, 0, NULL)) != 0)
            return err;
        out->cmp = st->own_cmp;
        if (out->cmp->outcome == PG_OUTCOME_NOTHING_COMPARED) {
            free(out->cmp->outcome_reason);
            out->cmp->outcome_reason =
                pg__strdup(opts->compare ? "no database to read a baseline from (--no-store); measure the base "
                                           "build alongside with --base-build"
                                         : "perfgate run measures and stores without comparing; perfgate gate "
                                           "compares with a baseline");
        }
        /* `run` compares nothing by design: its exact checks set its exit code, unless nothing ran at all. */
        if (!opts->compare) {
            out->all_failed = all_failed(run);
            out->exit_code = out->all_failed ? PG_EXIT_CASE_ERROR : out->cmp->exit_code;
            return 0;
        }
    }
    out->exit_code = pg_outcome_exit_code(out->cmp);
    return opts->store ? store_decision(out, opts) : 0;
}

void pg_gate_result_clear(pg_gate_result *r)
{
    gate_state *st;

    if (!r)
        return;
    st = r->internal;
    if (st) {
        pg_comparison_free(st->own_cmp);
        pg_stored_clear(&st->stored);
        pg_ab_result_clear(&st->ab);
        pg_roof_table_clear(&st->roofs);
        free(st);
    }
    pg_run_free(r->run);
    memset(r, 0, sizeof(*r));
}
