/*
 * init.h - `perfgate init`: a starter suite for a build directory and the
 * caller workflows that gate a repository on GitHub Actions.
 *
 * The build directory is scanned for plugins (shared libraries that export
 * perfgate_plugin_entry: each benchmark becomes a case) and programs (ELF
 * executables: each becomes a `command:` case). The suite is validated
 * before it is written; the workflows call perfgate's reusable workflows
 * (.github/workflows/gate.yml, post.yml, record.yml, nightly.yml) pinned to
 * the commit this perfgate was built from. No file that exists is touched:
 * when one does, nothing is written.
 */
#ifndef PG_INIT_H
#define PG_INIT_H

#include <stddef.h>

/** Options of pg_init_run(). Initialise with PG_INIT_OPTIONS_INIT. */
typedef struct pg_init_options {
    unsigned version;
    const char *build_dir;       /* the build directory to scan (required) */
    const char *root;            /* the repository; NULL: the nearest directory up from here holding .git */
    const char *build_command;   /* NULL: from the repository's Makefile, CMakeLists.txt or meson.build */
    const char *suite;           /* the suite's path in the repository; NULL: perf/perfgate.yaml */
    const char *perfgate_ref;    /* the perfgate commit the workflows pin; NULL: this build's */
    const char *perfgate_repo;   /* NULL: perfgate/perfgate */
    const char *branch;          /* the default branch; NULL: origin's, else main */
    const char *nightly_runs_on; /* the nightly's runner labels as JSON; NULL: no nightly workflow */
    int no_workflows;            /* the suite only */
} pg_init_options;

#define PG_INIT_OPTIONS_VERSION 1
#define PG_INIT_OPTIONS_INIT {PG_INIT_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}

/** The placeholder the workflows name when this perfgate knows no published commit. */
#define PG_INIT_REF_PLACEHOLDER "PERFGATE_SHA"

/** What pg_init_run() did. Clear with pg_init_result_clear(). */
typedef struct pg_init_result {
    char *root;               /* the repository */
    char *build_rel;          /* the build directory, relative to root */
    char *build_command;      /* what the workflows build with */
    char *suite_rel;          /* the suite, relative to root */
    char *perfgate_ref;       /* what the workflows pin (PG_INIT_REF_PLACEHOLDER when unknown) */
    char *written[5];         /* the files written, relative to root */
    size_t nwritten;
    size_t nplugins, nbenchmarks, ncommands;
    char *notes;              /* one line each: what was found but not used, and why; may be NULL */
} pg_init_result;

/**
 * Scans the build directory, writes the suite and (unless no_workflows)
 * the caller workflows into the repository.
 * @return 0; PG_EUSAGE (exit 2) when a file to write exists (each named,
 *   nothing written), nothing benchmarkable was found, the build directory
 *   is outside the repository or the build command cannot be guessed;
 *   PG_ENOTFOUND when the build directory does not exist; PG_EIO when a
 *   file cannot be written.
 */
int pg_init_run(pg_init_result *out, const pg_init_options *opts);
void pg_init_result_clear(pg_init_result *r);

#endif
