/*
 * model.h - the one result model that flows from the executor through the
 * store, the statistics and every reporter.
 *
 * A run holds timed results (one per case, with raw samples) and the outcomes
 * of exact checks. Ownership: a pg_run owns every string and array it points
 * to; pg_run_free() releases all of it.
 */
#ifndef PG_MODEL_H
#define PG_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum pg_status {
    PG_STATUS_OK = 0,   /* measured */
    PG_STATUS_SKIPPED,  /* not run, with a reason (no device, filtered) */
    PG_STATUS_ERROR     /* failed to run; never reported as a regression */
} pg_status;

const char *pg_status_name(pg_status s);
int pg_status_parse(pg_status *out, const char *name);

/*
 * How a run was measured. Runs of different modes are different
 * measurements of the same cases (one sample per interleaved round, not per
 * block; counts, not times): baseline selection pools only runs of the head's
 * mode (store/select.h).
 */
typedef enum pg_run_mode {
    PG_MODE_PLAIN = 0,        /* measured alone by `run` or `gate` (or imported): the timing engine's samples */
    PG_MODE_INTERLEAVED_HEAD, /* the head build of an interleaved gate: one sample per round */
    PG_MODE_INTERLEAVED_BASE, /* the base build of an interleaved gate, measured in the same rounds */
    PG_MODE_COUNTED,          /* counted by an instrument alone (instructions, memory): no times */
    PG_MODE__COUNT
} pg_run_mode;

/** "plain", "interleaved-head", "interleaved-base", "counted". */
const char *pg_run_mode_name(pg_run_mode m);
/** @return 0, or PG_EINVAL for a name that is none of pg_run_mode_name()'s. */
int pg_run_mode_parse(pg_run_mode *out, const char *name);

/* Summary statistics of a sample set (seconds per iteration for times). */
typedef struct pg_summary {
    size_t n;
    double median, q1, q3, iqr;
    double mean, stddev, min, max;
} pg_summary;

/* Warning bits attached to a result. */
enum {
    PG_WARN_NOISY = 1 << 0,      /* IQR/median >= 10% */
    PG_WARN_VERY_NOISY = 1 << 1, /* IQR/median >= 25% */
    PG_WARN_FEW_SAMPLES = 1 << 2,
    PG_WARN_MAX_TIME = 1 << 3,   /* stopped by max_run_time before min_samples */
    PG_WARN_THROTTLED = 1 << 4,  /* GPU samples under 75% of the default clock */
    PG_WARN_CONTENDED = 1 << 5,  /* waited for a CPU (or lost it to steal) >= 10% of its sampling's wall time */
    PG_WARN_NOT_STEADY = 1 << 6, /* the warm-up ended still getting faster: the first samples may be a transient */
    PG_WARN__LAST = PG_WARN_NOT_STEADY
};

/* IQR/median of a run's samples at which it is PG_WARN_VERY_NOISY; the verdict uses the same bound. */
#define PG_VERY_NOISY_IQR 0.25

typedef struct pg_result {
    char *key;          /* stable case key: suite/name[params]@threads:device */
    char *suite;
    char *name;
    char *params_json;  /* canonical JSON object of the expanded params */
    int threads;
    char *device;       /* "cpu" or "cuda" */
    char *metric;       /* "time" */
    char *unit;         /* "s" for time: samples are seconds per iteration */
    pg_status status;
    char *message;      /* skip reason or error; NULL when ok */
    double *samples;    /* one per block: time per iteration */
    size_t nsamples;
    int64_t number_per_run; /* iterations per block */
    pg_summary summary;
    double flops;       /* per iteration, 0 when unknown */
    double bytes;       /* per iteration, 0 when unknown */
    double mfu;         /* 0..1 against the measured ceiling, <0 when undefined */
    double warmup_s;    /* time spent warming up */
    double threshold;   /* minimum effect from the suite (fraction), 0 = default */
    double alpha;       /* significance level from the suite, 0 = default */
    unsigned warnings;  /* PG_WARN_* bits */
    char *extra_json;   /* backend-specific details (JSON object) or NULL */
    int absent;         /* ERROR because the build measured has no such case (no plugin file, no benchmark
                           of that name, no command): where the base lacks it, the case is NEW */
    /* Whether the process had its CPU while sampling (measure/contention.h); not stored. */
    double waited;      /* share of the sampled blocks' wall time its thread waited, runnable, for a CPU (0..1) */
    double stolen;      /* share of the sampling's wall time the hypervisor took from its CPUs (steal; 0..1) */
    double transient;   /* its first warm-up call's time per iteration over the steady state's; 0: unknown */
} pg_result;

