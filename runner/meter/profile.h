/*
 * profile.h - where the instructions of a counted region went: Callgrind's
 * per-function costs, read from the dumps the meter makes, as a small table
 * that travels with a result (its `extra.profile`), into the store and the
 * JSON report, so a later comparison can say which functions changed.
 *
 * A profile holds, per function (merged by name, so the two builds of a
 * gate match however their paths differ): its exclusive (self) and
 * inclusive instructions, its file and first counted line where the build
 * has debug information; and the calls between functions with their
 * inclusive cost, from which the flame graph is drawn. Costs are per
 * iteration of the region. Inclusive cost is self plus the calls to other
 * functions, as callgrind_annotate counts it (a recursion is merged into one
 * function, so its self-calls do not count twice).
 *
 * Small on purpose: functions under PG_PROFILE_MIN_SHARE of the total on
 * both their self and inclusive cost are dropped (at most
 * PG_PROFILE_MAX_FNS kept, the costliest), and so are calls under it, so a
 * whole Python process still fits in tens of kilobytes. A function dropped
 * on one side counts as 0 there: its error in a delta is under
 * PG_PROFILE_MIN_SHARE of the total.
 */
#ifndef PG_METER_PROFILE_H
#define PG_METER_PROFILE_H

#include <stddef.h>

/* The smallest share of the total a kept function or call has (inclusive or self). */
#define PG_PROFILE_MIN_SHARE 1e-4
#define PG_PROFILE_MAX_FNS 1000
#define PG_PROFILE_MAX_CALLS 4000

typedef struct pg_profile_fn {
    char *name;
    char *file;          /* as the dump names it; NULL when unknown (no debug information) */
    int line;            /* the first line counted in the function; 0 when unknown */
    double self, incl;   /* instructions (Ir) */
} pg_profile_fn;

typedef struct pg_profile_call {
    size_t from, to;     /* indices into fns */
    double count;        /* calls made */
    double cost;         /* Ir of the calls, inclusive */
} pg_profile_call;

typedef struct pg_profile {
    pg_profile_fn *fns;
    size_t nfns;
    pg_profile_call *calls;
    size_t ncalls;
    double total;        /* the region's instructions (the dump's summary) */
    int truncated;       /* functions or calls were dropped by the limits above */
} pg_profile;

/**
 * Reads Callgrind output files (one region each, or the marked regions of a
 * command) and sums them into `out` (emptied first). Costs are not yet
 * divided by iterations: see pg_profile_scale().
 * @return 0; PG_EIO when a file cannot be read; PG_EFORMAT naming FILE:LINE
 *         for a line that is not Callgrind's format; PG_ENOMEM.
 */
int pg_profile_read_callgrind(pg_profile *out, const char *const *paths, size_t npaths);

/** Multiplies every cost by `factor` (1 / iterations). */
void pg_profile_scale(pg_profile *p, double factor);

/** Drops what is under PG_PROFILE_MIN_SHARE of the total and keeps the limits (profile.h). */
int pg_profile_prune(pg_profile *p);

/** The profile as compact JSON (caller frees); NULL on allocation failure. */
char *pg_profile_to_json(const pg_profile *p);

/**
 * A profile from pg_profile_to_json()'s text, e.g. a stored result's.
 * @return 0; PG_EFORMAT for text that is not one (indices out of range,
 *         negative costs, wrong shapes); PG_ENOMEM.
 */
int pg_profile_from_json(pg_profile *out, const char *text);

/** The index of the function called `name`, or -1. */
long pg_profile_find(const pg_profile *p, const char *name);

void pg_profile_clear(pg_profile *p);

#endif
