/*
 * actions_workflow.c - a run of the Actions emulator (actions.h): the
 * workflow's trigger checked against the event, its jobs in order, and a
 * job that calls a reusable workflow (uses: OWNER/REPO/.github/workflows/
 * F.yml@SHA, or ./.github/workflows/F.yml of the same commit) resolved to
 * that workflow: the inputs it is called with must be inputs it declares,
 * its required ones given, and no job of it may ask for a permission the
 * calling job does not grant, as Actions refuses such a call.
 */
#include "actions_internal.h"

#include "compile.h"
#include "support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_error(gha_run *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int run_error(gha_run *out, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    free(out->log);
    out->log = pg__asprintf("emulator: the run could not start: %s\n", msg);
    out->failed = 1;
    return -1;
}

/* Whether the workflow's `on:` names the event. */
static int triggered_by(const pg_node *on, const char *event)
{
    size_t i;

    if (!on)
        return 0;
    if (on->type == PG_NODE_SCALAR)
        return strcmp(on->scalar, event) == 0;
    for (i = 0; i < on->count; i++) {
        const pg_node *k = on->type == PG_NODE_MAP ? on->keys[i] : on->items[i];
        if (k->scalar && strcmp(k->scalar, event) == 0)
            return 1;
    }
    return 0;
}

/* ---- permissions ---------------------------------------------------------- */

/* The level (0 none, 1 read, 2 write) `perms` grants for `scope`; absent: the default token's. */
static int level(const pg_node *perms, const char *scope)
{
    const pg_node *v;

    if (!perms)
        return strcmp(scope, "contents") == 0 || strcmp(scope, "packages") == 0 || strcmp(scope, "metadata") == 0;
    if (perms->type == PG_NODE_SCALAR)
        return strcmp(perms->scalar, "write-all") == 0 ? 2 : strcmp(perms->scalar, "read-all") == 0;
    v = pg_node_get(perms, scope);
    if (!v || !v->scalar)
        return 0;
    return strcmp(v->scalar, "write") == 0 ? 2 : strcmp(v->scalar, "read") == 0;
}

/* NULL, or the first scope `asked` wants above what `granted` gives (a static string). */
static const char *exceeds(const pg_node *asked, const pg_node *granted)
{
    static char scope[64];
    size_t i;

    for (i = 0; asked && asked->type == PG_NODE_MAP && i < asked->count; i++)
        if (level(asked, asked->keys[i]->scalar) > level(granted, asked->keys[i]->scalar)) {
            snprintf(scope, sizeof(scope), "%s", asked->keys[i]->scalar);
            return scope;
        }
    return NULL;
}

/* ---- reusable workflows --------------------------------------------------- */

/* The file a `uses:` names, copied where the run can load it (caller frees), or NULL. */
static char *resolve(gha *g, const gha_event *ev, const char *uses)
{
    const char *marker = strstr(uses, "/.github/workflows/"), *at = strrchr(uses, '@');
    char *path = NULL, *repo;
    size_t i;

    if (strncmp(uses, "./.github/workflows/", 20) == 0) {
        /* Local: the same commit as the caller's. */
        for (i = 0; i < g->nrepos; i++)
            if (strcmp(g->repos[i].name, ev->repository) == 0 && g->repos[i].git) {
                path = pg__asprintf("%s/called-%ld.yml", g->dir, ++g->seq);
                free(lc_sh_ok("git -C '%s' show '%s:%s' > '%s'", g->repos[i].git, ev->sha, uses + 2, path));
                return path;
            }
        return NULL;
    }
    if (!marker || !at || at < marker)
        return NULL;
    repo = pg__asprintf("%.*s", (int)(marker - uses), uses);
    for (i = 0; i < g->nrepos && !path; i++)
        if (strcmp(g->repos[i].name, repo) == 0 && g->repos[i].tree && strcmp(g->repos[i].ref, at + 1) == 0)
            path = pg__asprintf("%s/%.*s", g->repos[i].tree, (int)(at - marker - 1), marker + 1);
    free(repo);
    return path && lc_exists(path) ? path : (free(path), NULL);
}

typedef struct caller {
    const gha_job_call *c;
    const pg_node *wf_perms;
    const char *name;
    const pg_node *job;
} caller;

