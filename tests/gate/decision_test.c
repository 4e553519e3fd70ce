/*
 * decision_test.c - a comparison stored as the gate's decision and read
 * back is the same comparison: every format renders it byte for byte as it
 * rendered the comparison the gate made, with every verdict kind, the
 * confirmation states, the canaries, the suite guard, interleaved rounds
 * and a base build; the baseline's metadata survives the baseline run's
 * pruning; a decision this perfgate cannot read is an error, not a guess.
 */
#include "fixture.h"
#include "support.h"

#include "base/util.h"
#include "gate/gate.h"
#include "report/html.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *db;

static void setup(void)
{
    tmp = pg_test_tmpdir();
    db = pg__asprintf("%s/decisions.db", tmp);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
}

TestSuite(decision, .init = setup, .fini = teardown);

static char *render(const char *format, const pg_run *head, const pg_comparison *cmp)
{
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_report_data d = {head, cmp, NULL};
    pg_buf b = PG_BUF_INIT;

    pg_assert_ok(pg_format_find(format)->render(&b, &d, &o));
    return pg__buf_detach(&b);
}

static char *render_html(const pg_comparison *cmp)
{
    char *path = pg__asprintf("%s/page.html", tmp), *text = NULL;
    FILE *f = fopen(path, "w");
    size_t len;

    cr_assert(f != NULL);
    pg_assert_ok(pg_report_html(f, "run", NULL, 0, cmp));
    fclose(f);
    pg_assert_ok(pg__read_file(&text, &len, path));
    free(path);
    return text;
}

/* The fixture's comparison with what the fixture leaves out: confirmations, canaries, the suite guard, rounds. */
static void enrich(pg_comparison *c)
{
    size_t i;

    c->canary.compute = 1.004;
    c->canary.memory = 1.21;
    c->canary.drift = PG_CANARY_DRIFT_MEMORY;
    c->canary.summary = pg__strdup("canaries: compute +0.4%, memory +21.0% (machine drift: memory)");
    c->suite.shift = 1.013;
    c->suite.spread = 0.021;
    c->fail_on_missing = 1;
    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        v->threshold = 0.05;
        v->alpha = 0.05;
        v->drift.sd = 0.0213;
        v->drift.df = 7;
        v->drift.hw = 0.0391;
        v->drift.measured = 1;
        v->est.resolution = 0.0712 + 0.001 * (double)i;
        v->est.run_noise = 0.03;
        v->est.dropped = i;
    }
    c->cases[0].confirm = (pg_confirmation){PG_CONFIRM_CONFIRMED, 1.09, 1.071, 1.13};
    c->cases[1].confirm = (pg_confirmation){PG_CONFIRM_NOT_RUN, NAN, NAN, NAN};
    c->cases[2].paired = 1;
    c->cases[2].est.head_n = c->cases[2].est.base_n = 17;
    c->cases[2].est.settled_at = 11;
    /* Interleaved on two estimators: both, which decided, the rounds' notes and the regime line. */
    c->cases[2].dual.on = 1;
    c->cases[2].dual.by = PG_BY_LOW;
    c->cases[2].dual.median = (pg_estimator_bounds){1.001, 0.975, 1.018, 0.974, 1.019};
    c->cases[2].dual.low = (pg_estimator_bounds){1.112, 1.081, 1.141, 1.062, 1.160};
    c->cases[2].rounds.measured = 19;
    c->cases[2].rounds.contended = 2;
    c->cases[2].rounds.busiest = 0.61;
    c->cases[2].regime = pg__strdup("the fastest tenth of each round +11.2% [+8.1, +14.1], the median block +0.1% "
                                    "[-2.5, +1.8]; one regime");
    c->cases[0].est.busy = 1.0 / 3.0;
    c->cases[3].confirm = (pg_confirmation){PG_CONFIRM_REFUTED, 1.002, 0.97, 1.03};
    c->cases[3].est.p = 1.0 / 3.0; /* a double that is not short in decimal */
}

static void assert_same_everywhere(const pg_run *head, const pg_comparison *a, const pg_comparison *b)
{
    static const char *const formats[] = {"terminal", "markdown", "json", "junit", "annotations"};
    size_t i;

    for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        char *x = render(formats[i], head, a), *y = render(formats[i], head, b);
        cr_assert_str_eq(y, x, "%s differs after the decision's round trip", formats[i]);
        free(x);
        free(y);
    }
    {
        char *x = render_html(a), *y = render_html(b);
        cr_assert_str_eq(y, x, "html differs after the decision's round trip");
        free(x);
        free(y);
    }
}

