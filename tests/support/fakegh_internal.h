/*
 * fakegh_internal.h - the fake GitHub API's state and the helpers its
 * files share (fakegh.c: the server, comments, pulls, artifacts;
 * fakegh_issues.c: issues).
 */
#ifndef PG_TEST_FAKEGH_INTERNAL_H
#define PG_TEST_FAKEGH_INTERNAL_H

#include "fakegh.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct comment {
    int64_t id, pr;
    char *login, *body;
} comment;

typedef struct pull {
    int64_t number;
    char *owner, *ref, *sha;
} pull;

typedef struct artifact {
    int64_t id, head_repo_id;
    int expired;
    char *name, *branch, *created_at;
    unsigned char *zip;
    size_t len;
} artifact;

typedef struct issue {
    int64_t number;
    char *title, *body, *login, *label;
    int open;
} issue;

/* A label applied to (or removed from) an issue or pull request: the issue's events. */
typedef struct label_event {
    int64_t pr;
    char *label, *actor;
    int added;
} label_event;

typedef struct fault {
    char *method, *prefix, *headers, *body;
    int status, times;
} fault;

struct fakegh {
    int fd, stop_pipe[2];
    char url[64];
    char *token, *login, *link_base;
    int user_status;
    pthread_t thread;
    pthread_mutex_t mu;
    comment *comments;
    size_t ncomments;
    int64_t next_id;
    fault faults[8];
    size_t nfaults;
    fakegh_request *reqs;
    size_t nreqs;
    pull *pulls;
    size_t npulls;
    artifact *artifacts;
    size_t nartifacts;
    issue *issues;
    size_t nissues;
    int64_t next_issue;
    label_event *events;
    size_t nevents;
};

/** Query parameter `name` of `path` as a number, or `dflt`. */
long fakegh__query_num(const char *path, const char *name, long dflt);

/** Query parameter `name`, percent-decoded (caller frees), or NULL. */
char *fakegh__query_str(const char *path, const char *name);

/** Characters (not bytes) of a UTF-8 string, as GitHub counts its limits. */
size_t fakegh__utf8_chars(const char *s);

/**
 * Answers an issues request (list, open, read, edit) for `who`: the body
 * to send with *status and any headers in `hdrs`; NULL when the request is
 * not one. Called with the lock held.
 */
char *fakegh__route_issues(fakegh *s, const char *method, const char *path, const char *who, const char *body,
                           long *status, char *hdrs, size_t hlen);

void fakegh__issues_free(fakegh *s);

#endif
