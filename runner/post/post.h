/*
 * post.h - a small GitHub REST client on libcurl, and what perfgate posts
 * with it: one sticky pull-request comment, a commit status, and a short
 * JSON summary to a webhook.
 *
 * Every request carries Accept: application/vnd.github+json,
 * X-GitHub-Api-Version: 2022-11-28, a User-Agent and Authorization: Bearer
 * with the token. The token is never printed, logged or stored: the debug
 * log shows "Bearer ***". TLS verification stays on; plain http is accepted
 * only for loopback hosts (tests), redirects are not followed, and Link
 * "next" pages are followed only under the API base URL, so the token
 * never goes to another host.
 *
 * Retries: 429 and rate-limited 403 honour retry-after, else
 * x-ratelimit-remaining: 0 with x-ratelimit-reset, else 60 s; 5xx back off
 * exponentially; waits longer than max_wait_s give up. A plain 403 (a
 * fork's read-only token) or 404 comes back as PG_ESKIP: a warning, never a
 * failure of the gate.
 */
#ifndef PG_POST_H
#define PG_POST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/** GitHub's limit on a comment body, in characters. */
#define PG_GH_COMMENT_LIMIT 65536

/** The largest API answer kept (a page of 100 comments of 65,536 characters is 6.6 MB). */
#define PG_GH_ANSWER_MAX_BYTES ((size_t)32 << 20)

typedef struct pg_gh_options {
    unsigned version;
    const char *api_url;      /* NULL: $GITHUB_API_URL, else https://api.github.com */
    const char *graphql_url;  /* NULL: $GITHUB_GRAPHQL_URL, else api_url + "/graphql" */
    const char *token;        /* NULL: $GITHUB_TOKEN; never printed */
    const char *login;        /* the token's login when known; NULL: asked from the API */
    long connect_timeout_s;   /* connection timeout */
    long timeout_s;           /* whole-request timeout */
    int max_retries;          /* retries after 429, rate-limited 403 and 5xx */
    double max_wait_s;        /* the longest single wait accepted before giving up */
    double backoff_s;         /* first wait after a 5xx or a rate limit without hints; doubles */
    double mutation_gap_s;    /* at least this long between POST/PATCH requests (secondary limits) */
    FILE *debug;              /* request log with the token masked; NULL for none */
} pg_gh_options;

#define PG_GH_OPTIONS_VERSION 1
#define PG_GH_OPTIONS_INIT {PG_GH_OPTIONS_VERSION, NULL, NULL, NULL, NULL, 10, 30, 4, 60.0, 1.0, 1.0, NULL}

typedef struct pg_gh pg_gh;

/**
 * A client. Copies every string it keeps (the token included, which is
 * wiped on free).
 * @param[out] out free with pg_gh_free().
 * @return PG_EUSAGE without a token or with an API URL that is neither
 *         https nor http on a loopback host.
 */
int pg_gh_new(pg_gh **out, const pg_gh_options *opts);
void pg_gh_free(pg_gh *gh);

typedef struct pg_gh_response {
    long status;              /* HTTP status of the last attempt */
    char *body;               /* response body (NUL-terminated), owned */
    size_t len;
    char *next;               /* Link rel="next" URL or NULL, owned */
    char *location;           /* Location of a 3xx answer or NULL, owned */
    int attempts;             /* requests made, retries included */
} pg_gh_response;

void pg_gh_response_clear(pg_gh_response *r);

/**
 * One request with retries. `path` is relative to the API base ("/user")
 * or a full URL under it (a Link "next" page). `json` may be NULL.
 * @return 0 when an HTTP answer came (any status: see out->status);
 *         PG_ENET for transport failures and for a full URL (from an
 *         answer) outside the API base, PG_ETIMEOUT when a rate limit
 *         asks for a longer wait than max_wait_s, PG_EIO for a body over
 *         PG_GH_ANSWER_MAX_BYTES (refused as it arrives, never kept whole).
 */
int pg_gh_request(pg_gh_response *out, pg_gh *gh, const char *method, const char *path, const char *json);

