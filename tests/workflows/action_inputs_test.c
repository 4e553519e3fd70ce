/*
 * action_inputs_test.c - the composite action's `db` and `instrument` inputs
 * say what ci/gh/pr-gate.sh does with them, shown by running the script with
 * the real perfgate: interleaved, the instrument reaches the gate and the
 * database is never touched; history, the database's folder is made and the
 * run stored in it.
 */
#include "compile.h"
#include "support.h"

#include "base/node.h"
#include "base/util.h"

#include "perfgate/errors.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

TestSuite(action_inputs, .init = setup, .fini = teardown, .timeout = 240);

/* The description of input `name` in ci/github/action.yml. */
static char *input_text(const char *name)
{
    char *path = pg__asprintf("%s/ci/github/action.yml", PG_TEST_SOURCE_DIR), *text;
    pg_doc *doc = NULL;
    const pg_node *d;

    cr_assert_eq(pg_doc_load(&doc, path, NULL, 0), 0, "%s", pg_error_last());
    d = pg_node_get(pg_node_get(pg_node_get(pg_doc_root(doc), "inputs"), name), "description");
    cr_assert(d && d->scalar, "action.yml has no input '%s'", name);
    text = pg__strdup(d->scalar);
    pg_doc_free(doc);
    free(path);
    return text;
}

/* Runs pr-gate.sh ARGS in tmp with the real perfgate and `env` (shell assignments); its exit code. */
static int pr_gate(char **out, const char *env, const char *args)
{
    char *cmd = pg__asprintf("cd '%s' && env PERFGATE='%s' PERFGATE_REPORT=r.json %s bash '%s/ci/gh/pr-gate.sh' %s 2>&1",
                             tmp, PG_TEST_BINARY, env, PG_TEST_SOURCE_DIR, args);
    int rc = pg_test_sh(out, cmd);

    free(cmd);
    return rc;
}

Test(action_inputs, interleaved_passes_the_instrument_and_never_touches_the_db)
{
    char *text = input_text("instrument"), *db = input_text("db"), *out = NULL, *base, *head;
    struct stat st;
    int rc;

    cr_assert(strstr(text, "interleaved: each build is counted once") != NULL, "%s", text);
    cr_assert(strstr(db, "interleaved: not used") != NULL, "%s", db);
    base = pg__asprintf("%s/base", tmp);
    head = pg__asprintf("%s/head", tmp);
    cr_assert_eq(mkdir(base, 0755), 0);
    cr_assert_eq(mkdir(head, 0755), 0);
    free(pg_test_build_plugin(base, "plugin/calls.c", "calls", NULL));
    free(pg_test_build_plugin(head, "plugin/calls.c", "calls", NULL));
    free(pg_test_write(tmp, "s.yaml", "suite: s\ndefaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 5}\n"
                                      "benchmarks:\n  - {name: loop, plugin: \"{build}/libcalls.so\", params: {n: 100}}\n"));
    /* The instrument reaches an interleaved gate: time with a count is refused there, as the input says. */
    rc = pr_gate(&out, "PERFGATE_INSTRUMENT=time,instructions PERFGATE_DB=db/pg.db",
                 "interleaved base head s.yaml");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--instrument time,instructions") != NULL, "%s", out);
    cr_assert(strstr(out, "time is interleaved and counts are not") != NULL, "%s", out);
    free(out);
    /* A whole interleaved gate: the database the action names is neither created nor written. */
    rc = pr_gate(&out, "PERFGATE_DB=db/pg.db PERFGATE_ARGS='--rounds 2 --fixed-rounds'", "interleaved base head s.yaml");
    cr_assert(rc == 0 || rc == 4, "%d: %s", rc, out);
    cr_assert(strstr(out, "--no-store") != NULL, "%s", out);
    free(out);
    free(text);
    text = pg__asprintf("%s/db", tmp);
    cr_assert_neq(stat(text, &st), 0, "interleaved made the db folder");
    free(text);
    free(db);
    free(base);
    free(head);
}

Test(action_inputs, history_makes_the_db_folder_and_stores_the_run)
{
    char *text = input_text("db"), *out = NULL, *count = NULL, *cmd;
    int rc;

    cr_assert(strstr(text, "history: the database the baseline is read from and the head's run stored in") != NULL,
              "%s", text);
    cr_assert(strstr(text, "a missing folder is created") != NULL, "%s", text);
    free(pg_test_write(tmp, "s.yaml", "suite: s\ndefaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 5}\n"
                                      "benchmarks:\n  - {name: add, kernel: add, params: {n: 1024}}\n"));
    rc = pr_gate(&out, "PERFGATE_ROOFLINE=off", "history cache/main/pg.db s.yaml");
    cr_assert_eq(rc, 4, "a first run compares nothing: %s", out);
    cmd = pg__asprintf("sqlite3 '%s/cache/main/pg.db' 'SELECT COUNT(*) FROM runs'", tmp);
    cr_assert_eq(pg_test_sh(&count, cmd), 0, "%s", count);
    cr_assert_str_eq(count, "1\n");
    free(count);
    free(cmd);
    free(out);
    free(text);
}
