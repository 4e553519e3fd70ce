/*
 * workflows_test.c - the GitHub workflow files are valid YAML with the
 * structure Actions needs: perfgate's reusable workflows (.github/workflows)
 * and the composite action run steps, and every perfgate invocation in them
 * uses a subcommand and flags that exist (checked against `perfgate CMD
 * --help`); perfgate's own callers (ci/github/workflows) call a reusable
 * workflow that exists, with inputs it declares and every input it requires.
 */
#include "support.h"

#include "base/node.h"
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* Returns 0 when every perfgate invocation on the line is valid, else 1 with `why` filled. */
static int check_flags_of_line(const char *file, const char *line, char *why, size_t whylen)
{
    const char *p = line;

    /* Find "perfgate <cmd>" as a word, not part of a path like perfgate-build/. */
    while ((p = strstr(p, "perfgate ")) != NULL) {
        char cmd[64] = "", sub[64] = "", helpcmd[160];
        const char *q = p + 9;
        size_t n = 0;
        pg_proc proc;
        int word_start = p == line || isspace((unsigned char)p[-1]) || p[-1] == '/' || p[-1] == '(';
        p += 9;
        if (!word_start)
            continue;
        while (*q == ' ')
            q++;
        while (n < sizeof(cmd) - 1 && (isalnum((unsigned char)*q) || *q == '-'))
            cmd[n++] = *q++;
        cmd[n] = '\0';
        if (!cmd[0] || cmd[0] == '-')
            continue;
        if (strcmp(cmd, "db") == 0 || strcmp(cmd, "baseline") == 0) {
            while (*q == ' ')
                q++;
            n = 0;
            while (n < sizeof(sub) - 1 && isalpha((unsigned char)*q))
                sub[n++] = *q++;
            sub[n] = '\0';
        }
        {
            const char *argv[] = {cmd, sub[0] ? sub : "--help", sub[0] ? "--help" : NULL, NULL};
            pg_test_run(&proc, NULL, NULL, argv);
        }
        snprintf(helpcmd, sizeof(helpcmd), "perfgate %s %s", cmd, sub);
        if (proc.status != 0) {
            snprintf(why, whylen, "%s: '%s' is not a perfgate command", file, helpcmd);
            pg_proc_free(&proc);
            return 1;
        }
        /* Each --flag up to the end of the invocation must appear in the help. */
        while (*q && *q != '\n' && *q != '|' && *q != ';' && *q != '&') {
            if (q[0] == '-' && q[1] == '-' && isalpha((unsigned char)q[2])) {
                char flag[64];
                size_t k = 0;
                while (k < sizeof(flag) - 1 && (isalnum((unsigned char)*q) || *q == '-'))
                    flag[k++] = *q++;
                flag[k] = '\0';
                if (!strstr(proc.out, flag)) {
                    snprintf(why, whylen, "%s: '%s' has no flag %s", file, helpcmd, flag);
                    pg_proc_free(&proc);
                    return 1;
                }
            } else {
                q++;
            }
        }
        pg_proc_free(&proc);
    }
    return 0;
}

