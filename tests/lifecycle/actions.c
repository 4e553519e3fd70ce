/*
 * actions.c - the Actions emulator's runs, jobs and steps (actions.h): a
 * workflow's jobs in order, a job that calls a reusable workflow resolved
 * to that workflow (its inputs checked against what it declares, its jobs'
 * permissions against what the caller grants), and each step: an action
 * (actions_uses.c) or a `run:` script with bash.
 */
#include "actions_internal.h"

#include "compile.h"
#include "support.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- maps ----------------------------------------------------------------- */

void gha_map_set(gha_map *m, const char *key, const char *val)
{
    gha_kv *grown;
    size_t i;

    for (i = 0; i < m->n; i++)
        if (strcmp(m->items[i].key, key) == 0) {
            free(m->items[i].val);
            m->items[i].val = pg__strdup(val);
            return;
        }
    grown = realloc(m->items, (m->n + 1) * sizeof(*grown));
    cr_assert(grown != NULL);
    m->items = grown;
    m->items[m->n].key = pg__strdup(key);
    m->items[m->n++].val = pg__strdup(val);
}

const char *gha_map_get(const gha_map *m, const char *key)
{
    size_t i;

    for (i = 0; m && i < m->n; i++)
        if (strcmp(m->items[i].key, key) == 0)
            return m->items[i].val;
    return NULL;
}

void gha_map_clear(gha_map *m)
{
    size_t i;

    for (i = 0; i < m->n; i++) {
        free(m->items[i].key);
        free(m->items[i].val);
    }
    free(m->items);
    m->items = NULL;
    m->n = 0;
}

int gha_fail(gha_job *j, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!j->error)
        j->error = pg__strdup(msg);
    return -1;
}

/* ---- the GitHub of a test ------------------------------------------------- */

gha *gha_new(const char *dir, fakegh *api, const char *token)
{
    gha *g = calloc(1, sizeof(*g));
    int k;

    cr_assert(g != NULL);
    g->dir = pg__strdup(dir);
    g->api = api;
    g->token = pg__strdup(token);
    g->next_run = 1001;
    for (k = 0; k < 2; k++) {
        g->runner[k] = pg__asprintf("%s/%s", dir, k ? "self-hosted-runner" : "hosted-runner");
        g->temp[k] = pg__asprintf("%s/work/_temp", g->runner[k]);
        free(lc_sh_ok("mkdir -p '%s' '%s/home'", g->temp[k], g->runner[k]));
    }
    return g;
}

void gha_free(gha *g)
{
    size_t i;
    int k;

    if (!g)
        return;
    for (i = 0; i < g->nrepos; i++) {
        free(g->repos[i].name);
        free(g->repos[i].git);
        free(g->repos[i].ref);
        free(g->repos[i].tree);
    }
    for (i = 0; i < g->ncache; i++) {
        free(g->cache[i].key);
        free(g->cache[i].paths);
        free(g->cache[i].scope);
        free(g->cache[i].dir);
    }
    free(g->cache);
    for (i = 0; i < g->nartifacts; i++) {
        free(g->artifacts[i].name);
        free(g->artifacts[i].dir);
    }
    free(g->artifacts);
    gha_map_clear(&g->vars);
    for (k = 0; k < 2; k++) {
        free(g->runner[k]);
        free(g->temp[k]);
    }
    free(g->dir);
    free(g->token);
    free(g);
}

static void add_repo(gha *g, const char *name, const char *git, const char *ref, const char *tree)
{
    gha_repo *r;

    cr_assert(g->nrepos < sizeof(g->repos) / sizeof(g->repos[0]));
    r = &g->repos[g->nrepos++];
    r->name = pg__strdup(name);
    r->git = pg__strdup(git);
    r->ref = pg__strdup(ref);
    r->tree = pg__strdup(tree);
}

void gha_add_repo(gha *g, const char *full_name, const char *git_dir)
{
    add_repo(g, full_name, git_dir, NULL, NULL);
}

