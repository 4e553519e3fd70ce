/* import_test.c - real Google Benchmark, hyperfine and pytest-benchmark outputs stored as runs. */
#include "support.h"

#include "import/import.h"
#include "store/store.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Imports tests/data/import/`file` into a fresh run. */
static pg_run *import(const char *format, const char *file, pg_import_notes *notes)
{
    char *path = pg__asprintf("%s/import/%s", PG_TEST_DATA_DIR, file);
    pg_run *run = NULL;

    pg_assert_ok(pg_run_new(&run));
    pg_assert_ok(pg_import_file(run, format, path, NULL, notes));
    cr_assert_str_eq(run->source, format);
    free(path);
    return run;
}

static const pg_result *get(const pg_run *run, const char *key)
{
    const pg_result *r = pg_run_find(run, key);

    cr_assert_not_null(r, "no case %s", key);
    return r;
}

Test(import_gbench, repetitions_are_samples_and_aggregates_are_not_cases)
{
    pg_run *run = import("google-benchmark", "gbench_reps.json", NULL);
    const pg_result *r;
    size_t i;

    /* 63 rows: 7 cases x (5 repetitions + mean, median, stddev, cv). */
    cr_assert_eq(run->nresults, 7);
    for (i = 0; i < run->nresults; i++) {
        cr_assert_eq(run->results[i].status, PG_STATUS_OK);
        cr_assert_eq(run->results[i].nsamples, 5, "%s", run->results[i].key);
    }
    r = get(run, "google-benchmark/BM_sgemm[arg0=64]@1:cpu");
    cr_assert_float_eq(r->samples[0], 6.4732216211246086e+03 * 1e-9, 1e-18);
    cr_assert_float_eq(r->samples[4], 6.1082016321313949e+03 * 1e-9, 1e-18);
    /* The median of the 5 repetitions is Google Benchmark's own median aggregate. */
    cr_assert_float_eq(r->summary.median, 6.473221621124608e+03 * 1e-9, 1e-15);
    cr_assert_eq(r->number_per_run, 10906);
    /* FLOPS (a rate over CPU time) back to FLOPs per iteration: 2*64^3. */
    cr_assert(fabs(r->flops - 2.0 * 64 * 64 * 64) / (2.0 * 64 * 64 * 64) < 1e-3, "flops %g", r->flops);
    r = get(run, "google-benchmark/BM_vecadd[arg0=1024]@1:cpu");
    cr_assert(fabs(r->bytes - 12.0 * 1024) < 1.0, "bytes %g", r->bytes);
    cr_assert_str_eq(r->params_json, "{\"arg0\":1024}");
    get(run, "google-benchmark/BM_vecadd[arg0=65536]@1:cpu");
    pg_run_free(run);
}

Test(import_gbench, plain_output_has_one_sample_per_case)
{
    pg_run *run = import("google-benchmark", "gbench_plain.json", NULL);
    const pg_result *r;

    cr_assert_eq(run->nresults, 7);
    r = get(run, "google-benchmark/BM_sgemm[arg0=256]@1:cpu");
    cr_assert_eq(r->nsamples, 1);
    cr_assert_float_eq(r->samples[0], 242671.43902455145e-9, 1e-15);
    cr_assert_eq(r->number_per_run, 287);
    pg_run_free(run);
}