/* Joins shell line continuations, then checks every line. */
static void check_run_script(const char *file, const char *script)
{
    pg_buf b = PG_BUF_INIT;
    const char *s;
    char *joined, *line, *save = NULL;

    for (s = script; *s; s++) {
        if (s[0] == '\\' && s[1] == '\n') {
            s++;
            continue;
        }
        pg__buf_put(&b, s, 1);
    }
    joined = pg__buf_detach(&b);
    for (line = strtok_r(joined, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char why[512];
        cr_assert_eq(check_flags_of_line(file, line, why, sizeof(why)), 0, "%s", why);
    }
    free(joined);
}

static size_t walk(const char *file, const pg_node *n)
{
    size_t i, found = 0;

    if (!n)
        return 0;
    if (n->type == PG_NODE_MAP) {
        for (i = 0; i < n->count; i++) {
            if (n->keys[i]->scalar && strcmp(n->keys[i]->scalar, "run") == 0 && n->items[i]->type == PG_NODE_SCALAR) {
                check_run_script(file, n->items[i]->scalar);
                found += strstr(n->items[i]->scalar, "perfgate ") != NULL;
            }
            found += walk(file, n->items[i]);
        }
        /* A step using the composite action passes `with.args` to `perfgate gate`. */
        {
            const pg_node *uses = pg_node_get(n, "uses"), *args = pg_node_get(pg_node_get(n, "with"), "args");
            if (uses && uses->scalar && strstr(uses->scalar, "ci/github") && args && args->scalar) {
                char *line = pg__asprintf("perfgate gate %s", args->scalar);
                check_run_script(file, line);
                free(line);
                found++;
            }
        }
    } else if (n->type == PG_NODE_SEQ) {
        for (i = 0; i < n->count; i++)
            found += walk(file, n->items[i]);
    }
    return found;
}

/* A job that calls a reusable workflow: it exists, and `with:` gives inputs it declares, every required one. */
static void check_call(const char *path, const char *name, const pg_node *job)
{
    const pg_node *uses = pg_node_get(job, "uses"), *with = pg_node_get(job, "with"), *inputs;
    pg_doc *called = NULL;
    char *file;
    size_t i;

    cr_assert(uses->scalar && strncmp(uses->scalar, "./.github/workflows/", 20) == 0,
              "%s: job %s calls %s, not a reusable workflow of this repository", path, name, uses->scalar);
    file = pg__asprintf("%s/%s", PG_TEST_SOURCE_DIR, uses->scalar + 2);
    cr_assert_eq(pg_doc_load(&called, file, NULL, 0), 0, "%s: job %s: %s", path, name, pg_error_last());
    inputs = pg_node_get(pg_node_get(pg_node_get(pg_doc_root(called), "on"), "workflow_call"), "inputs");
    cr_assert(inputs != NULL, "%s: %s is not a reusable workflow", path, file);
    for (i = 0; with && i < with->count; i++)
        cr_assert(pg_node_get(inputs, with->keys[i]->scalar) != NULL, "%s: job %s: %s declares no input '%s'", path,
                  name, uses->scalar, with->keys[i]->scalar);
    for (i = 0; i < inputs->count; i++) {
        const pg_node *req = pg_node_get(inputs->items[i], "required");
        if (req && pg_node_is(req, "true"))
            cr_assert(pg_node_get(with, inputs->keys[i]->scalar) != NULL, "%s: job %s does not give %s's input '%s'",
                      path, name, uses->scalar, inputs->keys[i]->scalar);
    }
    pg_doc_free(called);
    free(file);
}

static void check_workflow(const char *path)
{
    pg_doc *doc = NULL;
    const pg_node *root, *jobs, *on;
    size_t j;

    cr_assert_eq(pg_doc_load(&doc, path, NULL, 0), 0, "%s", pg_error_last());
    root = pg_doc_root(doc);
    on = pg_node_get(root, "on");
    jobs = pg_node_get(root, "jobs");
    cr_assert(pg_node_get(root, "name") != NULL, "%s: no name", path);
    cr_assert(on != NULL, "%s: no 'on' trigger", path);
    cr_assert(jobs && jobs->type == PG_NODE_MAP && jobs->count > 0, "%s: no jobs", path);
    for (j = 0; j < jobs->count; j++) {
        const pg_node *job = jobs->items[j], *steps = pg_node_get(job, "steps");
        if (pg_node_get(job, "uses")) {
            check_call(path, jobs->keys[j]->scalar, job);
            continue;
        }
        cr_assert(pg_node_get(job, "runs-on") != NULL, "%s: job %s has no runs-on", path, jobs->keys[j]->scalar);
        cr_assert(steps && steps->type == PG_NODE_SEQ && steps->count > 0, "%s: job %s has no steps", path,
                  jobs->keys[j]->scalar);
    }
    walk(path, root);
    pg_doc_free(doc);
}

/* Checks every .yml of `dir`; @return how many. */
static size_t check_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    cr_assert(d != NULL, "%s", dir);
    while ((e = readdir(d)) != NULL) {
        char *path;
        if (!strstr(e->d_name, ".yml"))
            continue;
        path = pg__asprintf("%s/%s", dir, e->d_name);
        check_workflow(path);
        free(path);
        n++;
    }
    closedir(d);
    return n;
}