void gha_add_tree(gha *g, const char *full_name, const char *ref, const char *tree_dir)
{
    add_repo(g, full_name, NULL, ref, tree_dir);
}

void gha_set_var(gha *g, const char *name, const char *value)
{
    gha_map_set(&g->vars, name, value);
}

const char *gha_runner_temp(gha *g, int self_hosted)
{
    return g->temp[self_hosted ? 1 : 0];
}

/* ---- a job's environment -------------------------------------------------- */

const char *gha_ref_name(const char *ref)
{
    if (strncmp(ref, "refs/heads/", 11) == 0 || strncmp(ref, "refs/tags/", 10) == 0)
        return strchr(ref + 5, '/') + 1;
    if (strncmp(ref, "refs/pull/", 10) == 0)
        return ref + 10;
    return ref;
}

/* What every step of the job gets from the runner and from Actions. */
static void runner_env(gha_job *j, const char *workflow, const char *job)
{
    lc_env *e = &j->env;
    const gha_event *ev = j->ev;
    char *owner = pg__strdup(ev->repository);

    owner[strcspn(owner, "/")] = '\0';
    lc_env_base(e, j->home);
    lc_env_set(e, "CI", "true");
    lc_env_set(e, "GITHUB_ACTIONS", "true");
    lc_env_set(e, "GITHUB_WORKSPACE", "%s", j->workspace);
    lc_env_set(e, "GITHUB_REPOSITORY", "%s", ev->repository);
    lc_env_set(e, "GITHUB_REPOSITORY_OWNER", "%s", owner);
    lc_env_set(e, "GITHUB_EVENT_NAME", "%s", ev->name);
    lc_env_set(e, "GITHUB_EVENT_PATH", "%s/_github_workflow/event.json", j->temp);
    lc_env_set(e, "GITHUB_SHA", "%s", ev->sha);
    lc_env_set(e, "GITHUB_REF", "%s", ev->ref);
    lc_env_set(e, "GITHUB_REF_NAME", "%s", gha_ref_name(ev->ref));
    lc_env_set(e, "GITHUB_HEAD_REF", "%s", ev->head_ref ? ev->head_ref : "");
    lc_env_set(e, "GITHUB_BASE_REF", "%s", ev->base_ref ? ev->base_ref : "");
    lc_env_set(e, "GITHUB_RUN_ID", "%ld", j->run_id);
    lc_env_set(e, "GITHUB_RUN_NUMBER", "%ld", j->run_id - 1000);
    lc_env_set(e, "GITHUB_RUN_ATTEMPT", "1");
    lc_env_set(e, "GITHUB_ACTOR", "%s", owner);
    lc_env_set(e, "GITHUB_WORKFLOW", "%s", workflow);
    lc_env_set(e, "GITHUB_JOB", "%s", job);
    lc_env_set(e, "GITHUB_SERVER_URL", "https://github.com");
    lc_env_set(e, "GITHUB_API_URL", "%s", fakegh_url(j->g->api));
    lc_env_set(e, "GITHUB_GRAPHQL_URL", "%s/graphql", fakegh_url(j->g->api));
    lc_env_set(e, "RUNNER_OS", "Linux");
    lc_env_set(e, "RUNNER_ARCH", "X64");
    lc_env_set(e, "RUNNER_TEMP", "%s", j->temp);
    lc_env_set(e, "RUNNER_NAME", "%s", j->self_hosted ? "gpu-box-1" : "GitHub Actions 1");
    if (!j->self_hosted) {
        lc_env_set(e, "ImageOS", "ubuntu24");
        lc_env_set(e, "ImageVersion", "20250601.1.0");
    }
    lc_env_set(e, "GITHUB_ENV", "%s/_runner_file_commands/env", j->temp);
    lc_env_set(e, "GITHUB_PATH", "%s/_runner_file_commands/path", j->temp);
    lc_env_set(e, "GITHUB_OUTPUT", "%s/_runner_file_commands/output", j->temp);
    lc_env_set(e, "GITHUB_STEP_SUMMARY", "%s/_runner_file_commands/step_summary", j->temp);
    free(owner);
}

