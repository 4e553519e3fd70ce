/*
 * nightly.h - the nightly's regression issues: which cases changed
 * tonight, which open issue still stands, which case recovered, and what
 * each issue says (`perfgate issues`).
 *
 * The rule (docs/ci.md, "Regression issues"): a case has a confirmed change
 * point tonight when tonight's nightly gate (against the previous nights,
 * pooled) decided it REGRESSED, which the gate only does after three fresh
 * processes confirmed it, and the night before was not REGRESSED for it:
 * a case slower on consecutive nights is one change. Each such case gets a
 * bisection of the night's commits (the previous night's commit to
 * tonight's) and one GitHub issue, at most `max_issues` new ones a night,
 * the largest first. A case with an open issue is compared each night with
 * the nights before its change (the runs its issue names): still REGRESSED,
 * the issue's nights are updated. It recovered when it is SAME or IMPROVED
 * against those nights, or, since one run against a few is seldom tight
 * enough for SAME, when it is not REGRESSED against them and IMPROVED
 * against the nights since its change (up to the five newest): then it is
 * commented on, once; slower again after that, commented on again.
 *
 * Planning needs only the database, so the job that builds and bisects
 * holds no write token; posting reads the database and the bisections as
 * data, and finds the issues itself (post.h: by label, marker and the
 * token's login), so nothing it reads chooses where it writes.
 */
#ifndef PG_NIGHTLY_H
#define PG_NIGHTLY_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "post/post.h"
#include "store/store.h"
#include "verdict/model.h"

#define PG_NIGHTLY_LABEL "perfgate-regression"
#define PG_NIGHTLY_MAX_ISSUES 5

typedef enum pg_nightly_action {
    PG_NIGHTLY_NONE = 0,      /* an open issue whose case tonight neither recovered nor changed its state */
    PG_NIGHTLY_OPEN,          /* a change point tonight: a new issue */
    PG_NIGHTLY_SKIPPED,       /* a change point beyond max_issues tonight: listed, not filed */
    PG_NIGHTLY_STILL,         /* its issue's case is still slower than before its change: the nights updated */
    PG_NIGHTLY_RECOVERED,     /* its issue's case is back: commented on, once */
    PG_NIGHTLY_AGAIN          /* recovered before, slower again: commented on */
} pg_nightly_action;

/* One case the night acts on. */
typedef struct pg_nightly_case {
    char *key;
    char hash[17];            /* its marker: 16 hex digits of the SHA-256 of the key */
    pg_nightly_action action;
    pg_verdict verdict;       /* tonight's, against the previous nights (new) or the issue's reference (open issue) */
    double ratio, ci_lo, ci_hi;
    char *reason;
    char *reference;          /* the runs before the change, by uuid (space-separated) */
    char *since;              /* the commit its issue says it is slower since */
    char *night;              /* the run of the night of its change, by uuid */
    pg_verdict back;          /* open issue, not REGRESSED: tonight against the nights since the change; UNSURE
                                 when not compared */
    double back_ratio, back_lo, back_hi;
    int64_t issue;            /* its issue's number; 0: none */
} pg_nightly_case;

typedef struct pg_nightly {
    char *branch;
    int64_t tonight_id;
    char *tonight_uuid;
    char *tonight, *previous; /* tonight's commit and the previous night's (NULL on the first night) */
    int64_t tonight_at;
    char *run_url;            /* tonight's CI run, when it recorded one */
    pg_nightly_case *cases;   /* change points first (largest lower bound first), then open issues' cases */
    size_t ncases;
    size_t opened, updated, commented; /* what posting did */
} pg_nightly;

typedef struct pg_nightly_options {
    unsigned version;
    const char *branch;       /* the nights' branch; NULL: "nightly" */
    size_t max_issues;        /* new issues a night at most; 0: PG_NIGHTLY_MAX_ISSUES */
    const char *repo;         /* OWNER/NAME (posting) */
    const char *label;        /* NULL: PG_NIGHTLY_LABEL */
    const char *bisect_dir;   /* DIR/HASH.json: the bisection of each change point; NULL: none ran */
    const char *server_url;   /* for links; NULL: $GITHUB_SERVER_URL, else https://github.com */
    int dry_run;              /* posting: say what would be done, write nothing */
} pg_nightly_options;

#define PG_NIGHTLY_OPTIONS_VERSION 1
#define PG_NIGHTLY_OPTIONS_INIT {PG_NIGHTLY_OPTIONS_VERSION, NULL, 0, NULL, NULL, NULL, NULL, 0}

/**
 * Tonight (the newest run of the branch), the previous night, and the
 * change points of tonight by the rule above.
 * @param[out] out free with pg_nightly_clear().
 * @return 0; PG_ENOTFOUND when the branch has no runs.
 */
int pg_nightly_plan(pg_nightly *out, pg_store *store, const pg_nightly_options *opts);

/**
 * Posts the night: reads the open issues (post.h), files the change points
 * without one (with their bisections), and for every other open issue
 * compares tonight with the nights before its change and updates or
 * comments on it. Fills each case's action and issue.
 */
int pg_nightly_post(pg_nightly *n, pg_store *store, pg_gh *gh, const pg_nightly_options *opts);

void pg_nightly_clear(pg_nightly *n);

/** What the night did or would do, one line a case (and the plan's commits). */
int pg_nightly_describe(pg_buf *out, const pg_nightly *n);

/** The marker of a case key: 16 hex digits of its SHA-256. */
void pg_nightly_hash(char out[17], const char *key);

const char *pg_nightly_action_name(pg_nightly_action a);

#endif
