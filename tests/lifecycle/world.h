/*
 * world.h - what the lifecycle tests share: a job's environment, shell
 * commands that must succeed, git commits, the reports and the fake
 * GitHub's records they assert on.
 */
#ifndef PG_TEST_LIFECYCLE_WORLD_H
#define PG_TEST_LIFECYCLE_WORLD_H

#include "fakegh.h"

#include <jansson.h>
#include <stddef.h>

/* An environment: exactly these "K=V" strings, NULL-terminated. */
typedef struct lc_env {
    char *v[96];
    int n;
} lc_env;

void lc_env_set(lc_env *e, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** The value of `key`, or NULL. */
const char *lc_env_get(const lc_env *e, const char *key);
void lc_env_free(lc_env *e);
/** PATH, HOME and the sanitizers' exit codes: what every job starts from. */
void lc_env_base(lc_env *e, const char *home);

/** Runs a shell command line, asserts it succeeded, returns its output (caller frees). */
char *lc_sh_ok(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/** The file dir/rel (caller frees). */
char *lc_slurp(const char *dir, const char *rel);
int lc_exists(const char *path);

/** Commits everything in `repo` on its current branch; `sha` gets the commit. */
void lc_commit(const char *repo, char sha[41], const char *msg);

/** `file` zipped as actions/upload-artifact does, as `name` at the archive's top (caller frees *bytes). */
void lc_zip(char **bytes, size_t *len, const char *file, const char *name);

/** sqlite3's answer to `query` on `db`, one line per row (caller frees). */
char *lc_sql(const char *db, const char *query);

/** The JSON report at `path` (caller decrefs); the verdict of case `name` in it. */
json_t *lc_report(const char *path);
/** The last `n` bytes of `text` (a run's log), what a failed assertion prints: CI shows the end of the output. */
const char *lc_tail(const char *text, size_t n);
/** The verdict object of case `name` in a JSON report; NULL when it has none (or no report). */
json_t *lc_find_case(json_t *report, const char *name);
const char *lc_verdict_of(json_t *report, const char *name);

/** Requests the fake API saw since request `from` that changed something (anything but GET). */
size_t lc_writes_since(fakegh *gh, size_t from);
/** Commit statuses set on `sha` of `repo` with `state` (NULL: any). */
size_t lc_statuses(fakegh *gh, const char *repo, const char *sha, const char *state);

#endif
