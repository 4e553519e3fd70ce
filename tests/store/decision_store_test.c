/*
 * decision_store_test.c - the store's decisions, run modes and absent
 * cases, on both engines (a real SQLite file, suite `decisions`; a real
 * PostgreSQL server, suite `decisions_pg`): every field of a decision reads
 * back as written, bit for bit; a run is decided once; history rows carry
 * the stored verdict and leave interleaved runs out; a merge brings the
 * decisions along; and a database written by the perfgate of schema
 * version 1 opens, migrates and reads.
 */
#include "engines.h"
#include "support.h"

#include "base/util.h"
#include "pgserver.h"
#include "store/select.h"
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(decisions, .init = store_setup, .fini = store_teardown);
TestSuite(decisions_pg, .init = store_setup_server, .fini = store_teardown);

#define ENGINE_TEST(name) ENGINE_TEST_IN(decisions, decisions_pg, name)

static pg_run *make_run(const char *branch, pg_run_mode mode, size_t ncases)
{
    pg_run *run;
    size_t i, j;

    pg_assert_ok(pg_run_new(&run));
    run->branch = pg__strdup(branch);
    run->commit = pg__strdup("c0ffee");
    run->machine_hash = pg__strdup("abcdef0123456789");
    run->machine_json = pg__strdup("{\"cpu_model\":\"test\"}");
    run->started_at = 1700000000;
    run->mode = mode;
    for (i = 0; i < ncases; i++) {
        pg_result *r;
        pg_assert_ok(pg_run_add_result(&r, run));
        r->key = pg__asprintf("cpu/k[n=%zu]@1:cpu", i);
        r->suite = pg__strdup("cpu");
        r->name = pg__strdup("k");
        r->params_json = pg__asprintf("{\"n\":%zu}", i);
        r->threads = 1;
        r->device = pg__strdup("cpu");
        r->metric = pg__strdup("time");
        r->unit = pg__strdup("s");
        r->samples = malloc(4 * sizeof(double));
        for (j = 0; j < 4; j++)
            r->samples[j] = 1e-3 * (double)(i + 1);
        r->nsamples = r->summary.n = 4;
        r->summary.median = 1e-3 * (double)(i + 1);
        r->number_per_run = 1;
    }
    return run;
}

/* A decision of run `run_id` with a tested case, an untested one and every optional field. */
static void make_decision(pg_decision *d, int64_t run_id)
{
    memset(d, 0, sizeof(*d));
    d->run_id = run_id;
    d->made_at = 1700000123;
    d->outcome = pg__strdup("FAIL");
    d->exit_code = 1;
    d->reason = pg__strdup("a reason with 'quotes', \"double\" and\ttabs");
    d->method = pg__strdup("one-sided Mann-Whitney U");
    d->baseline = pg__strdup("runs");
    d->base_ids = pg__strdup("12,11");
    d->base_uuids = pg__strdup("00000000-0000-4000-8000-000000000012 00000000-0000-4000-8000-000000000011");
    d->base_described = pg__strdup("run 12 (main @ abc, 3 min old) and 1 earlier runs");
    d->confirmed = 1;
    d->suite_shift = 1.0 / 3.0;
    d->suite_spread = NAN;
    d->canary = pg__strdup("canaries: compute +0.4%");
    d->detail = pg__strdup("{\"nbases\":2}");
    d->ncases = 2;
    d->cases = calloc(2, sizeof(*d->cases));
    d->cases[0].key = pg__strdup("cpu/k[n=0]@1:cpu");
    d->cases[0].verdict = pg__strdup("REGRESSED");
    d->cases[0].reason = pg__strdup("slower beyond 5%");
    d->cases[0].method = pg__strdup("paired");
    d->cases[0].ratio = 1.1;
    d->cases[0].ci_lo = 1.0 + 1e-16 * 3;
    d->cases[0].ci_hi = 0.1 + 0.2;
    d->cases[0].p = 5e-300;
    d->cases[0].p_adj = 1e-10;
    d->cases[0].rounds = 17;
    d->cases[0].confirm = pg__strdup("confirmed");
    d->cases[0].detail = pg__strdup("{\"paired\":true}");
    d->cases[1].key = pg__strdup("cpu/k[n=1]@1:cpu");
    d->cases[1].verdict = pg__strdup("NEW");
    d->cases[1].ratio = d->cases[1].ci_lo = d->cases[1].ci_hi = d->cases[1].p = d->cases[1].p_adj = NAN;
    d->cases[1].detail = pg__strdup("{}");
}