/* A fresh workspace and RUNNER_TEMP (and $HOME on a hosted runner) at the runner's fixed paths. */
static void prepare_runner(gha_job *j, const char *payload)
{
    const char *repo = strchr(j->ev->repository, '/') ? strchr(j->ev->repository, '/') + 1 : j->ev->repository;
    const char *root = j->g->runner[j->self_hosted];

    j->workspace = pg__asprintf("%s/work/%s/%s", root, repo, repo);
    j->temp = pg__strdup(j->g->temp[j->self_hosted]);
    j->home = pg__asprintf("%s/home", root);
    free(lc_sh_ok("rm -rf '%s' '%s' && mkdir -p '%s' '%s/_runner_file_commands' '%s/_github_workflow'",
                  j->workspace, j->temp, j->workspace, j->temp, j->temp));
    /* A hosted runner's $HOME is new for every job; a machine of one's own keeps it. */
    if (!j->self_hosted)
        free(lc_sh_ok("rm -rf '%s'", j->home));
    free(lc_sh_ok("mkdir -p '%s'", j->home));
    {
        char *dir = pg__asprintf("%s/_github_workflow", j->temp);
        free(pg_test_write(dir, "event.json", payload));
        free(dir);
    }
}

char *gha_runner_sh(gha *g, int self_hosted, const char *cmd)
{
    gha_event ev = {"workflow_dispatch", "{}", "acme/scratch", "0000000000000000000000000000000000000000",
                    "refs/heads/main", NULL, NULL, NULL, "main"};
    gha_job j;
    char *out = NULL;
    int rc, i;
    pg_buf line = PG_BUF_INIT;

    memset(&j, 0, sizeof(j));
    j.g = g;
    j.ev = &ev;
    j.self_hosted = self_hosted;
    j.run_id = 1000;
    prepare_runner(&j, "{}");
    runner_env(&j, "scratch", "scratch");
    /* env(1) with exactly the job's environment. */
    pg__buf_printf(&line, "cd '%s' && env -i", j.workspace);
    for (i = 0; i < j.env.n; i++) {
        char *q = pg__asprintf(" '%s'", j.env.v[i]);
        pg__buf_puts(&line, q);
        free(q);
    }
    pg__buf_printf(&line, " bash -c '%s'", cmd);
    rc = pg_test_sh(&out, line.ptr);
    cr_assert_eq(rc, 0, "%s\n%s", cmd, out);
    pg__buf_clear(&line);
    lc_env_free(&j.env);
    free(j.workspace);
    free(j.temp);
    free(j.home);
    return out;
}

/* ---- run: steps ----------------------------------------------------------- */

/* The contents of the file command `var` names (caller frees; NULL when empty), which it then empties. */
static char *take_file_command(gha_job *j, const char *var)
{
    const char *path = lc_env_get(&j->env, var);
    char *text = NULL;
    size_t len = 0;

    if (pg__read_file(&text, &len, path) != 0 || len == 0) {
        free(text);
        return NULL;
    }
    cr_assert(truncate(path, 0) == 0, "%s", path);
    return text;
}

