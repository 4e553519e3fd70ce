/*
 * entry.c - what every entry of `benchmarks:` and `checks:` shares: the
 * opening (a mapping, known keys, a unique name) and the timing and
 * statistics settings a benchmark inherits from `defaults`.
 *
 * Settings under `defaults` are validated once, where they are written;
 * benchmarks copy the parsed values, so one bad default is reported once
 * rather than once per benchmark.
 */
#include "suite/internal.h"

#include "perfgate/errors.h"

#include <stdlib.h>
#include <string.h>

static const char *const default_keys[] = {"threads", "device", "min_run_time", "max_run_time",
                                           "min_samples", "warmup", "regression", "tags",
                                           "params", "instrument", "env", NULL};
static const char *const bench_keys[] = {"name", "kernel", "plugin", "symbol", "command",
                                         "timeout", "metrics", "output", "cold", "count",
                                         "device", "params", "zip", "threads", "min_run_time",
                                         "max_run_time", "min_samples", "warmup",
                                         "regression", "tags", "trace", "instrument", "env", NULL};
static const char *const check_keys[] = {"name", "kind", "workload", "trace", "schedule",
                                         "steps", "expect", "benchmark", NULL};
static const char *const regression_keys[] = {"threshold", "alpha", "exact_threshold", NULL};
static const char *const devices[] = {"cpu", "cuda", NULL};

static const pg__hint bench_hints[] = {
    {"threshold", "it goes under 'regression: {threshold: 5%}'"},
    {"alpha", "it goes under 'regression: {alpha: 0.05}'"},
    {"kind", "'kind' belongs to checks; a benchmark names a 'kernel', 'plugin' or 'command'"},
    {"workload", "'workload' belongs to checks; a benchmark sets 'kernel' and 'params'"},
    {"expect", "'expect' belongs to checks, under 'checks:'"},
    {NULL, NULL}};
static const pg__hint check_hints[] = {
    {"kernel", "a check names its kernel inside 'workload: {kernel: ...}'"},
    {"params", "a check's parameters go inside 'workload: {kernel: ..., NAME: VALUE}'"},
    {"threads", "checks count exactly and run at one thread; 'threads' is for benchmarks"},
    {NULL, NULL}};

const pg__entry_kind pg__bench_entry = {"benchmark", "at least 'name' and 'kernel'", "a benchmark",
                                        bench_keys, bench_hints, 1};
const pg__entry_kind pg__check_entry = {"check", "'name', 'kind' and 'expect'", "a check",
                                        check_keys, check_hints, 0};

/* ---- threads, tags, regression ---- */

static int parse_threads(pg_diags *d, int64_t **out, size_t *nout, const pg_node *n)
{
    size_t i, count = n->type == PG_NODE_SEQ ? n->count : 1, j;
    int64_t *v;
    int bad = 0;

    *out = NULL;
    *nout = 0;
    if (n->type == PG_NODE_SEQ && n->count == 0) {
        pg__diag_add(d, n, "threads is an empty list; give at least one thread count");
        return -1;
    }
    if (n->type == PG_NODE_MAP) {
        pg__diag_add(d, n, "threads must be a number or a list of numbers, not a mapping");
        return -1;
    }
    if (!(v = calloc(count, sizeof(*v))))
        return pg__diag_add(d, n, "out of memory");
    for (i = 0; i < count; i++) {
        const pg_node *t = n->type == PG_NODE_SEQ ? n->items[i] : n;
        if (pg__get_int(d, &v[i], t, "threads", 1, 4096) != 0) {
            bad = 1;
            continue;
        }
        for (j = 0; j < i; j++)
            if (v[j] == v[i] && n->type == PG_NODE_SEQ) {
                pg__diag_add(d, t, "threads lists %lld twice (also at %d:%d)", (long long)v[i],
                             n->items[j]->line, n->items[j]->col);
                bad = 1;
                break;
            }
    }
    if (bad) {
        free(v);
        return -1;
    }
    *out = v;
    *nout = count;
    return 0;
}

static int check_tags(pg_diags *d, const pg_node *n)
{
    size_t i;
    int bad = 0;

    if (n->type == PG_NODE_SCALAR)
        return 0;
    if (n->type != PG_NODE_SEQ) {
        pg__diag_add(d, n, "tags must be a list of names, not %s", pg_node_kind(n));
        return -1;
    }
    if (n->count == 0) {
        pg__diag_add(d, n, "tags is an empty list; leave it out or give at least one tag");
        return -1;
    }
    for (i = 0; i < n->count; i++)
        if (pg__scalar_of(d, n->items[i], "a tag") != 0)
            bad = 1;
    return bad ? -1 : 0;
}

