/*
 * replay_test.c - the whole decision path on replayed runs, pinned byte for
 * byte: seeded runs are stored in a real SQLite file, then judged the ways a
 * user meets them, and every report is compared with a committed golden file.
 *
 * - history mode: `perfgate compare --format json` and `perfgate report
 *   --format json` over stored runs (select, load, compare in the binary);
 * - history mode with a confirmation re-run and canaries (library);
 * - interleaved mode: paired rounds of two builds, with a paired
 *   confirmation (library).
 *
 * Between them every verdict kind appears (SAME, REGRESSED, IMPROVED,
 * UNSURE, NEW, MISSING, ERROR, SKIPPED), the canary drift rule fires, a
 * confirmation confirms one regression and refutes another, and an exact
 * check fails. A refactor must leave these files unchanged; an intended
 * change of a verdict or report regenerates them with
 *   ci/update-snapshots.sh
 * and the diff of tests/data/replay/ is reviewed like code.
 */
#include "support.h"

#include "ab/ab.h"
#include "verdict/canary.h"
#include "report/report.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *db;

static void setup(void)
{
    tmp = pg_test_tmpdir();
    db = pg__asprintf("%s/replay.db", tmp);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
}

TestSuite(replay, .init = setup, .fini = teardown, .timeout = 120);

static double gauss(pg_rng *g)
{
    double u1 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;
    double u2 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;

    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static pg_run *new_run(int n, const char *branch)
{
    pg_run *r;

    pg_assert_ok(pg_run_new(&r));
    free(r->uuid);
    r->uuid = pg__asprintf("00000000-0000-4000-8000-%012d", n);
    r->suite_set = pg__strdup("canary,s");
    r->commit = pg__asprintf("%040d", n);
    r->branch = pg__strdup(branch);
    r->tool_version = pg__strdup("replay");
    r->machine_hash = pg__strdup("feedfacefeedface");
    r->machine_json = pg__strdup("{\"cpu_model\": \"Replay CPU\", \"online_cores\": 2}");
    r->started_at = 1700000000 + 1000 * n;
    r->finished_at = r->started_at + 60;
    return r;
}

/* Appends the result s/NAME (suite `suite`) with its identity filled and status `st`. */
static pg_result *new_result(pg_run *run, const char *suite, const char *name, pg_status st)
{
    pg_result *r;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__asprintf("%s/%s@1:cpu", suite, name);
    r->suite = pg__strdup(suite);
    r->name = pg__strdup(name);
    r->params_json = pg__strdup("{}");
    r->threads = 1;
    r->device = pg__strdup("cpu");
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->status = st;
    return r;
}

/* Adds suite/name with `n` log-normal samples around `median` (sd `noise`), seeded by `seed`. */
static pg_result *add(pg_run *run, const char *suite, const char *name, double median, double noise, size_t n,
                      uint64_t seed)
{
    pg_result *r = new_result(run, suite, name, PG_STATUS_OK);
    pg_rng g;
    size_t i;

    pg_stats_rng_seed(&g, seed);
    r->number_per_run = 10;
    r->samples = calloc(n, sizeof(double));
    r->nsamples = n;
    for (i = 0; i < n; i++)
        r->samples[i] = median * exp(noise * gauss(&g));
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, n));
    return r;
}

static void add_status(pg_run *run, const char *name, pg_status st, const char *message)
{
    new_result(run, "s", name, st)->message = pg__strdup(message);
}

static void add_check(pg_run *run, const char *name, int passed)
{
    pg_check_result *c;

    pg_assert_ok(pg_run_add_check(&c, run));
    c->suite = pg__strdup("s");
    c->name = pg__strdup(name);
    c->kind = pg__strdup("flops");
    c->expected = pg__strdup("1024");
    c->actual = pg__strdup(passed ? "1024" : "2048");
    c->passed = passed;
    if (!passed)
        c->message = pg__strdup("counted 2048 FLOPs, expected 1024");
}

/*
 * Per-case factors of a head against the baseline (1 everywhere for a base
 * run). `k` varies the seeds so that every run draws its own noise.
 */
typedef struct factors {
    double same, regressed, flaky, improved, unsure, copy, mem_canary;
} factors;

