/*
 * internal.h - what the files of runner/bisect/ share: git, worktrees and
 * builds (builds.c), the state file (state.c), the result's words (text.c).
 */
#ifndef PG_BISECT_INTERNAL_H
#define PG_BISECT_INTERNAL_H

#include <stddef.h>

#include "base/util.h"
#include "bisect/types.h"

/**
 * Runs `git -C repo ARGS...` (argv, no shell) and keeps its standard
 * output (at most `max_out` bytes; 0: discarded).
 * @param[out] out the output (caller frees), NULL when discarded.
 * @param[out] status its exit status; a status other than 0 is no error here.
 * @return 0; PG_EKERNEL when git cannot be started; PG_EIO past max_out.
 */
int pg__bisect_git(char **out, int *status, const char *repo, const char *const *args, size_t max_out);

/** The top directory of the repository holding `dir`, and its common git directory (both absolute). */
int pg__bisect_repo(char **top, char **git_dir, const char *dir);

/** The commit `rev` names, as 40 hex digits. @return 0; PG_EUSAGE naming `rev` when it names none. */
int pg__bisect_resolve(char **sha, const char *repo, const char *rev);

/**
 * The first-parent chain from good (commit 0) to bad (commit n), with
 * each commit's subject. @return 0; PG_EUSAGE when good is not an ancestor
 * of bad or they are the same commit.
 */
int pg__bisect_chain(pg_bisect_commit **out, size_t *n, const char *repo, const char *good, const char *bad);

/**
 * Commit `sha` checked out in work_dir/trees/SHA (a detached worktree of
 * `repo`, made once) and built there with `command` into `build_dir`,
 * unless that directory already holds a build of this commit and command
 * (its .perfgate-build-sha stamp, as ci/gh/build.sh writes it). The build's
 * output goes to work_dir/logs/SHA.log.
 * @param[out] out the build directory (absolute; caller frees).
 * @param[out] built 1 when it was built now, 0 when reused.
 * @return 0; PG_EKERNEL (message: the exit, the log's last line and its
 *         path) when the command fails or leaves nothing; a git error.
 */
int pg__bisect_build(char **out, int *built, const char *repo, const char *work_dir, const char *sha,
                     const char *command, const char *build_dir);

/** Whether `dir` is a relative path that stays inside the directory it is taken from (no "..", not absolute). */
int pg__bisect_inside(const char *dir);

/** Writes the state to `path` atomically (a temporary file renamed over it). */
int pg__bisect_save(const pg_bisect_result *r, const char *path);

/** The one-line result of a finished (or stopped) bisection, into r->text. */
int pg__bisect_describe(pg_bisect_result *r);

void pg__bisect_step_clear(pg_bisect_step *s);

/** "1a2b3c4" of commit i, or "-". */
const char *pg__bisect_short(const pg_bisect_result *r, size_t i, char out[16]);

#endif