/**
 * Downloads `path` (under the API base, as pg_gh_request()) into out->body
 * (binary; out->len bytes). When GitHub answers with a redirect (artifact
 * archives live on a storage host behind a signed URL), the Location is
 * fetched WITHOUT the token: the signed URL authorises itself and the token
 * never leaves the API host. The Location must be https (http only to a
 * loopback host).
 * The body, whether the API's own answer or the storage host's, is refused
 * past `max_bytes` as it arrives (or at once, by its declared length).
 * @return 0 when an answer came (see out->status: 200 on success); PG_EIO
 *         past `max_bytes`; otherwise as pg_gh_request().
 */
int pg_gh_download(pg_gh_response *out, pg_gh *gh, const char *path, size_t max_bytes);

/** The token's login (cached): opts.login, else GET /user, else GraphQL viewer, else on Actions github-actions[bot]. */
int pg_gh_login(const char **out, pg_gh *gh);

/** What a post did. */
typedef struct pg_post_outcome {
    int64_t comment_id;       /* the comment created or updated */
    int created;              /* 1 created, 0 updated */
    int pages;                /* comment pages read */
    size_t body_len;          /* bytes sent after trimming */
} pg_post_outcome;

/**
 * Creates or updates the sticky comment on pull request `pr` of `repo`:
 * the first comment whose body contains `marker` and whose author is the
 * token's login is PATCHed; otherwise a new one is POSTed. `body` gets the
 * marker as its first line if it lacks it, and is trimmed under
 * PG_GH_COMMENT_LIMIT with a link to `run_url` (may be NULL).
 * @return 0; PG_ESKIP (a warning) on 403 or 404; PG_ENET/PG_ETIMEOUT/PG_EIO otherwise.
 */
int pg_post_sticky_comment(pg_post_outcome *out, pg_gh *gh, const char *repo, int64_t pr, const char *marker,
                           const char *body, const char *run_url);

/**
 * Updates the sticky comment as pg_post_sticky_comment() does when one
 * exists, and creates none (quiet comments: a clean pull request gets only
 * the status). out->comment_id is 0 when there was none.
 */
int pg_post_sticky_update(pg_post_outcome *out, pg_gh *gh, const char *repo, int64_t pr, const char *marker,
                          const char *body, const char *run_url);

/**
 * Sets a commit status on `sha` with a stable `context`. `state` is one of
 * error, failure, pending, success; `description` is cut to 140 characters.
 * @return as pg_post_sticky_comment().
 */
int pg_post_commit_status(pg_gh *gh, const char *repo, const char *sha, const char *state, const char *description,
                          const char *target_url, const char *context);

/**
 * Trims `body` under `limit` bytes at a line boundary, closing an open
 * <details> and appending a note with a link to `run_url` (may be NULL).
 * @param[out] out a new string (caller frees), the body itself when it fits.
 */
int pg_post_trim(char **out, const char *body, size_t limit, const char *run_url);

/**
 * POSTs {"text": text} (Slack-compatible) to `url`. The URL is a secret
 * (it authorises posting): messages name only its scheme and host.
 */
int pg_post_webhook(const char *url, const char *text, const pg_gh_options *opts);

/**
 * Fills where the run sits on GitHub from the environment: GITHUB_REPOSITORY,
 * the pull request number, head and base SHA from GITHUB_EVENT_PATH
 * (pull_request events; a workflow_run event gives its head SHA but no pull
 * request, which only pg_post_trust_from_env() and its checks decide;
 * head_sha stays NULL for others: take the run's commit) and the run URL.
 * Nothing set is not an error.
 * @return 0; PG_EFORMAT naming file:line:col when the event file is malformed.
 */
int pg_post_origin_from_env(pg_report_origin *out);

/*
 * The trusted half of the two-workflow pattern. A workflow_run job posts a
 * report that the pull request's own code wrote (an artifact): everything in
 * it is a claim. The event payload is written by GitHub, so the pull request
 * and the head SHA come from there; claims are only checked against it.
 */
