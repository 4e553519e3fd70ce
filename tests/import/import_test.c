/* import_test.c - real Google Benchmark, hyperfine and pytest-benchmark outputs stored as runs. */
#include "support.h"

#include "import/import.h"
#include "store/store.h"
#include "base/util.h"

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
    pg_import_notes_clear(&notes);
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
    pg_import_notes_clear(&notes);
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

/* Writes `text` as tmp/`file`, imports it in `format`; returns the error code, the run kept in *out. */
static int import_text(const char *tmp, const char *format, const char *file, const char *text, pg_run **out,
                       pg_import_notes *notes)
{
    char *path = pg_test_write(tmp, file, text);
    int err;

    pg_assert_ok(pg_run_new(out));
    err = pg_import_file(*out, format, path, NULL, notes);
    free(path);
    return err;
}

/* The file is refused with exit-2 input error whose one line names `needle`, and nothing of it stays in the run. */
static void assert_refused(const char *tmp, const char *format, const char *text, const char *needle)
{
    pg_run *run = NULL;
    int err = import_text(tmp, format, "in.json", text, &run, NULL);

    cr_assert_eq(err, PG_EFORMAT, "%s: %d %s", text, err, pg_error_last());
    cr_assert(strstr(pg_error_last(), needle) != NULL, "'%s' lacks '%s'", pg_error_last(), needle);
    cr_assert(strstr(pg_error_last(), "in.json") != NULL, "names the file: %s", pg_error_last());
    cr_assert(strchr(pg_error_last(), '\n') == NULL, "one line: %s", pg_error_last());
    cr_assert_eq(run->nresults, 0, "nothing half-read stays");
    pg_run_free(run);
}

#define HF(times, extra) "{\"results\": [{\"command\": \"sleep 0.1\", \"times\": " times extra "}]}"