/* GITHUB_OUTPUT or GITHUB_ENV: NAME=value lines and NAME<<DELIM blocks. */
static void read_file_command(gha_job *j, const char *var, gha_map *into)
{
    char *text = take_file_command(j, var), *p, *save = NULL;

    for (p = text ? strtok_r(text, "\n", &save) : NULL; p; p = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(p, '='), *heredoc = strstr(p, "<<");
        if (heredoc && (!eq || heredoc < eq)) {
            pg_buf v = PG_BUF_INIT;
            char *delim = heredoc + 2, *l;
            *heredoc = '\0';
            while ((l = strtok_r(NULL, "\n", &save)) != NULL && strcmp(l, delim) != 0)
                pg__buf_printf(&v, "%s%s", v.len ? "\n" : "", l);
            gha_map_set(into, p, v.ptr ? v.ptr : "");
            pg__buf_clear(&v);
        } else if (eq) {
            *eq = '\0';
            gha_map_set(into, p, eq + 1);
        }
    }
    free(text);
}

/* GITHUB_PATH: one directory a line; later additions go first, as on a runner. */
static void read_path_command(gha_job *j)
{
    char *text = take_file_command(j, "GITHUB_PATH"), *p, *save = NULL;

    for (p = text ? strtok_r(text, "\n", &save) : NULL; p; p = strtok_r(NULL, "\n", &save)) {
        pg_buf b = PG_BUF_INIT;
        pg__buf_printf(&b, "%s:%s", p, j->path_prefix.ptr ? j->path_prefix.ptr : "");
        pg__buf_clear(&j->path_prefix);
        j->path_prefix = b;
    }
    free(text);
}

/* Runs `script` with bash as Actions does (bash --noprofile --norc -eo pipefail) in `cwd` with `env`. */
static int run_script(gha_job *j, const char *script, const lc_env *env, const char *cwd)
{
    char *file = pg__asprintf("%s/step.sh", j->temp), *logpath = pg__asprintf("%s/step.log", j->temp);
    char *text = NULL;
    size_t len = 0;
    int status = 0, fd;
    pid_t pid;

    free(pg_test_write(j->temp, "step.sh", script));
    fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    cr_assert(fd >= 0);
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        const char *argv[] = {"bash", "--noprofile", "--norc", "-eo", "pipefail", file, NULL};
        dup2(fd, 1);
        dup2(fd, 2);
        if (chdir(cwd) != 0)
            _exit(127);
        execve("/bin/bash", (char *const *)argv, (char *const *)env->v);
        _exit(127);
    }
    close(fd);
    waitpid(pid, &status, 0);
    if (pg__read_file(&text, &len, logpath) == 0 && text)
        pg__buf_puts(j->log, text);
    pg_test_assert_no_sanitizer(WIFEXITED(status) ? WEXITSTATUS(status) : 128, text ? text : "", script);
    free(text);
    free(file);
    free(logpath);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* Adds an env: mapping, expanded, to `e`. */
static int add_env(gha_job *j, lc_env *e, const pg_node *env)
{
    size_t i;

    for (i = 0; env && env->type == PG_NODE_MAP && i < env->count; i++) {
        char *v = NULL;
        if (gha_expand(&v, j, env->items[i]->scalar ? env->items[i]->scalar : "") != 0)
            return -1;
        lc_env_set(e, env->keys[i]->scalar, "%s", v);
        free(v);
    }
    return 0;
}

static int run_step(gha_job *j, const pg_node *step, const pg_node *wf_env, const pg_node *job_env)
{
    const pg_node *dir = pg_node_get(step, "working-directory");
    lc_env e = {0};
    char *script = NULL, *cwd = NULL;
    size_t i;
    int rc = -1;

    for (i = 0; i < (size_t)j->env.n; i++) {
        char *key = pg__strdup(j->env.v[i]);
        char *eq = strchr(key, '=');
        *eq = '\0';
        lc_env_set(&e, key, "%s", eq + 1);
        free(key);
    }
    for (i = 0; i < j->env_file.n; i++)
        lc_env_set(&e, j->env_file.items[i].key, "%s", j->env_file.items[i].val);
    if (j->path_prefix.len)
        lc_env_set(&e, "PATH", "%s%s", j->path_prefix.ptr, lc_env_get(&e, "PATH"));
    if (add_env(j, &e, wf_env) == 0 && add_env(j, &e, job_env) == 0 && add_env(j, &e, pg_node_get(step, "env")) == 0 &&
        gha_expand(&script, j, pg_node_get(step, "run")->scalar) == 0) {
        cwd = dir && dir->scalar ? pg__asprintf("%s/%s", j->workspace, dir->scalar) : pg__strdup(j->workspace);
        rc = run_script(j, script, &e, cwd);
    }
    lc_env_free(&e);
    free(script);
    free(cwd);
    return rc;
}