static int call_workflow(gha_run *out, const caller *k)
{
    const pg_node *uses = pg_node_get(k->job, "uses"), *cond = pg_node_get(k->job, "if");
    const pg_node *granted = pg_node_get(k->job, "permissions") ? pg_node_get(k->job, "permissions") : k->wf_perms;
    gha_job ctx;
    gha_map inputs = {0};
    pg_doc *doc = NULL;
    char *file = resolve(k->c->g, k->c->ev, uses->scalar);
    int run = 1, rc = -1;
    size_t i;

    memset(&ctx, 0, sizeof(ctx));
    ctx.g = k->c->g;
    ctx.ev = k->c->ev;
    ctx.event = k->c->event;
    ctx.run_id = k->c->run_id;
    ctx.status = "success";
    if (!file)
        return run_error(out, "%s: no such reusable workflow here", uses->scalar);
    if (pg_doc_load(&doc, file, NULL, 0) != 0) {
        rc = run_error(out, "%s: %s", file, pg_error_last());
        goto done;
    }
    {
        const pg_node *root = pg_doc_root(doc), *call = pg_node_get(pg_node_get(root, "on"), "workflow_call");
        const pg_node *jobs = pg_node_get(root, "jobs");
        gha_job_call inner = *k->c;
        if (!call) {
            rc = run_error(out, "%s is not a reusable workflow (no on: workflow_call)", uses->scalar);
            goto done;
        }
        if (gha_inputs(&inputs, &ctx, pg_node_get(call, "inputs"), pg_node_get(k->job, "with"), 1) != 0 ||
            gha_condition(&run, &ctx, cond && cond->scalar ? cond->scalar : "success()") != 0) {
            rc = run_error(out, "%s: %s", uses->scalar, ctx.error);
            goto done;
        }
        for (i = 0; jobs && i < jobs->count; i++) {
            const pg_node *asked = pg_node_get(jobs->items[i], "permissions");
            const char *over = exceeds(asked ? asked : pg_node_get(root, "permissions"), granted);
            if (over) {
                rc = run_error(out, "the called job '%s' asks for more '%s' permission than the caller grants",
                               jobs->keys[i]->scalar, over);
                goto done;
            }
        }
        inner.inputs = &inputs;
        inner.wf_env = pg_node_get(root, "env");
        for (i = 0; run && jobs && i < jobs->count && out->njobs < 8; i++) {
            char *name = pg__asprintf("%s/%s", k->name, jobs->keys[i]->scalar);
            gha_job_run(out, &inner, name, jobs->items[i]);
            free(name);
        }
        rc = 0;
    }
done:
    free(ctx.error);
    gha_map_clear(&inputs);
    pg_doc_free(doc);
    free(file);
    return rc;
}

/* ---- a run ---------------------------------------------------------------- */

int gha_run_workflow(gha_run *out, gha *g, const char *file, const gha_event *ev)
{
    pg_doc *doc = NULL;
    pg_buf log = PG_BUF_INIT;
    json_error_t je;
    const pg_node *root, *jobs;
    gha_job_call c;
    size_t i;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->id = g->next_run++;
    if (pg_doc_load(&doc, file, NULL, 0) != 0)
        return run_error(out, "%s: %s", file, pg_error_last());
    root = pg_doc_root(doc);
    jobs = pg_node_get(root, "jobs");
    memset(&c, 0, sizeof(c));
    c.g = g;
    c.ev = ev;
    c.run_id = out->id;
    c.workflow = pg_node_get(root, "name") ? pg_node_get(root, "name")->scalar : file;
    c.wf_env = pg_node_get(root, "env");
    c.log = &log;
    c.event = json_loads(ev->payload, 0, &je);
    cr_assert(c.event != NULL, "the event's payload: %s", je.text);
    if (!triggered_by(pg_node_get(root, "on"), ev->name))
        rc = run_error(out, "%s does not run on %s", file, ev->name);
    for (i = 0; rc == 0 && jobs && i < jobs->count && out->njobs < 8; i++) {
        const pg_node *job = jobs->items[i];
        if (pg_node_get(job, "needs"))
            rc = run_error(out, "job %s: needs: is not known here", jobs->keys[i]->scalar);
        else if (pg_node_get(job, "uses")) {
            caller k = {&c, pg_node_get(root, "permissions"), jobs->keys[i]->scalar, job};
            rc = call_workflow(out, &k);
        } else
            gha_job_run(out, &c, jobs->keys[i]->scalar, job);
    }
    if (rc == 0) {
        free(out->log);
        out->log = log.ptr ? pg__buf_detach(&log) : pg__strdup("");
    } else {
        char *both = pg__asprintf("%s%s", log.ptr ? log.ptr : "", out->log);
        free(out->log);
        out->log = both;
    }
    pg__buf_clear(&log);
    json_decref(c.event);
    pg_doc_free(doc);
    return out->failed ? -1 : 0;
}

void gha_run_clear(gha_run *r)
{
    size_t i;

    for (i = 0; i < r->njobs; i++) {
        free(r->jobs[i].name);
        free(r->jobs[i].conclusion);
        free(r->jobs[i].runs_on);
        free(r->jobs[i].workspace);
        free(r->jobs[i].temp);
    }
    free(r->log);
    memset(r, 0, sizeof(*r));
}

const gha_job_result *gha_run_job(const gha_run *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->njobs; i++)
        if (strcmp(r->jobs[i].name, name) == 0)
            return &r->jobs[i];
    return NULL;
}