Test(decision, every_format_renders_the_stored_decision_as_the_comparison)
{
    pg_test_model m;
    pg_store *s;
    pg_decision d;
    pg_stored_comparison sc;
    const pg_run *bases[1];
    pg_report_origin og = {"acme/kernels", 42, "1234567890abcdef1234567890abcdef12345678", NULL, "main", 1,
                           "https://github.com/acme/kernels/actions/runs/777"};
    pg_decision_context ctx = {NULL, 1, "run 11 (main @ abcdefabcdef, 1 min old)", 1, &og};
    size_t i;

    pg_test_fixed_model(&m);
    enrich(m.cmp);
    pg_assert_ok(pg_store_open(&s, db));
    pg_assert_ok(pg_store_save_run(s, m.base));
    pg_assert_ok(pg_store_save_run(s, m.head));
    bases[0] = m.base;
    ctx.bases = bases;
    pg_assert_ok(pg_decision_from(&d, m.cmp, m.head->id, &ctx));
    cr_assert_str_eq(d.outcome, "FAIL");
    cr_assert_eq(d.exit_code, 1);
    cr_assert_str_eq(d.baseline, "runs");
    cr_assert_str_eq(d.base_uuids, m.base->uuid);
    pg_assert_ok(pg_store_save_decision(s, &d));
    pg_decision_clear(&d);

    pg_assert_ok(pg_stored_decision_head(&sc, s, "latest"));
    cr_assert(sc.decided, "the stored decision was not read");
    cr_assert_eq(sc.nbases, 1, "the baseline run is loaded by its uuid");
    cr_assert_str_eq(sc.selection.described, "run 11 (main @ abcdefabcdef, 1 min old)");
    cr_assert_eq(sc.cmp->outcome, PG_OUTCOME_FAIL);
    cr_assert_eq(sc.cmp->ncases, m.cmp->ncases);
    for (i = 0; i < m.cmp->ncases; i++) {
        const pg_case_verdict *x = &m.cmp->cases[i], *y = &sc.cmp->cases[i];
        cr_assert_str_eq(y->key, x->key);
        cr_assert_eq(y->verdict, x->verdict, "%s", x->key);
        cr_assert_eq(y->confirm.state, x->confirm.state, "%s", x->key);
        cr_assert_eq(y->paired, x->paired, "%s", x->key);
        /* Every bit of every number comes back (NaN stays NaN). */
        cr_assert(memcmp(&y->est.p, &x->est.p, sizeof(double)) == 0 || (isnan(y->est.p) && isnan(x->est.p)), "%s",
                  x->key);
        cr_assert(y->est.resolution == x->est.resolution, "%s", x->key);
        cr_assert(y->drift.hw == x->drift.hw && y->est.dropped == x->est.dropped, "%s", x->key);
        cr_assert((y->head != NULL) == (x->head != NULL) && (y->base != NULL) == (x->base != NULL), "%s", x->key);
        cr_assert_eq(y->dual.on, x->dual.on, "%s", x->key);
        cr_assert(y->dual.by == x->dual.by && y->dual.low.claim_lo == x->dual.low.claim_lo &&
                      y->dual.median.hi == x->dual.median.hi && y->rounds.contended == x->rounds.contended &&
                      y->rounds.busiest == x->rounds.busiest && y->est.busy == x->est.busy,
                  "%s", x->key);
        cr_assert((y->regime == NULL) == (x->regime == NULL) && (!x->regime || !strcmp(y->regime, x->regime)), "%s",
                  x->key);
    }
    cr_assert(sc.cmp->suite.shift == 1.013 && sc.cmp->canary.memory == 1.21);
    /* Where the gate's reports put the run (its pull request) is part of what it printed. */
    cr_assert_str_eq(sc.origin.repository, "acme/kernels");
    cr_assert_eq(sc.origin.pr, 42);
    cr_assert_str_eq(sc.origin.head_sha, og.head_sha);
    cr_assert(sc.origin.base_sha == NULL && sc.origin.fork == 1);
    cr_assert_str_eq(sc.origin.run_url, og.run_url);
    assert_same_everywhere(sc.head, m.cmp, sc.cmp);
    pg_stored_clear(&sc);
    pg_store_close(s);
    pg_test_model_free(&m);
}