/* ---- jobs ----------------------------------------------------------------- */

/* The step's header in the log: its name, else its action or the first line of its script. */
static void step_header(gha_job *j, const char *job, const pg_node *step)
{
    const pg_node *name = pg_node_get(step, "name"), *uses = pg_node_get(step, "uses"), *run = pg_node_get(step, "run");
    const char *what = name && name->scalar ? name->scalar : uses && uses->scalar ? uses->scalar : run->scalar;

    pg__buf_printf(j->log, "== %s: %.*s\n", job, (int)strcspn(what, "\n"), what);
}

static void do_step(gha_job *j, const char *job, const pg_node *step, const pg_node *wf_env, const pg_node *job_env)
{
    gha_step_state *s = &j->steps[j->nsteps++];
    const pg_node *id = pg_node_get(step, "id"), *cond = pg_node_get(step, "if"), *uses = pg_node_get(step, "uses");
    const pg_node *coe = pg_node_get(step, "continue-on-error");
    int run = 1, rc;

    s->id = id && id->scalar ? pg__strdup(id->scalar) : NULL;
    step_header(j, job, step);
    if (gha_condition(&run, j, cond && cond->scalar ? cond->scalar : "success()") != 0)
        rc = -1;
    else if (!run) {
        s->outcome = s->conclusion = "skipped";
        pg__buf_puts(j->log, "(skipped)\n");
        return;
    } else if (uses)
        rc = gha_use(j, uses->scalar, pg_node_get(step, "with"), &s->outputs);
    else
        rc = run_step(j, step, wf_env, job_env);
    if (rc < 0) {
        pg__buf_printf(j->log, "emulator: %s\n", j->error ? j->error : "(no reason)");
        free(j->error);
        j->error = NULL;
        rc = 1;
    }
    read_file_command(j, "GITHUB_OUTPUT", &s->outputs);
    read_file_command(j, "GITHUB_ENV", &j->env_file);
    read_path_command(j);
    s->outcome = rc ? "failure" : "success";
    s->conclusion = rc && !(coe && coe->scalar && strcmp(coe->scalar, "true") == 0) ? "failure" : "success";
    if (strcmp(s->conclusion, "failure") == 0)
        j->status = "failure";
    pg__buf_printf(j->log, "(%s)\n", s->outcome);
}

static char *runs_on_text(gha_job *j, const pg_node *n)
{
    pg_buf b = PG_BUF_INIT;
    char *v = NULL;
    size_t i;

    if (!n)
        return pg__strdup("");
    if (n->type == PG_NODE_SEQ) {
        for (i = 0; i < n->count; i++)
            pg__buf_printf(&b, "%s%s", i ? "," : "", n->items[i]->scalar);
        return pg__buf_detach(&b);
    }
    if (!n->scalar || gha_expand(&v, j, n->scalar) != 0)
        return NULL;
    return v;
}

/* Moves the job's workspace and temp away, so the next job starts fresh and the test can read them. */
static void keep_files(gha_job *j, gha_job_result *r)
{
    char *dir = pg__asprintf("%s/jobs/%ld-%s", j->g->dir, j->run_id, r->name), *p;

    for (p = dir + strlen(j->g->dir) + 6; *p; p++)
        if (*p == '/')
            *p = '-';
    r->workspace = pg__asprintf("%s/work", dir);
    r->temp = pg__asprintf("%s/temp", dir);
    free(lc_sh_ok("mkdir -p '%s' && mv '%s' '%s' && mv '%s' '%s'", dir, j->workspace, r->workspace, j->temp,
                  r->temp));
    free(dir);
}

