/*
 * fakegh.h - a small fake of the GitHub REST API on 127.0.0.1, owned by a
 * test: it keeps issues, issue comments (with their authors), commit
 * statuses and every request it saw, pages lists with Link rel="next", rejects bodies
 * over 65,536 characters with 422 as GitHub does, and can be told to answer
 * the next requests with an error (403, 429 with retry-after, 5xx ...).
 * It runs on its own thread, one connection at a time, Connection: close.
 */
#ifndef PG_TEST_FAKEGH_H
#define PG_TEST_FAKEGH_H

#include <stddef.h>
#include <stdint.h>

typedef struct fakegh fakegh;

typedef struct fakegh_request {
    char method[8];
    char *path;          /* with the query */
    char *auth;          /* Authorization header value or NULL */
    char *accept, *api_version, *user_agent;
    char *body;
    int64_t at_ns;       /* monotonic arrival time */
    int status;          /* what was answered */
    int64_t sent;        /* bytes of the answer the client took before it closed (all, unless it stopped reading) */
} fakegh_request;

/** Starts a server on 127.0.0.1 and an ephemeral port; `token` maps to `login`. */
fakegh *fakegh_start(const char *token, const char *login);
void fakegh_stop(fakegh *s);

/** "http://127.0.0.1:PORT" (owned by the server). */
const char *fakegh_url(const fakegh *s);

/** Adds a comment on issue `pr` by `login`; returns its id. */
int64_t fakegh_add_comment(fakegh *s, int64_t pr, const char *login, const char *body);
/** The body of comment `id` (a copy, caller frees) or NULL. */
char *fakegh_comment_body(fakegh *s, int64_t id);
/** The author of comment `id` (a copy, caller frees) or NULL. */
char *fakegh_comment_author(fakegh *s, int64_t id);
/** Number of comments on `pr`. */
size_t fakegh_comment_count(fakegh *s, int64_t pr);

/**
 * The next `times` requests whose method is `method` (NULL: any) and whose
 * path starts with `prefix` (NULL: any) get `status` with `headers`
 * ("name: value\r\n" lines, may be NULL) and `body` (NULL: a GitHub-like
 * message).
 */
void fakegh_fail_next(fakegh *s, const char *method, const char *prefix, int status, const char *headers,
                      const char *body, int times);

/**
 * A pull request of the repository: listed (open) by
 * GET /repos/O/R/pulls?head=OWNER:REF and GET /repos/O/R/commits/SHA/pulls.
 */
void fakegh_add_pull(fakegh *s, int64_t number, const char *head_owner, const char *head_ref, const char *head_sha);

/**
 * An Actions artifact of repository id 1: listed by
 * GET /repos/O/R/actions/artifacts?name=NAME (newest first, paged); its
 * archive_download_url /repos/O/R/actions/artifacts/ID/zip answers 302 to
 * /blobs/ID, which serves `zip` (copied) without asking for a token, as
 * GitHub's storage does. `head_repository_id` other than 1 is a fork's run.
 * Returns the id.
 */
int64_t fakegh_add_artifact(fakegh *s, const char *name, const char *head_branch, int64_t head_repository_id,
                            int expired, const char *created_at, const void *zip, size_t len);

/**
 * `actor` adds (`add` 1) or removes `label` on issue or pull request `pr`:
 * GET /repos/O/R/issues/PR/labels lists the labels it carries, and
 * GET /repos/O/R/issues/PR/events the "labeled"/"unlabeled" events with
 * their actor, oldest first, two a page (Link rel="next").
 */
void fakegh_label(fakegh *s, int64_t pr, const char *label, const char *actor, int add);

/** GET /user answers `status` (e.g. 403, as for an Actions installation token). */
void fakegh_set_user_status(fakegh *s, int status);
/** Link "next" URLs point to this base instead of the server's own (tests the client's refusal). */
void fakegh_set_link_base(fakegh *s, const char *base);

/**
 * An open issue by `login` with `label` (may be NULL), numbered from 100 on
 * (fakegh_issues.c): listed by GET /repos/O/R/issues?state=open&labels=L,
 * opened by POST /repos/O/R/issues, edited by PATCH .../issues/N, commented
 * on as pull requests are. Returns its number.
 */
int64_t fakegh_add_issue(fakegh *s, const char *login, const char *title, const char *body, const char *label);
/** Issues opened (by fakegh_add_issue() or POST), and the number of the i-th. */
size_t fakegh_issue_count(fakegh *s);
int64_t fakegh_issue_number(fakegh *s, size_t i);
/** An issue's title, body and label (copies, caller frees) or NULL. */
char *fakegh_issue_title(fakegh *s, int64_t number);
char *fakegh_issue_body(fakegh *s, int64_t number);
char *fakegh_issue_label(fakegh *s, int64_t number);

/** Number of requests seen; request `i` stays valid until the next request arrives. */
size_t fakegh_request_count(fakegh *s);
const fakegh_request *fakegh_request_at(fakegh *s, size_t i);
/** Counts requests with `method` whose path starts with `prefix`. */
size_t fakegh_count(fakegh *s, const char *method, const char *prefix);

#endif
