/*
 * env_test.c - `env:` reaches every process a case starts: a command, a
 * plugin's child, the program `count: blas` counts, and the processes the
 * counting instruments run (memory, instructions under Valgrind); and it is
 * part of the case's key, so a baseline measured with other variables is not
 * compared with.
 */
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
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(env, .init = setup, .fini = teardown, .timeout = 240);

static char *slurp(const char *name)
{
    char *path = pg__asprintf("%s/%s", tmp, name), *text = NULL;

    pg_assert_ok(pg__read_file(&text, NULL, path));
    free(path);
    return text;
}

/* Each line of `text` is `want`, and there is at least one. */
static void every_line_is(const char *text, const char *want)
{
    const char *p = text;
    size_t n = 0, len = strlen(want);

    while (*p) {
        cr_assert(strncmp(p, want, len) == 0 && p[len] == '\n', "'%s' in:\n%s", want, text);
        p += len + 1;
        n++;
    }
    cr_assert_gt(n, 0, "no line at all");
}

/* A CBLAS program whose sgemm is N x N x N, N read from $PG_TEST_N: its counted FLOPs say what it saw. */
static const char sized[] = "#include <cblas.h>\n#include <stdlib.h>\n"
                            "static float a[64 * 64], c[64 * 64];\n"
                            "int main(void) {\n  const char *v = getenv(\"PG_TEST_N\");\n"
                            "  int n = v ? atoi(v) : 1;\n  if (n < 1 || n > 64) return 3;\n"
                            "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, a, n, 0, c, n);\n"
                            "  return 0;\n}\n";

Test(env, every_process_of_a_case_gets_its_variables)
{
    char *out = NULL, *cmd, *prog = pg__asprintf("%s/sized", tmp), *text, *report;
    const char *argv[] = {"run", "--no-store", "--no-roofline", "--json", "r.json", "e.yaml", NULL};
    json_t *o, *r;
    size_t i, seen = 0;
    pg_proc p;

    free(pg_test_write(tmp, "sized.c", sized));
    cmd = pg__asprintf("cc -O1 -o '%s' '%s/sized.c' -lopenblas 2>&1", prog, tmp);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    free(out);
    free(cmd);
    free(pg_test_build_plugin(tmp, "plugin/calls.c", "calls", NULL));
    text = pg__asprintf(
        "suite: e\n"
        "defaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 3, env: {PG_TEST_VAR: from-defaults}}\n"
        "benchmarks:\n"
        "  - {name: cmd, command: [sh, -c, 'echo \"PG_TEST_VAR=$PG_TEST_VAR\" >> cmd.log'], env: {PG_TEST_VAR: own}}\n"
        "  - {name: env, plugin: libcalls.so, params: {log: plugin.log}}\n"
        "  - {name: mem, symbol: env, plugin: libcalls.so, params: {log: mem.log}, instrument: memory,\n"
        "     env: {PG_TEST_VAR: counted}}\n"
        "  - {name: vg, command: [sh, -c, 'echo \"PG_TEST_VAR=$PG_TEST_VAR\" >> vg.log'], instrument: instructions,\n"
        "     env: {PG_TEST_VAR: under-valgrind}}\n"
        "  - {name: blas, command: [\"%s\"], count: blas, env: {PG_TEST_N: \"8\"}}\n",
        prog);
    free(pg_test_write(tmp, "e.yaml", text));
    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    /* The command, every run of it; the plugin's child, with the defaults' value. */
    free(text);
    every_line_is(text = slurp("cmd.log"), "PG_TEST_VAR=own");
    free(text);
    every_line_is(text = slurp("plugin.log"), "PG_TEST_VAR=from-defaults");
    free(text);
    /* The counting instruments' processes: perfgate-meter with the allocation counter, Valgrind. */
    every_line_is(text = slurp("mem.log"), "PG_TEST_VAR=counted");
    free(text);
    every_line_is(text = slurp("vg.log"), "PG_TEST_VAR=under-valgrind");
    free(text);
    /* count: blas: the program saw N=8 (a 8^3 sgemm, 1,024 FLOPs), as it did when timed (exit 0). */
    report = slurp("r.json");
    o = json_loads(report, 0, NULL);
    json_array_foreach(json_object_get(o, "results"), i, r) {
        const char *key = json_string_value(json_object_get(r, "key"));
        cr_assert_str_eq(json_string_value(json_object_get(r, "status")), "ok", "%s: %s", key,
                         json_string_value(json_object_get(r, "message")));
        if (strcmp(key, "e/blas[]{PG_TEST_N=8,PG_TEST_VAR=from-defaults}@1:cpu") == 0) {
            cr_assert_eq(json_number_value(json_object_get(r, "flops")), 2.0 * 8 * 8 * 8);
            seen++;
        }
    }
    cr_assert_eq(seen, 1, "the counted program's case, keyed by its variables and the defaults': %s", report);
    json_decref(o);
    free(report);
    free(prog);
}

Test(env, a_baseline_with_other_variables_is_another_case)
{
    const char *run[] = {"run", "--no-roofline", "--db", "pg.db", "--branch", "main", "a.yaml", NULL};
    const char *gate[] = {"gate", "--no-roofline", "--no-confirm", "--db", "pg.db", "--branch", "main", "--json", "g.json",
                          "b.yaml", NULL};
    char *report;
    json_t *o, *c;
    pg_proc p;

    free(pg_test_write(tmp, "a.yaml", "suite: e\ndefaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 5}\n"
                                      "benchmarks:\n  - {name: t, command: [\"true\"], env: {MODE: a}}\n"));
    free(pg_test_write(tmp, "b.yaml", "suite: e\ndefaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 5}\n"
                                      "benchmarks:\n  - {name: t, command: [\"true\"], env: {MODE: b}}\n"));
    pg_test_run(&p, tmp, NULL, run);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    /* The same benchmark with MODE=b: a new case, nothing to compare it with yet (a pass that says so); the
       MODE=a one is missing from the head. */
    pg_test_run(&p, tmp, NULL, gate);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.err, "1 new case, nothing to compare it with yet") != NULL ||
                  strstr(p.out, "1 new case, nothing to compare it with yet") != NULL,
              "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "MISSING") != NULL, "%s", p.out);
    pg_proc_free(&p);
    report = slurp("g.json");
    o = json_loads(report, 0, NULL);
    c = json_array_get(json_object_get(o, "verdicts"), 0);
    cr_assert_not_null(c, "%s", report);
    json_decref(o);
    cr_assert(strstr(report, "\"e/t[]{MODE=b}@1:cpu\"") != NULL, "%s", report);
    cr_assert(strstr(report, "\"NEW\"") != NULL, "%s", report);
    free(report);
}
