/*
 * meta.h - where a run comes from: commit, branch, pull request, CI URL.
 *
 * Order of precedence: explicit values (flags), then the CI environment
 * (GITHUB_SHA, GITHUB_REF_NAME, GITHUB_HEAD_REF, GITHUB_SERVER_URL/
 * GITHUB_REPOSITORY/GITHUB_RUN_ID), then `git` in the working directory.
 */
#ifndef PG_META_H
#define PG_META_H

#include "base/model.h"

typedef struct pg_meta_options {
    const char *commit;
    const char *branch;
} pg_meta_options;

/** Fills run->commit, branch, ref, pr, ci_url, tool_version, machine and times. */
int pg_meta_fill(pg_run *run, const pg_meta_options *opts);

/** Runs `git ARGS` and returns its first output line (caller frees), or NULL. */
char *pg__git_line(const char *args);

#endif