void gha_job_run(gha_run *out, const gha_job_call *c, const char *name, const pg_node *job)
{
    gha_job_result *r = &out->jobs[out->njobs++];
    const pg_node *cond = pg_node_get(job, "if"), *steps = pg_node_get(job, "steps");
    gha_job j;
    int run = 1;
    size_t i;

    memset(&j, 0, sizeof(j));
    j.g = c->g;
    j.ev = c->ev;
    j.event = c->event;
    j.inputs = c->inputs;
    j.run_id = c->run_id;
    j.log = c->log;
    j.status = "success";
    r->name = pg__strdup(name);
    r->runs_on = runs_on_text(&j, pg_node_get(job, "runs-on"));
    j.self_hosted = r->runs_on && strstr(r->runs_on, "self-hosted") != NULL;
    pg__buf_printf(c->log, "=== job %s (runs-on %s)\n", name, r->runs_on ? r->runs_on : "?");
    if (!r->runs_on || gha_condition(&run, &j, cond && cond->scalar ? cond->scalar : "success()") != 0) {
        pg__buf_printf(c->log, "emulator: %s\n", j.error);
        r->conclusion = pg__strdup("failure");
        out->failed = 1;
        free(j.error);
        return;
    }
    if (!run) {
        r->conclusion = pg__strdup("skipped");
        pg__buf_puts(c->log, "(job skipped)\n");
        return;
    }
    prepare_runner(&j, c->ev->payload);
    runner_env(&j, c->workflow, name);
    for (i = 0; steps && i < steps->count && j.nsteps < 64; i++)
        do_step(&j, name, steps->items[i], c->wf_env, pg_node_get(job, "env"));
    r->conclusion = pg__strdup(j.status);
    out->failed |= strcmp(j.status, "success") != 0;
    keep_files(&j, r);
    for (i = 0; i < j.nsteps; i++) {
        free(j.steps[i].id);
        gha_map_clear(&j.steps[i].outputs);
    }
    gha_map_clear(&j.env_file);
    pg__buf_clear(&j.path_prefix);
    lc_env_free(&j.env);
    free(j.workspace);
    free(j.temp);
    free(j.home);
}

/* ---- composite actions ----------------------------------------------------- */

/*
 * A `type: boolean` input is a boolean in the inputs context, as on Actions
 * (`if: inputs.x` with x false is false, not the non-empty string "false"):
 * its value must be true or false, and a key no input name can spell marks it.
 */
static int type_input(gha_map *in, gha_job *j, const pg_node *declared)
{
    size_t i;

    for (i = 0; declared && declared->type == PG_NODE_MAP && i < declared->count; i++) {
        const char *name = declared->keys[i]->scalar, *v = gha_map_get(in, name);
        char *key;
        if (!pg_node_is(pg_node_get(declared->items[i], "type"), "boolean") || !v)
            continue;
        if (strcasecmp(v, "true") != 0 && strcasecmp(v, "false") != 0)
            return gha_fail(j, "input '%s' is a boolean; '%s' is neither true nor false", name, v);
        key = pg__asprintf("%s%s", GHA_BOOLEAN_INPUT, name);
        gha_map_set(in, key, "");
        free(key);
    }
    return 0;
}