typedef struct pg_post_trust {
    int workflow_run;         /* GITHUB_EVENT_PATH holds a workflow_run event; nothing else is set otherwise */
    char *event;              /* workflow_run.event: pull_request, push, schedule, ... */
    char *conclusion;         /* workflow_run.conclusion: success, failure, cancelled, ... */
    char *head_sha;           /* workflow_run.head_sha (validated: 40 hex digits) */
    char *head_branch;        /* workflow_run.head_branch */
    char *head_owner;         /* workflow_run.head_repository.owner.login */
    char *run_url;            /* workflow_run.html_url: the measuring run's page */
    int64_t pr;               /* the listed pull request whose head is head_sha, else found by
                                 pg_post_trust_find_pr(); 0: none */
    int pr_from_api;          /* 1 when pr was found through the API (a fork's pull request) */
} pg_post_trust;

/**
 * Reads GITHUB_EVENT_PATH. Any other event (or none) leaves
 * out->workflow_run 0 and is not an error, unless GITHUB_EVENT_NAME says
 * workflow_run: then an event file without a workflow_run object (or none)
 * is refused rather than trusting the report.
 * @param[out] out free with pg_post_trust_clear().
 * @return 0; PG_EFORMAT naming the file when it is malformed, when a
 *         workflow_run event lacks a valid head_sha, or as above.
 */
int pg_post_trust_from_env(pg_post_trust *out);
void pg_post_trust_clear(pg_post_trust *t);

/**
 * Whether the run's conclusion is one perfgate posts for: success (the gate
 * passed) or failure (the gate found a regression, or the job broke).
 * @return 0; PG_ESKIP with the reason for any other conclusion (cancelled,
 *         skipped, timed_out, ...): nothing should be posted.
 */
int pg_post_trust_conclusion(const pg_post_trust *t);

/**
 * For a pull_request run whose event lists no pull request (GitHub leaves
 * the list empty for forks), finds the open pull request of `repo` whose
 * head is head_owner:head_branch (GET /repos/{repo}/pulls?head=...), else
 * one associated with head_sha (GET /repos/{repo}/commits/{sha}/pulls), and
 * accepts it only when its head.sha equals head_sha. Sets t->pr. Does
 * nothing when t->pr is already known or the run is not a pull request's.
 * @return 0; PG_EINVAL (refuse) when no pull request's head matches;
 *         as pg__gh_status_error() for HTTP errors; PG_ENET/PG_ETIMEOUT.
 */
int pg_post_trust_find_pr(pg_post_trust *t, pg_gh *gh, const char *repo);

/**
 * Checks claims (from the artifact or flags; `what` names their source in
 * the message) against the trusted event: a pull request number other than
 * t->pr (0: no claim), a SHA other than t->head_sha (NULL: no claim), a
 * repository other than `repo` (NULL: no claim).
 * @return 0; PG_EINVAL with one line naming both values on any mismatch.
 */
int pg_post_trust_check(const pg_post_trust *t, const char *what, const char *repo, const char *claimed_repo,
                        int64_t claimed_pr, const char *claimed_sha);

/*
 * Accepting a regression with a pull request label (labels.c). Labels need
 * triage rights on the repository, so the author of a fork cannot add one;
 * they are read from the API by the trusted posting step, never from a
 * report.
 */
typedef struct pg_post_label {
    int present;              /* the pull request carries the label now */
    char *applied_by;         /* the login that applied it last (the issue events); NULL when unknown */
} pg_post_label;

/**
 * Whether pull request `pr` of `repo` carries `label` (GitHub compares
 * names without regard to case), and who applied it:
 * GET /repos/{repo}/issues/{pr}/labels, then its events.
 * @param[out] out free with pg_post_label_clear().
 * @return 0; PG_EUSAGE for a bad repository, pull request or label;
 *         PG_ESKIP for 403/404 (the token may not read them); PG_ENET...
 */
int pg_post_label_read(pg_post_label *out, pg_gh *gh, const char *repo, int64_t pr, const char *label);
void pg_post_label_clear(pg_post_label *l);

/** A label name perfgate accepts: non-empty, printable, as long as GitHub's. @return 0 or PG_EUSAGE. */
int pg_post_label_check(const char *label);