/* `instrument: time`, or a list of them: what the case is measured with. */
static int parse_instruments(pg_diags *d, unsigned *out, const pg_node *n)
{
    size_t i, count = n->type == PG_NODE_SEQ ? n->count : 1;
    unsigned bits = 0;

    if (n->type == PG_NODE_MAP || (n->type == PG_NODE_SEQ && n->count == 0)) {
        pg__diag_add(d, n, "instrument must be time, instructions or memory, or a list of them");
        return -1;
    }
    for (i = 0; i < count; i++) {
        const pg_node *t = n->type == PG_NODE_SEQ ? n->items[i] : n;
        unsigned bit;
        if (pg__scalar_of(d, t, "instrument") != 0)
            return -1;
        if (!(bit = pg_instrument_parse(t->scalar))) {
            pg__diag_add(d, t, "unknown instrument '%s'; use time, instructions or memory", t->scalar);
            return -1;
        }
        bits |= bit;
    }
    *out = bits;
    return 0;
}

/* A counted metric's threshold: deterministic counts resolve far below a timing threshold. */
static int parse_exact_threshold(pg_diags *d, double *out, const pg_node *n)
{
    double v;

    if (pg__scalar_of(d, n, "exact_threshold") != 0)
        return -1;
    if (pg_parse_percent(&v, n->scalar) != 0 || v <= 0 || v >= 10) {
        pg__diag_add(d, n, "exact_threshold must be a positive percentage such as 1%%, not '%s'", n->scalar);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_regression(pg_diags *d, double *threshold, double *alpha, double *exact, const pg_node *reg)
{
    const pg_node *n;
    int bad = 0;

    if (reg->type != PG_NODE_MAP) {
        pg__diag_add(d, reg, "regression must be a mapping such as {threshold: 5%%, alpha: 0.05}, not %s",
                     pg_node_kind(reg));
        return -1;
    }
    bad |= pg__keys_known(d, reg, regression_keys, "regression", NULL, 0);
    if ((n = pg_node_get(reg, "threshold")) != NULL && pg__scalar_of(d, n, "threshold") == 0) {
        double v;
        if (pg_parse_percent(&v, n->scalar) != 0 || v <= 0 || v >= 10) {
            pg__diag_add(d, n, "threshold must be a positive percentage such as 5%%, not '%s'", n->scalar);
            bad = 1;
        } else {
            *threshold = v;
        }
    } else if (n) {
        bad = 1;
    }
    if ((n = pg_node_get(reg, "alpha")) != NULL && pg__scalar_of(d, n, "alpha") == 0) {
        double v;
        if (pg_parse_percent(&v, n->scalar) != 0 || v <= 0 || v >= 1) {
            pg__diag_add(d, n, "alpha must be between 0 and 1 (e.g. 0.05), not '%s'", n->scalar);
            bad = 1;
        } else {
            *alpha = v;
        }
    } else if (n) {
        bad = 1;
    }
    if ((n = pg_node_get(reg, "exact_threshold")) != NULL && parse_exact_threshold(d, exact, n) != 0)
        bad = 1;
    return bad ? -1 : 0;
}

int pg__get_device(pg_diags *d, const char **out, const pg_node *n)
{
    return pg__get_enum(d, out, n, "device", devices, "'cpu' or 'cuda'");
}

/* Parses the timing and statistics settings present in `map` over `e`. */
static int parse_settings(pg__loader *L, pg__inherit *e, const pg_node *map, int own_threads)
{
    pg_diags *d = L->d;
    const pg_node *n;
    int bad = 0;

    if ((n = pg_node_get(map, "device")) != NULL) {
        if (pg__get_device(d, &e->device, n) != 0)
            bad = 1;
        else
            e->device_node = n;
    }
    if ((n = pg_node_get(map, "min_run_time")) != NULL &&
        pg__get_duration(d, &e->min_run_time, n, "min_run_time") != 0)
        bad = 1;
    if ((n = pg_node_get(map, "max_run_time")) != NULL &&
        pg__get_duration(d, &e->max_run_time, n, "max_run_time") != 0)
        bad = 1;
    if ((n = pg_node_get(map, "warmup")) != NULL && pg__get_duration(d, &e->warmup, n, "warmup") != 0)
        bad = 1;
    if ((n = pg_node_get(map, "min_samples")) != NULL &&
        pg__get_int(d, &e->min_samples, n, "min_samples", 1, 1000000000) != 0)
        bad = 1;
    if ((n = pg_node_get(map, "regression")) != NULL && parse_regression(d, &e->threshold, &e->alpha, &e->exact_threshold, n) != 0)
        bad = 1;
    if ((n = pg_node_get(map, "instrument")) != NULL && parse_instruments(d, &e->instruments, n) != 0)
        bad = 1;
    if ((n = pg_node_get(map, "env")) != NULL && pg__check_env(d, n) != 0)
        bad = 1;
    if ((n = pg_node_get(map, "tags")) != NULL) {
        if (check_tags(d, n) != 0)
            bad = 1;
        else
            e->tags = n;
    }
    if (own_threads && (n = pg_node_get(map, "threads")) != NULL &&
        parse_threads(d, &e->threads, &e->nthreads, n) != 0)
        bad = 1;
    /*
     * max_run_time may not undercut min_run_time. Report it where this map
     * sets one of them; when both come from defaults it was reported there.
     */
    if (!bad && e->max_run_time < e->min_run_time &&
        ((n = pg_node_get(map, "max_run_time")) != NULL || (n = pg_node_get(map, "min_run_time")) != NULL)) {
        pg__diag_add(d, n, "max_run_time (%gs) is shorter than min_run_time (%gs)", e->max_run_time,
                     e->min_run_time);
        bad = 1;
    }
    return bad ? -1 : 0;
}

void pg__load_defaults(pg__loader *L, const pg_node *n)
{
    const pg_node *p;

    if (n->type != PG_NODE_MAP) {
        pg__diag_add(L->d, n, "defaults must be a mapping, not %s", pg_node_kind(n));
        L->defs.bad = 1;
        return;
    }
    if (pg__keys_known(L->d, n, default_keys, "defaults", bench_hints, 0))
        L->defs.bad = 1;
    if (parse_settings(L, &L->defs, n, 1) != 0)
        L->defs.bad = 1;
    L->defs.env = pg_node_get(n, "env");
    if ((p = pg_node_get(n, "params")) != NULL) {
        size_t i;
        if (pg__parse_params(L->d, &L->defs.params, &L->defs.nparams, p) != 0)
            L->defs.bad = 1;
        for (i = 0; i < L->defs.nparams; i++)
            if (pg__check_repeats(L->d, &L->defs.params[i]) != 0)
                L->defs.bad = 1;
    }
}

/* ---- the opening every entry shares ---- */

/* Names are unique across checks and benchmarks; doc.c reports repeats. */
static void add_name(pg__loader *L, const pg_node *n)
{
    const pg_node **p = realloc(L->names, (L->nnames + 1) * sizeof(*p));

    if (!p)
        return;
    L->names = p;
    p[L->nnames++] = n;
}

int pg__entry_open(pg__entry *out, pg__loader *L, const pg__entry_kind *kind, const pg_node *node)
{
    const pg_node *name;

    memset(out, 0, sizeof(*out));
    out->name = "?";
    if (node->type != PG_NODE_MAP) {
        pg__diag_add(L->d, node, "each %s must be a mapping with %s, not %s", kind->noun, kind->shape,
                     pg_node_kind(node));
        return -1;
    }
    /* Bad defaults spoil every entry that inherits them; they were reported where written. */
    out->bad = kind->inherits && L->defs.bad;
    if (pg__keys_known(L->d, node, kind->keys, kind->where, kind->hints, 0))
        out->bad = 1;
    name = pg_node_get(node, "name");
    if (!name) {
        pg__diag_add(L->d, node, "%s has no 'name'", kind->noun);
        out->bad = 1;
    } else if (pg__check_name(L->d, name, "name") != 0) {
        out->bad = 1;
    } else {
        add_name(L, name);
        out->name = name->scalar;
    }
    if (kind->inherits) {
        out->eff = L->defs;
        /* The entry's own `threads` list, if any, replaces the defaults'; parse_settings() fills it. */
        out->eff.threads = NULL;
        out->eff.nthreads = 0;
        if (parse_settings(L, &out->eff, node, 1) != 0)
            out->bad = 1;
    }
    return 0;
}
