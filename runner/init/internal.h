/* internal.h - what the files of init/ share: the scan's findings, the texts. */
#ifndef PG_INIT_INTERNAL_H
#define PG_INIT_INTERNAL_H

#include "base/util.h"

#include <stddef.h>

/** A plugin found in the build directory. */
typedef struct pg__init_plugin {
    char *rel;           /* its path relative to the build directory */
    char *name;          /* the plugin's own name (PG_PLUGIN_DEFINE) */
    char **benchmarks;   /* what `symbol:` names */
    size_t n;
} pg__init_plugin;

/** What a scan found: plugins, programs, and notes on what it passed over. */
typedef struct pg__init_found {
    pg__init_plugin *plugins;
    size_t nplugins;
    char **programs;     /* paths relative to the build directory */
    size_t nprograms;
    pg_buf notes;
} pg__init_found;

/** Scans `build_dir` (at most 8 levels deep; hidden, CMakeFiles and _deps folders skipped). */
int pg__init_scan(pg__init_found *out, const char *build_dir);
void pg__init_found_clear(pg__init_found *f);

/** What the texts are made of. */
typedef struct pg__init_vars {
    const char *suite_name;
    const char *build_rel;
    const char *build_command;
    const char *suite_rel;
    const char *ref;
    const char *repo;
    const char *branch;
    const char *runs_on;
} pg__init_vars;

/** The suite for what was found. */
int pg__init_suite_text(pg_buf *out, const pg__init_found *f, const pg__init_vars *v);

/** The caller workflows, in the order they are written. */
typedef enum pg__init_workflow { PG__INIT_PR, PG__INIT_POST, PG__INIT_MAIN, PG__INIT_NIGHTLY } pg__init_workflow;
extern const char *const pg__init_workflow_files[4];
int pg__init_workflow_text(pg_buf *out, pg__init_workflow which, const pg__init_vars *v);

/** `s` as a YAML scalar: plain where that reads back as the same string, else double-quoted. */
int pg__init_yaml_scalar(pg_buf *out, const char *s);

#endif