/** Whether a JSON list of labels (GitHub's answer) holds `label`. */
int pg__post_label_listed(const char *body, const char *label);
/** Who applied `label` last in a JSON list of issue events (NULL after an "unlabeled"); *actor is replaced. */
int pg__post_label_actor(char **actor, const char *body, const char *label);

/** The short text of a run for a webhook or a status description ("perfgate cpu: 1 regression, ..."). */
char *pg_post_summary_text(const pg_report_data *data);

/**
 * The commit status a comparison's outcome posts: PASS "success", FAIL
 * "failure", both described by the summary line; ACCEPTED "success"
 * described by who accepted what ("1 regression accepted by label,
 * applied by @alice"); NOTHING_COMPARED and ERROR
 * "error" (neither must read as a pass) described as "nothing compared:
 * <reason>" and "ERROR: <reason>".
 * GitHub cuts the description at 140 characters: the reason leads with its point.
 * @param[out] out_state a static string.
 * @param desc the description is appended here.
 */
int pg_post_status_for(const char **out_state, pg_buf *desc, const pg_comparison *cmp);

/*
 * Issues perfgate keeps (issues.c): one per subject, found among the open
 * issues with `label` by a marker in the body, and only among those the
 * token's login opened (a marker copied into someone else's issue never
 * makes perfgate edit it). Bodies are trimmed under PG_GH_COMMENT_LIMIT
 * with a link to `run_url` (may be NULL). Errors as pg_post_sticky_comment().
 */
typedef struct pg_issue {
    int64_t number;
    char *title;
    char *body;
} pg_issue;

void pg_issue_clear(pg_issue *i);

/**
 * Every open issue with `label` whose body holds `marker`, opened by the
 * token's login, oldest first (every page is read).
 * @param[out] out free with pg_issues_free().
 */
int pg_issues_list(pg_issue **out, size_t *n, pg_gh *gh, const char *repo, const char *label, const char *marker);
void pg_issues_free(pg_issue *items, size_t n);

/** Opens an issue with `label` (NULL: none). @param[out] number the new issue's number. */
int pg_issues_open(int64_t *number, pg_gh *gh, const char *repo, const char *title, const char *body,
                   const char *label, const char *run_url);

/** Replaces an issue's title (NULL: kept) and body. */
int pg_issues_edit(pg_gh *gh, const char *repo, int64_t number, const char *title, const char *body,
                   const char *run_url);

/** Adds a comment to an issue. */
int pg_issues_comment(pg_gh *gh, const char *repo, int64_t number, const char *body, const char *run_url);

/** Appends the issues of a JSON list (not pull requests) whose body holds `marker`, opened by `login`. */
int pg__issues_take(pg_issue **items, size_t *n, const char *body, const char *marker, const char *login);

/*
 * The readers of GitHub's answers as calls on memory, so untrusted answers
 * can be fed to them directly (the fuzzer does) without a server.
 */
int pg__gh_status_error(const pg_gh_response *r, const char *what);

/** What a message may show of a URL that is a credential: scheme, host and port only ("the URL" when unparsable). */
void pg__post_url_origin(char *out, size_t len, const char *url);

/** Rate-limit hints of one answer's headers. */
typedef struct pg__gh_hints {
    double retry_after;       /* seconds, <0 when absent */
    long rl_remaining;        /* -1 when absent */
    int64_t rl_reset;         /* unix seconds, 0 when absent */
} pg__gh_hints;

/**
 * Reads a block of header lines ("Name: value", CRLF or LF) as the client
 * reads each answer's: out->next (Link rel="next") and out->location, owned.
 */
void pg__gh_read_headers(pg_gh_response *out, pg__gh_hints *hints, const char *block, size_t len);

/**
 * The open pull request in a JSON list whose head.sha is `sha`; 0 when none.
 * `seen`/`seen_sha` keep the first other candidate, for the refusal message.
 */
int64_t pg__trust_match_head(const char *body, const char *sha, int64_t *seen, char *seen_sha, size_t seen_len);

/** The id of the first comment in a JSON list that holds `marker` and was written by `login`; 0 when none. */
int64_t pg__post_find_comment(const char *body, const char *marker, const char *login);

#endif