Test(import_gbench, errors_nan_threads_bigo_and_aggregate_only_rows)
{
    pg_import_notes notes = {0};
    pg_run *run = import("google-benchmark", "gbench_edge.json", &notes);
    const pg_result *r;
    size_t i, bigo = 0;

    cr_assert_eq(run->nresults, 6, "ok, fails, threaded, complexity x2, aggonly; got %zu", run->nresults);
    r = get(run, "google-benchmark/BM_ok[n=8]@1:cpu");
    cr_assert_eq(r->nsamples, 2);
    cr_assert_float_eq(r->samples[0], 0.002, 1e-15);
    cr_assert_float_eq(r->samples[1], 0.004, 1e-15);
    r = get(run, "google-benchmark/BM_fails[arg0=1]@1:cpu");
    cr_assert_eq(r->status, PG_STATUS_ERROR);
    cr_assert(strstr(r->message, "allocation failed") != NULL, "%s", r->message);
    cr_assert_eq(r->nsamples, 0);
    r = get(run, "google-benchmark/BM_threaded[]@2:cpu");
    cr_assert_eq(r->threads, 2);
    cr_assert_float_eq(r->samples[0], 1.5e-3, 1e-15);
    get(run, "google-benchmark/BM_complexity[arg0=8]@1:cpu");
    get(run, "google-benchmark/BM_complexity[arg0=16]@1:cpu");
    r = get(run, "google-benchmark/BM_aggonly[arg0=64]@1:cpu");
    cr_assert_eq(r->nsamples, 0);
    cr_assert_float_eq(r->summary.median, 100e-9, 1e-18);
    cr_assert_float_eq(r->summary.stddev, 5e-9, 1e-18);
    cr_assert_str_eq(r->extra_json, "{\"summary_only\":true}");
    for (i = 0; i < notes.count; i++)
        bigo += strstr(notes.lines[i], "BigO/RMS") != NULL;
    cr_assert_eq(bigo, 2, "one note per BigO/RMS row");
    pg_import_notes_free(&notes);
    pg_run_free(run);
}

Test(import_hyperfine, times_are_samples_with_parameters)
{
    pg_run *run = import("hyperfine", "hyperfine_params.json", NULL);
    const pg_result *r;

    cr_assert_eq(run->nresults, 2);
    r = get(run, "hyperfine/./gb --benchmark_filter=BM_sgemm/64 --benchmark_min_time=0.01[n=64]@1:cpu");
    cr_assert_eq(r->nsamples, 10);
    cr_assert_float_eq(r->samples[0], 0.039248483, 1e-15);
    cr_assert_float_eq(r->summary.median, 0.038694197, 1e-12);
    cr_assert_str_eq(r->params_json, "{\"n\":64}");
    r = get(run, "hyperfine/./gb --benchmark_filter=BM_sgemm/256 --benchmark_min_time=0.01[n=256]@1:cpu");
    cr_assert_eq(r->nsamples, 10);
    cr_assert_float_eq(r->summary.median, 0.04598039300000001, 1e-12);
    pg_run_free(run);
}

Test(import_pytest, data_are_samples_else_summary_only)
{
    pg_import_notes notes = {0};
    pg_run *run = import("pytest-benchmark", "pytest_benchmark.json", &notes);
    const pg_result *r;

    cr_assert_eq(run->nresults, 3);
    cr_assert_eq(notes.count, 0);
    r = get(run, "pytest-benchmark/test_fib[n=100]@1:cpu");
    cr_assert_eq(r->nsamples, 212);
    cr_assert_float_eq(r->samples[0], 7.244000016726204e-06, 1e-18);
    cr_assert_float_eq(r->summary.median, 6.2020000086704385e-06, 1e-18);
    cr_assert_eq(get(run, "pytest-benchmark/test_fib[n=1000]@1:cpu")->nsamples, 23);
    cr_assert_eq(get(run, "pytest-benchmark/test_sorted[]@1:cpu")->nsamples, 79);
    pg_run_free(run);

    run = import("pytest-benchmark", "pytest_benchmark_saved_nodata.json", &notes);
    cr_assert_eq(run->nresults, 3);
    cr_assert_eq(notes.count, 3, "one note per summary-only case");
    r = get(run, "pytest-benchmark/test_fib[n=100]@1:cpu");
    cr_assert_eq(r->nsamples, 0);
    cr_assert_eq(r->summary.n, 291);
    cr_assert_float_eq(r->summary.median, 4.298000021663029e-06, 1e-18);
    cr_assert_str_eq(r->extra_json, "{\"summary_only\":true}");
    pg_import_notes_free(&notes);
    pg_run_free(run);
}

