/* suite.c - YAML suites into a validated model with expanded cases. */
#include "suite.h"

#include "kernels/kernels.h"
#include "perfgate/errors.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void pg_diags_free(pg_diags *d)
{
    size_t i;

    if (!d)
        return;
    for (i = 0; i < d->count; i++)
        free(d->lines[i]);
    free(d->lines);
    d->lines = NULL;
    d->count = 0;
}

int pg__diag_add(pg_diags *d, const pg_node *at, const char *fmt, ...)
{
    char msg[768];
    char **p;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!d)
        return PG_ESUITE;
    p = realloc(d->lines, (d->count + 1) * sizeof(*p));
    if (!p)
        return PG_ENOMEM;
    d->lines = p;
    p[d->count] = at ? pg__asprintf("%s:%d:%d: %s", at->file, at->line, at->col, msg)
                     : pg__strdup(msg);
    if (!p[d->count])
        return PG_ENOMEM;
    d->count++;
    return PG_ESUITE;
}

/* ---- units ------------------------------------------------------------ */

static int parse_number_suffix(double *out, const char **suffix, const char *text)
{
    char *end;
    double v;

    if (!text || !*text)
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno || !isfinite(v))
        return -1;
    while (*end == ' ')
        end++;
    *out = v;
    *suffix = end;
    return 0;
}

int pg_parse_duration(double *out, const char *text)
{
    static const struct { const char *unit; double scale; } units[] = {
        {"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9},
        {"m", 60}, {"min", 60}, {"h", 3600}};
    const char *suffix;
    double v;
    size_t i;

    if (parse_number_suffix(&v, &suffix, text) != 0)
        return PG_EINVAL;
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(suffix, units[i].unit) == 0) {
            *out = v * units[i].scale;
            return 0;
        }
    return PG_EINVAL;
}

int pg_parse_percent(double *out, const char *text)
{
    const char *suffix;
    double v;

    if (parse_number_suffix(&v, &suffix, text) != 0)
        return PG_EINVAL;
    if (strcmp(suffix, "%") == 0)
        *out = v / 100.0;
    else if (*suffix == '\0')
        *out = v;
    else
        return PG_EINVAL;
    return 0;
}

