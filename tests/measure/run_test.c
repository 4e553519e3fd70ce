/* run_test.c - `perfgate run` on CPU kernels as a process: the per-case table (median, IQR, n,
   threads, throughput, MFU) and what is stored (fingerprint, thread settings, MFU ceiling). */
#include "support.h"

#include "machine/fingerprint.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static const char suite[] =
    "suite: t\n"
    "defaults: {threads: 1, min_run_time: 20ms, warmup: 5ms, min_samples: 5}\n"
    "benchmarks:\n"
    "  - {name: sgemm, kernel: sgemm, params: {n: 64}}\n"
    "  - {name: add, kernel: add, params: {n: 4096}}\n"
    "  - {name: mlp, kernel: mlp_train_step, params: {B: 8, width: 16, vocab: 32, layers: 1, adamw: fused}}\n";

/* The table row of the case whose key starts with `key` (a pointer into `out`), or NULL. */
static const char *row(const char *out, const char *key)
{
    const char *p = strstr(out, key);

    return p;
}

static char *sql_text(const char *dbpath, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    char *v = NULL;

    cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

Test(run_cpu, table_has_median_iqr_n_threads_throughput_mfu)
{
    char *dir = pg_test_tmpdir(), *path = pg_test_write(dir, "t.yaml", suite);
    char *db = pg_test_write(dir, "placeholder", ""), *fp = NULL, *hash = NULL, *stored, *extra;
    const char *argv[] = {"run", "--db", NULL, path, NULL};
    const char *r;
    json_t *a, *b, *e;
    pg_proc p;

    strcpy(strrchr(db, '/') + 1, "pg.db");
    argv[2] = db;
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "status %d\n%s\n%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "median") && strstr(p.out, "IQR") && strstr(p.out, "thr") && strstr(p.out, "MFU"),
              "%s", p.out);
    r = row(p.out, "t/sgemm[n=64]@1:cpu");
    cr_assert_not_null(r, "%s", p.out);
    cr_expect(strstr(r, "FLOP/s") < strchr(r, '\n') && strchr(r, '%') < strchr(r, '\n'), "%s", p.out);
    r = row(p.out, "t/add[n=4096]@1:cpu");
    cr_assert_not_null(r, "%s", p.out);
    cr_expect(strstr(r, "B/s") < strchr(r, '\n'), "add reports bytes/s: %s", p.out);
    r = row(p.out, "t/mlp[");
    cr_assert_not_null(r, "%s", p.out);
    cr_expect(strstr(r, "FLOP/s") < strchr(r, '\n'), "%s", p.out);

    /* The run's machine is this machine's fingerprint. */
    pg_assert_ok(pg_fingerprint_read(&fp, &hash));
    stored = sql_text(db, "SELECT m.fingerprint FROM runs r JOIN machines m ON m.id = r.machine_id");
    cr_assert_not_null(stored);
    a = json_loads(fp, 0, NULL);
    b = json_loads(stored, 0, NULL);
    cr_assert(a && b);
    cr_expect_str_eq(json_string_value(json_object_get(b, "cpu_model")),
                     json_string_value(json_object_get(a, "cpu_model")));
    cr_expect_str_eq(json_string_value(json_object_get(b, "openblas_corename")),
                     json_string_value(json_object_get(a, "openblas_corename")));
    /* Each result records its thread settings and MFU ceiling. */
    extra = sql_text(db, "SELECT r.extra FROM results r JOIN cases c ON c.id = r.case_id WHERE c.name = 'sgemm'");
    cr_assert_not_null(extra);
    e = json_loads(extra, 0, NULL);
    cr_assert_not_null(e, "%s", extra);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(e, "threads"), "blas")), 1);
    cr_expect(json_real_value(json_object_get(e, "mfu_ceiling_gflops")) > 0, "%s", extra);
    json_decref(a);
    json_decref(b);
    json_decref(e);
    free(extra);
    free(stored);
    free(fp);
    free(hash);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(dir);
    free(path);
    free(db);
}

Test(run_cpu, peak_gflops_sets_the_mfu_denominator)
{
    char *dir = pg_test_tmpdir(), *path = pg_test_write(dir, "t.yaml", suite);
    const char *argv[] = {"run", "--no-store", "--filter", "t/sgemm*", "--peak-gflops", "1000000", path, NULL};
    const char *r;
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "status %d\n%s\n%s", p.status, p.out, p.err);
    r = row(p.out, "t/sgemm[n=64]@1:cpu");
    cr_assert_not_null(r, "%s", p.out);
    /* No CPU reaches a million GFLOP/s: MFU rounds to 0.0%. */
    cr_expect(strstr(r, " 0.0%") && strstr(r, " 0.0%") < strchr(r, '\n'), "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(dir);
    free(path);
}

Test(run_cpu, cpu_clock_is_applied_and_recorded)
{
    char *dir = pg_test_tmpdir(), *path = pg_test_write(dir, "t.yaml", suite);
    char *db = pg_test_write(dir, "placeholder", ""), *extra;
    const char *argv[] = {"run", "--clock", "cpu", "--filter", "t/add*", "--db", NULL, path, NULL};
    pg_proc p;

    strcpy(strrchr(db, '/') + 1, "pg.db");
    argv[6] = db;
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "status %d\n%s\n%s", p.status, p.out, p.err);
    extra = sql_text(db, "SELECT extra FROM results");
    cr_assert_not_null(extra);
    cr_expect(strstr(extra, "\"clock\":\"process_cpu\"") != NULL, "%s", extra);
    free(extra);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(dir);
    free(path);
    free(db);
}

Test(run_cpu, bad_peak_or_precision_is_a_usage_error)
{
    const char *a1[] = {"run", "--no-store", "--peak-gflops", "-3", "suites/cpu.yaml", NULL};
    const char *a2[] = {"run", "--no-store", "--precision", "150%", "suites/cpu.yaml", NULL};
    const char *a3[] = {"run", "--no-store", "--clock", "sundial", "suites/cpu.yaml", NULL};
    pg_proc p;

    pg_test_run(&p, PG_TEST_SOURCE_DIR, NULL, a1);
    cr_expect_eq(p.status, 2, "status %d: %s", p.status, p.err);
    pg_proc_free(&p);
    pg_test_run(&p, PG_TEST_SOURCE_DIR, NULL, a2);
    cr_expect_eq(p.status, 2, "status %d: %s", p.status, p.err);
    pg_proc_free(&p);
    pg_test_run(&p, PG_TEST_SOURCE_DIR, NULL, a3);
    cr_expect_eq(p.status, 2, "status %d: %s", p.status, p.err);
    cr_expect(strstr(p.err, "sundial") != NULL, "%s", p.err);
    pg_proc_free(&p);
}
