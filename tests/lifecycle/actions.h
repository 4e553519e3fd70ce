/*
 * actions.h - GitHub Actions on this machine, as far as perfgate's workflows
 * and their callers need it: a workflow file is loaded, each job runs (a job
 * that calls a reusable workflow runs that workflow's jobs, with the
 * caller's inputs and within the caller's permissions), `run:` steps run
 * with bash as Actions runs them (the same environment variables and
 * GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT files), and the actions the
 * workflows use (checkout, cache restore and save, artifact upload and
 * download) do here what they do there: a checkout clones a repository the
 * test registered at the commit asked for, the cache keeps its entries by
 * key, path and branch scope (a pull request sees its own and the default
 * branch's), artifacts are kept per run and also listed by the fake API
 * (tests/support/fakegh.h) for `perfgate db fetch`. ${{ }} expressions are
 * evaluated: contexts github, inputs, steps, runner, vars, secrets, job;
 * operators == != && || ! and ( ); always(), success(), failure(),
 * cancelled(), fromJSON(). What it does not know (another action, another
 * function, `needs:`) fails the run with a message, never silently.
 *
 * Hosted runners start each job from a fresh workspace and $HOME at the
 * same paths (so a cached path restores where it was saved); a job whose
 * runs-on names self-hosted keeps its $HOME from one job to the next, as a
 * machine of one's own does.
 */
#ifndef PG_TEST_ACTIONS_H
#define PG_TEST_ACTIONS_H

#include "fakegh.h"

#include <stddef.h>

typedef struct gha gha;

/** What triggered a run. */
typedef struct gha_event {
    const char *name;           /* pull_request, push, workflow_run, schedule, workflow_dispatch */
    const char *payload;        /* the event's JSON (GITHUB_EVENT_PATH, github.event) */
    const char *repository;     /* owner/name: GITHUB_REPOSITORY */
    const char *sha;            /* GITHUB_SHA */
    const char *ref;            /* GITHUB_REF (refs/heads/main, refs/pull/7/merge); the cache's scope */
    const char *checkout;       /* the commit actions/checkout takes without ref: */
    const char *head_ref;       /* pull_request: GITHUB_HEAD_REF */
    const char *base_ref;       /* pull_request: GITHUB_BASE_REF */
    const char *default_branch; /* whose caches every branch sees */
} gha_event;

/** One job of a run: how it ended and where its files are. */
typedef struct gha_job_result {
    char *name;                 /* the job's id; for a called workflow's job, CALLER/JOB */
    char *conclusion;           /* success, failure or skipped */
    char *runs_on;              /* runs-on, evaluated */
    char *workspace;            /* its workspace, kept after the job */
    char *temp;                 /* its RUNNER_TEMP, kept (the step summary is there) */
} gha_job_result;

typedef struct gha_run {
    long id;
    int failed;                 /* a job failed, or the run could not start (log says why) */
    char *log;                  /* every step's output, under a header naming it */
    gha_job_result jobs[8];
    size_t njobs;
} gha_run;

gha *gha_new(const char *dir, fakegh *api, const char *token);
void gha_free(gha *g);

/** A repository actions/checkout can check out: a git repository, any commit of it. */
void gha_add_repo(gha *g, const char *full_name, const char *git_dir);
/** Or, for one ref, a fixed tree (copied at each checkout): a pinned perfgate's sources. */
void gha_add_tree(gha *g, const char *full_name, const char *ref, const char *tree_dir);
/** A repository variable (vars.NAME). */
void gha_set_var(gha *g, const char *name, const char *value);
/** A cache entry of the default branch, as an earlier run saved it: `content` restored at `path`. */
void gha_seed_cache(gha *g, const char *key, const char *path, const char *content);
/** RUNNER_TEMP of jobs on a hosted runner, or on the self-hosted one. */
const char *gha_runner_temp(gha *g, int self_hosted);
/** Runs `cmd` with bash in a runner's environment (as a step would) and returns its output. */
char *gha_runner_sh(gha *g, int self_hosted, const char *cmd);

/** Runs every job of the workflow `file` for `ev`. @return 0, or -1 when the run failed or could not start. */
int gha_run_workflow(gha_run *out, gha *g, const char *file, const gha_event *ev);
void gha_run_clear(gha_run *r);
/** The job `name` of a run (NULL when it has none). */
const gha_job_result *gha_run_job(const gha_run *r, const char *name);

#endif