static void same_real(double a, double b, const char *what)
{
    cr_assert((isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0, "%s: %.17g read back as %.17g", what, a, b);
}

static void same_str(const char *a, const char *b, const char *what)
{
    cr_assert((!a && !b) || (a && b && strcmp(a, b) == 0), "%s: '%s' read back as '%s'", what, a ? a : "(null)",
              b ? b : "(null)");
}

ENGINE_TEST(a_decision_reads_back_bit_for_bit_and_is_kept_once)
{
    pg_store *s;
    pg_run *run = make_run("main", PG_MODE_PLAIN, 2);
    pg_decision d, back, other;
    pg_check_report cr;
    size_t i;

    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, run));
    cr_assert_eq(pg_store_load_decision(&back, s, run->id), PG_ENOTFOUND, "no decision yet");
    make_decision(&d, run->id);
    pg_assert_ok(pg_store_save_decision(s, &d));
    pg_assert_ok(pg_store_load_decision(&back, s, run->id));
    cr_assert_eq(back.run_id, run->id);
    cr_assert_eq(back.made_at, d.made_at);
    cr_assert_eq(back.exit_code, 1);
    cr_assert_eq(back.confirmed, 1);
    same_str(d.outcome, back.outcome, "outcome");
    same_str(d.reason, back.reason, "reason");
    same_str(d.method, back.method, "method");
    same_str(d.baseline, back.baseline, "baseline");
    same_str(d.base_ids, back.base_ids, "base_ids");
    same_str(d.base_uuids, back.base_uuids, "base_uuids");
    same_str(d.base_described, back.base_described, "base_described");
    same_str(d.base_build, back.base_build, "base_build");
    same_str(d.canary, back.canary, "canary");
    same_str(d.detail, back.detail, "detail");
    same_real(d.suite_shift, back.suite_shift, "suite_shift");
    same_real(d.suite_spread, back.suite_spread, "suite_spread");
    cr_assert_eq(back.ncases, 2);
    for (i = 0; i < 2; i++) {
        const pg_decision_case *x = &d.cases[i], *y = &back.cases[i];
        same_str(x->key, y->key, "key");
        same_str(x->verdict, y->verdict, "verdict");
        same_str(x->reason, y->reason, "case reason");
        same_str(x->method, y->method, "case method");
        same_str(x->confirm, y->confirm, "confirm");
        same_str(x->detail, y->detail, "case detail");
        same_real(x->ratio, y->ratio, "ratio");
        same_real(x->ci_lo, y->ci_lo, "ci_lo");
        same_real(x->ci_hi, y->ci_hi, "ci_hi");
        same_real(x->p, y->p, "p");
        same_real(x->p_adj, y->p_adj, "p_adj");
        cr_assert_eq(y->rounds, x->rounds);
    }
    pg_decision_clear(&back);
    /* Decided once: another decision of the run leaves the first. */
    make_decision(&other, run->id);
    free(other.outcome);
    other.outcome = pg__strdup("PASS");
    pg_assert_ok(pg_store_save_decision(s, &other));
    pg_assert_ok(pg_store_load_decision(&back, s, run->id));
    cr_assert_str_eq(back.outcome, "FAIL");
    pg_decision_clear(&back);
    pg_decision_clear(&other);
    pg_assert_ok(pg_store_check(&cr, s));
    cr_assert(cr.ok, "%s", cr.message);
    cr_assert_eq(cr.decisions, 1);
    pg_decision_clear(&d);
    pg_run_free(run);
    pg_store_close(s);
}

