/*
 * internal.h - what the files of runner/nightly/ share: an issue's state
 * as its body keeps it, and the words of its title, body and comments
 * (body.c).
 *
 * A body perfgate keeps carries two markers, one section and the rest:
 *   <!-- perfgate-regression key=HASH -->
 *   <!-- perfgate-state state=regressed|recovered since=SHA night=UUID reference=UUID,UUID -->
 *   ... <!-- perfgate-nights --> a table, newest night first <!-- /perfgate-nights --> ...
 */
#ifndef PG_NIGHTLY_INTERNAL_H
#define PG_NIGHTLY_INTERNAL_H

#include "base/util.h"

struct pg_nightly;
struct pg_nightly_case;

/* The marker that makes an issue perfgate's, before the key's hash. */
#define PG__NIGHTLY_MARKER "<!-- perfgate-regression key="

/* A night's rows kept in an issue's table. */
#define PG__NIGHTLY_ROWS 30

typedef struct pg__nightly_state {
    char hash[17];            /* the key's */
    int recovered;
    char since[41];           /* the first night slower: its commit */
    char night[37];           /* ... and its run */
    char *reference;          /* the runs before the change, by uuid, space-separated */
} pg__nightly_state;

/** Reads the markers of a body. @return 0; -1 when they are missing or malformed (not an issue to act on). */
int pg__nightly_parse(pg__nightly_state *out, const char *body);
void pg__nightly_state_clear(pg__nightly_state *s);

/** A commit's page, a run of commits' page, under server/repo; NULL for what is not hex. Caller frees. */
char *pg__nightly_commit_url(const char *server, const char *repo, const char *sha);

/** The title and body of a new issue for case `c` of night `n`; `bisection` is markdown (NULL: none ran). */
char *pg__nightly_title(const struct pg_nightly_case *c, const char *since);
int pg__nightly_body(pg_buf *out, const struct pg_nightly *n, const struct pg_nightly_case *c, const char *bisection,
                     const char *server, const char *repo);

/**
 * The body `old` with tonight's row added to its nights (the oldest beyond
 * PG__NIGHTLY_ROWS dropped) and its state set to recovered or regressed.
 */
int pg__nightly_next_body(char **out, const char *old, const struct pg_nightly *n, const struct pg_nightly_case *c,
                          int recovered, const char *server, const char *repo);

/** The comment on a case that recovered (or, `again`, is slower again). */
int pg__nightly_comment(pg_buf *out, const struct pg_nightly *n, const struct pg_nightly_case *c, int again,
                        const char *server, const char *repo);

#endif