Test(workflows, every_workflow_is_valid_and_uses_existing_flags)
{
    size_t n = check_dir(PG_TEST_SOURCE_DIR "/ci/github/workflows");

    cr_assert_geq(n, 4, "expected perfgate's PR, post, main and nightly callers, found %zu", n);
    n = check_dir(PG_TEST_SOURCE_DIR "/.github/workflows");
    cr_assert_geq(n, 4, "expected the reusable gate, post, record and nightly workflows, found %zu", n);
}

/*
 * A job of a reusable workflow that declares no permissions holds whatever
 * the calling job grants, so it must run only when the caller opts in: its
 * `if:` names a boolean input that defaults to false. A caller that leaves
 * the input off then need not grant the scopes that job uses.
 */
static void check_inheriting_jobs_are_opt_in(const char *path)
{
    pg_doc *doc = NULL;
    const pg_node *root, *jobs, *inputs;
    size_t j, i;

    cr_assert_eq(pg_doc_load(&doc, path, NULL, 0), 0, "%s", pg_error_last());
    root = pg_doc_root(doc);
    jobs = pg_node_get(root, "jobs");
    inputs = pg_node_get(pg_node_get(pg_node_get(root, "on"), "workflow_call"), "inputs");
    for (j = 0; inputs && !pg_node_get(root, "permissions") && j < jobs->count; j++) {
        const pg_node *cond = pg_node_get(jobs->items[j], "if");
        int opt_in = 0;
        if (pg_node_get(jobs->items[j], "permissions"))
            continue;
        for (i = 0; cond && cond->scalar && i < inputs->count; i++) {
            char *ref = pg__asprintf("inputs.%s", inputs->keys[i]->scalar);
            opt_in |= strstr(cond->scalar, ref) != NULL &&
                      pg_node_is(pg_node_get(inputs->items[i], "type"), "boolean") &&
                      pg_node_is(pg_node_get(inputs->items[i], "default"), "false");
            free(ref);
        }
        cr_assert(opt_in, "%s: job %s declares no permissions (it holds the caller's) but runs without a boolean "
                  "input that defaults to false in its if:", path, jobs->keys[j]->scalar);
    }
    pg_doc_free(doc);
}

Test(workflows, a_reusable_job_holding_the_callers_permissions_is_opt_in)
{
    static const char *const names[] = {"gate", "post", "record", "nightly"};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char *path = pg__asprintf("%s/.github/workflows/%s.yml", PG_TEST_SOURCE_DIR, names[i]);
        check_inheriting_jobs_are_opt_in(path);
        free(path);
    }
}

Test(workflows, composite_action_is_valid_and_uses_existing_flags)
{
    pg_doc *doc = NULL;
    const pg_node *root, *runs;
    const char *path = PG_TEST_SOURCE_DIR "/ci/github/action.yml";

    cr_assert_eq(pg_doc_load(&doc, path, NULL, 0), 0, "%s", pg_error_last());
    root = pg_doc_root(doc);
    runs = pg_node_get(root, "runs");
    cr_assert(pg_node_is(pg_node_get(runs, "using"), "composite"));
    cr_assert(pg_node_get(runs, "steps") != NULL);
    cr_assert_gt(walk(path, root), 0, "the action must run perfgate");
    pg_doc_free(doc);
}

Test(workflows, checker_catches_bad_commands_and_flags)
{
    char why[512];

    cr_assert_eq(check_flags_of_line("x.yml", "perfgate gate --threshold 5% suites/", why, sizeof(why)), 0, "%s", why);
    cr_assert_eq(check_flags_of_line("x.yml", "./build/perfgate db prune --older-than 90d", why, sizeof(why)), 0,
                 "%s", why);
    cr_assert_eq(check_flags_of_line("x.yml", "perfgate gate --thresold 5% suites/", why, sizeof(why)), 1);
    cr_assert(strstr(why, "--thresold") != NULL, "%s", why);
    cr_assert_eq(check_flags_of_line("x.yml", "perfgate gat suites/", why, sizeof(why)), 1);
    cr_assert_eq(check_flags_of_line("x.yml", "echo perfgate-build/ is not a call", why, sizeof(why)), 0);
}