Test(decision, a_decision_is_kept_once_and_outlives_its_baseline_run)
{
    pg_test_model m;
    pg_store *s;
    pg_decision d, again;
    pg_stored_comparison sc;
    pg_prune_options po = PG_PRUNE_OPTIONS_INIT;
    pg_prune_stats ps;
    pg_check_report cr;
    char *before, *after;
    const pg_run *bases[1];
    pg_decision_context ctx = {NULL, 1, NULL, 0, NULL};

    pg_test_fixed_model(&m);
    pg_assert_ok(pg_store_open(&s, db));
    pg_assert_ok(pg_store_save_run(s, m.base));
    pg_assert_ok(pg_store_save_run(s, m.head));
    bases[0] = m.base;
    ctx.bases = bases;
    pg_assert_ok(pg_decision_from(&d, m.cmp, m.head->id, &ctx));
    pg_assert_ok(pg_store_save_decision(s, &d));
    /* A second decision of the same run (a merge bringing it in again) leaves the first. */
    free(d.outcome);
    d.outcome = pg__strdup("PASS");
    pg_assert_ok(pg_store_save_decision(s, &d));
    pg_assert_ok(pg_store_load_decision(&again, s, m.head->id));
    cr_assert_str_eq(again.outcome, "FAIL");
    cr_assert_eq(again.ncases, m.cmp->ncases);
    pg_decision_clear(&again);
    pg_decision_clear(&d);
    before = render("markdown", m.head, m.cmp);

    /* The baseline run pruned away whole: the decision still names it as it was. */
    po.keep_runs = 1;
    pg_assert_ok(pg_store_prune(&ps, s, &po));
    pg_assert_ok(pg_store_check(&cr, s));
    cr_assert_eq(cr.runs, 1);
    cr_assert_eq(cr.decisions, 1);
    pg_assert_ok(pg_stored_decision_head(&sc, s, NULL));
    cr_assert(sc.decided && sc.nbases == 0);
    after = render("markdown", sc.head, sc.cmp);
    cr_assert_str_eq(after, before);
    free(after);
    pg_stored_clear(&sc);

    /* The head pruned too: its decision goes with it. */
    {
        pg_run *other = NULL;
        pg_assert_ok(pg_run_new(&other));
        other->started_at = 1;
        pg_assert_ok(pg_store_save_run(s, other));
        pg_assert_ok(pg_store_prune(&ps, s, &po));
        pg_run_free(other);
    }
    pg_assert_ok(pg_store_check(&cr, s));
    cr_assert(cr.ok, "%s", cr.message);
    cr_assert_eq(cr.runs, 1);
    cr_assert_eq(cr.decisions, 0, "a deleted run's decision is deleted with it");
    free(before);
    pg_store_close(s);
    pg_test_model_free(&m);
}

Test(decision, an_interleaved_decision_names_its_base_build)
{
    pg_test_model m;
    pg_store *s;
    pg_decision d;
    pg_stored_comparison sc;
    char *md;

    pg_test_fixed_model(&m);
    m.base->mode = PG_MODE_INTERLEAVED_BASE;
    m.head->mode = PG_MODE_INTERLEAVED_HEAD;
    free(m.base->ref);
    m.base->ref = pg__strdup("build-base");
    m.cmp->build.path = pg__strdup("/ci/build-base");
    m.cmp->build.commit = pg__strdup("abcdefabcdefabcdefabcdefabcdefabcdefabcd");
    m.cmp->build.sha256 = pg__strdup("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    pg_assert_ok(pg_store_open(&s, db));
    pg_assert_ok(pg_store_save_run(s, m.base));
    pg_assert_ok(pg_store_save_run(s, m.head));
    {
        const pg_run *bases[1] = {m.base};
        pg_decision_context ctx = {bases, 1, NULL, 1, NULL};
        pg_assert_ok(pg_decision_from(&d, m.cmp, m.head->id, &ctx));
    }
    cr_assert_str_eq(d.baseline, "build");
    cr_assert_str_eq(d.base_build, "/ci/build-base");
    cr_assert_str_eq(d.base_hash, m.cmp->build.sha256);
    pg_assert_ok(pg_store_save_decision(s, &d));
    pg_decision_clear(&d);
    pg_assert_ok(pg_stored_decision_head(&sc, s, NULL));
    cr_assert_str_eq(sc.cmp->build.commit, m.cmp->build.commit);
    md = render("markdown", sc.head, sc.cmp);
    cr_assert(strstr(md, "vs base build `build-base` at `abcdefabcdef` (interleaved rounds, paired)") != NULL, "%s",
              md);
    free(md);
    assert_same_everywhere(sc.head, m.cmp, sc.cmp);
    pg_stored_clear(&sc);
    pg_store_close(s);
    pg_test_model_free(&m);
}

Test(decision, a_decision_this_perfgate_cannot_read_is_an_error)
{
    pg_test_model m;
    pg_store *s;
    pg_decision d;
    pg_stored_comparison sc;
    int err;

    pg_test_fixed_model(&m);
    pg_assert_ok(pg_store_open(&s, db));
    pg_assert_ok(pg_store_save_run(s, m.head));
    pg_assert_ok(pg_decision_from(&d, m.cmp, m.head->id, NULL));
    free(d.cases[0].verdict);
    d.cases[0].verdict = pg__strdup("MAYBE");
    pg_assert_ok(pg_store_save_decision(s, &d));
    pg_decision_clear(&d);
    err = pg_stored_decision_head(&sc, s, NULL);
    cr_assert_eq(err, PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "unknown verdict 'MAYBE'") != NULL, "%s", pg_error_last());
    pg_stored_clear(&sc);
    pg_store_close(s);
    pg_test_model_free(&m);
}
