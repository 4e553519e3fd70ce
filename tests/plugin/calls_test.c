/* calls_test.c - how the runner calls a plugin, as the plugin itself writes it down (tests/data/plugin/calls.c):
   the loop form once per case however many blocks it is measured in, the callback form's setup and teardown
   once around many iterate calls; and the MFU of a plugin that counts its FLOPs with pg_flops(). */
#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;

static void setup(void)
{
    tmp = pg_test_tmpdir();
    free(pg_test_build_plugin(tmp, "plugin/calls.c", "calls", NULL));
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(plugin_calls, .init = setup, .fini = teardown);

static const char suite[] = "suite: calls\n"
                            "defaults: {min_run_time: 0.05s, warmup: 10ms, min_samples: 20}\n"
                            "benchmarks:\n"
                            "  - {name: loop, plugin: libcalls.so, params: {log: calls.log, n: [1000, 2000]}}\n"
                            "  - {name: cb, plugin: libcalls.so, params: {log: calls.log}}\n";

/* Runs `perfgate run ARGS... calls.yaml --json r.json` in tmp and returns the report (caller decrefs). */
static json_t *run(const char *const *env, const char *const *args)
{
    const char *argv[16] = {"run", "--json", "r.json"};
    char *path = pg__asprintf("%s/r.json", tmp), *doc = NULL;
    size_t n = 3, i;
    json_t *o;
    pg_proc p;

    free(pg_test_write(tmp, "calls.yaml", suite));
    for (i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n] = "calls.yaml";
    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    pg_assert_ok(pg__read_file(&doc, NULL, path));
    o = json_loads(doc, 0, NULL);
    cr_assert_not_null(o);
    free(doc);
    free(path);
    return o;
}

static json_t *result(json_t *o, const char *key_part)
{
    json_t *r;
    size_t i;

    json_array_foreach(json_object_get(o, "results"), i, r)
        if (strstr(json_string_value(json_object_get(r, "key")), key_part))
            return r;
    cr_assert_fail("no result %s", key_part);
    return NULL;
}

Test(plugin_calls, the_loop_form_is_called_once_per_case_and_the_callbacks_once_around_the_blocks, .timeout = 120)
{
    const char *args[] = {"--no-store", NULL};
    char *log = NULL, *path = pg__asprintf("%s/calls.log", tmp), *line;
    json_t *o = run(NULL, args);
    long calls = 0;

    cr_assert_geq(json_integer_value(json_object_get(json_object_get(result(o, "n=1000]"), "summary"), "n")),
                  20, "many blocks were measured");
    pg_assert_ok(pg__read_file(&log, NULL, path));
    /* Two loop cases, each called once (warm-up, block sizing and samples included), then the callback form. */
    cr_assert_eq(strncmp(log, "loop\nend\nloop\nend\nsetup\nteardown iterate-calls=", 47), 0, "%s", log);
    line = strstr(log, "iterate-calls=");
    calls = strtol(line + strlen("iterate-calls="), NULL, 10);
    cr_assert_geq(calls, 20, "iterate ran once per block: %ld", calls);
    cr_assert_eq(strchr(line, '\n')[1], '\0', "nothing else: %s", log);
    free(log);
    free(path);
    json_decref(o);
}

Test(plugin_calls, a_plugin_that_counts_its_flops_gets_mfu_when_a_peak_is_known, .timeout = 120)
{
    const char *none[] = {"--no-store", NULL};
    const char *given[] = {"--no-store", "--peak-gflops", "1000", NULL};
    json_t *o, *r;
    double flops, median, mfu;

    /* No peak known (no roofs, none given): no MFU is made up. */
    o = run(NULL, none);
    cr_assert(json_is_null(json_object_get(result(o, "n=1000]"), "mfu")));
    json_decref(o);
    /* --peak-gflops: MFU = FLOPs per iteration / median / peak. */
    o = run(NULL, given);
    r = result(o, "n=2000]");
    flops = json_number_value(json_object_get(r, "flops"));
    median = json_number_value(json_object_get(json_object_get(r, "summary"), "median"));
    mfu = json_number_value(json_object_get(r, "mfu"));
    cr_assert_float_eq(flops, 4000.0, 1e-9, "pg_flops(2*n)");
    cr_assert_float_eq(mfu, flops / median / 1000e9, 1e-9 * mfu);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "extra"), "mfu_ceiling_source")),
                     "--peak-gflops");
    cr_assert(json_is_null(json_object_get(result(o, "cb"), "mfu")), "cb counts no FLOPs");
    json_decref(o);
}

Test(plugin_calls, the_machines_roofs_give_a_plugin_its_mfu, .timeout = 300)
{
    char *db = pg__asprintf("%s/pg.db", tmp);
    const char *env[] = {"PERFGATE_ROOFLINE=on", NULL};
    const char *args[] = {"--db", db, NULL};
    json_t *o, *r, *roof;
    double peak;

    o = run(env, args);
    r = result(o, "n=1000]");
    roof = json_object_get(
        json_object_get(json_object_get(json_object_get(json_object_get(o, "machine"), "fingerprint"), "roofline"),
                        "cpu"),
        "1");
    peak = json_number_value(json_object_get(roof, "peak_gflops"));
    cr_assert_gt(peak, 0);
    cr_assert_float_eq(json_number_value(json_object_get(r, "mfu")),
                       json_number_value(json_object_get(r, "flops")) /
                           json_number_value(json_object_get(json_object_get(r, "summary"), "median")) / (peak * 1e9),
                       1e-9);
    cr_assert(strstr(json_string_value(json_object_get(json_object_get(r, "extra"), "mfu_ceiling_source")),
                     "the run's roofline") != NULL);
    json_decref(o);
    free(db);
}