ENGINE_TEST(runs_keep_their_mode_and_their_absent_cases)
{
    pg_store *s;
    pg_run *plain = make_run("main", PG_MODE_PLAIN, 1), *ab = make_run("main", PG_MODE_INTERLEAVED_HEAD, 2), *back;
    pg_run_list list;
    pg_run_filter f = {0};

    pg__result_absent(&ab->results[1], "plugin 'x.so' has no benchmark 'k'");
    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, plain));
    pg_assert_ok(pg_store_save_run(s, ab));
    pg_assert_ok(pg_store_load_run(&back, s, ab->id));
    cr_assert_eq(back->mode, PG_MODE_INTERLEAVED_HEAD);
    cr_assert_eq(back->results[0].absent, 0);
    cr_assert_eq(back->results[1].absent, 1);
    cr_assert_eq(back->results[1].status, PG_STATUS_ERROR);
    pg_run_free(back);
    f.mode = "plain";
    pg_assert_ok(pg_store_list_runs(&list, s, &f));
    cr_assert_eq(list.count, 1);
    cr_assert_eq(list.items[0].id, plain->id);
    cr_assert_str_eq(list.items[0].mode, "plain");
    pg_run_list_clear(&list);
    memset(&f, 0, sizeof(f));
    f.uuid = ab->uuid;
    pg_assert_ok(pg_store_list_runs(&list, s, &f));
    cr_assert_eq(list.count, 1);
    cr_assert_str_eq(list.items[0].mode, "interleaved-head");
    pg_run_list_clear(&list);
    pg_run_free(plain);
    pg_run_free(ab);
    pg_store_close(s);
}

typedef struct seen {
    int n;
    char verdicts[8][16];
    int64_t runs[8];
} seen;

static int collect(const pg_store_history_row *row, void *payload)
{
    seen *x = payload;

    cr_assert_lt(x->n, 8);
    snprintf(x->verdicts[x->n], sizeof(x->verdicts[0]), "%s", row->verdict ? row->verdict : "-");
    x->runs[x->n++] = row->run_id;
    return 0;
}

ENGINE_TEST(history_rows_carry_the_stored_verdict_and_leave_interleaved_runs_out)
{
    pg_store *s;
    pg_run *a = make_run("main", PG_MODE_PLAIN, 1), *b = make_run("main", PG_MODE_PLAIN, 1);
    pg_run *ab = make_run("main", PG_MODE_INTERLEAVED_HEAD, 1);
    pg_decision d;
    seen x = {0};

    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, a));
    pg_assert_ok(pg_store_save_run(s, ab));
    pg_assert_ok(pg_store_save_run(s, b));
    make_decision(&d, b->id);
    free(d.cases[0].verdict);
    d.cases[0].verdict = pg__strdup("SAME");
    pg_assert_ok(pg_store_save_decision(s, &d));
    pg_decision_clear(&d);
    pg_assert_ok(pg_store_history_rows(s, NULL, "main", collect, &x));
    cr_assert_eq(x.n, 2, "the interleaved run is no point of history");
    cr_assert_eq(x.runs[0], a->id);
    cr_assert_str_eq(x.verdicts[0], "-");
    cr_assert_eq(x.runs[1], b->id);
    cr_assert_str_eq(x.verdicts[1], "SAME");
    pg_run_free(a);
    pg_run_free(b);
    pg_run_free(ab);
    pg_store_close(s);
}

ENGINE_TEST(a_merge_brings_the_decisions_along_once)
{
    char *in = pg__asprintf("%s/in.db", tmp);
    const char *inputs[] = {in};
    pg_store *src, *s;
    pg_run *run = make_run("main", PG_MODE_PLAIN, 2);
    pg_merge_stats ms;
    pg_run_filter f = {0};
    pg_run_list list;
    pg_decision d;
    int k;

    pg_assert_ok(pg_store_open(&src, in));
    pg_assert_ok(pg_store_save_run(src, run));
    make_decision(&d, run->id);
    pg_assert_ok(pg_store_save_decision(src, &d));
    pg_decision_clear(&d);
    pg_store_close(src);
    for (k = 0; k < 2; k++)
        pg_assert_ok(pg_store_merge_file(&ms, dbpath, inputs, 1));
    pg_assert_ok(pg_store_open(&s, dbpath));
    f.uuid = run->uuid;
    pg_assert_ok(pg_store_list_runs(&list, s, &f));
    cr_assert_eq(list.count, 1);
    pg_assert_ok(pg_store_load_decision(&d, s, list.items[0].id));
    cr_assert_str_eq(d.outcome, "FAIL");
    cr_assert_eq(d.ncases, 2);
    cr_assert_str_eq(d.cases[0].verdict, "REGRESSED");
    cr_assert_str_eq(d.base_uuids, "00000000-0000-4000-8000-000000000012 00000000-0000-4000-8000-000000000011");
    pg_decision_clear(&d);
    pg_run_list_clear(&list);
    pg_run_free(run);
    pg_store_close(s);
    free(in);
}