static const factors BASE = {1, 1, 1, 1, 1, 1, 1};

static pg_run *make(int n, const char *branch, const factors *f, int head)
{
    pg_run *r = new_run(n, branch);
    pg_result *x;
    uint64_t k = (uint64_t)n * 100;

    /* The compute canary stays put; the memory canary carries a memory phase on the head. */
    x = add(r, PG_CANARY_SUITE, PG_CANARY_COMPUTE, 1e-3, 0.01, 30, k + 1);
    x->flops = 2.0 * 256 * 256 * 256;
    x->bytes = 3.0 * 4 * 256 * 256;
    x = add(r, PG_CANARY_SUITE, PG_CANARY_MEMORY, 10e-3 * f->mem_canary, 0.01, 30, k + 2);
    x->bytes = 64.0 * 1024 * 1024;
    add(r, "s", "same", 1e-3 * f->same, 0.01, 30, k + 3);
    /* Compute-bound cases: the memory phase does not excuse them. */
    x = add(r, "s", "regressed", 2e-3 * f->regressed, 0.01, 30, k + 4);
    x->flops = 2.0 * 512 * 512 * 512;
    x->bytes = 3.0 * 4 * 512 * 512;
    x = add(r, "s", "flaky", 3e-3 * f->flaky, 0.01, 30, k + 5);
    x->flops = 2.0 * 512 * 512 * 512;
    x->bytes = 3.0 * 4 * 512 * 512;
    add(r, "s", "improved", 4e-3 * f->improved, 0.01, 30, k + 6);
    add(r, "s", "unsure", 5e-3 * f->unsure, 0.25, 8, k + 7);
    x = add(r, "s", "copy", 6e-3 * f->copy, 0.01, 30, k + 8);
    x->bytes = 32.0 * 1024 * 1024;
    if (head) {
        add(r, "s", "new", 1e-3, 0.01, 30, k + 9);
        add_status(r, "broken", PG_STATUS_ERROR, "kernel failed: out of memory");
        add_status(r, "gpu_only", PG_STATUS_SKIPPED, "no CUDA device");
    } else {
        add(r, "s", "missing", 1e-3, 0.01, 30, k + 9);
        add(r, "s", "broken", 1e-3, 0.01, 30, k + 10);
        add(r, "s", "gpu_only", 1e-3, 0.01, 30, k + 11);
    }
    add_check(r, "linear_forward_flops", 1);
    add_check(r, "train_step_flops", !head);
    return r;
}

/* The head: +30% regressed, +25% flaky, -30% improved, +8% in heavy noise, a memory phase of +20%. */
static const factors HEAD = {1, 1.30, 1.25, 0.70, 1.08, 1.20, 1.20};