Test(import_hyperfine, impossible_times_and_lengths_are_refused)
{
    char *tmp = pg_test_tmpdir();

    assert_refused(tmp, "hyperfine", HF("[-1, -2, -3]", ""), "results[0].times[0] ('sleep 0.1') is not a positive time");
    assert_refused(tmp, "hyperfine", HF("[0.1, 0]", ""), "times[1] ('sleep 0.1') is not a positive time");
    assert_refused(tmp, "hyperfine", HF("[]", ""), "has an empty 'times'");
    assert_refused(tmp, "hyperfine", HF("[0.1, NaN]", ""), "times[1] ('sleep 0.1') is not finite");
    assert_refused(tmp, "hyperfine", HF("[0.1, Infinity]", ""), "is not finite");
    assert_refused(tmp, "hyperfine", HF("[0.1, \"fast\"]", ""), "is not a number");
    assert_refused(tmp, "hyperfine", HF("[0.1, 0.2, 0.3]", ", \"exit_codes\": [0, 0]"), "has 3 times but 2 exit_codes");
    assert_refused(tmp, "hyperfine", HF("[0.1]", ", \"exit_codes\": [0, 0]"), "has 1 times but 2 exit_codes");
    assert_refused(tmp, "hyperfine", HF("[0.1]", ", \"exit_codes\": [\"0\"]"), "exit_codes[0] is not an integer");
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(import_hyperfine, one_command_twice_gives_two_cases_by_index)
{
    char *tmp = pg_test_tmpdir();
    pg_import_notes notes = {0};
    pg_run *run = NULL;
    const pg_result *r;

    /* hyperfine 'sleep 0.1' 'sleep 0.2' 'sleep 0.1': normal usage. A killed run (null code) is a failed run. */
    pg_assert_ok(import_text(tmp, "hyperfine", "dup.json",
                             "{\"results\": ["
                             "{\"command\": \"sleep 0.1\", \"times\": [0.101, 0.102], \"exit_codes\": [0, 0]},"
                             "{\"command\": \"sleep 0.2\", \"times\": [0.201, 0.202], \"exit_codes\": [0, 0]},"
                             "{\"command\": \"sleep 0.1\", \"times\": [0.103, 0.104], \"exit_codes\": [0, null]}]}",
                             &run, &notes));
    cr_assert_eq(run->nresults, 3);
    r = get(run, "hyperfine/sleep 0.1[index=0]@1:cpu");
    cr_assert_float_eq(r->samples[0], 0.101, 1e-12);
    cr_assert_str_eq(r->params_json, "{\"index\":\"0\"}");
    r = get(run, "hyperfine/sleep 0.1[index=2]@1:cpu");
    cr_assert_eq(r->status, PG_STATUS_ERROR, "a run killed by a signal failed");
    cr_assert(strstr(r->message, "1 of hyperfine's 2 runs exited non-zero") != NULL, "%s", r->message);
    get(run, "hyperfine/sleep 0.2[]@1:cpu");
    cr_assert_eq(notes.count, 1);
    cr_assert(strstr(notes.lines[0], "2 cases share a command") && strstr(notes.lines[0], "'index'"), "%s",
              notes.lines[0]);
    pg_import_notes_clear(&notes);
    pg_run_free(run);
    pg_test_rmtree(tmp);
    free(tmp);
}

#define GB(row) "{\"context\": {\"num_cpus\": 4}, \"benchmarks\": [" row "]}"
#define GB_ROW(extra) \
    "{\"name\": \"BM_x/8\", \"run_name\": \"BM_x/8\", \"run_type\": \"iteration\", \"iterations\": 10, " \
    "\"real_time\": 2.0, \"cpu_time\": 2.0, \"time_unit\": \"ms\"" extra "}"

Test(import_gbench, impossible_thread_counts_and_iterations_are_refused)
{
    char *tmp = pg_test_tmpdir();

    assert_refused(tmp, "google-benchmark", GB(GB_ROW(", \"threads\": 0")),
                   "benchmarks[0] ('BM_x/8') has threads 0: not a thread count (1 to 65536)");
    assert_refused(tmp, "google-benchmark", GB(GB_ROW(", \"threads\": -3")), "has threads -3: not a thread count");
    assert_refused(tmp, "google-benchmark", GB(GB_ROW(", \"threads\": 1e300")), "has threads 1e300: not a thread count");
    assert_refused(tmp, "google-benchmark", GB(GB_ROW(", \"threads\": \"4\"")), "has threads \"4\": not a thread count");
    assert_refused(tmp, "google-benchmark",
                   GB("{\"name\": \"BM_x\", \"run_type\": \"iteration\", \"iterations\": -5, \"real_time\": 2.0, "
                      "\"time_unit\": \"ns\"}"),
                   "('BM_x') has iterations that are not a whole number of at least 1");
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(import_gbench, nan_infinite_and_negative_repetitions_are_dropped_with_a_note)
{
    char *tmp = pg_test_tmpdir();
    pg_import_notes notes = {0};
    pg_run *run = NULL;
    const pg_result *r;

    pg_assert_ok(import_text(tmp, "google-benchmark", "nan.json",
                             GB("{\"name\": \"BM_a\", \"real_time\": 1.0, \"time_unit\": \"us\", \"iterations\": 5},"
                                "{\"name\": \"BM_a\", \"real_time\": NaN, \"time_unit\": \"us\", \"iterations\": 5},"
                                "{\"name\": \"BM_a\", \"real_time\": 3.0, \"time_unit\": \"us\", \"iterations\": 5},"
                                "{\"name\": \"BM_a\", \"real_time\": Infinity, \"time_unit\": \"us\", \"iterations\": 5},"
                                "{\"name\": \"BM_b\", \"real_time\": -2.0, \"time_unit\": \"us\", \"iterations\": 5},"
                                "{\"name\": \"BM_b\", \"real_time\": -Infinity, \"time_unit\": \"us\", \"iterations\": 5}"),
                             &run, &notes));
    r = get(run, "google-benchmark/BM_a[]@1:cpu");
    cr_assert_eq(r->status, PG_STATUS_OK);
    cr_assert_eq(r->nsamples, 2);
    cr_assert_float_eq(r->samples[1], 3e-6, 1e-15);
    r = get(run, "google-benchmark/BM_b[]@1:cpu");
    cr_assert_eq(r->status, PG_STATUS_ERROR, "nothing left to compare");
    cr_assert(strstr(r->message, "all 2 repetitions had a real_time that is not a measurement"), "%s", r->message);
    cr_assert_eq(notes.count, 2, "one note per case that lost repetitions");
    cr_assert(strstr(notes.lines[0], "dropped 2 of 4 repetitions of 'BM_a' (first: repetition 2): real_time was NaN "
                                     "or Infinity, which is not a measurement; 2 kept"),
              "%s", notes.lines[0]);
    cr_assert(strstr(notes.lines[1], "dropped 2 of 2 repetitions of 'BM_b' (first: repetition 1): real_time was NaN, "
                                     "Infinity, zero or negative"),
              "%s", notes.lines[1]);
    pg_import_notes_clear(&notes);
    pg_run_free(run);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(import_pytest, negative_data_and_iterations_are_refused)
{
    char *tmp = pg_test_tmpdir();

    assert_refused(tmp, "pytest-benchmark",
                   "{\"benchmarks\": [{\"name\": \"test_a\", \"stats\": {\"data\": [0.1, -0.2], \"iterations\": 1}}]}",
                   "benchmarks[0].stats.data[1] ('test_a') is not a positive time");
    assert_refused(tmp, "pytest-benchmark",
                   "{\"benchmarks\": [{\"name\": \"test_a\", \"stats\": {\"data\": [NaN], \"iterations\": 1}}]}",
                   "stats.data[0] ('test_a') is not finite");
    assert_refused(tmp, "pytest-benchmark",
                   "{\"benchmarks\": [{\"name\": \"test_a\", \"stats\": {\"data\": [0.1], \"iterations\": 0}}]}",
                   "stats.iterations ('test_a') is not a whole number of at least 1");
    assert_refused(tmp, "pytest-benchmark",
                   "{\"benchmarks\": [{\"name\": \"test_a\", \"stats\": {\"median\": -1, \"rounds\": 5}}]}",
                   "stats.median ('test_a') is not a positive time");
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(import_pytest, one_test_name_in_two_modules_is_told_apart_by_fullname)
{
    char *tmp = pg_test_tmpdir();
    pg_import_notes notes = {0};
    pg_run *run = NULL;

    pg_assert_ok(import_text(tmp, "pytest-benchmark", "dup.json",
                             "{\"benchmarks\": ["
                             "{\"name\": \"test_sort\", \"fullname\": \"tests/test_a.py::test_sort\", "
                             "\"stats\": {\"data\": [0.001, 0.002], \"iterations\": 1}},"
                             "{\"name\": \"test_sort\", \"fullname\": \"tests/test_b.py::test_sort\", "
                             "\"stats\": {\"data\": [0.003, 0.004], \"iterations\": 1}},"
                             "{\"name\": \"test_fib[10]\", \"fullname\": \"tests/test_a.py::test_fib[10]\", "
                             "\"params\": {\"n\": 10}, \"stats\": {\"data\": [0.005], \"iterations\": 1}}]}",
                             &run, &notes));
    cr_assert_eq(run->nresults, 3);
    cr_assert_float_eq(get(run, "pytest-benchmark/test_sort[fullname=tests/test_a.py::test_sort]@1:cpu")->samples[0],
                       0.001, 1e-12);
    cr_assert_float_eq(get(run, "pytest-benchmark/test_sort[fullname=tests/test_b.py::test_sort]@1:cpu")->samples[0],
                       0.003, 1e-12);
    get(run, "pytest-benchmark/test_fib[n=10]@1:cpu");
    cr_assert_eq(notes.count, 1);
    cr_assert(strstr(notes.lines[0], "'fullname'") != NULL, "%s", notes.lines[0]);
    pg_import_notes_clear(&notes);
    pg_run_free(run);

    /* No fullname to tell them apart: refused, naming the key, never a database error. */
    assert_refused(tmp, "pytest-benchmark",
                   "{\"benchmarks\": [{\"name\": \"test_x\", \"stats\": {\"data\": [0.1]}},"
                   "{\"name\": \"test_x\", \"stats\": {\"data\": [0.2]}}]}",
                   "two cases have the key 'pytest-benchmark/test_x[]@1:cpu'");
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(import, structural_damage_is_positioned_and_other_inputs_refused)
{
    char *tmp = pg_test_tmpdir();
    pg_run *run = NULL;

    assert_refused(tmp, "hyperfine", "[1, 2]", "in.json:1:1: expected a JSON object at the top, as hyperfine writes");
    assert_refused(tmp, "hyperfine", "{\"results\": [{\"command\": \"a\", \"times\": [0.1]}]} x",
                   "more data after the top-level object");
    assert_refused(tmp, "hyperfine", "{\"other\": [1, 2}, \"results\": []}", "in.json:1:16: not valid JSON: unbalanced");
    assert_refused(tmp, "hyperfine", "{\"results\": [{\"command\": \"a\", \"times\": [0.1]}", "unexpected end of input");
    /* A directory is not a result file: invalid input, not an infrastructure failure. */
    pg_assert_ok(pg_run_new(&run));
    cr_assert_eq(pg_import_file(run, "hyperfine", tmp, NULL, NULL), PG_EINVAL);
    cr_assert(strstr(pg_error_last(), "not a regular result file") != NULL, "%s", pg_error_last());
    cr_assert_eq(pg_import_file(run, "google-benchmark", "/dev/zero", NULL, NULL), PG_EINVAL);
    pg_run_free(run);
    pg_test_rmtree(tmp);
    free(tmp);
}

/* Duplicate names on the command line: exit 2 with the key, the database untouched (no SQLite message). */
Test(import, a_duplicate_key_is_exit_2_and_stores_nothing)
{
    char *tmp = pg_test_tmpdir();
    char *db = pg__asprintf("%s/pg.db", tmp);
    char *file = pg_test_write(tmp, "dup.json",
                               "{\"benchmarks\": [{\"name\": \"t\", \"stats\": {\"data\": [0.1]}},"
                               "{\"name\": \"t\", \"stats\": {\"data\": [0.2]}}]}");
    const char *imp[] = {"import", "--db", db, "--branch", "main", "--commit", "abc", "pytest-benchmark", file, NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, imp);
    cr_assert_eq(p.status, 2, "%d %s", p.status, p.err);
    cr_assert(strstr(p.err, "two cases have the key 'pytest-benchmark/t[]@1:cpu'") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "UNIQUE") == NULL && strstr(p.err, "SQLite") == NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(file);
}
