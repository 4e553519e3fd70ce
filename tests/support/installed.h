/*
 * installed.h - perfgate installed from its source tarball, as a user (and
 * perfgate's reusable workflows) install it, built once per build
 * directory and source tree and shared by every test that needs it.
 */
#ifndef PG_TEST_INSTALLED_H
#define PG_TEST_INSTALLED_H

typedef struct pg_test_install {
    char *tarball;   /* the source tarball (ci/release/tarball.sh --worktree) */
    char *source;    /* it unpacked: what a checkout of perfgate at its commit holds, without .git */
    char *prefix;    /* the tree ci/gh/install.sh installed from it */
    char *commit;    /* the commit its `perfgate --version` names */
    char *log;       /* what building it printed */
    double seconds;  /* what making the tarball, building and installing took; 0 when it was already there */
} pg_test_install;

/**
 * The installed perfgate: made on first use under the build directory
 * (tests/installed/TREE/, TREE the git tree of the tracked files as they are
 * now, uncommitted changes included; new files count once `git add`ed),
 * reused after that. Tests in other processes wait for a build under way.
 * Fails the test when the tarball cannot be made or does not build.
 */
const pg_test_install *pg_test_installed(void);

#endif