/* Stores three base runs on main and the head on a feature branch; returns the head's id. */
static int64_t store_history(void)
{
    pg_store *s;
    pg_run *r;
    int64_t id;
    int i;

    pg_assert_ok(pg_store_open(&s, db));
    for (i = 1; i <= 3; i++) {
        r = make(i, "main", &BASE, 0);
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    r = make(4, "feature", &HEAD, 1);
    pg_assert_ok(pg_store_save_run(s, r));
    id = r->id;
    pg_run_free(r);
    pg_store_close(s);
    return id;
}

/* Compares with tests/data/replay/NAME (ci/update-snapshots.sh regenerates it). */
static void golden(const char *name, const char *actual)
{
    char *rel = pg__asprintf("replay/%s", name);

    pg_test_snapshot(rel, actual);
    free(rel);
}

static char *render(const char *format, const pg_run *run, const pg_comparison *cmp)
{
    pg_report_options ro = PG_REPORT_OPTIONS_INIT;
    pg_report_data d = {run, cmp, NULL};
    pg_buf b = PG_BUF_INIT;
    const pg_format *f = pg_format_find(format);

    cr_assert(f != NULL, "no format %s", format);
    pg_assert_ok(f->render(&b, &d, &ro));
    return pg__buf_detach(&b);
}

static void golden_json(const char *name, const pg_run *run, const pg_comparison *cmp)
{
    char *json = render("json", run, cmp), *scrubbed = pg_test_scrub_version(json);

    golden(name, scrubbed);
    free(json);
    free(scrubbed);
}

static void expect_every_kind(const pg_comparison *cmp, pg_verdict skip)
{
    int v;

    for (v = 0; v < PG_VERDICT__COUNT; v++)
        if (v != (int)skip)
            cr_expect(cmp->counts[v] > 0, "no %s verdict in the replay", pg_verdict_name((pg_verdict)v));
}

static const char *const ENV[] = {"PERFGATE_DB=", "NO_COLOR=1", "CI=", "GITHUB_ACTIONS=", NULL};

static void golden_cli(const char *name, const char *const *argv, int want_status)
{
    pg_proc p;
    char *scrubbed;

    pg_assert_ok(pg_test_run(&p, tmp, ENV, argv));
    cr_expect_eq(p.status, want_status, "%s exited %d: %s", argv[0], p.status, p.err);
    scrubbed = pg_test_scrub_version(p.out);
    golden(name, scrubbed);
    free(scrubbed);
    pg_proc_free(&p);
}

Test(replay, history_mode_through_the_binary)
{
    int64_t head = store_history();
    char *id = pg__asprintf("%lld", (long long)head);
    const char *compare[] = {"compare", "--db", db, "--head", id, "--base", "last:3:main",
                             "--format", "json", NULL};
    const char *report[] = {"report", id, "--db", db, "--base", "last:3:main", "--format", "json",
                            NULL};

    golden_cli("history.compare.json", compare, 1);
    golden_cli("history.report.json", report, 0);
    free(id);
}

/* History mode in the library, as the gate does it: the stored head against three stored bases, then confirmation. */
Test(replay, history_mode_with_canaries_and_confirmation)
{
    int64_t head_id = store_history();
    pg_store *s;
    pg_run *head, *bases[3], *rerun;
    pg_comparison *cmp;
    const factors again = {1, 1.30, 1.0, 0.70, 1.08, 1.20, 1.20};
    int i;

    pg_assert_ok(pg_store_open(&s, db));
    pg_assert_ok(pg_store_load_run(&head, s, head_id));
    for (i = 0; i < 3; i++)
        pg_assert_ok(pg_store_load_run(&bases[i], s, i + 1));
    pg_assert_ok(pg_compare(&cmp, head, (const pg_run *const *)bases, 3, NULL));
    expect_every_kind(cmp, PG_VERDICT__COUNT);
    cr_expect(cmp->canary.drift != 0, "the memory phase is not seen as drift");
    golden_json("history.json", head, cmp);

    /* The re-run regresses `regressed` again and puts `flaky` back at its baseline. */
    rerun = make(5, "feature", &again, 1);
    pg_assert_ok(pg_verdict_confirm(cmp, rerun, (const pg_run *const *)bases, 3, NULL));
    golden_json("history.confirmed.json", head, cmp);
    {
        char *md = render("md", head, cmp);
        golden("history.confirmed.md", md);
        free(md);
    }

    pg_comparison_free(cmp);
    pg_run_free(rerun);
    for (i = 0; i < 3; i++)
        pg_run_free(bases[i]);
    pg_run_free(head);
    pg_store_close(s);
}

/*
 * Interleaved rounds of two builds as the gate's A/B makes them: per-round
 * medians of each side as samples, the base and head of a round sharing the
 * round's machine phase, decided on the paired rounds.
 */
typedef struct rounds_case {
    const char *name;
    double median, factor;
} rounds_case;

static void make_rounds(pg_run **out_base, pg_run **out_head, pg_paired_analysis **out_paired, const rounds_case *cases,
                        size_t ncases, int rounds, uint64_t seed)
{
    pg_run *b = new_run(10, "main"), *h = new_run(11, "feature");
    pg_paired_analysis *paired = calloc(ncases, sizeof(*paired));
    pg_rng g;
    size_t i;
    int k;

    pg_stats_rng_seed(&g, seed);
    for (i = 0; i < ncases; i++) {
        pg_result *rb = add(b, "s", cases[i].name, cases[i].median, 0.0, (size_t)rounds, 1);
        pg_result *rh = add(h, "s", cases[i].name, cases[i].median, 0.0, (size_t)rounds, 1);
        for (k = 0; k < rounds; k++) {
            /* A machine phase of up to +-10% hits both sides of a round; each side adds 1% of its own. */
            double phase = exp(0.05 * gauss(&g));
            rb->samples[k] = cases[i].median * phase * exp(0.01 * gauss(&g));
            rh->samples[k] = cases[i].median * cases[i].factor * phase * exp(0.01 * gauss(&g));
        }
        pg_assert_ok(pg_stats_summarize(&rb->summary, rb->samples, rb->nsamples));
        pg_assert_ok(pg_stats_summarize(&rh->summary, rh->samples, rh->nsamples));
        pg_assert_ok(pg_ab_paired_analyse(&paired[i], rb->samples, rh->samples, (size_t)rounds, 0.95));
    }
    *out_base = b;
    *out_head = h;
    *out_paired = paired;
}

static pg_comparison *paired_compare(const pg_run *base, const pg_run *head, const pg_paired_analysis *paired)
{
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    pg_comparison *cmp;

    co.drift = 0;
    pg_assert_ok(pg_compare(&cmp, head, &base, 1, &co));
    pg_assert_ok(pg_verdict_paired(cmp, head, paired, &co));
    return cmp;
}

Test(replay, interleaved_mode_with_paired_confirmation)
{
    const rounds_case first[] = {
        {"same", 1e-3, 1.0}, {"regressed", 2e-3, 1.10}, {"flaky", 3e-3, 1.12}, {"improved", 4e-3, 0.85},
    };
    const rounds_case fresh[] = {{"regressed", 2e-3, 1.10}, {"flaky", 3e-3, 1.0}};
    pg_run *base, *head, *abase, *ahead;
    pg_paired_analysis *paired, *apaired;
    pg_comparison *cmp, *again;

    make_rounds(&base, &head, &paired, first, 4, 20, 7);
    /* The exact checks of the gate's own run ride along with the head's rounds. */
    add_check(head, "linear_forward_flops", 1);
    add_check(head, "train_step_flops", 0);
    cmp = paired_compare(base, head, paired);
    cr_expect_eq(cmp->counts[PG_VERDICT_REGRESSED], 2);
    cr_expect_eq(cmp->counts[PG_VERDICT_IMPROVED], 1);
    cr_expect_eq(cmp->counts[PG_VERDICT_SAME], 1);
    golden_json("interleaved.json", head, cmp);

    make_rounds(&abase, &ahead, &apaired, fresh, 2, 20, 8);
    again = paired_compare(abase, ahead, apaired);
    pg_assert_ok(pg_verdict_confirm_paired(cmp, again));
    cr_expect_eq(cmp->counts[PG_VERDICT_REGRESSED], 1);
    golden_json("interleaved.confirmed.json", head, cmp);

    pg_comparison_free(again);
    pg_comparison_free(cmp);
    pg_run_free(abase);
    pg_run_free(ahead);
    pg_run_free(base);
    pg_run_free(head);
    free(paired);
    free(apaired);
}

/*
 * Ten cases that all moved +12% with one at +40%, at a small assumed drift:
 * each would be REGRESSED alone; the suite guard holds back what the whole
 * suite did and lets the outlier fail.
 */
Test(replay, history_mode_where_the_whole_suite_moved)
{
    pg_run *base = new_run(20, "main"), *head = new_run(21, "main");
    const pg_run *bases[1] = {base};
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    pg_comparison *cmp;
    char name[16];
    int i;

    for (i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "k%d", i);
        add(base, "s", name, 1e-3 * (i + 1), 0.01, 30, 300 + (uint64_t)i);
        add(head, "s", name, 1e-3 * (i + 1) * (i == 9 ? 1.40 : 1.12), 0.01, 30, 400 + (uint64_t)i);
    }
    co.drift = 0.005;
    pg_assert_ok(pg_compare(&cmp, head, bases, 1, &co));
    cr_expect_eq(cmp->counts[PG_VERDICT_REGRESSED], 1, "the +40%% case stands out of the +12%% suite");
    cr_expect_eq(cmp->counts[PG_VERDICT_UNSURE], 9, "the suite-wide move is held back as UNSURE");
    golden_json("history.suite_moved.json", head, cmp);
    pg_comparison_free(cmp);
    pg_run_free(base);
    pg_run_free(head);
}