int pg_parse_size(double *out, const char *text)
{
    static const struct { const char *unit; double scale; } units[] = {
        {"", 1}, {"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
        {"KB", 1e3}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
    const char *suffix;
    double v;
    size_t i;

    if (parse_number_suffix(&v, &suffix, text) != 0)
        return PG_EINVAL;
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(suffix, units[i].unit) == 0) {
            *out = v * units[i].scale;
            return 0;
        }
    return PG_EINVAL;
}

/* ---- schema ----------------------------------------------------------- */

/* Settings a benchmark inherits from `defaults` unless it sets them itself. */
typedef struct settings {
    const pg_node *threads, *device, *min_run_time, *max_run_time, *min_samples,
        *warmup, *regression, *tags, *params;
} settings;

static const char *const suite_keys[] = {"suite", "description", "defaults", "checks", "benchmarks", NULL};
static const char *const default_keys[] = {"threads", "device", "min_run_time", "max_run_time",
                                           "min_samples", "warmup", "regression", "tags",
                                           "params", NULL};
static const char *const bench_keys[] = {"name", "kernel", "plugin", "symbol", "command",
                                         "timeout", "metrics", "output", "cold",
                                         "device", "params", "threads", "min_run_time",
                                         "max_run_time", "min_samples", "warmup",
                                         "regression", "tags", NULL};
static const char *const check_keys[] = {"name", "kind", "workload", "trace", "schedule",
                                         "steps", "expect", NULL};
static const char *const regression_keys[] = {"threshold", "alpha", NULL};

static int check_keys_known(pg_diags *d, const pg_node *map, const char *const *known, const char *where)
{
    size_t i;
    int bad = 0;

    for (i = 0; i < map->count; i++) {
        const pg_node *k = map->keys[i];
        size_t j;
        int ok = 0;
        if (k->type != PG_NODE_SCALAR) {
            pg__diag_add(d, k, "keys in %s must be plain names", where);
            bad = 1;
            continue;
        }
        for (j = 0; known[j]; j++)
            if (strcmp(known[j], k->scalar) == 0)
                ok = 1;
        if (!ok) {
            pg__diag_add(d, k, "unknown key '%s' in %s", k->scalar, where);
            bad = 1;
        }
    }
    return bad;
}

static const pg_node *pick(const pg_node *own, const pg_node *dflt)
{
    return own ? own : dflt;
}

static int scalar_of(pg_diags *d, const pg_node *n, const char *what)
{
    if (!n || n->type != PG_NODE_SCALAR) {
        pg__diag_add(d, n, "%s must be a scalar, not %s", what, pg_node_kind(n));
        return -1;
    }
    return 0;
}

static int get_duration(pg_diags *d, double *out, const pg_node *n, const char *what, double dflt)
{
    *out = dflt;
    if (!n)
        return 0;
    if (scalar_of(d, n, what) != 0)
        return -1;
    if (pg_parse_duration(out, n->scalar) != 0) {
        pg__diag_add(d, n, "%s: '%s' is not a duration (use e.g. 250ms, 0.5s, 2m)", what, n->scalar);
        return -1;
    }
    if (*out <= 0) {
        pg__diag_add(d, n, "%s must be positive, got '%s'", what, n->scalar);
        return -1;
    }
    return 0;
}

static int get_int(pg_diags *d, int64_t *out, const pg_node *n, const char *what, int64_t min)
{
    char *end;
    long long v;

    if (scalar_of(d, n, what) != 0)
        return -1;
    errno = 0;
    v = strtoll(n->scalar, &end, 10);
    if (end == n->scalar || *end || errno) {
        pg__diag_add(d, n, "%s: '%s' is not an integer", what, n->scalar);
        return -1;
    }
    if (v < min) {
        pg__diag_add(d, n, "%s must be at least %lld, got %lld", what, (long long)min, v);
        return -1;
    }
    *out = v;
    return 0;
}

static int param_cmp(const void *a, const void *b)
{
    return strcmp(((const pg_param *)a)->name, ((const pg_param *)b)->name);
}

static void json_escape(pg_buf *b, const char *s)
{
    pg__buf_puts(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            pg__buf_printf(b, "\\%c", c);
        else if (c < 0x20)
            pg__buf_printf(b, "\\u%04x", c);
        else
            pg__buf_put(b, s, 1);
    }
    pg__buf_puts(b, "\"");
}

static int is_number_text(const char *s, double *out)
{
    char *end;
    double v;

    if (!*s)
        return 0;
    errno = 0;
    v = strtod(s, &end);
    if (*end || errno || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* Fills key and params_json of a case whose params are set and sorted. */
static int finish_case(pg_case *c)
{
    pg_buf key = PG_BUF_INIT, json = PG_BUF_INIT;
    size_t i;

    pg__buf_printf(&key, "%s/%s[", c->suite, c->name);
    pg__buf_puts(&json, "{");
    for (i = 0; i < c->nparams; i++) {
        pg__buf_printf(&key, "%s%s=%s", i ? "," : "", c->params[i].name, c->params[i].value);
        if (i)
            pg__buf_puts(&json, ",");
        json_escape(&json, c->params[i].name);
        pg__buf_puts(&json, ":");
        if (c->params[i].is_number)
            pg__buf_puts(&json, c->params[i].value);
        else
            json_escape(&json, c->params[i].value);
    }
    pg__buf_printf(&key, "]@%d:%s", c->threads, c->device);
    pg__buf_puts(&json, "}");
    if (!key.ptr || !json.ptr) {
        pg__buf_free(&key);
        pg__buf_free(&json);
        return PG_ENOMEM;
    }
    c->key = pg__buf_detach(&key);
    c->params_json = pg__buf_detach(&json);
    return 0;
}

void pg_case_clear(pg_case *c)
{
    size_t i;

    free(c->key);
    free(c->suite);
    free(c->name);
    free(c->kernel);
    free(c->plugin);
    free(c->symbol);
    if (c->command)
        for (i = 0; c->command[i]; i++)
            free(c->command[i]);
    free(c->command);
    free(c->device);
    free(c->metrics);
    for (i = 0; i < c->nparams; i++) {
        free(c->params[i].name);
        free(c->params[i].value);
    }
    free(c->params);
    free(c->params_json);
    for (i = 0; i < c->ntags; i++)
        free(c->tags[i]);
    free(c->tags);
    memset(c, 0, sizeof(*c));
}

/* One dimension of the matrix: a parameter and its candidate values. */
typedef struct dim {
    const char *name;
    const pg_node *values[1024];
    size_t count;
} dim;

static int add_dim_values(pg_diags *d, dim *dm, const pg_node *v, const char *name)
{
    size_t i;

    dm->name = name;
    dm->count = 0;
    if (v->type == PG_NODE_SEQ) {
        if (v->count == 0) {
            pg__diag_add(d, v, "parameter '%s' has an empty list", name);
            return -1;
        }
        if (v->count > sizeof(dm->values) / sizeof(dm->values[0])) {
            pg__diag_add(d, v, "parameter '%s' has %zu values; at most %zu are allowed", name,
                         v->count, sizeof(dm->values) / sizeof(dm->values[0]));
            return -1;
        }
        for (i = 0; i < v->count; i++) {
            if (v->items[i]->type != PG_NODE_SCALAR) {
                pg__diag_add(d, v->items[i], "values of parameter '%s' must be scalars", name);
                return -1;
            }
            dm->values[dm->count++] = v->items[i];
        }
        return 0;
    }
    if (v->type != PG_NODE_SCALAR) {
        pg__diag_add(d, v, "parameter '%s' must be a scalar or a list, not %s", name, pg_node_kind(v));
        return -1;
    }
    dm->values[dm->count++] = v;
    return 0;
}

static int push_case(pg_suite *s, pg_case *c)
{
    pg_case *p = realloc(s->cases, (s->ncases + 1) * sizeof(*p));

    if (!p)
        return PG_ENOMEM;
    s->cases = p;
    p[s->ncases++] = *c;
    memset(c, 0, sizeof(*c));
    return 0;
}

/* Copies the scalar settings that every expanded case of a benchmark shares. */
static int fill_common(pg_case *c, const pg_case *proto)
{
    size_t i;

    c->suite = pg__strdup(proto->suite);
    c->name = pg__strdup(proto->name);
    c->kernel = pg__strdup(proto->kernel);
    c->plugin = pg__strdup(proto->plugin);
    c->symbol = pg__strdup(proto->symbol);
    c->device = pg__strdup(proto->device);
    c->timeout = proto->timeout;
    c->metrics = pg__strdup(proto->metrics);
    c->keep_output = proto->keep_output;
    c->cold = proto->cold;
    c->min_run_time = proto->min_run_time;
    c->max_run_time = proto->max_run_time;
    c->warmup = proto->warmup;
    c->min_samples = proto->min_samples;
    c->threshold = proto->threshold;
    c->alpha = proto->alpha;
    c->node = proto->node;
    if (proto->command) {
        size_t n = 0;
        while (proto->command[n])
            n++;
        c->command = calloc(n + 1, sizeof(char *));
        if (!c->command)
            return PG_ENOMEM;
        for (i = 0; i < n; i++)
            if (!(c->command[i] = pg__strdup(proto->command[i])))
                return PG_ENOMEM;
    }
    if (proto->ntags) {
        c->tags = calloc(proto->ntags, sizeof(char *));
        if (!c->tags)
            return PG_ENOMEM;
        for (i = 0; i < proto->ntags; i++)
            c->tags[i] = pg__strdup(proto->tags[i]);
        c->ntags = proto->ntags;
    }
    return 0;
}

static int expand(pg_suite *s, pg_diags *d, const pg_case *proto, dim *dims, size_t ndims,
                  const dim *threads, const pg_suite_options *opts)
{
    size_t total = threads->count, idx[64] = {0}, i, t;
    int err;

    for (i = 0; i < ndims; i++) {
        if (total > opts->max_cases / dims[i].count + 1) {
            total = opts->max_cases + 1;
            break;
        }
        total *= dims[i].count;
    }
    if (s->ncases + total > opts->max_cases) {
        pg__diag_add(d, proto->node, "benchmark '%s' expands to more than %zu cases (the cap); "
                     "shrink its parameter lists", proto->name, opts->max_cases);
        return -1;
    }
    for (;;) {
        for (t = 0; t < threads->count; t++) {
            pg_case c = {0};
            int64_t nthreads = 1;
            if (get_int(d, &nthreads, threads->values[t], "threads", 1) != 0)
                return -1;
            if ((err = fill_common(&c, proto)) != 0)
                goto oom;
            c.threads = (int)nthreads;
            c.params = calloc(ndims ? ndims : 1, sizeof(pg_param));
            if (!c.params)
                goto oom;
            for (i = 0; i < ndims; i++) {
                const pg_node *v = dims[i].values[idx[i]];
                c.params[i].name = pg__strdup(dims[i].name);
                c.params[i].value = pg__strdup(v->scalar);
                c.params[i].is_number = !v->quoted && is_number_text(v->scalar, &c.params[i].num);
            }
            c.nparams = ndims;
            qsort(c.params, c.nparams, sizeof(pg_param), param_cmp);
            if (finish_case(&c) != 0 || push_case(s, &c) != 0) {
                pg_case_clear(&c);
                goto oom;
            }
        }
        /* Odometer over the parameter dimensions. */
        for (i = 0; i < ndims; i++) {
            if (++idx[i] < dims[i].count)
                break;
            idx[i] = 0;
        }
        if (i == ndims)
            break;
    }
    return 0;
oom:
    pg__diag_add(d, proto->node, "out of memory expanding '%s'", proto->name);
    return -1;
}

static void set_from(settings *out, const pg_node *map)
{
    out->threads = pg_node_get(map, "threads");
    out->device = pg_node_get(map, "device");
    out->min_run_time = pg_node_get(map, "min_run_time");
    out->max_run_time = pg_node_get(map, "max_run_time");
    out->min_samples = pg_node_get(map, "min_samples");
    out->warmup = pg_node_get(map, "warmup");
    out->regression = pg_node_get(map, "regression");
    out->tags = pg_node_get(map, "tags");
    out->params = pg_node_get(map, "params");
}

static int load_regression(pg_diags *d, pg_case *c, const pg_node *reg)
{
    const pg_node *n;
    int bad = 0;

    c->threshold = 0.05;
    c->alpha = 0.05;
    if (!reg)
        return 0;
    if (reg->type != PG_NODE_MAP) {
        pg__diag_add(d, reg, "regression must be a mapping with threshold and alpha");
        return -1;
    }
    bad |= check_keys_known(d, reg, regression_keys, "regression");
    if ((n = pg_node_get(reg, "threshold")) != NULL) {
        if (scalar_of(d, n, "threshold") != 0 || pg_parse_percent(&c->threshold, n->scalar) != 0 ||
            c->threshold <= 0 || c->threshold >= 10) {
            pg__diag_add(d, n, "threshold must be a positive percentage such as 5%%");
            bad = 1;
        }
    }
    if ((n = pg_node_get(reg, "alpha")) != NULL) {
        if (scalar_of(d, n, "alpha") != 0 || pg_parse_percent(&c->alpha, n->scalar) != 0 ||
            c->alpha <= 0 || c->alpha >= 1) {
            pg__diag_add(d, n, "alpha must be between 0 and 1 (e.g. 0.05)");
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

static int get_bool(pg_diags *d, int *out, const pg_node *n, const char *what)
{
    if (scalar_of(d, n, what) != 0)
        return -1;
    if (!strcmp(n->scalar, "true") || !strcmp(n->scalar, "yes") || !strcmp(n->scalar, "on"))
        *out = 1;
    else if (!strcmp(n->scalar, "false") || !strcmp(n->scalar, "no") || !strcmp(n->scalar, "off"))
        *out = 0;
    else {
        pg__diag_add(d, n, "%s must be true or false, not '%s'", what, n->scalar);
        return -1;
    }
    return 0;
}

/*
 * `command:` is an argv list (no shell unless the user writes one). The
 * prototype's array borrows the node's strings; fill_common() copies them
 * into each case and load_benchmark() frees the array.
 */
static int load_command(pg_diags *d, pg_case *proto, const pg_node *n)
{
    size_t i;

    if (n->type != PG_NODE_SEQ || n->count == 0) {
        pg__diag_add(d, n, "command must be a non-empty list of arguments, e.g. [./bench, --size, 64]");
        return -1;
    }
    for (i = 0; i < n->count; i++)
        if (n->items[i]->type != PG_NODE_SCALAR) {
            pg__diag_add(d, n->items[i], "command arguments must be scalars, not %s", pg_node_kind(n->items[i]));
            return -1;
        }
    proto->command = calloc(n->count + 1, sizeof(char *));
    if (!proto->command)
        return pg__diag_add(d, n, "out of memory reading the command");
    for (i = 0; i < n->count; i++)
        proto->command[i] = n->items[i]->scalar;
    return 0;
}

static int load_benchmark(pg_suite *s, pg_diags *d, const pg_node *b, const settings *defs,
                          const pg_suite_options *opts)
{
    pg_case proto = {0};
    settings own, eff;
    const pg_node *n;
    dim dims[64], threads;
    size_t ndims = 0, i;
    int bad = 0, rc = -1;
    const pg_kernel *k = NULL;

    if (b->type != PG_NODE_MAP) {
        pg__diag_add(d, b, "each benchmark must be a mapping, not %s", pg_node_kind(b));
        return -1;
    }
    bad |= check_keys_known(d, b, bench_keys, "a benchmark");
    set_from(&own, b);
    eff.threads = pick(own.threads, defs->threads);
    eff.device = pick(own.device, defs->device);
    eff.min_run_time = pick(own.min_run_time, defs->min_run_time);
    eff.max_run_time = pick(own.max_run_time, defs->max_run_time);
    eff.min_samples = pick(own.min_samples, defs->min_samples);
    eff.warmup = pick(own.warmup, defs->warmup);
    eff.regression = pick(own.regression, defs->regression);
    eff.tags = pick(own.tags, defs->tags);

    proto.node = b;
    proto.suite = s->name;
    n = pg_node_get(b, "name");
    if (!n) {
        pg__diag_add(d, b, "benchmark has no 'name'");
        return -1;
    }
    if (scalar_of(d, n, "name") != 0)
        return -1;
    proto.name = n->scalar;

    n = pg_node_get(b, "kernel");
    if (n && scalar_of(d, n, "kernel") == 0) {
        proto.kernel = n->scalar;
        k = pg_kernel_find(n->scalar);
        if (!k) {
            pg__diag_add(d, n, "unknown kernel '%s'", n->scalar);
            bad = 1;
        }
    }
    if ((n = pg_node_get(b, "plugin")) != NULL && scalar_of(d, n, "plugin") == 0)
        proto.plugin = n->scalar;
    if ((n = pg_node_get(b, "symbol")) != NULL && scalar_of(d, n, "symbol") == 0)
        proto.symbol = n->scalar;
    if ((n = pg_node_get(b, "command")) != NULL && load_command(d, &proto, n) != 0)
        bad = 1;
    if (get_duration(d, &proto.timeout, pg_node_get(b, "timeout"), "timeout", 60.0))
        bad = 1;
    if ((n = pg_node_get(b, "metrics")) != NULL && scalar_of(d, n, "metrics") == 0) {
        if (strcmp(n->scalar, "json") != 0 && strcmp(n->scalar, "none") != 0) {
            pg__diag_add(d, n, "metrics must be 'json' or 'none', not '%s'", n->scalar);
            bad = 1;
        } else if (strcmp(n->scalar, "json") == 0) {
            proto.metrics = n->scalar;
        }
    }
    if ((n = pg_node_get(b, "output")) != NULL && scalar_of(d, n, "output") == 0) {
        if (strcmp(n->scalar, "keep") != 0 && strcmp(n->scalar, "discard") != 0) {
            pg__diag_add(d, n, "output must be 'keep' or 'discard', not '%s'", n->scalar);
            bad = 1;
        }
        proto.keep_output = strcmp(n->scalar, "keep") == 0;
    }
    if ((n = pg_node_get(b, "cold")) != NULL && get_bool(d, &proto.cold, n, "cold") != 0)
        bad = 1;
    if (!proto.kernel && !proto.plugin && !proto.command) {
        pg__diag_add(d, b, "benchmark '%s' needs one of 'kernel', 'plugin' or 'command'", proto.name);
        bad = 1;
    }

    proto.device = "cpu";
    if (eff.device && scalar_of(d, eff.device, "device") == 0) {
        if (strcmp(eff.device->scalar, "cpu") != 0 && strcmp(eff.device->scalar, "cuda") != 0) {
            pg__diag_add(d, eff.device, "device must be 'cpu' or 'cuda', not '%s'", eff.device->scalar);
            bad = 1;
        } else {
            proto.device = eff.device->scalar;
        }
    }
    if (k && !pg_kernel_find_for(k->name, proto.device)) {
        pg__diag_add(d, eff.device ? eff.device : b, "kernel '%s' runs on %s, not %s", k->name,
                     k->device, proto.device);
        bad = 1;
    }

    if (get_duration(d, &proto.min_run_time, eff.min_run_time, "min_run_time", 0.5) ||
        get_duration(d, &proto.max_run_time, eff.max_run_time, "max_run_time", 30.0) ||
        get_duration(d, &proto.warmup, eff.warmup, "warmup", 0.1))
        bad = 1;
    proto.min_samples = 10;
    if (eff.min_samples && get_int(d, &proto.min_samples, eff.min_samples, "min_samples", 1) != 0)
        bad = 1;
    if (load_regression(d, &proto, eff.regression) != 0)
        bad = 1;

    /* Parameters: the defaults' params, overridden key by key by the benchmark's. */
    for (i = 0; defs->params && defs->params->type == PG_NODE_MAP && i < defs->params->count; i++) {
        if (pg_node_get(own.params, defs->params->keys[i]->scalar))
            continue;
        if (ndims < 64 && add_dim_values(d, &dims[ndims], defs->params->items[i],
                                         defs->params->keys[i]->scalar) == 0)
            ndims++;
        else
            bad = 1;
    }
    if (own.params) {
        if (own.params->type != PG_NODE_MAP) {
            pg__diag_add(d, own.params, "params must be a mapping, not %s", pg_node_kind(own.params));
            bad = 1;
        } else {
            for (i = 0; i < own.params->count; i++) {
                if (ndims < 64 && add_dim_values(d, &dims[ndims], own.params->items[i],
                                                 own.params->keys[i]->scalar) == 0)
                    ndims++;
                else
                    bad = 1;
            }
        }
    }
    if (eff.threads) {
        if (add_dim_values(d, &threads, eff.threads, "threads") != 0)
            bad = 1;
    } else {
        static pg_node one = {PG_NODE_SCALAR, "", 0, 0, "1", 0, 0, NULL, NULL};
        threads.name = "threads";
        threads.values[0] = &one;
        threads.count = 1;
    }

    if (!bad)
        rc = expand(s, d, &proto, dims, ndims, &threads, opts);
    free(proto.command);
    return rc;
}

static int load_check(pg_suite *s, pg_diags *d, const pg_node *c)
{
    pg_check ck = {0};
    const pg_node *n;
    pg_check *p;
    int bad = 0;

    if (c->type != PG_NODE_MAP) {
        pg__diag_add(d, c, "each check must be a mapping, not %s", pg_node_kind(c));
        return -1;
    }
    bad |= check_keys_known(d, c, check_keys, "a check");
    n = pg_node_get(c, "name");
    if (!n || scalar_of(d, n, "name") != 0) {
        if (!n)
            pg__diag_add(d, c, "check has no 'name'");
        return -1;
    }
    ck.name = n->scalar;
    n = pg_node_get(c, "kind");
    if (!n) {
        pg__diag_add(d, c, "check '%s' has no 'kind' (flops, ops or schedule)", ck.name);
        return -1;
    }
    if (scalar_of(d, n, "kind") != 0)
        return -1;
    if (strcmp(n->scalar, "flops") && strcmp(n->scalar, "ops") && strcmp(n->scalar, "schedule")) {
        pg__diag_add(d, n, "check kind must be flops, ops or schedule, not '%s'", n->scalar);
        return -1;
    }
    ck.kind = n->scalar;
    ck.node = c;
    ck.workload = pg_node_get(c, "workload");
    ck.trace = pg_node_get(c, "trace");
    ck.schedule = pg_node_get(c, "schedule");
    ck.expect = pg_node_get(c, "expect");
    if (!ck.expect) {
        pg__diag_add(d, c, "check '%s' has no 'expect'", ck.name);
        bad = 1;
    }
    if ((n = pg_node_get(c, "steps")) != NULL && get_int(d, &ck.steps, n, "steps", 1) != 0)
        bad = 1;
    if (bad)
        return -1;
    p = realloc(s->checks, (s->nchecks + 1) * sizeof(*p));
    if (!p)
        return -1;
    s->checks = p;
    ck.name = pg__strdup(ck.name);
    ck.kind = pg__strdup(ck.kind);
    p[s->nchecks++] = ck;
    return 0;
}

static int load_doc(pg_suite **out, pg_doc *doc, const pg_suite_options *opts, pg_diags *d)
{
    pg_suite *s = NULL;
    const pg_node *root = pg_doc_root(doc), *n, *list;
    settings defs = {0};
    size_t i, j, before = d ? d->count : 0;
    pg_diags local = {0};
    int bad = 0;

    if (!d)
        d = &local;
    before = d->count;
    *out = NULL;
    s = calloc(1, sizeof(*s));
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory loading a suite");
    s->doc = doc;
    s->path = pg__strdup(pg_doc_file(doc));
    if (root->type != PG_NODE_MAP) {
        pg__diag_add(d, root, "a suite must be a mapping with 'suite' and 'benchmarks' or 'checks'");
        goto done;
    }
    bad |= check_keys_known(d, root, suite_keys, "a suite");
    n = pg_node_get(root, "suite");
    if (!n)
        pg__diag_add(d, root, "missing required key 'suite' (the suite's name)");
    else if (scalar_of(d, n, "suite") == 0)
        s->name = pg__strdup(n->scalar);
    if ((n = pg_node_get(root, "description")) != NULL && scalar_of(d, n, "description") == 0)
        s->description = pg__strdup(n->scalar);
    if ((n = pg_node_get(root, "defaults")) != NULL) {
        if (n->type != PG_NODE_MAP)
            pg__diag_add(d, n, "defaults must be a mapping, not %s", pg_node_kind(n));
        else {
            check_keys_known(d, n, default_keys, "defaults");
            set_from(&defs, n);
        }
    }
    if (!pg_node_get(root, "benchmarks") && !pg_node_get(root, "checks"))
        pg__diag_add(d, root, "a suite needs 'benchmarks' or 'checks'");
    if (!s->name)
        goto done;
    if ((list = pg_node_get(root, "checks")) != NULL) {
        if (list->type != PG_NODE_SEQ)
            pg__diag_add(d, list, "checks must be a list, not %s", pg_node_kind(list));
        else
            for (i = 0; i < list->count; i++)
                load_check(s, d, list->items[i]);
    }
    if ((list = pg_node_get(root, "benchmarks")) != NULL) {
        if (list->type != PG_NODE_SEQ)
            pg__diag_add(d, list, "benchmarks must be a list, not %s", pg_node_kind(list));
        else
            for (i = 0; i < list->count; i++)
                load_benchmark(s, d, list->items[i], &defs, opts);
    }
    /* Names and case keys are unique within a suite. */
    for (i = 0; i < s->ncases; i++)
        for (j = i + 1; j < s->ncases; j++)
            if (strcmp(s->cases[i].key, s->cases[j].key) == 0 && s->cases[i].node != s->cases[j].node) {
                pg__diag_add(d, s->cases[j].node, "duplicate case '%s' (also at line %d)",
                             s->cases[j].key, s->cases[i].node->line);
                break;
            }
    for (i = 0; i < s->nchecks; i++)
        for (j = i + 1; j < s->nchecks; j++)
            if (strcmp(s->checks[i].name, s->checks[j].name) == 0)
                pg__diag_add(d, s->checks[j].node, "duplicate check name '%s' (also at line %d)",
                             s->checks[j].name, s->checks[i].node->line);

done:
    (void)bad;
    if (d->count > before) {
        int err = pg_error_set(PG_ESUITE, "%s", d->lines[before]);
        s->doc = NULL;
        pg_suite_free(s);
        pg_diags_free(&local);
        return err;
    }
    *out = s;
    return 0;
}

int pg_suite_load_buffer(pg_suite **out, const char *name, const char *data, size_t len,
                         const pg_suite_options *opts, pg_diags *diags)
{
    pg_suite_options dflt = PG_SUITE_OPTIONS_INIT;
    pg_doc *doc = NULL;
    int err;

    *out = NULL;
    if (!opts)
        opts = &dflt;
    if ((err = pg_doc_load(&doc, name, data, len)) != 0) {
        if (diags) {
            char **p = realloc(diags->lines, (diags->count + 1) * sizeof(*p));
            if (p) {
                diags->lines = p;
                p[diags->count] = pg__strdup(pg_error_last());
                if (p[diags->count])
                    diags->count++;
            }
        }
        return err;
    }
    err = load_doc(out, doc, opts, diags);
    if (err)
        pg_doc_free(doc);
    return err;
}

int pg_suite_load(pg_suite **out, const char *path, const pg_suite_options *opts, pg_diags *diags)
{
    return pg_suite_load_buffer(out, path, NULL, 0, opts, diags);
}

void pg_suite_free(pg_suite *s)
{
    size_t i;

    if (!s)
        return;
    for (i = 0; i < s->ncases; i++)
        pg_case_clear(&s->cases[i]);
    free(s->cases);
    for (i = 0; i < s->nchecks; i++) {
        free(s->checks[i].name);
        free(s->checks[i].kind);
    }
    free(s->checks);
    free(s->name);
    free(s->path);
    free(s->description);
    pg_doc_free(s->doc);
    free(s);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_yaml_ext(const char *name)
{
    size_t n = strlen(name);

    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static int set_push(pg_suite_set *set, pg_suite *s)
{
    pg_suite **p = realloc(set->suites, (set->count + 1) * sizeof(*p));

    if (!p)
        return PG_ENOMEM;
    set->suites = p;
    p[set->count++] = s;
    return 0;
}

int pg_suite_set_load(pg_suite_set *out, const char *const *paths, size_t npaths,
                      const pg_suite_options *opts, pg_diags *diags)
{
    size_t i, j;
    int err = 0, first_err = 0;
    char first_msg[1024] = "";

    memset(out, 0, sizeof(*out));
    for (i = 0; i < npaths; i++) {
        struct stat st;
        char **files = NULL;
        size_t nfiles = 0;

        if (stat(paths[i], &st) != 0) {
            err = pg_error_set(PG_ESUITE, "%s: no such suite file or directory", paths[i]);
            pg__diag_add(diags, NULL, "%s", pg_error_last());
            goto record;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *dir = opendir(paths[i]);
            struct dirent *de;
            if (!dir) {
                err = pg_error_set(PG_ESUITE, "%s: cannot read directory: %s", paths[i], strerror(errno));
                pg__diag_add(diags, NULL, "%s", pg_error_last());
                goto record;
            }
            while ((de = readdir(dir)) != NULL) {
                char **p;
                if (de->d_name[0] == '.' || !has_yaml_ext(de->d_name))
                    continue;
                p = realloc(files, (nfiles + 1) * sizeof(*p));
                if (!p)
                    break;
                files = p;
                {
                    size_t plen = strlen(paths[i]);
                    int slash = plen > 0 && paths[i][plen - 1] == '/';
                    files[nfiles++] = pg__asprintf("%s%s%s", paths[i], slash ? "" : "/", de->d_name);
                }
            }
            closedir(dir);
            qsort(files, nfiles, sizeof(*files), name_cmp);
        } else {
            files = malloc(sizeof(*files));
            if (files)
                files[nfiles++] = pg__strdup(paths[i]);
        }
        for (j = 0; j < nfiles; j++) {
            pg_suite *s = NULL;
            int e = pg_suite_load(&s, files[j], opts, diags);
            if (e == 0) {
                size_t k;
                for (k = 0; k < out->count; k++)
                    if (strcmp(out->suites[k]->name, s->name) == 0) {
                        e = pg_error_set(PG_ESUITE, "%s:1:1: suite name '%s' is already used by %s",
                                         files[j], s->name, out->suites[k]->path);
                        pg__diag_add(diags, NULL, "%s", pg_error_last());
                        pg_suite_free(s);
                        s = NULL;
                        break;
                    }
                if (s)
                    set_push(out, s);
            }
            if (e && !first_err) {
                first_err = e;
                snprintf(first_msg, sizeof(first_msg), "%s", pg_error_last());
            }
            free(files[j]);
        }
        free(files);
        continue;
    record:
        if (!first_err) {
            first_err = err;
            snprintf(first_msg, sizeof(first_msg), "%s", pg_error_last());
        }
    }
    if (first_err) {
        pg_suite_set_free(out);
        return pg_error_set(first_err, "%s", first_msg);
    }
    return 0;
}

void pg_suite_set_free(pg_suite_set *set)
{
    size_t i;

    if (!set)
        return;
    for (i = 0; i < set->count; i++)
        pg_suite_free(set->suites[i]);
    free(set->suites);
    set->suites = NULL;
    set->count = 0;
}

const pg_param *pg_case_param(const pg_case *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->nparams; i++)
        if (strcmp(c->params[i].name, name) == 0)
            return &c->params[i];
    return NULL;
}

int64_t pg_case_param_int(const pg_case *c, const char *name, int64_t dflt)
{
    const pg_param *p = pg_case_param(c, name);

    return p && p->is_number ? (int64_t)p->num : dflt;
}

double pg_case_param_double(const pg_case *c, const char *name, double dflt)
{
    const pg_param *p = pg_case_param(c, name);

    return p && p->is_number ? p->num : dflt;
}

const char *pg_case_param_str(const pg_case *c, const char *name, const char *dflt)
{
    const pg_param *p = pg_case_param(c, name);

    return p ? p->value : dflt;
}

int pg_case_from_workload(pg_case *out, const pg_node *w, const char *suite, const char *name)
{
    const pg_node *k = pg_node_get(w, "kernel");
    size_t i, n = 0;

    memset(out, 0, sizeof(*out));
    if (!w || w->type != PG_NODE_MAP)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: workload must be a mapping with a 'kernel'",
                            w ? w->file : "?", w ? w->line : 0, w ? w->col : 0);
    if (!k || k->type != PG_NODE_SCALAR)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: workload needs 'kernel: NAME'", w->file, w->line, w->col);
    out->suite = pg__strdup(suite);
    out->name = pg__strdup(name);
    out->kernel = pg__strdup(k->scalar);
    out->device = pg__strdup("cpu");
    out->threads = 1;
    out->node = w;
    out->params = calloc(w->count ? w->count : 1, sizeof(pg_param));
    if (!out->params)
        return pg_error_set(PG_ENOMEM, "out of memory building a workload");
    for (i = 0; i < w->count; i++) {
        const pg_node *key = w->keys[i], *v = w->items[i];
        pg_param *p;
        if (!key->scalar || strcmp(key->scalar, "kernel") == 0)
            continue;
        if (strcmp(key->scalar, "device") == 0 && v->type == PG_NODE_SCALAR) {
            free(out->device);
            out->device = pg__strdup(v->scalar);
            continue;
        }
        p = &out->params[n];
        p->name = pg__strdup(key->scalar);
        if (v->type == PG_NODE_SCALAR) {
            p->value = pg__strdup(v->scalar);
            p->is_number = !v->quoted && is_number_text(v->scalar, &p->num);
        } else if (v->type == PG_NODE_SEQ) {
            /* A list in a workload is one value: its items joined by commas. */
            pg_buf b = PG_BUF_INIT;
            size_t j;
            for (j = 0; j < v->count; j++)
                pg__buf_printf(&b, "%s%s", j ? "," : "", v->items[j]->scalar ? v->items[j]->scalar : "");
            p->value = pg__buf_detach(&b);
        } else {
            p->value = pg__strdup("");
        }
        n++;
    }
    out->nparams = n;
    qsort(out->params, out->nparams, sizeof(pg_param), param_cmp);
    if (finish_case(out) != 0)
        return pg_error_set(PG_ENOMEM, "out of memory building a workload");
    return 0;
}