Test(import, bad_input_is_a_clear_error)
{
    char *tmp = pg_test_tmpdir();
    char *bad = pg_test_write(tmp, "bad.json", "{\n  \"benchmarks\": [\n    {\"name\": \"x\",,}\n");
    char *other = pg_test_write(tmp, "other.json", "{\"results\": []}\n");
    pg_run *run = NULL;

    pg_assert_ok(pg_run_new(&run));
    cr_assert_eq(pg_import_file(run, "google-benchmark", bad, NULL, NULL), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "bad.json:3:") != NULL, "%s", pg_error_last());
    cr_assert_eq(pg_import_file(run, "google-benchmark", other, NULL, NULL), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "no 'benchmarks' array") != NULL, "%s", pg_error_last());
    cr_assert_eq(pg_import_file(run, "criterion-rs", other, NULL, NULL), PG_EINVAL);
    cr_assert_eq(pg_import_file(run, "hyperfine", "/no/such/file.json", NULL, NULL), PG_ENOTFOUND);
    cr_assert_eq(run->nresults, 0);
    pg_run_free(run);
    pg_test_rmtree(tmp);
    free(tmp);
    free(bad);
    free(other);
}

Test(import, imported_runs_are_stored_and_gate_like_native_ones)
{
    char *tmp = pg_test_tmpdir();
    char *db = pg__asprintf("%s/pg.db", tmp);
    char *file = pg_test_data("import/gbench_reps.json");
    const char *imp[] = {"import", "--db", db, "--branch", "main", "--commit", "abc123", "--suite", "mylib",
                         "google-benchmark", file, NULL};
    const char *cmp[] = {"compare", "--db", db, NULL};
    const char *bad[] = {"import", "--db", db, "hyperfine", "/no/such.json", NULL};
    pg_store *store = NULL;
    pg_run *run = NULL;
    pg_proc p;

    pg_test_run(&p, tmp, NULL, imp);
    cr_assert_eq(p.status, 0, "%d %s", p.status, p.err);
    cr_assert(strstr(p.out, "imported 7 cases") != NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, NULL, imp);
    cr_assert_eq(p.status, 0);
    pg_proc_free(&p);

    pg_assert_ok(pg_store_open(&store, db));
    pg_assert_ok(pg_store_load_run(&run, store, 1));
    cr_assert_str_eq(run->source, "google-benchmark");
    cr_assert_eq(run->nresults, 7);
    cr_assert_eq(pg_run_find(run, "mylib/BM_sgemm[arg0=128]@1:cpu")->nsamples, 5);
    pg_run_free(run);
    pg_store_close(store);

    /* The same results imported twice: no change, judged by the same verdict code as native runs.
     * The samples are identical on both sides, so the verdicts are fixed: one run each side leans on
     * the drift prior, which alone widens [1, 1] to about [0.93, 1.07] (boundary_test.c), wider than
     * the 5% band, so every case is UNSURE, none SAME or REGRESSED: "nothing compared", exit 4. */
    pg_test_run(&p, tmp, NULL, cmp);
    cr_assert_eq(p.status, 4, "%d %s %s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "head: run 2") && strstr(p.out, "base: run 1"), "%s", p.out);
    cr_assert(strstr(p.out, "mylib/BM_sgemm[arg0=128]@1:cpu") && strstr(p.out, "+0.0%"), "%s", p.out);
    cr_assert(strstr(p.out, "0 regressions") != NULL, "%s", p.out);
    pg_proc_free(&p);

    pg_test_run(&p, tmp, NULL, bad);
    cr_assert_eq(p.status, 2, "a missing file is invalid input: %d", p.status);
    cr_assert(strstr(p.err, "/no/such.json") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(file);
}
