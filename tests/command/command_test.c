/* command_test.c - `command:` benchmarks: real processes, errors per case, warm-up, metrics: json. */
#include "support.h"

#include "exec/exec.h"
#include "suite/suite.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;

static void setup(void)
{
    tmp = pg_test_tmpdir();
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(command, .init = setup, .fini = teardown, .timeout = 120);

/* Loads `yaml` as tmp/name and runs every case in this process. */
static pg_run *run_suite(const char *name, const char *yaml, pg_suite_set *set)
{
    char *path = pg_test_write(tmp, name, yaml);
    const char *paths[] = {path};
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags d = {0};
    pg_run *run = NULL;
    int err = pg_suite_set_load(set, paths, 1, &so, &d);

    cr_assert_eq(err, 0, "%s", d.count ? d.lines[0] : pg_error_last());
    pg_diags_clear(&d);
    pg_assert_ok(pg_run_new(&run));
    pg_assert_ok(pg_exec_run(run, set, NULL));
    free(path);
    return run;
}

static const pg_result *find(const pg_run *run, const char *name)
{
    size_t i;

    for (i = 0; i < run->nresults; i++)
        if (strcmp(run->results[i].name, name) == 0)
            return &run->results[i];
    cr_assert_fail("no result for %s", name);
    return NULL;
}

static void assert_error(const pg_run *run, const char *name, const char *needle)
{
    const pg_result *r = find(run, name);

    cr_assert_eq(r->status, PG_STATUS_ERROR, "%s: status %d (%s)", name, r->status, r->message);
    cr_assert(r->message && strstr(r->message, needle), "%s: '%s' lacks '%s'", name, r->message, needle);
    cr_assert(strchr(r->message, '\n') == NULL, "one line: %s", r->message);
    cr_assert_eq(r->nsamples, 0, "an error is never a sample");
}

Test(command, failures_are_errors_of_their_case_and_the_rest_run)
{
    pg_suite_set set = {0};
    pg_run *run = run_suite("c.yaml",
                            "suite: c\n"
                            "defaults: {min_run_time: 30ms, warmup: 1ms, min_samples: 3}\n"
                            "benchmarks:\n"
                            "  - {name: first, command: [true]}\n"
                            "  - {name: timeout, command: [sleep, '10'], timeout: 300ms}\n"
                            "  - {name: nonzero, command: [sh, -c, 'echo no input file >&2; exit 3']}\n"
                            "  - {name: not_in_path, command: [perfgate-no-such-tool, --flag]}\n"
                            "  - {name: missing_file, command: [./no/such/bench]}\n"
                            "  - {name: signal, command: [sh, -c, 'kill -9 $$']}\n"
                            "  - {name: last, command: [true]}\n",
                            &set);

    cr_assert_eq(run->nresults, 7);
    cr_assert_eq(find(run, "first")->status, PG_STATUS_OK, "%s", find(run, "first")->message);
    cr_assert_eq(find(run, "last")->status, PG_STATUS_OK, "%s", find(run, "last")->message);
    cr_assert_geq(find(run, "last")->nsamples, 3);
    cr_assert_gt(find(run, "last")->summary.median, 0);
    assert_error(run, "timeout", "timed out after 0.3 s");
    assert_error(run, "nonzero", "exited with status 3 (stderr: no input file)");
    assert_error(run, "not_in_path", "'perfgate-no-such-tool' is not in PATH");
    assert_error(run, "missing_file", "cannot execute command './no/such/bench': No such file or directory");
    assert_error(run, "signal", "was killed by signal 9");
    pg_run_free(run);
    pg_suite_set_clear(&set);
}

Test(command, warmup_runs_are_not_samples_and_suite_dir_expands)
{
    pg_suite_set set = {0};
    char *script = pg_test_write(tmp, "count.sh", "echo run >> \"$1\"\n");
    char *log = pg__asprintf("%s/runs.log", tmp);
    char *yaml = pg__asprintf("suite: w\n"
                              "benchmarks:\n"
                              "  - name: counted\n"
                              "    command: [sh, '{suite_dir}/count.sh', '%s']\n"
                              "    min_run_time: 1ms\n    warmup: 1ms\n    min_samples: 4\n",
                              log);
    pg_run *run = run_suite("w.yaml", yaml, &set);
    const pg_result *r = find(run, "counted");
    char *text = NULL;
    size_t len = 0, lines = 0, i;

    cr_assert_eq(r->status, PG_STATUS_OK, "%s", r->message);
    cr_assert_eq(r->nsamples, 4);
    cr_assert_eq(r->number_per_run, 1, "one process per sample");
    pg_assert_ok(pg__read_file(&text, &len, log));
    for (i = 0; i < len; i++)
        lines += text[i] == '\n';
    /* At least one warm-up run and one sizing run happen before the 4 samples. */
    cr_assert_geq(lines, 6, "%zu runs", lines);
    cr_assert_gt(r->warmup_s, 0);
    free(text);
    free(log);
    free(yaml);
    free(script);
    pg_run_free(run);
    pg_suite_set_clear(&set);
}

Test(command, metrics_json_gives_the_samples_and_output_is_kept)
{
    pg_suite_set set = {0};
    pg_run *run = run_suite("m.yaml",
                            "suite: m\n"
                            "defaults: {min_run_time: 10ms, warmup: 1ms, min_samples: 5}\n"
                            "benchmarks:\n"
                            "  - name: reported\n"
                            "    command: [sh, -c, 'echo warming up; echo \"{\\\"time\\\": 0.004, \\\"iterations\\\": 4, "
                            "\\\"flops\\\": 2000, \\\"accuracy\\\": 0.93}\"']\n"
                            "    metrics: json\n"
                            "    output: keep\n"
                            "  - name: no_json\n"
                            "    command: [echo, plain text]\n"
                            "    metrics: json\n",
                            &set);
    const pg_result *r = find(run, "reported");
    json_t *extra, *acc;
    json_error_t jerr;

    cr_assert_eq(r->status, PG_STATUS_OK, "%s", r->message);
    /* The command's own time, per iteration: 0.004 s / 4, exactly, whatever the process cost. */
    cr_assert_float_eq(r->summary.median, 0.001, 1e-12);
    cr_assert_float_eq(r->summary.iqr, 0, 1e-15);
    cr_assert_float_eq(r->flops, 2000, 1e-9);
    cr_assert_not_null(r->extra_json);
    extra = json_loads(r->extra_json, 0, &jerr);
    cr_assert_not_null(extra, "%s", r->extra_json);
    acc = json_object_get(json_object_get(extra, "metrics"), "accuracy");
    cr_assert(json_is_array(acc) && json_array_size(acc) >= 5, "%s", r->extra_json);
    cr_assert_float_eq(json_real_value(json_array_get(acc, 0)), 0.93, 1e-12);
    cr_assert(strstr(json_string_value(json_object_get(extra, "stdout")), "warming up") != NULL, "%s", r->extra_json);
    json_decref(extra);
    assert_error(run, "no_json", "not a JSON object: 'plain text'");
    pg_run_free(run);
    pg_suite_set_clear(&set);
}

Test(command, the_binary_reports_each_error_and_exits_0)
{
    char *path = pg_test_write(tmp, "b.yaml",
                               "suite: b\n"
                               "defaults: {min_run_time: 20ms, warmup: 1ms, min_samples: 3}\n"
                               "benchmarks:\n"
                               "  - {name: missing, command: [perfgate-no-such-tool]}\n"
                               "  - {name: fine, command: [true]}\n");
    const char *argv[] = {"run", "--no-store", path, NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 0, "%d %s", p.status, p.err);
    cr_assert(strstr(p.out, "b/missing[]@1:cpu") && strstr(p.out, "ERROR: command 'perfgate-no-such-tool' not found"),
              "%s", p.out);
    cr_assert(strstr(p.out, "b/fine[]@1:cpu") != NULL, "%s", p.out);
    pg_proc_free(&p);
    free(path);
}

/* A report that names a time but an impossible one is an error of the case, never a silent wall-time sample. */
Test(command, metrics_json_with_an_impossible_time_is_an_error)
{
    pg_suite_set set = {0};
    pg_run *run = run_suite("bad.yaml",
                            "suite: bad\n"
                            "defaults: {min_run_time: 5ms, warmup: 1ms, min_samples: 2}\n"
                            "benchmarks:\n"
                            "  - {name: negative, metrics: json, command: [echo, '{\"time\": -5}']}\n"
                            "  - {name: zero, metrics: json, command: [echo, '{\"time\": 0}']}\n"
                            "  - {name: text, metrics: json, command: [echo, '{\"time\": \"fast\"}']}\n"
                            "  - {name: no_iters, metrics: json, command: [echo, '{\"time\": 1, \"iterations\": 0}']}\n"
                            "  - {name: wall, metrics: json, command: [echo, '{\"accuracy\": 1}']}\n",
                            &set);

    cr_assert_eq(find(run, "wall")->status, PG_STATUS_OK, "no time at all: the wall time, as documented");
    assert_error(run, "negative", "reported time -5 s");
    assert_error(run, "zero", "reported time 0 s");
    assert_error(run, "text", "\"time\" is not a number");
    assert_error(run, "no_iters", "over 0 iterations");
    pg_run_free(run);
    pg_suite_set_clear(&set);
}

/*
 * A command that reports 1 ns per run while each process takes milliseconds:
 * its clock would need a billion runs to reach min_run_time. max_run_time
 * bounds the wall time too, so the case ends (the suite's timeout fails the
 * test otherwise) with the samples it has and the max-time warning.
 */
Test(command, metrics_json_max_run_time_bounds_the_wall_time)
{
    pg_suite_set set = {0};
    pg_run *run = run_suite("w.yaml",
                            "suite: w\n"
                            "defaults: {min_run_time: 300ms, max_run_time: 300ms, warmup: 50ms, min_samples: 3}\n"
                            "benchmarks:\n"
                            "  - name: tiny\n"
                            "    command: [sh, -c, 'echo \"{\\\"time\\\": 1e-9}\"']\n"
                            "    metrics: json\n",
                            &set);
    const pg_result *r = find(run, "tiny");

    cr_assert_eq(r->status, PG_STATUS_OK, "%s", r->message);
    cr_assert_geq(r->nsamples, 1);
    cr_expect(r->warnings & PG_WARN_MAX_TIME, "warnings %#x lack the max-time stop", r->warnings);
    cr_expect_float_eq(r->summary.median, 1e-9, 1e-15);
    pg_run_free(run);
    pg_suite_set_clear(&set);
}
