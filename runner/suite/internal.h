/*
 * internal.h - what the files of the suite loader share: diagnostics,
 * field readers, parameter values, inherited settings, the opening every
 * entry shares, and the loader's state while it reads one file.
 */
#ifndef PG_SUITE_INTERNAL_H
#define PG_SUITE_INTERNAL_H

#include "kernels/kernels.h"
#include "suite/suite.h"
#include "suite/units.h"

/* ---- diag.c ---- */

/** Appends a line the list takes ownership of (freed on failure). */
int pg__diag_push(pg_diags *d, char *line);
/** Sorts the lines of one file by line and column, keeping the order of ties. */
void pg__diags_sort(pg_diags *d, const char *file);
/** The candidate closest to `word` when it is close enough to be a typo, else NULL. */
const char *pg__closest(const char *word, const char *const *cands);
/** "; did you mean 'x'?" into `buf` when a candidate is close, else "". */
const char *pg__dym(char *buf, size_t size, const char *word, const char *const *cands);

/* ---- fields.c ---- */

/** A key that is wrong where it is but right elsewhere gets this advice. */
typedef struct pg__hint {
    const char *key;
    const char *advice;
} pg__hint;

int pg__in_list(const char *const *list, const char *s);
/** Reports an unknown key (a plain name) and returns -1, or accepts it with 0. */
typedef int (*pg__unknown_key_fn)(pg_diags *d, const pg_node *key, const char *const *known, const char *where,
                                  void *payload);
/**
 * Reports keys of `map` that are not plain names, and hands the plain ones
 * not in `known` to `unknown`. @return nonzero if any key was reported.
 */
int pg__keys_check(pg_diags *d, const pg_node *map, const char *const *known, const char *where,
                   pg__unknown_key_fn unknown, void *payload);
/**
 * Reports keys of `map` that are not plain names or not in `known`, with
 * the advice of `hints` or a did-you-mean; `extensions` lets "x-..." keys
 * pass. @return nonzero if any key was reported.
 */
int pg__keys_known(pg_diags *d, const pg_node *map, const char *const *known, const char *where,
                   const pg__hint *hints, int extensions);

/* Each reader reports what is wrong with `n`, named `what`, and returns -1. */
int pg__scalar_of(pg_diags *d, const pg_node *n, const char *what);
int pg__get_enum(pg_diags *d, const char **out, const pg_node *n, const char *what,
                 const char *const *allowed, const char *choices);
/** Reads `command:` (a non-empty list of scalar arguments) into proto->command (pointers into `n`). */
int pg__load_command(pg_diags *d, pg_case *proto, const pg_node *n);
int pg__get_duration(pg_diags *d, double *out, const pg_node *n, const char *what);
int pg__get_int(pg_diags *d, int64_t *out, const pg_node *n, const char *what, int64_t min, int64_t max);
int pg__get_bool(pg_diags *d, int *out, const pg_node *n, const char *what);
/** Names of suites and entries become parts of case keys: letters, digits and _ - . + only. */
int pg__check_name(pg_diags *d, const pg_node *n, const char *what);
/** Parameter names are identifiers, so expressions can use them. */
int pg__check_param_name(pg_diags *d, const pg_node *k);

/** Reports item `later`, which repeats item `first`, into `d`. */
typedef void (*pg__dup_fn)(pg_diags *d, size_t later, size_t first, void *payload);
/** Calls fn for each string equal to an earlier one, in O(n log n). */
int pg__each_dup(pg_diags *d, const char *const *strs, size_t n, pg__dup_fn fn, void *payload);

/* ---- params.c ---- */

/** One canonical parameter value. */
typedef struct pg__pval {
    char *text;
    int is_number;
    double num;
    const pg_node *node;
} pg__pval;

/** A parameter: its values in file order and the matrix axis it varies along. */
typedef struct pg__dim {
    const char *name;
    const pg_node *key;
    const pg_node *value;   /* the scalar or list as written */
    pg__pval *vals;
    size_t count;
    int owned;              /* vals belong to this parameter (not shared from defaults) */
    int zip;                /* zip group, or -1 */
    size_t axis;
} pg__dim;

void pg__dim_clear(pg__dim *dm);
/** True when the whole of `s` is a finite number, stored in `out`. */
int pg__is_number_text(const char *s, double *out);
/** Canonical text of a scalar value; the caller frees out->text. */
int pg__canon_value(pg_diags *d, pg__pval *out, const pg_node *v, const char *pname);
/** Reports values an unzipped parameter lists twice. */
int pg__check_repeats(pg_diags *d, const pg__dim *dm);
/** Parses a `params` mapping into `*out` (the caller clears each and frees the array). */
int pg__parse_params(pg_diags *d, pg__dim **out, size_t *nout, const pg_node *params);

