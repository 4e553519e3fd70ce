/*
 * modes_cli_test.c - runs measured differently never pool, through the
 * binary: a plain run on main, an interleaved gate stored on main whose
 * rounds see the unchanged case 20% faster (as short rounds on a warm
 * machine do), then `report` of the interleaved run (its verdicts and the
 * base build that was measured), and a plain gate on main against the
 * newest run of main: the interleaved rounds are left out and said to be,
 * so the unchanged case is not REGRESSED. Reported times make it exact.
 */
#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmp, *db, *suite, *plain, *base, *head;

/* A build directory whose case reports `seconds`. */
static char *build(const char *name, const char *seconds)
{
    char *dir = pg__asprintf("%s/%s", tmp, name), *path;

    cr_assert(mkdir(dir, 0755) == 0);
    path = pg_test_write(dir, "a.sh", "#!/bin/sh\necho \"{\\\"time\\\": $(cat \"$(dirname \"$0\")/a.t\")}\"\n");
    cr_assert(chmod(path, 0755) == 0);
    free(path);
    free(pg_test_write(dir, "a.t", seconds));
    return dir;
}

static void setup(void)
{
    tmp = pg_test_tmpdir();
    db = pg__asprintf("%s/pg.db", tmp);
    suite = pg_test_write(tmp, "m.yaml",
                          "suite: m\n"
                          "defaults: {warmup: 1ms, min_samples: 8, min_run_time: 10ms}\n"
                          "benchmarks:\n"
                          "  - {name: a, command: ['{build}/a.sh'], metrics: json}\n");
    plain = build("plain", "0.010");
    base = build("base", "0.008");
    head = build("head", "0.008");
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(suite);
    free(plain);
    free(base);
    free(head);
}

TestSuite(modes_cli, .init = setup, .fini = teardown, .timeout = 240);

static pg_proc run(const char *const *argv, int status)
{
    const char *env[] = {NULL, NULL};
    char *build_env = pg__asprintf("PERFGATE_BUILD=%s", plain);
    pg_proc p;

    env[0] = build_env;
    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, status, "%s exited %d, not %d\n%s\n%s", argv[0], p.status, status, p.out, p.err);
    free(build_env);
    return p;
}

Test(modes_cli, an_interleaved_run_shows_its_base_build_and_is_never_pooled)
{
    const char *first[] = {"run", "--db", db, "--branch", "main", "--commit", "c1c1c1c1", suite, NULL};
    const char *ab[] = {"gate", "--db", db, "--branch", "main", "--commit", "c2c2c2c2", "--base-build", base,
                        "--head-build", head, "--rounds", "6", "--fixed-rounds", suite, NULL};
    const char *again[] = {"gate", "--db", db, "--branch", "main", "--commit", "c3c3c3c3", "--threshold", "10%",
                           "--base", "branch:main", suite, NULL};
    const char *rep[] = {"report", "--db", db, "--format", "json", "3", NULL};
    const char *md[] = {"report", "--db", db, "3", NULL};
    const char *refused[] = {"compare", "--db", db, "--head", "4", "--base", "2", NULL};
    const char *hist[] = {"history", "--db", db, NULL};
    pg_proc p;
    json_t *r, *b;
    char *want = NULL;

    p = run(first, 0);
    pg_proc_free(&p);
    /* Both builds the same code: every round 1x, SAME, stored as two runs of their own. */
    p = run(ab, 0);
    cr_assert(strstr(p.out, "baseline: build ") != NULL && strstr(p.out, "(sha256 ") != NULL, "%s", p.out);
    pg_proc_free(&p);

    /* report: the interleaved verdicts against the base build, named by path and content. */
    p = run(rep, 0);
    r = json_loads(p.out, 0, NULL);
    cr_assert(r != NULL, "%s", p.out);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "run"), "mode")), "interleaved-head");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "summary"), "outcome")), "PASS");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(r, "verdicts"), 0), "verdict")),
                     "SAME");
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(r, "verdicts"), 0), "rounds")), 6);
    b = json_object_get(r, "baseline");
    cr_assert_str_eq(json_string_value(json_object_get(b, "mode")), "interleaved-base");
    cr_assert_eq(json_integer_value(json_object_get(b, "id")), 2, "the base side is stored as run 2");
    b = json_object_get(b, "build");
    {
        /* The digest of the files the build gave the cases, as `sha256sum` lists them: checked by sha256sum. */
        char *cmd = pg__asprintf("cd '%s' && sha256sum a.sh | sha256sum | cut -c1-64", base), *out = NULL;
        cr_assert_eq(pg_test_sh(&out, cmd), 0);
        out[strcspn(out, "\n")] = '\0';
        cr_assert_str_eq(json_string_value(json_object_get(b, "sha256")), out);
        want = pg__asprintf("%s", json_string_value(json_object_get(b, "path")));
        free(out);
        free(cmd);
    }
    json_decref(r);
    pg_proc_free(&p);
    p = run(md, 0);
    cr_assert(strstr(p.out, "vs base build `") != NULL && strstr(p.out, "(interleaved rounds, paired)") != NULL, "%s",
              p.out);
    cr_assert(strstr(p.out, "### perfgate: PASS") != NULL, "%s", p.out);
    pg_proc_free(&p);
    cr_assert(strstr(want, "/base") != NULL, "%s", want);
    free(want);

    /*
     * A plain gate on main against the newest run of main. The newest is the
     * interleaved head (its rounds saw the case at 8 ms); pooled, the
     * unchanged 10 ms would be +25% REGRESSED. It is left out, and said to be.
     */
    p = run(again, 0);
    cr_assert(strstr(p.out, "0 regressions, 0 improvements, 1 unchanged") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "baseline: run 1 (main @ c1c1c1c1") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "left out 1 run of branch:main measured otherwise (interleaved-head), which does not "
                            "pool with this plain run") != NULL,
              "%s", p.out);
    pg_proc_free(&p);
    /* Named by id, a run measured otherwise is refused, with the reason. */
    pg_test_run(&p, tmp, NULL, refused);
    cr_assert_eq(p.status, 2, "%d %s", p.status, p.err);
    cr_assert(strstr(p.err, "was measured as interleaved-base and this run as plain") != NULL, "%s", p.err);
    pg_proc_free(&p);
    /* History follows the plain runs only. */
    p = run(hist, 0);
    cr_assert(strstr(p.out, "c1c1c1c1") && strstr(p.out, "c3c3c3c3") && !strstr(p.out, "c2c2c2c2"), "%s", p.out);
    pg_proc_free(&p);
}

Test(modes_cli, a_base_side_error_shows_its_cause_as_a_head_side_one_does)
{
    const char *ab[] = {"gate", "--no-store", "--base-build", base, "--head-build", head, "--rounds", "6", suite, NULL};
    pg_proc p;
    char *path = pg_test_write(base, "a.sh", "#!/bin/sh\necho 'the base build broke' >&2\nexit 7\n");

    free(path);
    pg_test_run(&p, tmp, NULL, ab);
    /* A case the base build could not measure is an ERROR of the gate, never a pass, and says why. */
    cr_assert_eq(p.status, 3, "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.err, "m/a[]@1:cpu  ERROR on the base build: command ") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "exited with status 7") != NULL && strstr(p.err, "the base build broke") != NULL, "%s",
              p.err);
    cr_assert(strstr(p.out, "perfgate: ERROR — 1 case could not be measured, so nothing vouches for it: m/a[]@1:cpu: "
                            "base build: command ") != NULL,
              "%s", p.out);
    pg_proc_free(&p);
}
