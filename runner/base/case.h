/*
 * case.h - one benchmark case: a kernel, plugin or command with one value
 * for each parameter, and the settings it is measured with.
 *
 * Cases come from suites (suite.h expands them) and go to everything that
 * runs or reports one: kernels, backends, plugins, measurement. A case's
 * key, `SUITE/NAME[p1=v1,p2=v2]@THREADS:DEVICE`, names it in the history;
 * a case with `env:` has its variables in the key too:
 * `SUITE/NAME[p1=v1]{VAR=value}@THREADS:DEVICE` (`% , = { } [ ] @` and
 * control characters of a value written as %XX).
 */
#ifndef PG_CASE_H
#define PG_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "base/node.h"

/*
 * What a case is measured with (`instrument:` in a suite, --instrument):
 * bits, several at once. Time is the timing engine; instructions and memory
 * count in a child process (meter/) and are exact.
 */
enum {
    PG_INSTRUMENT_TIME = 1 << 0,
    PG_INSTRUMENT_INSTRUCTIONS = 1 << 1,
    PG_INSTRUMENT_MEMORY = 1 << 2
};

/**
 * The default threshold of counted metrics (instructions, bytes): a
 * fraction. Half a percent: exact counts do not move between processes
 * (A/A: identical), so a small threshold costs no false alarms, and a 1%
 * change (one that adds 1% of the loop, i.e. a hair under 1% of the count)
 * is caught at the default.
 */
#define PG_EXACT_THRESHOLD 0.005

/** One expanded parameter value. */
typedef struct pg_param {
    char *name;
    char *value;        /* canonical text */
    int is_number;      /* value parses as a number */
    double num;
} pg_param;

/**
 * One case of a benchmark: what runs, with one value per parameter, and the
 * settings it is measured with. Owns every string and array it points to
 * (not `node`); free with pg_case_clear().
 */
typedef struct pg_case {
    char *key;
    char *suite;
    char *name;
    char *kernel;       /* built-in kernel, or NULL */
    char *plugin;       /* shared library path, or NULL */
    char *symbol;       /* benchmark name inside the plugin */
    char **command;     /* argv, NULL-terminated, or NULL */
    double timeout;     /* command: seconds before the process is killed (default 60) */
    char *metrics;      /* command: "json" to read its printed metrics, or NULL */
    int keep_output;    /* command: keep stdout/stderr (output: keep) instead of discarding */
    char *trace;        /* a torch.profiler trace file or directory whose steps are the samples, or NULL;
                           may hold {trace_dir} (a fresh directory the command writes into) */
    char *trace_step;   /* glob of the step range; NULL: ProfilerStep#* */
    char **trace_ops;   /* globs of ops whose self time per step is a series of its own */
    size_t ntrace_ops;
    char **trace_metrics; /* GPU figures per step kept as series: gpu_busy, gpu_idle, host_wait, kernel_wait, other_wait */
    size_t ntrace_metrics;
    int cold;           /* cuda: flush L2 before each sample */
    int count_blas;     /* command: also count the BLAS FLOPs of one run (count: blas), for FLOP/s and MFU */
    char **env;         /* command, plugin: "NAME=VALUE" their processes get (env:), sorted by name */
    size_t nenv;
    char *device;       /* "cpu" | "cuda" */
    int threads;
    pg_param *params;   /* sorted by name */
    size_t nparams;
    char *params_json;  /* canonical JSON object of params */
    double min_run_time;  /* seconds */
    double max_run_time;
    double warmup;        /* seconds */
    int64_t min_samples;
    double threshold;     /* fraction, e.g. 0.05 */
    double alpha;
    unsigned instruments; /* PG_INSTRUMENT_* bits; 0: time */
    double exact_threshold; /* fraction for counted metrics; 0: PG_EXACT_THRESHOLD */
    char **tags;
    size_t ntags;
    const pg_node *node;  /* the benchmark entry, for messages */
    /* An injected change of real work (`perfgate doctor --sensitivity`; never from a suite): every block
       runs its iterations * (1 + extra_work) times and counts its iterations; blocks are multiples of
       block_unit iterations so that the extra iterations are exactly extra_work of them. */
    double extra_work;
    int64_t block_unit;
} pg_case;

/** The name of one PG_INSTRUMENT_* bit ("time", "instructions", "memory"); NULL for others. */
const char *pg_instrument_name(unsigned bit);

/**
 * Parses one instrument name into its bit, or 0 when it is none of them.
 * The names, for messages: "time, instructions or memory".
 */
unsigned pg_instrument_parse(const char *name);

/**
 * The environment `base` (NULL-terminated "NAME=VALUE") with the case's
 * variables set over it: an array of pointers into `base` and the case
 * (free the array alone), NULL when out of memory.
 */
char **pg_case_environ(const pg_case *c, char *const *base);

/** Whether the case's env: sets the variable `entry` names ("NAME=..." or "NAME"; `c` may be NULL). */
int pg_case_sets(const pg_case *c, const char *entry);

/**
 * Sets the case's variables in this process (a child about to run the
 * case), first unsetting those of `prev` (may be NULL: the case the same
 * process ran before) that it does not set. @return 0, or -1 (errno).
 */
int pg_case_setenv(const pg_case *c, const pg_case *prev);

/** Frees what a case owns and zeroes it. */
void pg_case_clear(pg_case *c);

/**
 * Typed parameter access for kernels. Returns `dflt` when absent, when not
 * a number (int, double), or for int when the number does not fit 64 bits.
 */
const pg_param *pg_case_param(const pg_case *c, const char *name);
int64_t pg_case_param_int(const pg_case *c, const char *name, int64_t dflt);
double pg_case_param_double(const pg_case *c, const char *name, double dflt);
const char *pg_case_param_str(const pg_case *c, const char *name, const char *dflt);

/**
 * Fills `key` and `params_json` of a case whose suite, name, threads,
 * device and params (sorted by name) are set.
 * @return 0, or PG_ENOMEM (nothing set).
 */
int pg__case_finish(pg_case *c);

#endif