typedef struct pg_check_result {
    char *suite;
    char *name;
    char *kind;         /* flops | ops | schedule */
    char *expected;     /* human-readable, also stored */
    char *actual;
    int passed;
    int skipped;        /* could not run here (e.g. no CUDA device); passed is 1 */
    char *message;      /* what differed, where; the skip reason; NULL when passed */
    char *detail;       /* optional multi-line table (per-module FLOPs...); not stored; may be NULL */
    int error;          /* the PG_E* code when the check could not run (bad input, kernel failure); 0 */
} pg_check_result;

typedef struct pg_run {
    int64_t id;         /* database id, 0 before it is stored */
    char *uuid;         /* globally unique, kept across database merges */
    char *suite_set;    /* names of the suites run, comma-separated */
    char *commit;
    char *branch;
    char *ref;
    int64_t pr;         /* pull request number, 0 when none */
    char *ci_url;
    char *source;       /* "perfgate" or the importer's format name */
    pg_run_mode mode;   /* how it was measured */
    char *tool_version;
    char *machine_hash; /* hex digest of machine_json */
    char *machine_json; /* machine fingerprint (JSON object) */
    int64_t started_at; /* unix seconds */
    int64_t finished_at;
    pg_result *results;
    size_t nresults;
    pg_check_result *checks;
    size_t nchecks;
    size_t results_room; /* results allocated (pg_run_add_result grows it by doubling); 0 when unknown */
} pg_run;

/** Allocates an empty run with a fresh uuid. Free with pg_run_free(). */
int pg_run_new(pg_run **out);
void pg_run_free(pg_run *run);

/** Appends a zeroed result and returns it through `out` (owned by the run). */
int pg_run_add_result(pg_result **out, pg_run *run);
/** Appends a zeroed check result (owned by the run). */
int pg_run_add_check(pg_check_result **out, pg_run *run);

/**
 * Exchanges the results of two runs (arrays and counts); pointers into
 * either array stay valid and now belong to the other run.
 */
void pg_run_swap_results(pg_run *a, pg_run *b);

/** Finds a result by case key; NULL when absent. */
pg_result *pg_run_find(const pg_run *run, const char *key);

void pg__result_clear(pg_result *r);

/*
 * Outcomes every measuring path gives a result: the message is copied and
 * replaces any earlier one; both return 0, so a backend can end with
 * `return pg__result_error(out, ...)` (a failed case is not a failed run).
 */
/** Marks `out` as an ERROR with `message` (copied; NULL: none); returns 0. */
int pg__result_error(pg_result *out, const char *message);
/** Marks `out` as an ERROR because the build has no such case (`absent`), with `message`; returns 0. */
int pg__result_absent(pg_result *out, const char *message);
/** Marks `out` as SKIPPED with `reason` (copied; NULL: none); returns 0. */
int pg__result_skip(pg_result *out, const char *reason);
void pg__check_clear(pg_check_result *c);

/**
 * Fills a random RFC 4122 version-4 uuid string from the kernel's generator
 * (getrandom(2)). @return 0; PG_EIO when it fails: there is no fallback.
 */
int pg__uuid4(char out[37]);

#endif
