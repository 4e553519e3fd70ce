/* actions_internal.h - what the files of the Actions emulator share (actions.h). */
#ifndef PG_TEST_ACTIONS_INTERNAL_H
#define PG_TEST_ACTIONS_INTERNAL_H

#include "actions.h"
#include "world.h"

#include "base/node.h"
#include "base/util.h"

#include <jansson.h>

typedef struct gha_kv {
    char *key, *val;
} gha_kv;

typedef struct gha_map {
    gha_kv *items;
    size_t n;
} gha_map;

/* Prefixed to an input's name: the key that says the input is a boolean (gha_inputs). */
#define GHA_BOOLEAN_INPUT "\001boolean:"

void gha_map_set(gha_map *m, const char *key, const char *val);
const char *gha_map_get(const gha_map *m, const char *key);
void gha_map_clear(gha_map *m);

typedef struct gha_repo {
    char *name, *git, *ref, *tree;
} gha_repo;

typedef struct gha_cache_entry {
    char *key, *paths, *scope, *dir;
    long seq;
} gha_cache_entry;

typedef struct gha_artifact {
    long run;
    char *name, *dir;
} gha_artifact;

struct gha {
    char *dir;
    fakegh *api;
    char *token;
    gha_repo repos[8];
    size_t nrepos;
    gha_cache_entry *cache;
    size_t ncache;
    gha_artifact *artifacts;
    size_t nartifacts;
    gha_map vars;
    long next_run, seq;
    char *runner[2];           /* the hosted and the self-hosted runner's directories */
    char *temp[2];             /* their RUNNER_TEMP */
};

typedef struct gha_step_state {
    char *id;
    gha_map outputs;
    const char *outcome, *conclusion;
} gha_step_state;

/* A running job: what its expressions see, its environment and its log. */
typedef struct gha_job {
    gha *g;
    const gha_event *ev;
    json_t *event;
    const gha_map *inputs;
    gha_step_state steps[64];
    size_t nsteps;
    const char *status;        /* success or failure, so far */
    long run_id;
    int self_hosted;
    char *workspace, *temp, *home;
    lc_env env;                /* the runner's and GITHUB_*'s */
    gha_map env_file;          /* what GITHUB_ENV set */
    pg_buf path_prefix;        /* what GITHUB_PATH added, "DIR:" each */
    pg_buf *log;
    char *error;               /* why an expression or an action could not run */
} gha_job;

/* GITHUB_REF_NAME of a ref: main of refs/heads/main, 7/merge of refs/pull/7/merge. */
const char *gha_ref_name(const char *ref);

/* ${{ }} in `text` expanded (a whole-text expression keeps its value's text). 0, or -1 with j->error. */
int gha_expand(char **out, gha_job *j, const char *text);
/* An if: condition (with or without ${{ }}). 0 with *truth, or -1 with j->error. */
int gha_condition(int *truth, gha_job *j, const char *expr);

/* What a job runs within: the run, its event, the workflow and the inputs it was called with. */
typedef struct gha_job_call {
    gha *g;
    const gha_event *ev;
    json_t *event;
    long run_id;
    const char *workflow;
    const pg_node *wf_env;
    const gha_map *inputs;      /* NULL: not a called workflow */
    pg_buf *log;
} gha_job_call;

/* Runs job `name` (its if:, its steps) into the next of out->jobs. */
void gha_job_run(gha_run *out, const gha_job_call *c, const char *name, const pg_node *job);

/* Runs action `uses` with its `with:` (expanded); outputs go to `outputs`. 0 success, 1 failure. */
int gha_use(gha_job *j, const char *uses, const pg_node *with, gha_map *outputs);

/* The inputs of a call (`with:`, expanded in `j`'s context, over the declared defaults): every key one
   `declared` has, and with `check_required` every required one given. 0, or -1 with j->error. */
int gha_inputs(gha_map *in, gha_job *j, const pg_node *declared, const pg_node *with, int check_required);

/* The directory of a composite action `uses` names (./PATH in the workspace, or OWNER/REPO/PATH@REF of a
   registered tree), or NULL (caller frees). */
char *gha_composite_dir(gha_job *j, const char *uses);
/* Runs the composite action in `dir` within job `j`, as gha_use() runs an action. */
int gha_composite(gha_job *j, const char *dir, const pg_node *with, gha_map *outputs);

/* A job's error message (printf into j->error; returns -1). */
int gha_fail(gha_job *j, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