int gha_inputs(gha_map *in, gha_job *j, const pg_node *declared, const pg_node *with, int check_required)
{
    size_t i;

    for (i = 0; with && with->type == PG_NODE_MAP && i < with->count; i++) {
        char *v = NULL;
        if (!pg_node_get(declared, with->keys[i]->scalar))
            return gha_fail(j, "input '%s' is not defined in the called workflow or action", with->keys[i]->scalar);
        if (gha_expand(&v, j, with->items[i]->scalar ? with->items[i]->scalar : "") != 0)
            return -1;
        gha_map_set(in, with->keys[i]->scalar, v);
        free(v);
    }
    for (i = 0; declared && declared->type == PG_NODE_MAP && i < declared->count; i++) {
        const pg_node *d = declared->items[i], *dflt = pg_node_get(d, "default");
        char *v = NULL;
        if (gha_map_get(in, declared->keys[i]->scalar))
            continue;
        if (check_required && pg_node_is(pg_node_get(d, "required"), "true"))
            return gha_fail(j, "input '%s' is required by the called workflow", declared->keys[i]->scalar);
        if (gha_expand(&v, j, dflt && dflt->scalar ? dflt->scalar : "") != 0)
            return -1;
        gha_map_set(in, declared->keys[i]->scalar, v);
        free(v);
    }
    return type_input(in, j, declared);
}

int gha_composite(gha_job *j, const char *dir, const pg_node *with, gha_map *outputs)
{
    char *file = pg__asprintf("%s/action.yml", dir);
    const pg_node *root, *steps, *outs;
    gha_map in = {0};
    pg_doc *doc = NULL;
    gha_job sub;
    size_t i;
    int rc = -1;

    if (pg_doc_load(&doc, file, NULL, 0) != 0) {
        gha_fail(j, "%s: %s", file, pg_error_last());
        goto out;
    }
    root = pg_doc_root(doc);
    steps = pg_node_get(pg_node_get(root, "runs"), "steps");
    if (!pg_node_is(pg_node_get(pg_node_get(root, "runs"), "using"), "composite") || !steps) {
        gha_fail(j, "%s is not a composite action", file);
        goto out;
    }
    if (gha_inputs(&in, j, pg_node_get(root, "inputs"), with, 0) != 0)
        goto out;
    /* Its own steps and inputs; the job's environment, file commands and log. */
    sub = *j;
    memset(sub.steps, 0, sizeof(sub.steps));
    sub.nsteps = 0;
    sub.inputs = &in;
    sub.status = "success";
    memset(&sub.env, 0, sizeof(sub.env));
    for (i = 0; i < (size_t)j->env.n; i++) {
        char *key = pg__strdup(j->env.v[i]), *eq = strchr(key, '=');
        *eq = '\0';
        lc_env_set(&sub.env, key, "%s", eq + 1);
        free(key);
    }
    lc_env_set(&sub.env, "GITHUB_ACTION_PATH", "%s", dir);
    for (i = 0; i < steps->count && sub.nsteps < 64; i++) {
        const pg_node *st = steps->items[i];
        if (pg_node_get(st, "run") && !pg_node_is(pg_node_get(st, "shell"), "bash")) {
            gha_fail(j, "%s: a run: step of a composite action needs shell: bash", file);
            break;
        }
        do_step(&sub, "composite", st, NULL, NULL);
    }
    for (i = 0, outs = pg_node_get(root, "outputs"); !j->error && outs && i < outs->count; i++) {
        const pg_node *value = pg_node_get(outs->items[i], "value");
        char *v = NULL;
        if (value && value->scalar && gha_expand(&v, &sub, value->scalar) == 0)
            gha_map_set(outputs, outs->keys[i]->scalar, v);
        free(v);
    }
    if (!j->error)
        rc = strcmp(sub.status, "success") != 0;
    /* What its steps wrote to GITHUB_ENV and GITHUB_PATH stays for the job's later steps. */
    j->env_file = sub.env_file;
    j->path_prefix = sub.path_prefix;
    for (i = 0; i < sub.nsteps; i++) {
        free(sub.steps[i].id);
        gha_map_clear(&sub.steps[i].outputs);
    }
    if (sub.error && !j->error)
        j->error = sub.error;
    else
        free(sub.error);
    lc_env_free(&sub.env);
out:
    gha_map_clear(&in);
    pg_doc_free(doc);
    free(file);
    return rc;
}
