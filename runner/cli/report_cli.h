/*
 * report_cli.h - the reporting and posting flags shared by `run`, `gate`,
 * `report` and `post`, and the steps behind them.
 */
#ifndef PG_REPORT_CLI_H
#define PG_REPORT_CLI_H

#include <stdio.h>

#include "cli/cli.h"
#include "post/post.h"
#include "report/report.h"
#include "gate/gate.h"

/* --md/--json/--junit FILE|-, --style; gate also --post and --webhook. */
typedef struct pg_cli_report_flags {
    const char *md, *json, *junit, *style, *webhook;
    int post;
} pg_cli_report_flags;

/** Appends the reporting options to `opts` at index *n (gate adds the posting ones). */
void pg_cli_report_opts(pg_opt *opts, int *n, pg_cli_report_flags *rf, int gate);

/* Where the human-readable output goes, and the reporters fed after the run. */
typedef struct pg_cli_outputs {
    pg_report_mux mux;
    FILE *human;             /* stdout, or stderr when an export writes to stdout */
    pg_term_style style;
    int quiet;               /* --style none */
    pg_report_origin origin; /* from the GitHub environment */
} pg_cli_outputs;

/**
 * Builds the reporters from the flags (plus the job summary when
 * GITHUB_STEP_SUMMARY is set, and annotations on GitHub Actions).
 * @return 0, or the exit code to return now (2 for a bad flag; printed).
 */
int pg_cli_outputs_init(pg_cli_outputs *out, const pg_cli_report_flags *rf, int step_summary);
void pg_cli_outputs_clear(pg_cli_outputs *out);

/** Feeds the run and its comparison to every reporter. @return 0 or 3 (printed). */
int pg_cli_outputs_emit(pg_cli_outputs *out, const pg_run *run, const pg_comparison *cmp);

/* What `post` and `gate --post` send, beyond the report itself. */
typedef struct pg_cli_post_flags {
    const char *repo, *sha, *context, *marker, *webhook;
    long pr;
    int no_comment, no_status, dry_run;
} pg_cli_post_flags;

/**
 * Posts the sticky comment, the commit status and the webhook summary.
 * A 403 or 404 only warns. @return 0, or 3 after an error (printed).
 */
int pg_cli_post(const pg_report_data *data, const pg_cli_post_flags *pf);

/**
 * In a workflow_run job (`t` from pg_post_trust_from_env()), decides the
 * pull request and SHA a post goes to from the trusted event alone (see
 * post/trust.c): the flags and `claim` (a report's or the run's) are claims
 * that must agree with it. Fills `origin` and clears the flags it checked.
 * Used by `post` and by `gate --post` alike.
 * @return -1 to go on posting; else the exit code (printed; 0: nothing to post).
 */
int pg_cli_trusted_target(pg_report_origin *origin, pg_cli_post_flags *pf, pg_post_trust *t,
                          const pg_report_origin *claim, const char *env_repo, const char *run_url);

/* A stored run with the decision the gate stored for it, or compared with a baseline named (`--base`). */
typedef struct pg_cli_compared {
    pg_store *store;
    pg_stored_comparison stored;
    const pg_run *head;       /* stored.head */
    const pg_comparison *cmp; /* stored.cmp */
    size_t nbases;
} pg_cli_compared;

/**
 * Without `base_sel`, the decision stored for the run (compared now when it
 * has none); with it, a fresh comparison with that baseline.
 * @return 0, or the exit code to return now (printed).
 */
int pg_cli_compare_stored(pg_cli_compared *out, const char *db, const char *head_sel, const char *base_sel);
void pg_cli_compared_clear(pg_cli_compared *c);

/* How `run` and `gate` show a gate: where the human output goes, and the flags of what follows it. */
typedef struct pg_cli_gate_view {
    pg_cli_outputs *outs;
    FILE *human;                    /* the progress and tables; NULL with --style none */
    const char *db_path;            /* for the "stored run" line */
    const pg_cli_report_flags *rep; /* --post, --webhook */
} pg_cli_gate_view;

/** The gate's notify callback (gate.h); `payload` is a pg_cli_gate_view. */
void pg_cli_gate_step(const pg_gate_result *r, pg_gate_step step, const char *text, void *payload);

/**
 * After the gate: the comparison on the terminal, every reporter, the post.
 * @return the exit code: the verdict's, 3 when a report could not be written,
 *         or the class of an exact check that could not run, whichever is worst.
 */
int pg_cli_gate_finish(const pg_cli_gate_view *v, const pg_gate_result *r);

#endif