/* ---- entry.c: settings and the loader ---- */

/** Settings a benchmark inherits from `defaults` and may override. */
typedef struct pg__inherit {
    int64_t *threads;           /* owned by whoever parsed it */
    size_t nthreads;
    const char *device;
    const pg_node *device_node; /* where the device was set, NULL for the built-in default */
    double min_run_time, max_run_time, warmup;
    int64_t min_samples;
    double threshold, alpha;
    double exact_threshold;     /* counted metrics; 0: PG_EXACT_THRESHOLD */
    unsigned instruments;       /* PG_INSTRUMENT_* bits; 0: time */
    const pg_node *tags;
    pg__dim *params;            /* the defaults' parameters */
    const pg_node *env;         /* the defaults' env mapping (validated), or NULL */
    size_t nparams;
    int bad;                    /* defaults had errors: no benchmark expands */
} pg__inherit;

/** The state of loading one file. */
typedef struct pg__loader {
    pg_suite *s;
    pg_diags *d;
    const pg_suite_options *opts;
    pg__inherit defs;
    char *dir;                  /* the suite file's directory, for trace paths */
    size_t cap_cases;
    double planned;             /* cases of the benchmarks so far */
    int over_cap;
    const pg_node **names;      /* name nodes of checks and benchmarks */
    size_t nnames;
    int64_t default_threads;
} pg__loader;

/** What tells one kind of entry from another when it is opened. */
typedef struct pg__entry_kind {
    const char *noun;           /* "benchmark" */
    const char *shape;          /* what the mapping holds, for an entry that is not one */
    const char *where;          /* "a benchmark", for unknown keys */
    const char *const *keys;
    const pg__hint *hints;
    int inherits;               /* takes the settings of `defaults` */
} pg__entry_kind;

extern const pg__entry_kind pg__bench_entry;
extern const pg__entry_kind pg__check_entry;

/** An opened entry. */
typedef struct pg__entry {
    const char *name;           /* "?" when missing or invalid (reported) */
    int bad;                    /* an error was reported: do not use the entry */
    pg__inherit eff;            /* inherits: the defaults under the entry's own settings */
} pg__entry;

/**
 * Opens an entry: checks it is a mapping, reports unknown keys, checks and
 * records its name, and for kinds that inherit parses its settings over the
 * defaults. eff.threads is then the entry's own list or NULL: the caller
 * frees it.
 * @return 0, or -1 when the entry is not a mapping (reported; skip it).
 */
int pg__entry_open(pg__entry *out, pg__loader *L, const pg__entry_kind *kind, const pg_node *node);
/** Reads `device:` (cpu or cuda). */
int pg__get_device(pg_diags *d, const char **out, const pg_node *n);
/** Reads the `defaults` mapping into L->defs. */
void pg__load_defaults(pg__loader *L, const pg_node *n);

/* ---- env.c ---- */

/** Validates an `env:` mapping: variable names, values that are one scalar each, no variable perfgate sets. */
int pg__check_env(pg_diags *d, const pg_node *n);
/**
 * Fills proto->env (owned "NAME=VALUE" strings, sorted by name) with the
 * defaults' `env` overridden name by name by the benchmark's own (either may
 * be NULL); both were validated.
 */
int pg__merge_env(pg_diags *d, pg_case *proto, const pg_node *defaults, const pg_node *own);

/* ---- kernel.c ---- */

/** Resolves a kernel name for a device, reporting unknown names and wrong devices. */
const pg_kernel *pg__find_kernel(pg_diags *d, const pg_node *n, const char *device,
                                 const pg_node *device_node);
/** Did-you-mean over the kernel's declared parameter names; `k` may be NULL. */
int pg__check_kernel_param(pg_diags *d, const pg_kernel *k, const pg_node *key);

/* ---- expand.c ---- */

/** Reads `zip: [[a, b], [c, d]]`: each group's lists are paired element by element. */
int pg__parse_zip(pg_diags *d, pg__dim *dims, size_t ndims, const pg_node *zip);
/**
 * Expands a benchmark's matrix into L->s->cases, unless it would take the
 * suite over the cap (reported once). Sorts `dims` by name.
 */
void pg__expand(pg__loader *L, const pg_case *proto, pg__dim *dims, size_t ndims, const int64_t *threads,
                size_t nthreads);

/* ---- bench.c, check.c, expect.c ---- */

void pg__load_benchmark(pg__loader *L, const pg_node *b);
void pg__load_check(pg__loader *L, const pg_node *c);
/** Validates `expect` for the check's kind; flops expressions are evaluated over `wc` (may be NULL). */
int pg__check_expect(pg_diags *d, const pg_check *ck, const pg_node *e, const pg_case *wc);

#endif
