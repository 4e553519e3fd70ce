/*
 * suite.h - suites: YAML files declaring exact checks and timed benchmarks.
 *
 * A suite loads into a model whose benchmarks are expanded into cases: each
 * list-valued parameter (and `threads`) multiplies the cases, and `zip`
 * pairs lists instead. Every case has a stable key built from suite, name,
 * canonically ordered params, threads and device, under which its history
 * accumulates: `SUITE/NAME[p1=v1,p2=v2]@THREADS:DEVICE`, params sorted by
 * name and numbers in canonical form, so reordering keys in the file or
 * writing 64KiB for 65536 never changes a key. The schema is documented in
 * docs/suites.md.
 */
#ifndef PG_SUITE_H
#define PG_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "base/case.h"
#include "base/node.h"

/** Diagnostics: every error found in the files loaded, in file order. */
typedef struct pg_diags {
    char **lines;       /* "FILE:LINE:COL: message" */
    size_t count;
} pg_diags;

void pg_diags_clear(pg_diags *d);
int pg__diag_add(pg_diags *d, const pg_node *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

typedef struct pg_check {
    char *name;
    char *kind;               /* flops | ops | schedule | memory */
    const pg_node *node;      /* the whole entry */
    const pg_node *workload;  /* may be NULL */
    const pg_node *trace;     /* may be NULL */
    const pg_node *schedule;  /* may be NULL */
    const pg_node *benchmark; /* kind memory: the benchmark of this suite it counts; may be NULL */
    const pg_node *expect;
    int64_t steps;            /* 0 when not given */
    /* kind schedule: the parsed `schedule` (torch.profiler.schedule semantics) */
    int64_t skip_first, wait, warmup, active, repeat;
} pg_check;

/*
 * An `accept:` entry: REGRESSED cases whose key within the suite matches
 * `glob` are accepted, with `reason`, in history mode, from commit `since`
 * for `commits` commits recorded on the branch (docs/suites.md).
 */
typedef struct pg_accept {
    char *glob;               /* over the key after "SUITE/" ("relax*"); counted keys (#instructions) match too */
    char *reason;
    char *since;              /* the commit that made the change (7 to 40 hex digits) */
    int64_t commits;          /* accepted for this many commits from `since`, it included */
    const pg_node *node;
} pg_accept;

/* Commits an accept: entry holds for when it does not say. */
#define PG_ACCEPT_COMMITS 10

void pg_accept_clear(pg_accept *a);

typedef struct pg_suite {
    char *name;
    char *path;
    char *description;
    pg_case *cases;
    size_t ncases;
    pg_check *checks;
    size_t nchecks;
    pg_accept *accepts;       /* accept: entries, validated */
    size_t naccepts;
    pg_doc *doc;              /* owns every node the model points to */
} pg_suite;

/** Options for loading. Initialise with PG_SUITE_OPTIONS_INIT. */
typedef struct pg_suite_options {
    unsigned version;
    size_t max_cases;         /* expansion cap per suite; default 10000 */
} pg_suite_options;

#define PG_SUITE_OPTIONS_VERSION 1
#define PG_SUITE_OPTIONS_INIT {PG_SUITE_OPTIONS_VERSION, 10000}

/**
 * Loads and validates one suite file.
 * @param[out] out the suite (NULL on error); free with pg_suite_free().
 * @param diags receives every error found (may be NULL).
 * @return 0, or PG_ESUITE with the first diagnostic as the error message.
 */
int pg_suite_load(pg_suite **out, const char *path, const pg_suite_options *opts, pg_diags *diags);

/** Same, from memory; `name` is used as the file name in messages. */
int pg_suite_load_buffer(pg_suite **out, const char *name, const char *data, size_t len,
                         const pg_suite_options *opts, pg_diags *diags);

void pg_suite_free(pg_suite *suite);

/** A set of suites loaded from files and directories, in stable order. */
typedef struct pg_suite_set {
    pg_suite **suites;
    size_t count;
} pg_suite_set;

/**
 * Loads each path: a file, or a directory whose .yaml and .yml files load in
 * name order. Every error of every file is collected in `diags`.
 */
int pg_suite_set_load(pg_suite_set *out, const char *const *paths, size_t npaths,
                      const pg_suite_options *opts, pg_diags *diags);
void pg_suite_set_clear(pg_suite_set *set);

/**
 * Builds a single case from a check's `workload` mapping: `kernel` names the
 * kernel, `device` the device (default cpu), every other key is a parameter
 * (a list becomes one comma-joined value). Threads are 1. Free with
 * pg_case_clear().
 */
int pg_case_from_workload(pg_case *out, const pg_node *workload, const char *suite, const char *name);

#endif