/* Loads the schema version 1 fixture into this test's database: a copy of the file, or the dump on the server. */
static void load_v1(void)
{
    if (on_server) {
        char *path = pg_test_data("store/v1.pgsql"), *sql = NULL;
        size_t len;
        pg_assert_ok(pg__read_file(&sql, &len, path));
        free(pg_test_pg_sql(dbpath, sql));
        free(sql);
        free(path);
    } else {
        char *path = pg_test_data("store/v1.db"), *bytes = NULL;
        size_t len;
        FILE *f;
        pg_assert_ok(pg__read_file(&bytes, &len, path));
        f = fopen(dbpath, "wb");
        cr_assert(f && fwrite(bytes, 1, len, f) == len);
        fclose(f);
        free(bytes);
        free(path);
    }
}

ENGINE_TEST(a_database_of_schema_version_1_migrates_and_reads)
{
    pg_store *s;
    pg_run_list list;
    pg_run *run;
    pg_decision d;
    pg_check_report cr;
    seen x = {0};
    size_t i;

    load_v1();
    pg_assert_ok(pg_store_open(&s, dbpath));
    cr_assert_eq(pg_store_schema_version(s), pg_store_schema_latest());
    pg_assert_ok(pg_store_check(&cr, s));
    cr_assert(cr.ok, "%s", cr.message);
    cr_assert_eq(cr.runs, 2);
    cr_assert_eq(cr.results, 4);
    cr_assert_eq(cr.decisions, 0);
    pg_assert_ok(pg_store_list_runs(&list, s, NULL));
    cr_assert_eq(list.count, 2);
    for (i = 0; i < list.count; i++) {
        cr_assert_str_eq(list.items[i].mode, "plain", "every run stored before modes was measured alone");
        pg_assert_ok(pg_store_load_run(&run, s, list.items[i].id));
        cr_assert_eq(run->mode, PG_MODE_PLAIN);
        cr_assert_eq(run->nresults, 2);
        cr_assert_eq(run->results[0].status, PG_STATUS_OK);
        cr_assert_eq(run->results[0].absent, 0);
        cr_assert_gt(run->results[0].nsamples, 0);
        pg_run_free(run);
    }
    cr_assert_eq(pg_store_load_decision(&d, s, list.items[0].id), PG_ENOTFOUND, "no decision was kept then");
    /* The migrated database takes decisions and reads its history. */
    make_decision(&d, list.items[0].id);
    free(d.cases[0].key);
    d.cases[0].key = pg__strdup("fix/saxpy[n=1024]@1:cpu");
    pg_assert_ok(pg_store_save_decision(s, &d));
    pg_decision_clear(&d);
    pg_assert_ok(pg_store_history_rows(s, "fix/saxpy*", NULL, collect, &x));
    cr_assert_eq(x.n, 2);
    cr_assert_str_eq(x.verdicts[1], "REGRESSED");
    pg_run_list_clear(&list);
    pg_store_close(s);
}

ENGINE_TEST(a_run_reads_back_with_its_own_fingerprint)
{
    pg_store *s;
    pg_run *first = make_run("main", PG_MODE_PLAIN, 1), *second = make_run("main", PG_MODE_PLAIN, 1), *back;

    /* The same machine, its roofs measured again: the second run's reports showed other roofs. */
    free(first->machine_json);
    first->machine_json = pg__strdup("{\"cpu_model\":\"test\",\"roofs\":{\"1\":{\"peak_gflops\":100}}}");
    free(second->machine_json);
    second->machine_json = pg__strdup("{\"cpu_model\":\"test\",\"roofs\":{\"1\":{\"peak_gflops\":97.5}}}");
    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, first));
    pg_assert_ok(pg_store_save_run(s, second));
    pg_assert_ok(pg_store_load_run(&back, s, first->id));
    cr_assert_str_eq(back->machine_json, first->machine_json);
    cr_assert_str_eq(back->machine_hash, "abcdef0123456789");
    pg_run_free(back);
    pg_assert_ok(pg_store_load_run(&back, s, second->id));
    cr_assert_str_eq(back->machine_json, second->machine_json);
    cr_assert_str_eq(back->machine_hash, "abcdef0123456789", "one machine still");
    pg_run_free(back);
    pg_run_free(first);
    pg_run_free(second);
    pg_store_close(s);
}
