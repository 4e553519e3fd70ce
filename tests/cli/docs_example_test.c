/* docs_example_test.c - the complete suite in docs/suites.md, copied from the page, validates and runs. */
#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The first ```yaml block after the heading "## A complete suite". */
static char *example_from_docs(void)
{
    char *path = pg__asprintf("%s/docs/suites.md", PG_TEST_SOURCE_DIR), *text = NULL, *start, *end, *yaml;
    size_t len = 0;

    pg_assert_ok(pg__read_file(&text, &len, path));
    start = strstr(text, "## A complete suite");
    cr_assert_not_null(start, "docs/suites.md has no complete suite");
    start = strstr(start, "```yaml\n");
    cr_assert_not_null(start);
    start += strlen("```yaml\n");
    end = strstr(start, "\n```");
    cr_assert_not_null(end);
    yaml = pg__asprintf("%.*s\n", (int)(end - start), start);
    free(text);
    free(path);
    return yaml;
}

Test(docs_example, the_complete_suite_of_docs_suites_md_runs, .timeout = 240)
{
    char *tmp = pg_test_tmpdir(), *yaml = example_from_docs(), *build = pg__asprintf("%s/build", tmp);
    char *traces = pg__asprintf("%s/traces", tmp), *out = NULL, *cmd, *suite, *bench, *lib, *report;
    char *real_build = pg_test_build_dir(), *env_build = pg__asprintf("PERFGATE_BUILD=%s", real_build);
    /* {build}: the build tree, where examples/blas-count/blas_prog is (the program the count: blas entries run). */
    const char *env[] = {env_build, NULL};
    const char *val[] = {"validate", "example.yaml", NULL};
    const char *run[] = {"run", "--no-store", "--quick", "--json", "report.json", "example.yaml", NULL};
    json_t *root, *v;
    json_error_t jerr;
    size_t i, ok = 0, skipped = 0, checks = 0;
    pg_proc p;

    /* What the example names beside itself: a recorded torch step, a command and a plugin library. */
    cr_assert_eq(mkdir(build, 0755), 0);
    cr_assert_eq(mkdir(traces, 0755), 0);
    cmd = pg__asprintf("cp '%s/traces/lab_step_sched.json' '%s/train_step.json'", PG_TEST_DATA_DIR, traces);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    free(out);
    free(cmd);
    bench = pg_test_write(build, "copy_bench", "#!/bin/sh\necho '{\"time\": 0.01, \"bytes\": 65536}'\n");
    cr_assert_eq(chmod(bench, 0755), 0);
    lib = pg_test_build_plugin(build, "plugin/mybench.c", "mybench", NULL);
    suite = pg_test_write(tmp, "example.yaml", yaml);

    pg_test_run(&p, tmp, env, val);
    cr_assert_eq(p.status, 0, "the documented suite is valid: %s", p.err);
    pg_proc_free(&p);

    pg_test_run(&p, tmp, env, run);
    cr_assert_eq(p.status, 0, "the documented suite runs: %d\n%s\n%s", p.status, p.out, p.err);
    pg_proc_free(&p);
    report = pg__asprintf("%s/report.json", tmp);
    root = json_load_file(report, 0, &jerr);
    cr_assert_not_null(root, "%s", jerr.text);
    json_array_foreach(json_object_get(root, "checks"), i, v) {
        cr_assert(json_is_true(json_object_get(v, "passed")), "check %s: %s",
                  json_string_value(json_object_get(v, "name")), json_string_value(json_object_get(v, "message")));
        checks++;
    }
    cr_assert_eq(checks, 5, "flops, ops from a workload, ops from a trace, flops of a program, schedule");
    json_array_foreach(json_object_get(root, "results"), i, v) {
        const char *status = json_string_value(json_object_get(v, "status"));
        const char *key = json_string_value(json_object_get(v, "key"));
        if (strcmp(status, "skipped") == 0) {
            cr_assert(strstr(key, "plugin_copy_gpu") != NULL, "only the GPU case may skip: %s", key);
            skipped++;
        } else {
            cr_assert_str_eq(status, "ok", "%s", key);
            /* count: blas counted the program's calls: 20 passes of 727,824 FLOPs. */
            if (strncmp(key, "example/prog[", 13) == 0)
                cr_assert_eq(json_number_value(json_object_get(v, "flops")), 20.0 * 727824, "%s", key);
            ok++;
        }
    }
    /* sgemm 2 sizes x 2 thread counts, shapes 4 (m and n zipped, k crossed), copy 2, the counted program 1,
       plugin 1, the GPU one. */
    cr_assert_eq(ok, 12, "%zu ok", ok);
    cr_assert(skipped <= 1);
    json_decref(root);
    pg_test_rmtree(tmp);
    free(tmp);
    free(yaml);
    free(build);
    free(traces);
    free(bench);
    free(lib);
    free(suite);
    free(report);
    free(real_build);
    free(env_build);
}
