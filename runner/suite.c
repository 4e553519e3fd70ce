/*
 * suite.c - YAML suites into a validated model with expanded cases.
 *
 * Validation collects every error of a file, each as "FILE:LINE:COL:
 * message", and sorts them by position, so one `perfgate validate` shows
 * everything there is to fix. Settings under `defaults` are validated once,
 * where they are written; benchmarks copy the parsed values, so one bad
 * default is reported once rather than once per benchmark. A benchmark with
 * any error is not expanded, which keeps errors from cascading.
 */
#include "suite.h"

#include "expr.h"
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

/* ---- diagnostics ---------------------------------------------------------- */

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

/* Appends a line the list takes ownership of. */
static int diag_push(pg_diags *d, char *line)
{
    char **p;

    if (!line)
        return PG_ENOMEM;
    p = realloc(d->lines, (d->count + 1) * sizeof(*p));
    if (!p) {
        free(line);
        return PG_ENOMEM;
    }
    d->lines = p;
    p[d->count++] = line;
    return 0;
}

int pg__diag_add(pg_diags *d, const pg_node *at, const char *fmt, ...)
{
    char msg[768], *c;
    va_list ap;

    /* A NULL list means "validated elsewhere, stay quiet"; the caller still fails. */
    if (!d)
        return PG_ESUITE;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* Messages are one line even when they quote a value holding a newline. */
    for (c = msg; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    diag_push(d, at ? pg__asprintf("%s:%d:%d: %s", at->file, at->line, at->col, msg) : pg__strdup(msg));
    return PG_ESUITE;
}

typedef struct diag_pos {
    long line, col;
    size_t index;
    char *text;
} diag_pos;

static int diag_pos_cmp(const void *a, const void *b)
{
    const diag_pos *x = a, *y = b;

    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorts the lines of one file by line and column, keeping the order of ties. */
static void diags_sort(pg_diags *d, const char *file)
{
    size_t i, flen = strlen(file);
    diag_pos *pos;

    if (d->count < 2 || !(pos = calloc(d->count, sizeof(*pos))))
        return;
    for (i = 0; i < d->count; i++) {
        const char *s = d->lines[i];
        char *end;
        pos[i].index = i;
        pos[i].text = d->lines[i];
        pos[i].line = pos[i].col = 0x7fffffff;
        if (strncmp(s, file, flen) == 0 && s[flen] == ':') {
            pos[i].line = strtol(s + flen + 1, &end, 10);
            if (*end == ':')
                pos[i].col = strtol(end + 1, NULL, 10);
        }
    }
    qsort(pos, d->count, sizeof(*pos), diag_pos_cmp);
    for (i = 0; i < d->count; i++)
        d->lines[i] = pos[i].text;
    free(pos);
}

/* ---- did you mean ----------------------------------------------------------- */

/* Optimal string alignment distance (edits and adjacent swaps), ignoring case. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t m[33][33], la = strlen(a), lb = strlen(b), i, j;

    if (la > 32 || lb > 32)
        return (size_t)-1;
    for (i = 0; i <= la; i++)
        m[i][0] = i;
    for (j = 0; j <= lb; j++)
        m[0][j] = j;
    for (i = 1; i <= la; i++)
        for (j = 1; j <= lb; j++) {
            int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
            size_t v = m[i - 1][j - 1] + (ai != bj);
            if (m[i - 1][j] + 1 < v)
                v = m[i - 1][j] + 1;
            if (m[i][j - 1] + 1 < v)
                v = m[i][j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && m[i - 2][j - 2] + 1 < v)
                v = m[i - 2][j - 2] + 1;
            m[i][j] = v;
        }
    return m[la][lb];
}

/* The candidate closest to `word` when it is close enough to be a typo, else NULL. */
static const char *closest(const char *word, const char *const *cands)
{
    size_t len = strlen(word), limit = len <= 1 ? 0 : len <= 4 ? 1 : len <= 8 ? 2 : 3, best = (size_t)-1, i;
    const char *pick = NULL;

    for (i = 0; cands && cands[i]; i++) {
        size_t dist = edit_distance(word, cands[i]);
        if (dist < best) {
            best = dist;
            pick = cands[i];
        }
    }
    return best <= limit ? pick : NULL;
}

/* "; did you mean 'x'?" into `buf` when a candidate is close, else "". */
static const char *dym(char *buf, size_t size, const char *word, const char *const *cands)
{
    const char *c = closest(word, cands);

    if (c)
        snprintf(buf, size, "; did you mean '%s'?", c);
    else
        buf[0] = '\0';
    return buf;
}

/* Names of the registered kernels, NULL-terminated, for suggestions. */
static const char *const *kernel_names(void)
{
    static const char *names[160];
    const pg_kernel *const *all = pg_kernel_all();
    size_t i, n = 0;

    for (i = 0; all[i] && n + 1 < sizeof(names) / sizeof(names[0]); i++)
        names[n++] = all[i]->name;
    names[n] = NULL;
    return names;
}

/* ---- units -------------------------------------------------------------------- */

static int parse_number_suffix(double *out, const char **suffix, const char *text)
{
    char *end;
    double v;

    if (!text || !*text || isspace((unsigned char)*text))
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
        {"TiB", 1099511627776.0}, {"KB", 1e3}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
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

/* ---- schema ------------------------------------------------------------------- */

static const char *const suite_keys[] = {"suite", "description", "defaults", "checks", "benchmarks", NULL};
static const char *const default_keys[] = {"threads", "device", "min_run_time", "max_run_time",
                                           "min_samples", "warmup", "regression", "tags",
                                           "params", NULL};
static const char *const bench_keys[] = {"name", "kernel", "plugin", "symbol", "command",
                                         "timeout", "metrics", "output", "cold",
                                         "device", "params", "zip", "threads", "min_run_time",
                                         "max_run_time", "min_samples", "warmup",
                                         "regression", "tags", NULL};
static const char *const check_keys[] = {"name", "kind", "workload", "trace", "schedule",
                                         "steps", "expect", NULL};
static const char *const regression_keys[] = {"threshold", "alpha", NULL};
static const char *const schedule_keys[] = {"skip_first", "wait", "warmup", "active", "repeat", NULL};
static const char *const kinds[] = {"flops", "ops", "schedule", NULL};
static const char *const devices[] = {"cpu", "cuda", NULL};
static const char *const expect_flops[] = {"total", "per_op", "per_module", NULL};
static const char *const expect_ops[] = {"within", "contains", "not_contains", "count", NULL};
static const char *const expect_schedule[] = {"windows", "per_window", NULL};
static const char *const count_keys[] = {"min", "max", NULL};
/* Workload keys that are not kernel parameters. */
static const char *const workload_reserved[] = {"kernel", "device", "range", NULL};

/* A key that is wrong where it is but right elsewhere gets this advice. */
typedef struct hint {
    const char *key;
    const char *advice;
} hint;

static const hint bench_hints[] = {
    {"threshold", "it goes under 'regression: {threshold: 5%}'"},
    {"alpha", "it goes under 'regression: {alpha: 0.05}'"},
    {"kind", "'kind' belongs to checks; a benchmark names a 'kernel', 'plugin' or 'command'"},
    {"workload", "'workload' belongs to checks; a benchmark sets 'kernel' and 'params'"},
    {"expect", "'expect' belongs to checks, under 'checks:'"},
    {NULL, NULL}};
static const hint check_hints[] = {
    {"kernel", "a check names its kernel inside 'workload: {kernel: ...}'"},
    {"params", "a check's parameters go inside 'workload: {kernel: ..., NAME: VALUE}'"},
    {"threads", "checks count exactly and run at one thread; 'threads' is for benchmarks"},
    {NULL, NULL}};
static const hint top_hints[] = {
    {"name", "the suite's name is set with 'suite: NAME'"},
    {"kernel", "kernels are named inside entries of 'benchmarks:'"},
    {NULL, NULL}};

static const char *hint_for(const hint *hints, const char *key)
{
    for (; hints && hints->key; hints++)
        if (strcmp(hints->key, key) == 0)
            return hints->advice;
    return NULL;
}

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

/* Reports keys that are not plain names or not in `known`; returns nonzero if any. */
static int check_keys_known(pg_diags *d, const pg_node *map, const char *const *known, const char *where,
                            const hint *hints)
{
    size_t i;
    int bad = 0;

    for (i = 0; i < map->count; i++) {
        const pg_node *k = map->keys[i];
        const char *advice;
        char sug[96];
        if (k->type != PG_NODE_SCALAR) {
            pg__diag_add(d, k, "keys in %s must be plain names, not %s", where, pg_node_kind(k));
            bad = 1;
            continue;
        }
        if (in_list(known, k->scalar))
            continue;
        /* Top-level "x-..." keys hold anchors for reuse (as in docker-compose files). */
        if (known == suite_keys && strncmp(k->scalar, "x-", 2) == 0)
            continue;
        bad = 1;
        if ((advice = hint_for(hints, k->scalar)) != NULL)
            pg__diag_add(d, k, "unknown key '%s' in %s; %s", k->scalar, where, advice);
        else
            pg__diag_add(d, k, "unknown key '%s' in %s%s", k->scalar, where,
                         dym(sug, sizeof(sug), k->scalar, known));
    }
    return bad;
}

static int scalar_of(pg_diags *d, const pg_node *n, const char *what)
{
    if (!n || n->type != PG_NODE_SCALAR) {
        if (n && n->type == PG_NODE_NULL)
            pg__diag_add(d, n, "%s has no value", what);
        else
            pg__diag_add(d, n, "%s must be a single value, not %s", what, pg_node_kind(n));
        return -1;
    }
    return 0;
}

static int get_enum(pg_diags *d, const char **out, const pg_node *n, const char *what,
                    const char *const *allowed, const char *choices)
{
    char sug[96];

    if (scalar_of(d, n, what) != 0)
        return -1;
    if (!in_list(allowed, n->scalar)) {
        /* "gpu" is closer to "cpu" in letters but means "cuda". */
        const char *c = strcmp(what, "device") == 0 && strcasecmp(n->scalar, "gpu") == 0
                            ? "cuda" : closest(n->scalar, allowed);
        if (c)
            snprintf(sug, sizeof(sug), "; did you mean '%s'?", c);
        else
            sug[0] = '\0';
        pg__diag_add(d, n, "%s must be %s, not '%s'%s", what, choices, n->scalar, sug);
        return -1;
    }
    *out = n->scalar;
    return 0;
}

static int get_duration(pg_diags *d, double *out, const pg_node *n, const char *what)
{
    double v;

    if (scalar_of(d, n, what) != 0)
        return -1;
    if (pg_parse_duration(&v, n->scalar) != 0) {
        pg__diag_add(d, n, "%s: '%s' is not a duration (write e.g. 250ms, 0.5s, 2m)", what, n->scalar);
        return -1;
    }
    if (v <= 0) {
        pg__diag_add(d, n, "%s must be a positive duration, not '%s'", what, n->scalar);
        return -1;
    }
    *out = v;
    return 0;
}

static int get_int(pg_diags *d, int64_t *out, const pg_node *n, const char *what, int64_t min, int64_t max)
{
    char *end;
    long long v;

    if (scalar_of(d, n, what) != 0)
        return -1;
    errno = 0;
    v = strtoll(n->scalar, &end, 10);
    if (end == n->scalar || *end || errno || isspace((unsigned char)n->scalar[0])) {
        pg__diag_add(d, n, "%s must be an integer, not '%s'", what, n->scalar);
        return -1;
    }
    if (v < min || v > max) {
        if (max == INT64_MAX)
            pg__diag_add(d, n, "%s must be at least %lld, not %lld", what, (long long)min, v);
        else
            pg__diag_add(d, n, "%s must be between %lld and %lld, not %lld", what, (long long)min,
                         (long long)max, v);
        return -1;
    }
    *out = v;
    return 0;
}

static int get_bool(pg_diags *d, int *out, const pg_node *n, const char *what)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "on", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "off", NULL};

    if (scalar_of(d, n, what) != 0)
        return -1;
    if (!n->quoted && in_list(yes, n->scalar))
        *out = 1;
    else if (!n->quoted && in_list(no, n->scalar))
        *out = 0;
    else {
        pg__diag_add(d, n, "%s must be true or false, not '%s'", what, n->scalar);
        return -1;
    }
    return 0;
}

/* Names of suites and benchmarks become parts of case keys: keep them plain. */
static int check_name(pg_diags *d, const pg_node *n, const char *what)
{
    const char *p;

    if (scalar_of(d, n, what) != 0)
        return -1;
    if (!*n->scalar) {
        pg__diag_add(d, n, "%s is empty", what);
        return -1;
    }
    for (p = n->scalar; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-.+", *p)) {
            pg__diag_add(d, n, "%s '%s' may hold only letters, digits and _ - . + (it is part of case keys)",
                         what, n->scalar);
            return -1;
        }
    return 0;
}

/* Parameter names are identifiers, so expressions can use them. */
static int check_param_name(pg_diags *d, const pg_node *k)
{
    const char *p = k->scalar;

    if (k->type != PG_NODE_SCALAR || !*p || !(isalpha((unsigned char)*p) || *p == '_'))
        goto bad;
    for (; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            goto bad;
    return 0;
bad:
    if (k->type == PG_NODE_SCALAR)
        pg__diag_add(d, k, "parameter name '%s' must be an identifier (letters, digits, _)", k->scalar);
    else
        pg__diag_add(d, k, "parameter names must be plain names, not %s", pg_node_kind(k));
    return -1;
}

/* ---- duplicates ------------------------------------------------------------- */

typedef struct keyed {
    const char *s;
    size_t index;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->s, y->s);

    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

typedef void (*dup_fn)(void *payload, size_t later, size_t first);

/* Calls fn for each string equal to an earlier one, in O(n log n). */
static int each_dup(const char *const *strs, size_t n, dup_fn fn, void *payload)
{
    keyed *k;
    size_t i, run;

    if (n < 2)
        return 0;
    if (!(k = malloc(n * sizeof(*k))))
        return PG_ENOMEM;
    for (i = 0; i < n; i++) {
        k[i].s = strs[i];
        k[i].index = i;
    }
    qsort(k, n, sizeof(*k), keyed_cmp);
    for (run = 0, i = 1; i < n; i++) {
        if (strcmp(k[i].s, k[run].s) != 0)
            run = i;
        else
            fn(payload, k[i].index, k[run].index);
    }
    free(k);
    return 0;
}

/* ---- parameter values ------------------------------------------------------- */

/* One canonical parameter value. */
typedef struct pval {
    char *text;
    int is_number;
    double num;
    const pg_node *node;
} pval;

/* A parameter: its values in file order and the matrix axis it varies along. */
typedef struct dim {
    const char *name;
    const pg_node *key;
    const pg_node *value;   /* the scalar or list as written */
    pval *vals;
    size_t count;
    int owned;              /* vals belong to this dim (not shared from defaults) */
    int zip;                /* zip group, or -1 */
    size_t axis;
} dim;

static void dim_clear(dim *dm)
{
    size_t i;

    if (dm->owned) {
        for (i = 0; i < dm->count; i++)
            free(dm->vals[i].text);
        free(dm->vals);
    }
    memset(dm, 0, sizeof(*dm));
}

static int is_number_text(const char *s, double *out)
{
    char *end;
    double v;

    if (!*s || isspace((unsigned char)*s))
        return 0;
    errno = 0;
    v = strtod(s, &end);
    if (*end || errno || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* Integers exactly; other numbers in the shortest form that reads back. */
static char *number_text(double v)
{
    char buf[48];
    int prec;

    if (v == 0)
        return pg__strdup("0");
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return pg__asprintf("%lld", (long long)v);
    for (prec = 15; prec < 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return pg__strdup(buf);
    }
    snprintf(buf, sizeof(buf), "%.17g", v);
    return pg__strdup(buf);
}

static int has_size_unit(const char *s)
{
    size_t n = strlen(s);

    return n >= 3 && s[n - 1] == 'B' && isalpha((unsigned char)s[n - 2]);
}

/*
 * Canonical text of a value, so that equal values give equal case keys: 128,
 * 128.0 and 1.28e2 are "128", 64KiB is "65536", True is "true". Quoted
 * scalars stay text exactly as written.
 */
static int canon_value(pg_diags *d, pval *out, const pg_node *v, const char *pname)
{
    const char *s, *bad;
    char *end;
    long long ll;
    double x;

    memset(out, 0, sizeof(*out));
    out->node = v;
    if (v->type == PG_NODE_NULL) {
        pg__diag_add(d, v, "parameter '%s' has no value", pname);
        return -1;
    }
    if (v->type != PG_NODE_SCALAR) {
        pg__diag_add(d, v, "values of parameter '%s' must be single values, not %s", pname, pg_node_kind(v));
        return -1;
    }
    s = v->scalar;
    if (!*s) {
        pg__diag_add(d, v, "parameter '%s' has an empty value", pname);
        return -1;
    }
    if ((bad = strpbrk(s, ",=[]")) != NULL) {
        pg__diag_add(d, v, "value '%s' of parameter '%s' contains '%c', which case keys use as a separator",
                     s, pname, *bad);
        return -1;
    }
    if (!v->quoted) {
        errno = 0;
        ll = strtoll(s, &end, 10);
        if (end != s && !*end && !errno && !isspace((unsigned char)*s)) {
            out->text = pg__asprintf("%lld", ll);
            out->is_number = 1;
            out->num = (double)ll;
        } else if (is_number_text(s, &x)) {
            out->text = number_text(x);
            out->is_number = 1;
            out->num = x;
        } else if (has_size_unit(s) && pg_parse_size(&x, s) == 0) {
            if (x < 0 || x != floor(x) || x >= 9007199254740992.0) {
                pg__diag_add(d, v, "parameter '%s': '%s' is not a whole number of bytes", pname, s);
                return -1;
            }
            out->text = number_text(x);
            out->is_number = 1;
            out->num = x;
        } else if (!strcmp(s, "True") || !strcmp(s, "TRUE")) {
            out->text = pg__strdup("true");
        } else if (!strcmp(s, "False") || !strcmp(s, "FALSE")) {
            out->text = pg__strdup("false");
        }
    }
    if (!out->text)
        out->text = pg__strdup(s);
    if (!out->text) {
        pg__diag_add(d, v, "out of memory");
        return -1;
    }
    return 0;
}

typedef struct dup_ctx {
    pg_diags *d;
    const pval *vals;
    const char *what;
} dup_ctx;

static void report_repeat(void *payload, size_t later, size_t first)
{
    dup_ctx *c = payload;

    pg__diag_add(c->d, c->vals[later].node, "%s lists %s twice (also at %d:%d)", c->what,
                 c->vals[later].text, c->vals[first].node->line, c->vals[first].node->col);
}

/* Reads a parameter's scalar or non-empty list into canonical values. */
static int parse_dim(pg_diags *d, dim *dm, const pg_node *key, const pg_node *v)
{
    size_t i, n = v->type == PG_NODE_SEQ ? v->count : 1;
    int bad = 0;

    memset(dm, 0, sizeof(*dm));
    dm->name = key->scalar;
    dm->key = key;
    dm->value = v;
    dm->owned = 1;
    dm->zip = -1;
    if (v->type == PG_NODE_SEQ && v->count == 0) {
        pg__diag_add(d, v, "parameter '%s' is an empty list; give at least one value", dm->name);
        return -1;
    }
    if (v->type == PG_NODE_MAP) {
        pg__diag_add(d, v, "parameter '%s' must be a value or a list of values, not a mapping", dm->name);
        return -1;
    }
    if (!(dm->vals = calloc(n, sizeof(pval))))
        return pg__diag_add(d, v, "out of memory");
    for (i = 0; i < n; i++) {
        if (canon_value(d, &dm->vals[dm->count], v->type == PG_NODE_SEQ ? v->items[i] : v, dm->name) != 0)
            bad = 1;
        else
            dm->count++;
    }
    return bad ? -1 : 0;
}

/*
 * A value listed twice would give the same case twice. Zipped lists may
 * repeat values (the pairs differ); repeated pairs are caught by case key.
 */
static int check_repeats(pg_diags *d, const dim *dm)
{
    const char **texts;
    char what[96];
    dup_ctx c = {d, dm->vals, what};
    size_t i, before = d->count;

    if (dm->count < 2 || dm->zip >= 0 || !(texts = malloc(dm->count * sizeof(*texts))))
        return 0;
    snprintf(what, sizeof(what), "parameter '%s'", dm->name);
    for (i = 0; i < dm->count; i++)
        texts[i] = dm->vals[i].text;
    each_dup(texts, dm->count, report_repeat, &c);
    free(texts);
    return d->count > before ? -1 : 0;
}

/* ---- threads, tags, regression ----------------------------------------------- */

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
        if (get_int(d, &v[i], t, "threads", 1, 4096) != 0) {
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
        if (scalar_of(d, n->items[i], "a tag") != 0)
            bad = 1;
    return bad ? -1 : 0;
}

static int parse_regression(pg_diags *d, double *threshold, double *alpha, const pg_node *reg)
{
    const pg_node *n;
    int bad = 0;

    if (reg->type != PG_NODE_MAP) {
        pg__diag_add(d, reg, "regression must be a mapping such as {threshold: 5%%, alpha: 0.05}, not %s",
                     pg_node_kind(reg));
        return -1;
    }
    bad |= check_keys_known(d, reg, regression_keys, "regression", NULL);
    if ((n = pg_node_get(reg, "threshold")) != NULL && scalar_of(d, n, "threshold") == 0) {
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
    if ((n = pg_node_get(reg, "alpha")) != NULL && scalar_of(d, n, "alpha") == 0) {
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
    return bad ? -1 : 0;
}

/* ---- settings a benchmark inherits --------------------------------------------- */

typedef struct inherit {
    int64_t *threads;           /* owned by whoever parsed it */
    size_t nthreads;
    const char *device;
    const pg_node *device_node; /* where the device was set, NULL for the built-in default */
    double min_run_time, max_run_time, warmup;
    int64_t min_samples;
    double threshold, alpha;
    const pg_node *tags;
    dim *params;                /* the defaults' parameters */
    size_t nparams;
    int bad;                    /* defaults had errors: no benchmark expands */
} inherit;

typedef struct loader {
    pg_suite *s;
    pg_diags *d;
    const pg_suite_options *opts;
    inherit defs;
    char *dir;                  /* the suite file's directory, for trace paths */
    size_t cap_cases;
    double planned;             /* cases of the benchmarks so far */
    int over_cap;
    const pg_node **names;      /* name nodes of checks and benchmarks */
    size_t nnames;
    int64_t default_threads;
} loader;

/* Parses the timing and statistics settings present in `map` over `e`. */
static int parse_settings(loader *L, inherit *e, const pg_node *map, int own_threads)
{
    pg_diags *d = L->d;
    const pg_node *n;
    int bad = 0;

    if ((n = pg_node_get(map, "device")) != NULL) {
        if (get_enum(d, &e->device, n, "device", devices, "'cpu' or 'cuda'") != 0)
            bad = 1;
        else
            e->device_node = n;
    }
    if ((n = pg_node_get(map, "min_run_time")) != NULL && get_duration(d, &e->min_run_time, n, "min_run_time"))
        bad = 1;
    if ((n = pg_node_get(map, "max_run_time")) != NULL && get_duration(d, &e->max_run_time, n, "max_run_time"))
        bad = 1;
    if ((n = pg_node_get(map, "warmup")) != NULL && get_duration(d, &e->warmup, n, "warmup") != 0)
        bad = 1;
    if ((n = pg_node_get(map, "min_samples")) != NULL &&
        get_int(d, &e->min_samples, n, "min_samples", 1, 1000000000) != 0)
        bad = 1;
    if ((n = pg_node_get(map, "regression")) != NULL && parse_regression(d, &e->threshold, &e->alpha, n) != 0)
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

/* Parses the parameters of a `params` mapping (first of duplicate keys wins). */
static int parse_params(pg_diags *d, dim **out, size_t *nout, const pg_node *params)
{
    dim *dims;
    size_t i, n = 0;
    int bad = 0;

    *out = NULL;
    *nout = 0;
    if (params->type != PG_NODE_MAP) {
        pg__diag_add(d, params, "params must be a mapping of NAME: value or NAME: [values], not %s",
                     pg_node_kind(params));
        return -1;
    }
    if (!(dims = calloc(params->count ? params->count : 1, sizeof(*dims))))
        return pg__diag_add(d, params, "out of memory");
    for (i = 0; i < params->count; i++) {
        const pg_node *k = params->keys[i];
        size_t j;
        int seen = 0;
        if (check_param_name(d, k) != 0) {
            bad = 1;
            continue;
        }
        if (!strcmp(k->scalar, "threads") || !strcmp(k->scalar, "device") || !strcmp(k->scalar, "kernel")) {
            pg__diag_add(d, k, "'%s' is a benchmark key, not a parameter: move it out of params", k->scalar);
            bad = 1;
            continue;
        }
        for (j = 0; j < n; j++)
            if (strcmp(dims[j].name, k->scalar) == 0)
                seen = 1;
        if (seen)
            continue; /* reported as a duplicate key */
        if (parse_dim(d, &dims[n], k, params->items[i]) != 0) {
            dim_clear(&dims[n]);
            bad = 1;
            continue;
        }
        n++;
    }
    *out = dims;
    *nout = n;
    return bad ? -1 : 0;
}

static void load_defaults(loader *L, const pg_node *n)
{
    const pg_node *p;

    if (n->type != PG_NODE_MAP) {
        pg__diag_add(L->d, n, "defaults must be a mapping, not %s", pg_node_kind(n));
        L->defs.bad = 1;
        return;
    }
    if (check_keys_known(L->d, n, default_keys, "defaults", bench_hints))
        L->defs.bad = 1;
    if (parse_settings(L, &L->defs, n, 1) != 0)
        L->defs.bad = 1;
    if ((p = pg_node_get(n, "params")) != NULL) {
        size_t i;
        if (parse_params(L->d, &L->defs.params, &L->defs.nparams, p) != 0)
            L->defs.bad = 1;
        for (i = 0; i < L->defs.nparams; i++)
            if (check_repeats(L->d, &L->defs.params[i]) != 0)
                L->defs.bad = 1;
    }
}

/* ---- expansion --------------------------------------------------------------------- */

static int param_cmp(const void *a, const void *b)
{
    return strcmp(((const pg_param *)a)->name, ((const pg_param *)b)->name);
}

static int dim_cmp(const void *a, const void *b)
{
    return strcmp(((const dim *)a)->name, ((const dim *)b)->name);
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

/* Copies the settings every expanded case of a benchmark shares. */
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
    if (!c->suite || !c->name || !c->device)
        return PG_ENOMEM;
    if (proto->command) {
        size_t n = 0;
        while (proto->command[n])
            n++;
        if (!(c->command = calloc(n + 1, sizeof(char *))))
            return PG_ENOMEM;
        for (i = 0; i < n; i++)
            if (!(c->command[i] = pg__strdup(proto->command[i])))
                return PG_ENOMEM;
    }
    if (proto->ntags) {
        if (!(c->tags = calloc(proto->ntags, sizeof(char *))))
            return PG_ENOMEM;
        for (i = 0; i < proto->ntags; i++)
            if (!(c->tags[c->ntags++] = pg__strdup(proto->tags[i])))
                return PG_ENOMEM;
    }
    return 0;
}

static int push_case(loader *L, pg_case *c)
{
    pg_suite *s = L->s;

    if (s->ncases == L->cap_cases) {
        size_t cap = L->cap_cases ? L->cap_cases * 2 : 16;
        pg_case *p = realloc(s->cases, cap * sizeof(*p));
        if (!p)
            return PG_ENOMEM;
        s->cases = p;
        L->cap_cases = cap;
    }
    s->cases[s->ncases++] = *c;
    memset(c, 0, sizeof(*c));
    return 0;
}

/*
 * Expands the matrix: dims are sorted by name, each axis is one parameter or
 * one zip group, the last axis varies fastest and threads innermost. The
 * order follows names, never the order of keys in the file.
 */
static int expand(loader *L, const pg_case *proto, const dim *dims, size_t ndims, size_t naxes,
                  const size_t *axis_count, const int64_t *threads, size_t nthreads)
{
    size_t *idx = calloc(naxes ? naxes : 1, sizeof(*idx)), i, t;
    pg_case c = {0};

    if (!idx)
        goto oom;
    for (;;) {
        for (t = 0; t < nthreads; t++) {
            if (fill_common(&c, proto) != 0)
                goto oom;
            c.threads = (int)threads[t];
            if (!(c.params = calloc(ndims ? ndims : 1, sizeof(pg_param))))
                goto oom;
            for (i = 0; i < ndims; i++) {
                const pval *v = &dims[i].vals[dims[i].count > 1 ? idx[dims[i].axis] : 0];
                c.params[i].name = pg__strdup(dims[i].name);
                c.params[i].value = pg__strdup(v->text);
                c.params[i].is_number = v->is_number;
                c.params[i].num = v->num;
                c.nparams++;
                if (!c.params[i].name || !c.params[i].value)
                    goto oom;
            }
            if (finish_case(&c) != 0 || push_case(L, &c) != 0)
                goto oom;
        }
        /* Odometer: the last axis turns fastest. */
        for (i = naxes; i > 0; i--) {
            if (++idx[i - 1] < axis_count[i - 1])
                break;
            idx[i - 1] = 0;
        }
        if (i == 0)
            break;
    }
    free(idx);
    return 0;
oom:
    pg_case_clear(&c);
    free(idx);
    pg__diag_add(L->d, proto->node, "out of memory expanding '%s'", proto->name);
    return -1;
}

/* Reads `zip: [[a, b], [c, d]]`: each group's lists are paired element by element. */
static int parse_zip(pg_diags *d, dim *dims, size_t ndims, const pg_node *zip)
{
    size_t g, i, j;
    int bad = 0;
    char sug[96];

    if (zip->type != PG_NODE_SEQ || zip->count == 0) {
        pg__diag_add(d, zip, "zip must be a non-empty list of groups of parameter names, e.g. [[m, n]]");
        return -1;
    }
    for (g = 0; g < zip->count; g++) {
        const pg_node *grp = zip->items[g];
        size_t first = (size_t)-1;
        if (grp->type != PG_NODE_SEQ || grp->count < 2) {
            pg__diag_add(d, grp, "each zip group is a list of two or more parameter names, e.g. [m, n]");
            bad = 1;
            continue;
        }
        for (i = 0; i < grp->count; i++) {
            const pg_node *nm = grp->items[i];
            const char *names[65];
            size_t nn = 0;
            dim *dm = NULL;
            if (scalar_of(d, nm, "a zipped name") != 0) {
                bad = 1;
                continue;
            }
            for (j = 0; j < ndims; j++) {
                if (strcmp(dims[j].name, nm->scalar) == 0)
                    dm = &dims[j];
                if (nn < 64)
                    names[nn++] = dims[j].name;
            }
            names[nn] = NULL;
            if (!dm) {
                pg__diag_add(d, nm, "zip names '%s', which is not a parameter of this benchmark%s",
                             nm->scalar, dym(sug, sizeof(sug), nm->scalar, names));
                bad = 1;
                continue;
            }
            if (dm->zip >= 0) {
                pg__diag_add(d, nm, "parameter '%s' is zipped twice", dm->name);
                bad = 1;
                continue;
            }
            dm->zip = (int)g;
            if (first == (size_t)-1) {
                first = (size_t)(dm - dims);
            } else if (dims[first].count != dm->count) {
                pg__diag_add(d, nm, "zip pairs lists of equal length: '%s' has %zu value%s, '%s' has %zu",
                             dims[first].name, dims[first].count, dims[first].count == 1 ? "" : "s",
                             dm->name, dm->count);
                bad = 1;
            }
        }
    }
    return bad ? -1 : 0;
}

/* Did-you-mean over the kernel's declared parameter names. */
static int check_kernel_param(pg_diags *d, const pg_kernel *k, const pg_node *key)
{
    pg_buf known = PG_BUF_INIT;
    char sug[96];
    size_t i;

    if (!k || !k->params || in_list(k->params, key->scalar))
        return 0;
    if (!*dym(sug, sizeof(sug), key->scalar, k->params)) {
        for (i = 0; k->params[i]; i++)
            pg__buf_printf(&known, "%s%s", i ? ", " : "", k->params[i]);
        snprintf(sug, sizeof(sug), " (it reads %s)", known.ptr ? known.ptr : "none");
        pg__buf_free(&known);
    }
    pg__diag_add(d, key, "kernel '%s' has no parameter '%s'%s", k->name, key->scalar, sug);
    return -1;
}

/* Resolves a kernel name for a device, reporting unknown names and wrong devices. */
static const pg_kernel *find_kernel(pg_diags *d, const pg_node *n, const char *device, const pg_node *device_node)
{
    const pg_kernel *const *all = pg_kernel_all();
    const pg_kernel *k;
    char sug[96];
    size_t i;

    if (!pg_kernel_find(n->scalar)) {
        pg__diag_add(d, n, "unknown kernel '%s'%s", n->scalar, dym(sug, sizeof(sug), n->scalar, kernel_names()));
        return NULL;
    }
    if ((k = pg_kernel_find_for(n->scalar, device)) != NULL)
        return k;
    for (i = 0; all[i]; i++)
        if (strcmp(all[i]->name, n->scalar) == 0)
            break;
    if (device_node)
        pg__diag_add(d, n, "kernel '%s' runs only on %s, but device is %s (set at %d:%d)", n->scalar,
                     all[i]->device, device, device_node->line, device_node->col);
    else
        pg__diag_add(d, n, "kernel '%s' runs only on %s; add 'device: %s'", n->scalar, all[i]->device,
                     all[i]->device);
    return NULL;
}

/*
 * `command:` is an argv list (no shell unless the user writes one). The
 * prototype's array borrows the node's strings; fill_common() copies them
 * into each case and load_benchmark() frees the array.
 */
static int load_command(pg_diags *d, pg_case *proto, const pg_node *n)
{
    size_t i;

    if (n->type != PG_NODE_SEQ) {
        pg__diag_add(d, n, "command must be a list of arguments such as [./bench, --size, 64], not %s "
                     "(no shell is involved)", pg_node_kind(n));
        return -1;
    }
    if (n->count == 0) {
        pg__diag_add(d, n, "command is an empty list; give the program and its arguments");
        return -1;
    }
    for (i = 0; i < n->count; i++)
        if (scalar_of(d, n->items[i], "a command argument") != 0)
            return -1;
    if (!(proto->command = calloc(n->count + 1, sizeof(char *))))
        return pg__diag_add(d, n, "out of memory reading the command");
    for (i = 0; i < n->count; i++)
        proto->command[i] = n->items[i]->scalar;
    return 0;
}

static void add_name(loader *L, const pg_node *n)
{
    const pg_node **p = realloc(L->names, (L->nnames + 1) * sizeof(*p));

    if (!p)
        return;
    L->names = p;
    p[L->nnames++] = n;
}

/* Counts the cases a benchmark expands to and reports the cap once. */
static int within_cap(loader *L, const char *name, const pg_node *at, const dim *dims, size_t ndims,
                      size_t naxes, const size_t *axis_count, size_t nthreads)
{
    double count = (double)nthreads;
    size_t i, cap = L->opts->max_cases;
    pg_buf why = PG_BUF_INIT;
    int ok;

    for (i = 0; i < naxes; i++)
        count *= (double)axis_count[i];
    L->planned += count;
    ok = L->planned <= (double)cap;
    if (ok || L->over_cap)
        return ok;
    L->over_cap = 1;
    for (i = 0; i < ndims; i++)
        if (dims[i].count > 1)
            pg__buf_printf(&why, "%s%s:%zu", why.len ? " x " : "", dims[i].name, dims[i].count);
    if (nthreads > 1)
        pg__buf_printf(&why, "%sthreads:%zu", why.len ? " x " : "", nthreads);
    if (L->planned == count)
        pg__diag_add(L->d, at, "benchmark '%s' expands to %.0f cases%s%s%s, over the cap of %zu cases per suite",
                     name, count, why.len ? " (" : "", why.len ? why.ptr : "", why.len ? ")" : "", cap);
    else
        pg__diag_add(L->d, at, "benchmark '%s' expands to %.0f cases%s%s%s, bringing the suite to %.0f, "
                     "over the cap of %zu cases per suite", name, count, why.len ? " (" : "",
                     why.len ? why.ptr : "", why.len ? ")" : "", L->planned, cap);
    pg__buf_free(&why);
    return 0;
}

static void load_benchmark(loader *L, const pg_node *b)
{
    pg_diags *d = L->d;
    pg_case proto = {0};
    inherit eff = L->defs;
    const pg_node *n, *name_node, *zip;
    const pg_kernel *k = NULL;
    dim *own = NULL, *dims = NULL;
    size_t nown = 0, ndims = 0, naxes = 0, i, j;
    size_t *axis_count = NULL;
    const char *sources[3];
    size_t nsources = 0;
    int bad = L->defs.bad;

    eff.threads = NULL; /* parse_settings fills the benchmark's own list */
    eff.nthreads = 0;
    if (b->type != PG_NODE_MAP) {
        pg__diag_add(d, b, "each benchmark must be a mapping with at least 'name' and 'kernel', not %s",
                     pg_node_kind(b));
        return;
    }
    if (check_keys_known(d, b, bench_keys, "a benchmark", bench_hints))
        bad = 1;
    name_node = pg_node_get(b, "name");
    if (!name_node) {
        pg__diag_add(d, b, "benchmark has no 'name'");
        bad = 1;
    } else if (check_name(d, name_node, "name") != 0) {
        bad = 1;
        name_node = NULL;
    } else {
        add_name(L, name_node);
    }
    proto.node = b;
    proto.suite = L->s->name;
    proto.name = name_node ? name_node->scalar : "?";

    if (parse_settings(L, &eff, b, 1) != 0)
        bad = 1;
    proto.device = (char *)eff.device;

    /* Exactly one source of work. */
    if (pg_node_get(b, "kernel"))
        sources[nsources++] = "kernel";
    if (pg_node_get(b, "plugin"))
        sources[nsources++] = "plugin";
    if (pg_node_get(b, "command"))
        sources[nsources++] = "command";
    if (nsources == 0) {
        pg__diag_add(d, b, "benchmark '%s' needs one of 'kernel', 'plugin' (with 'symbol') or 'command'",
                     proto.name);
        bad = 1;
    } else if (nsources > 1) {
        pg__diag_add(d, pg_node_get(b, sources[1]), "benchmark '%s' sets both '%s' and '%s'; use one",
                     proto.name, sources[0], sources[1]);
        bad = 1;
    }
    if ((n = pg_node_get(b, "kernel")) != NULL) {
        if (scalar_of(d, n, "kernel") != 0)
            bad = 1;
        else if (!(k = find_kernel(d, n, eff.device, eff.device_node)))
            bad = 1;
        else
            proto.kernel = n->scalar;
    }
    if ((n = pg_node_get(b, "plugin")) != NULL) {
        if (scalar_of(d, n, "plugin") != 0)
            bad = 1;
        else
            proto.plugin = n->scalar;
        if (!pg_node_get(b, "symbol")) {
            pg__diag_add(d, n, "plugin benchmark '%s' needs 'symbol' (the benchmark's name in the library)",
                         proto.name);
            bad = 1;
        }
    }
    if ((n = pg_node_get(b, "symbol")) != NULL) {
        if (scalar_of(d, n, "symbol") != 0)
            bad = 1;
        else if (!pg_node_get(b, "plugin")) {
            pg__diag_add(d, n, "'symbol' names a benchmark inside a plugin; add 'plugin: PATH'");
            bad = 1;
        } else
            proto.symbol = n->scalar;
    }
    if ((n = pg_node_get(b, "command")) != NULL && load_command(d, &proto, n) != 0)
        bad = 1;

    /* Settings that only mean something for one kind of benchmark. */
    proto.timeout = 60.0;
    if ((n = pg_node_get(b, "timeout")) != NULL) {
        /* Plugins run in a child process too, which the timeout bounds. */
        if (!pg_node_get(b, "command") && !pg_node_get(b, "plugin")) {
            pg__diag_add(d, n, "'timeout' applies only to command and plugin benchmarks");
            bad = 1;
        } else if (get_duration(d, &proto.timeout, n, "timeout") != 0)
            bad = 1;
    }
    if ((n = pg_node_get(b, "metrics")) != NULL) {
        const char *m = NULL;
        static const char *const metrics[] = {"json", "none", NULL};
        if (!pg_node_get(b, "command")) {
            pg__diag_add(d, n, "'metrics' applies only to command benchmarks");
            bad = 1;
        } else if (get_enum(d, &m, n, "metrics", metrics, "'json' or 'none'") != 0)
            bad = 1;
        else if (strcmp(m, "json") == 0)
            proto.metrics = (char *)m;
    }
    if ((n = pg_node_get(b, "output")) != NULL) {
        const char *o = NULL;
        static const char *const outputs[] = {"keep", "discard", NULL};
        if (!pg_node_get(b, "command")) {
            pg__diag_add(d, n, "'output' applies only to command benchmarks");
            bad = 1;
        } else if (get_enum(d, &o, n, "output", outputs, "'keep' or 'discard'") != 0)
            bad = 1;
        else
            proto.keep_output = strcmp(o, "keep") == 0;
    }
    if ((n = pg_node_get(b, "cold")) != NULL) {
        if (get_bool(d, &proto.cold, n, "cold") != 0)
            bad = 1;
        else if (proto.cold && strcmp(eff.device, "cuda") != 0) {
            pg__diag_add(d, n, "'cold' flushes the GPU's L2 cache; it needs 'device: cuda'");
            bad = 1;
        }
    }
    proto.min_run_time = eff.min_run_time;
    proto.max_run_time = eff.max_run_time;
    proto.warmup = eff.warmup;
    proto.min_samples = eff.min_samples;
    proto.threshold = eff.threshold;
    proto.alpha = eff.alpha;
    if (eff.tags && eff.tags->type == PG_NODE_SCALAR) {
        proto.tags = calloc(1, sizeof(char *));
        if (proto.tags)
            proto.tags[proto.ntags++] = eff.tags->scalar;
    } else if (eff.tags) {
        proto.tags = calloc(eff.tags->count, sizeof(char *));
        for (i = 0; proto.tags && i < eff.tags->count; i++)
            proto.tags[proto.ntags++] = eff.tags->items[i]->scalar;
    }

    /* Parameters: the defaults', overridden key by key by the benchmark's own. */
    if ((n = pg_node_get(b, "params")) != NULL) {
        if (parse_params(d, &own, &nown, n) != 0)
            bad = 1;
        for (i = 0; i < nown; i++)
            if (check_kernel_param(d, k, own[i].key) != 0)
                bad = 1;
    }
    dims = calloc(nown + L->defs.nparams + 1, sizeof(*dims));
    if (!dims) {
        pg__diag_add(d, b, "out of memory");
        goto cleanup;
    }
    /* `dims` holds shallow copies: `own` and the defaults keep ownership of the values. */
    for (i = 0; i < nown; i++) {
        dims[ndims] = own[i];
        dims[ndims++].owned = 0;
    }
    for (i = 0; i < L->defs.nparams; i++) {
        int overridden = 0;
        for (j = 0; j < nown; j++)
            if (strcmp(own[j].name, L->defs.params[i].name) == 0)
                overridden = 1;
        if (!overridden) {
            dims[ndims] = L->defs.params[i];
            dims[ndims].owned = 0;
            dims[ndims].zip = -1;
            ndims++;
        }
    }
    if ((zip = pg_node_get(b, "zip")) != NULL && parse_zip(d, dims, ndims, zip) != 0)
        bad = 1;
    for (i = 0; i < ndims && i < nown; i++)
        if (check_repeats(d, &dims[i]) != 0)
            bad = 1;
    if (!eff.threads) {
        eff.threads = L->defs.threads ? L->defs.threads : &L->default_threads;
        eff.nthreads = L->defs.threads ? L->defs.nthreads : 1;
    }
    if (bad || !L->s->name)
        goto cleanup;

    /* Axes: one per listed parameter or zip group, in parameter-name order. */
    qsort(dims, ndims, sizeof(*dims), dim_cmp);
    if (!(axis_count = calloc(ndims + 1, sizeof(*axis_count))))
        goto cleanup;
    for (i = 0; i < ndims; i++) {
        if (dims[i].count <= 1)
            continue;
        for (j = 0; j < i; j++)
            if (dims[i].zip >= 0 && dims[j].zip == dims[i].zip)
                break;
        if (j < i) {
            dims[i].axis = dims[j].axis;
            continue;
        }
        dims[i].axis = naxes;
        axis_count[naxes++] = dims[i].count;
    }
    if (!within_cap(L, proto.name, b, dims, ndims, naxes, axis_count, eff.nthreads))
        goto cleanup;
    expand(L, &proto, dims, ndims, naxes, axis_count, eff.threads, eff.nthreads);

cleanup:
    if (eff.threads != L->defs.threads && eff.threads != &L->default_threads)
        free(eff.threads);
    for (i = 0; i < nown; i++)
        dim_clear(&own[i]);
    free(own);
    free(dims);
    free(axis_count);
    free(proto.command);
    free(proto.tags);
}

/* ---- checks ------------------------------------------------------------------------ */

typedef struct eval_ctx {
    const pg_case *c;
    char unknown[64];         /* a name with no parameter */
    const pg_param *not_int;  /* a parameter whose value is not an integer */
} eval_ctx;

static int lookup_param(int64_t *out, const char *name, void *payload)
{
    eval_ctx *e = payload;
    const pg_param *p = pg_case_param(e->c, name);
    char *end;
    long long v;

    if (!p) {
        snprintf(e->unknown, sizeof(e->unknown), "%s", name);
        return 1;
    }
    errno = 0;
    v = strtoll(p->value, &end, 10);
    if (end == p->value || *end || errno) {
        e->not_int = p;
        return 1;
    }
    *out = v;
    return 0;
}

/* Evaluates `expr`; on failure fills `at` (a copy of the node with the exact column) and `msg`. */
static int eval_node(int64_t *out, const pg_case *c, const pg_node *expr, pg_node *at, char *msg, size_t size)
{
    pg_expr_error err;
    eval_ctx e = {c, "", NULL};
    int rc;

    *at = *expr;
    if (expr->type != PG_NODE_SCALAR || !*expr->scalar) {
        snprintf(msg, size, "expected an integer expression such as 2*B*in*out, not %s",
                 expr->type == PG_NODE_SCALAR ? "an empty value" : pg_node_kind(expr));
        return PG_ESUITE;
    }
    rc = pg_expr_eval(out, expr->scalar, lookup_param, &e, &err);
    if (rc == 0)
        return 0;
    /* Point at the character: a plain one-line scalar starts at the node's column. */
    if (!strchr(expr->scalar, '\n'))
        at->col = expr->col + (expr->quoted ? 1 : 0) + err.column - 1;
    if (e.not_int) {
        snprintf(msg, size, "parameter '%s' is '%s', not an integer, in '%s'", e.not_int->name,
                 e.not_int->value, expr->scalar);
    } else if (e.unknown[0]) {
        const char *names[65];
        char sug[96];
        size_t i, n = 0;
        for (i = 0; i < c->nparams && n < 64; i++)
            names[n++] = c->params[i].name;
        names[n] = NULL;
        snprintf(msg, size, "unknown name '%s' in '%s'%s", e.unknown, expr->scalar,
                 dym(sug, sizeof(sug), e.unknown, names));
    } else {
        snprintf(msg, size, "%s in '%s'", err.message, expr->scalar);
    }
    return PG_ESUITE;
}

int pg_case_eval(int64_t *out, const pg_case *c, const pg_node *expr)
{
    pg_node at;
    char msg[400];

    if (eval_node(out, c, expr, &at, msg, sizeof(msg)) != 0)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: %s", at.file, at.line, at.col, msg);
    return 0;
}

/* Validates an expected FLOP count against the workload's parameters. */
static int check_expr(pg_diags *d, const pg_case *wc, const pg_node *expr)
{
    pg_node at;
    char msg[400];
    int64_t v;

    if (eval_node(&v, wc, expr, &at, msg, sizeof(msg)) != 0) {
        pg__diag_add(d, &at, "%s", msg);
        return -1;
    }
    if (v < 0) {
        pg__diag_add(d, expr, "expected count '%s' is negative (%lld)", expr->scalar, (long long)v);
        return -1;
    }
    return 0;
}

/* A non-empty NAME: value mapping whose values pass `each`. */
static int check_named_map(pg_diags *d, const pg_node *m, const char *what, const pg_case *wc,
                           int (*each)(pg_diags *, const pg_case *, const pg_node *))
{
    size_t i;
    int bad = 0;

    if (m->type != PG_NODE_MAP || m->count == 0) {
        pg__diag_add(d, m, "%s must be a non-empty mapping of NAME: count, not %s", what,
                     m->type == PG_NODE_MAP ? "an empty one" : pg_node_kind(m));
        return -1;
    }
    for (i = 0; i < m->count; i++) {
        if (m->keys[i]->type != PG_NODE_SCALAR) {
            pg__diag_add(d, m->keys[i], "names in %s must be plain names, not %s", what, pg_node_kind(m->keys[i]));
            bad = 1;
        } else if (each(d, wc, m->items[i]) != 0) {
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

static int each_expr(pg_diags *d, const pg_case *wc, const pg_node *v)
{
    return wc ? check_expr(d, wc, v) : 0;
}

static int each_count(pg_diags *d, const pg_case *wc, const pg_node *v)
{
    int64_t x;

    return get_int(d, &x, v, "an expected count", 0, INT64_MAX);
}

/* count: {GLOB: N | {min: N, max: M}} */
static int each_range(pg_diags *d, const pg_case *wc, const pg_node *v)
{
    const pg_node *lo, *hi;
    int64_t a = 0, b = INT64_MAX;
    int bad = 0;

    if (v->type != PG_NODE_MAP)
        return each_count(d, wc, v);
    if (check_keys_known(d, v, count_keys, "a count range", NULL))
        return -1;
    lo = pg_node_get(v, "min");
    hi = pg_node_get(v, "max");
    if (!lo && !hi) {
        pg__diag_add(d, v, "a count range needs 'min', 'max' or both");
        return -1;
    }
    if (lo && get_int(d, &a, lo, "min", 0, INT64_MAX) != 0)
        bad = 1;
    if (hi && get_int(d, &b, hi, "max", 0, INT64_MAX) != 0)
        bad = 1;
    if (!bad && a > b) {
        pg__diag_add(d, hi, "max (%lld) is below min (%lld)", (long long)b, (long long)a);
        bad = 1;
    }
    return bad ? -1 : 0;
}

static int check_glob_list(pg_diags *d, const pg_node *n, const char *what)
{
    size_t i;
    int bad = 0;

    if (n->type != PG_NODE_SEQ || n->count == 0) {
        pg__diag_add(d, n, "%s must be a non-empty list of op or range names (globs allowed), not %s", what,
                     n->type == PG_NODE_SEQ ? "an empty list" : pg_node_kind(n));
        return -1;
    }
    for (i = 0; i < n->count; i++)
        if (scalar_of(d, n->items[i], "a name") != 0)
            bad = 1;
    return bad ? -1 : 0;
}

/* Validates `expect` for the check's kind; flops expressions are evaluated over `wc`. */
static int check_expect(pg_diags *d, const pg_check *ck, const pg_node *e, const pg_case *wc)
{
    const char *const *known = !strcmp(ck->kind, "flops") ? expect_flops
                             : !strcmp(ck->kind, "ops")   ? expect_ops
                                                          : expect_schedule;
    const char *const *other[] = {expect_flops, expect_ops, expect_schedule};
    const char *const other_kind[] = {"flops", "ops", "schedule"};
    const pg_node *n;
    size_t i, j;
    int bad = 0, any = 0;
    char where[64];

    if (e->type != PG_NODE_MAP) {
        pg__diag_add(d, e, "expect must be a mapping, not %s", pg_node_kind(e));
        return -1;
    }
    snprintf(where, sizeof(where), "expect (kind %s)", ck->kind);
    /* A key that belongs to another kind says so rather than guessing a typo. */
    for (i = 0; i < e->count; i++) {
        const pg_node *k = e->keys[i];
        char sug[96];
        if (k->type != PG_NODE_SCALAR) {
            pg__diag_add(d, k, "keys in %s must be plain names, not %s", where, pg_node_kind(k));
            bad = 1;
            continue;
        }
        if (in_list(known, k->scalar))
            continue;
        bad = 1;
        for (j = 0; j < 3; j++)
            if (in_list(other[j], k->scalar))
                break;
        if (j < 3)
            pg__diag_add(d, k, "'%s' is an expectation of %s checks, not of %s checks", k->scalar, other_kind[j],
                         ck->kind);
        else
            pg__diag_add(d, k, "unknown key '%s' in %s%s", k->scalar, where, dym(sug, sizeof(sug), k->scalar, known));
    }
    for (i = 0; known[i]; i++)
        if (pg_node_get(e, known[i]))
            any = 1;
    if (!any && !bad) {
        pg__diag_add(d, e, "%s checks expect at least one of: %s", ck->kind,
                     !strcmp(ck->kind, "flops") ? "total, per_op, per_module"
                     : !strcmp(ck->kind, "ops") ? "contains, not_contains, count"
                                                : "windows, per_window");
        return -1;
    }
    if (!strcmp(ck->kind, "flops")) {
        if ((n = pg_node_get(e, "total")) != NULL && each_expr(d, wc, n) != 0)
            bad = 1;
        if ((n = pg_node_get(e, "per_op")) != NULL && check_named_map(d, n, "per_op", wc, each_expr) != 0)
            bad = 1;
        if ((n = pg_node_get(e, "per_module")) != NULL &&
            check_named_map(d, n, "per_module", wc, each_expr) != 0)
            bad = 1;
    } else if (!strcmp(ck->kind, "ops")) {
        if ((n = pg_node_get(e, "within")) != NULL && scalar_of(d, n, "within") != 0)
            bad = 1;
        if ((n = pg_node_get(e, "contains")) != NULL && check_glob_list(d, n, "contains") != 0)
            bad = 1;
        if ((n = pg_node_get(e, "not_contains")) != NULL && check_glob_list(d, n, "not_contains") != 0)
            bad = 1;
        if ((n = pg_node_get(e, "count")) != NULL && check_named_map(d, n, "count", wc, each_range) != 0)
            bad = 1;
        if (pg_node_get(e, "within") && !pg_node_get(e, "contains") && !pg_node_get(e, "not_contains") &&
            !pg_node_get(e, "count") && !bad) {
            pg__diag_add(d, e, "an ops check needs contains, not_contains or count besides within");
            bad = 1;
        }
    } else {
        int64_t w;
        if ((n = pg_node_get(e, "windows")) != NULL && get_int(d, &w, n, "windows", 0, INT64_MAX) != 0)
            bad = 1;
        if ((n = pg_node_get(e, "per_window")) != NULL &&
            check_named_map(d, n, "per_window", wc, each_count) != 0)
            bad = 1;
    }
    return bad ? -1 : 0;
}

/* Validates a check's workload and builds its case (for expressions) into `wc`. */
static int check_workload(loader *L, const pg_node *w, const char *check_name, pg_case *wc, int *have)
{
    pg_diags *d = L->d;
    const pg_node *kn, *dn;
    const char *device = "cpu";
    const pg_kernel *k = NULL;
    size_t i;
    int bad = 0;

    *have = 0;
    if (w->type != PG_NODE_MAP) {
        pg__diag_add(d, w, "workload must be a mapping such as {kernel: sgemm, n: 64}, not %s", pg_node_kind(w));
        return -1;
    }
    if ((dn = pg_node_get(w, "device")) != NULL && get_enum(d, &device, dn, "device", devices, "'cpu' or 'cuda'"))
        bad = 1;
    kn = pg_node_get(w, "kernel");
    if (!kn) {
        pg__diag_add(d, w, "workload needs 'kernel: NAME'");
        bad = 1;
    } else if (scalar_of(d, kn, "kernel") != 0) {
        bad = 1;
    } else if (!bad && !(k = find_kernel(d, kn, device, dn))) {
        bad = 1;
    }
    for (i = 0; i < w->count; i++) {
        const pg_node *key = w->keys[i], *v = w->items[i];
        pval tmp;
        size_t j;
        if (key->type == PG_NODE_SCALAR && in_list(workload_reserved, key->scalar)) {
            if (!strcmp(key->scalar, "range") && scalar_of(d, v, "range") != 0)
                bad = 1;
            continue;
        }
        if (check_param_name(d, key) != 0 || check_kernel_param(d, k, key) != 0) {
            bad = 1;
            continue;
        }
        /* A list in a workload is one value (e.g. ops: [mul, relu]); each item is still a single value. */
        if (v->type == PG_NODE_SEQ) {
            if (v->count == 0) {
                pg__diag_add(d, v, "parameter '%s' is an empty list", key->scalar);
                bad = 1;
            }
            for (j = 0; j < v->count; j++)
                if (scalar_of(d, v->items[j], "a list item") != 0)
                    bad = 1;
            continue;
        }
        if (canon_value(d, &tmp, v, key->scalar) != 0)
            bad = 1;
        free(tmp.text);
    }
    if (bad || !L->s->name)
        return -1;
    if (pg_case_from_workload(wc, w, L->s->name, check_name) != 0) {
        pg_case_clear(wc);
        pg__diag_add(d, w, "%s", pg_error_last());
        return -1;
    }
    *have = 1;
    return 0;
}

static int check_trace(loader *L, const pg_node *n)
{
    struct stat st;
    char *path;
    int ok;

    if (scalar_of(L->d, n, "trace") != 0)
        return -1;
    if (!*n->scalar) {
        pg__diag_add(L->d, n, "trace is empty; give the path of a Chrome/Perfetto JSON trace");
        return -1;
    }
    path = n->scalar[0] == '/' ? pg__strdup(n->scalar) : pg__asprintf("%s/%s", L->dir, n->scalar);
    ok = path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    if (!ok) {
        pg__diag_add(L->d, n, "trace file '%s' not found (paths are relative to the suite file's directory)",
                     n->scalar);
        return -1;
    }
    return 0;
}

static int parse_schedule(pg_diags *d, pg_check *ck, const pg_node *n)
{
    const pg_node *v;
    int64_t *fields[] = {&ck->skip_first, &ck->wait, &ck->warmup, &ck->active, &ck->repeat};
    size_t i;
    int bad = 0;

    if (n->type != PG_NODE_MAP) {
        pg__diag_add(d, n, "schedule must be a mapping such as {wait: 1, warmup: 1, active: 2}, not %s",
                     pg_node_kind(n));
        return -1;
    }
    bad |= check_keys_known(d, n, schedule_keys, "schedule", NULL);
    for (i = 0; schedule_keys[i]; i++)
        if ((v = pg_node_get(n, schedule_keys[i])) != NULL &&
            get_int(d, fields[i], v, schedule_keys[i], strcmp(schedule_keys[i], "active") ? 0 : 1, 1000000) != 0)
            bad = 1;
    if (!pg_node_get(n, "active")) {
        pg__diag_add(d, n, "schedule needs 'active' (the number of steps recorded per window)");
        bad = 1;
    }
    return bad ? -1 : 0;
}

static void load_check(loader *L, const pg_node *c)
{
    pg_diags *d = L->d;
    pg_check ck = {0};
    pg_case wc = {0};
    const pg_node *n, *name_node;
    int bad = 0, have_case = 0;
    pg_check *p;

    if (c->type != PG_NODE_MAP) {
        pg__diag_add(d, c, "each check must be a mapping with 'name', 'kind' and 'expect', not %s",
                     pg_node_kind(c));
        return;
    }
    if (check_keys_known(d, c, check_keys, "a check", check_hints))
        bad = 1;
    name_node = pg_node_get(c, "name");
    if (!name_node) {
        pg__diag_add(d, c, "check has no 'name'");
        bad = 1;
    } else if (check_name(d, name_node, "name") != 0) {
        bad = 1;
        name_node = NULL;
    } else {
        add_name(L, name_node);
    }
    ck.name = name_node ? name_node->scalar : "?";
    ck.node = c;
    ck.workload = pg_node_get(c, "workload");
    ck.trace = pg_node_get(c, "trace");
    ck.schedule = pg_node_get(c, "schedule");
    ck.expect = pg_node_get(c, "expect");
    n = pg_node_get(c, "kind");
    if (!n) {
        pg__diag_add(d, c, "check '%s' has no 'kind' (flops, ops or schedule)", ck.name);
        return;
    }
    if (get_enum(d, (const char **)&ck.kind, n, "kind", kinds, "flops, ops or schedule") != 0)
        return;

    /* Which sources of events each kind takes. */
    if (ck.trace && strcmp(ck.kind, "ops") != 0) {
        pg__diag_add(d, ck.trace, "'trace' applies only to ops checks");
        bad = 1;
    }
    if (ck.schedule && strcmp(ck.kind, "schedule") != 0) {
        pg__diag_add(d, ck.schedule, "'schedule' applies only to schedule checks");
        bad = 1;
    }
    if ((n = pg_node_get(c, "steps")) != NULL && strcmp(ck.kind, "schedule") != 0) {
        pg__diag_add(d, n, "'steps' applies only to schedule checks");
        bad = 1;
    } else if (n && get_int(d, &ck.steps, n, "steps", 1, 1000000) != 0) {
        bad = 1;
    }
    if (!strcmp(ck.kind, "ops") && ck.workload && ck.trace) {
        pg__diag_add(d, ck.trace, "an ops check reads either a 'workload' or a 'trace', not both");
        bad = 1;
    } else if (!strcmp(ck.kind, "ops") && !ck.workload && !ck.trace) {
        pg__diag_add(d, c, "ops check '%s' needs a 'workload' to run or a 'trace' to read", ck.name);
        bad = 1;
    } else if (strcmp(ck.kind, "ops") != 0 && !ck.workload) {
        pg__diag_add(d, c, "%s check '%s' needs a 'workload' (e.g. {kernel: sgemm, n: 64})", ck.kind, ck.name);
        bad = 1;
    }
    if (!strcmp(ck.kind, "schedule") && !ck.schedule) {
        pg__diag_add(d, c, "schedule check '%s' needs 'schedule: {wait, warmup, active, repeat}'", ck.name);
        bad = 1;
    }
    if (ck.schedule && !strcmp(ck.kind, "schedule") && parse_schedule(d, &ck, ck.schedule) != 0)
        bad = 1;
    if (ck.trace && !strcmp(ck.kind, "ops") && check_trace(L, ck.trace) != 0)
        bad = 1;
    if (ck.workload && check_workload(L, ck.workload, ck.name, &wc, &have_case) != 0)
        bad = 1;
    if (!ck.expect) {
        pg__diag_add(d, c, "check '%s' has no 'expect'", ck.name);
        bad = 1;
    } else if (check_expect(d, &ck, ck.expect, have_case ? &wc : NULL) != 0) {
        bad = 1;
    }
    pg_case_clear(&wc);
    if (bad)
        return;
    p = realloc(L->s->checks, (L->s->nchecks + 1) * sizeof(*p));
    if (!p)
        return;
    L->s->checks = p;
    ck.name = pg__strdup(ck.name);
    ck.kind = pg__strdup(ck.kind);
    p[L->s->nchecks++] = ck;
}

/* ---- whole file ---------------------------------------------------------------------- */

typedef struct key_dup_ctx {
    pg_diags *d;
    pg_node *const *keys;
} key_dup_ctx;

static void report_dup_key(void *payload, size_t later, size_t first)
{
    key_dup_ctx *c = payload;

    pg__diag_add(c->d, c->keys[later], "duplicate key '%s' (first at %d:%d)", c->keys[later]->scalar,
                 c->keys[first]->line, c->keys[first]->col);
}

/* YAML keeps the first of two equal keys: a silent override is a mistake, so report it. */
static void check_dup_keys(loader *L, pg_doc *doc)
{
    size_t n, i, j;
    pg_node *const *all = pg_doc_nodes(doc, &n);

    for (i = 0; i < n; i++) {
        const pg_node *m = all[i];
        const char **texts;
        pg_node **keys;
        size_t k = 0;
        key_dup_ctx c;
        if (m->type != PG_NODE_MAP || m->count < 2)
            continue;
        texts = malloc(m->count * sizeof(*texts));
        keys = malloc(m->count * sizeof(*keys));
        if (texts && keys) {
            for (j = 0; j < m->count; j++)
                if (m->keys[j]->type == PG_NODE_SCALAR) {
                    texts[k] = m->keys[j]->scalar;
                    keys[k++] = m->keys[j];
                }
            c.d = L->d;
            c.keys = keys;
            each_dup(texts, k, report_dup_key, &c);
        }
        free(texts);
        free(keys);
    }
}

typedef struct name_dup_ctx {
    pg_diags *d;
    const pg_node **names;
} name_dup_ctx;

static void report_dup_name(void *payload, size_t later, size_t first)
{
    name_dup_ctx *c = payload;

    pg__diag_add(c->d, c->names[later], "duplicate name '%s' (first at %d:%d); names are unique in a suite",
                 c->names[later]->scalar, c->names[first]->line, c->names[first]->col);
}

typedef struct case_dup_ctx {
    pg_diags *d;
    const pg_suite *s;
    const pg_node *last;
} case_dup_ctx;

static void report_dup_case(void *payload, size_t later, size_t first)
{
    case_dup_ctx *c = payload;
    const pg_case *a = &c->s->cases[first], *b = &c->s->cases[later];

    /* Different entries with one name were reported as duplicate names; report a benchmark once. */
    if (a->node != b->node || c->last == b->node)
        return;
    c->last = b->node;
    pg__diag_add(c->d, b->node, "benchmark '%s' expands to the case %s twice (zipped values repeat)", b->name,
                 b->key);
}

static void check_unique(loader *L)
{
    const char **texts;
    size_t i, n = L->nnames > L->s->ncases ? L->nnames : L->s->ncases;

    if (!(texts = malloc((n ? n : 1) * sizeof(*texts))))
        return;
    {
        name_dup_ctx c = {L->d, L->names};
        for (i = 0; i < L->nnames; i++)
            texts[i] = L->names[i]->scalar;
        each_dup(texts, L->nnames, report_dup_name, &c);
    }
    {
        case_dup_ctx c = {L->d, L->s, NULL};
        for (i = 0; i < L->s->ncases; i++)
            texts[i] = L->s->cases[i].key;
        each_dup(texts, L->s->ncases, report_dup_case, &c);
    }
    free(texts);
}

static const pg_node *entry_list(loader *L, const pg_node *root, const char *key)
{
    const pg_node *list = pg_node_get(root, key);

    if (!list)
        return NULL;
    if (list->type != PG_NODE_SEQ) {
        pg__diag_add(L->d, list, "%s must be a list of entries (each starting with '- name: ...'), not %s", key,
                     pg_node_kind(list));
        return NULL;
    }
    if (list->count == 0) {
        pg__diag_add(L->d, list, "%s is an empty list; leave it out or add an entry", key);
        return NULL;
    }
    return list;
}

static void loader_free(loader *L)
{
    size_t i;

    free(L->defs.threads);
    for (i = 0; i < L->defs.nparams; i++)
        dim_clear(&L->defs.params[i]);
    free(L->defs.params);
    free(L->names);
    free(L->dir);
}

static int load_doc(pg_suite **out, pg_doc *doc, const pg_suite_options *opts, pg_diags *diags)
{
    loader L;
    pg_diags mine = {0};
    pg_suite *s;
    const pg_node *root = pg_doc_root(doc), *n, *list;
    const char *file = pg_doc_file(doc), *slash;
    size_t i;
    int err = 0, unknown_top = 0;

    *out = NULL;
    memset(&L, 0, sizeof(L));
    if (!(s = calloc(1, sizeof(*s))))
        return pg_error_set(PG_ENOMEM, "out of memory loading a suite");
    s->doc = doc;
    s->path = pg__strdup(file);
    L.s = s;
    L.d = &mine;
    L.opts = opts;
    L.default_threads = 1;
    L.defs.device = "cpu";
    L.defs.min_run_time = 0.5;
    L.defs.max_run_time = 30.0;
    L.defs.warmup = 0.1;
    L.defs.min_samples = 10;
    L.defs.threshold = 0.05;
    L.defs.alpha = 0.05;
    slash = strrchr(file, '/');
    L.dir = slash ? pg__asprintf("%.*s", (int)(slash - file), file) : pg__strdup(".");
    if (slash == file) {
        free(L.dir);
        L.dir = pg__strdup("/");
    }

    check_dup_keys(&L, doc);
    if (root->type != PG_NODE_MAP) {
        pg__diag_add(L.d, root, "a suite must be a mapping with 'suite' and 'benchmarks' or 'checks', not %s",
                     pg_node_kind(root));
        goto done;
    }
    unknown_top = check_keys_known(L.d, root, suite_keys, "a suite", top_hints);
    n = pg_node_get(root, "suite");
    if (!n)
        pg__diag_add(L.d, root, "missing required key 'suite' (the suite's name)");
    else if (check_name(L.d, n, "suite") == 0)
        s->name = pg__strdup(n->scalar);
    if ((n = pg_node_get(root, "description")) != NULL && scalar_of(L.d, n, "description") == 0)
        s->description = pg__strdup(n->scalar);
    if ((n = pg_node_get(root, "defaults")) != NULL)
        load_defaults(&L, n);
    /* A misspelt 'benchmarks' was just reported: do not also say it is missing. */
    if (!pg_node_get(root, "benchmarks") && !pg_node_get(root, "checks") && !unknown_top)
        pg__diag_add(L.d, root, "a suite needs 'benchmarks', 'checks' or both");
    if ((list = entry_list(&L, root, "checks")) != NULL)
        for (i = 0; i < list->count; i++)
            load_check(&L, list->items[i]);
    if ((list = entry_list(&L, root, "benchmarks")) != NULL)
        for (i = 0; i < list->count; i++)
            load_benchmark(&L, list->items[i]);
    check_unique(&L);

done:
    diags_sort(&mine, file);
    if (mine.count) {
        err = pg_error_set(PG_ESUITE, "%s", mine.lines[0]);
        s->doc = NULL;
        pg_suite_free(s);
        s = NULL;
    }
    if (diags) {
        for (i = 0; i < mine.count; i++) {
            diag_push(diags, mine.lines[i]);
            mine.lines[i] = NULL;
        }
    }
    pg_diags_free(&mine);
    loader_free(&L);
    *out = s;
    return err;
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
        if (diags)
            diag_push(diags, pg__strdup(pg_error_last()));
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

/* ---- sets of suites ------------------------------------------------------------------ */

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

/* The suite files of a directory, sorted by name (byte order, locale-free). */
static int list_dir(char ***out, size_t *nout, const char *dirpath)
{
    DIR *dir = opendir(dirpath);
    struct dirent *de;
    char **files = NULL;
    size_t n = 0, plen = strlen(dirpath);
    int slash = plen > 0 && dirpath[plen - 1] == '/';

    *out = NULL;
    *nout = 0;
    if (!dir)
        return pg_error_set(PG_ESUITE, "%s: cannot read directory: %s", dirpath, strerror(errno));
    while ((de = readdir(dir)) != NULL) {
        char **p;
        if (de->d_name[0] == '.' || !has_yaml_ext(de->d_name))
            continue;
        if (!(p = realloc(files, (n + 1) * sizeof(*p))))
            break;
        files = p;
        if ((files[n] = pg__asprintf("%s%s%s", dirpath, slash ? "" : "/", de->d_name)) != NULL)
            n++;
    }
    closedir(dir);
    if (n)
        qsort(files, n, sizeof(*files), name_cmp);
    *out = files;
    *nout = n;
    if (!n)
        return pg_error_set(PG_ESUITE, "%s: no suite files (*.yaml, *.yml) in this directory", dirpath);
    return 0;
}

int pg_suite_set_load(pg_suite_set *out, const char *const *paths, size_t npaths,
                      const pg_suite_options *opts, pg_diags *diags)
{
    size_t i, j, k;
    int first_err = 0;
    char first_msg[1024] = "";

    memset(out, 0, sizeof(*out));
    for (i = 0; i < npaths; i++) {
        struct stat st;
        char **files = NULL;
        size_t nfiles = 0;
        int err = 0;

        if (stat(paths[i], &st) != 0) {
            err = pg_error_set(PG_ESUITE, "%s: no such suite file or directory", paths[i]);
        } else if (S_ISDIR(st.st_mode)) {
            err = list_dir(&files, &nfiles, paths[i]);
        } else if ((files = malloc(sizeof(*files))) != NULL && (files[0] = pg__strdup(paths[i])) != NULL) {
            nfiles = 1;
        }
        if (err) {
            pg__diag_add(diags, NULL, "%s", pg_error_last());
            if (!first_err) {
                first_err = err;
                snprintf(first_msg, sizeof(first_msg), "%s", pg_error_last());
            }
        }
        for (j = 0; j < nfiles; j++) {
            pg_suite *s = NULL;
            int e = pg_suite_load(&s, files[j], opts, diags);
            for (k = 0; e == 0 && k < out->count; k++)
                if (strcmp(out->suites[k]->name, s->name) == 0) {
                    const pg_node *at = pg_node_get(pg_doc_root(s->doc), "suite");
                    e = pg_error_set(PG_ESUITE, "%s:%d:%d: suite name '%s' is already used by %s", files[j],
                                     at->line, at->col, s->name, out->suites[k]->path);
                    pg__diag_add(diags, NULL, "%s", pg_error_last());
                    pg_suite_free(s);
                    s = NULL;
                }
            if (s && set_push(out, s) != 0) {
                pg_suite_free(s);
                e = pg_error_set(PG_ENOMEM, "out of memory loading suites");
            }
            if (e && !first_err) {
                first_err = e;
                snprintf(first_msg, sizeof(first_msg), "%s", pg_error_last());
            }
            free(files[j]);
        }
        free(files);
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

/* ---- cases ------------------------------------------------------------------------------ */

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
    char *end;
    long long v;

    if (!p || !p->is_number)
        return dflt;
    /* Integers exactly from their text; other numbers truncated when they fit (1e70 does not). */
    errno = 0;
    v = strtoll(p->value, &end, 10);
    if (end != p->value && !*end && !errno)
        return v;
    if (p->num > -9223372036854775808.0 && p->num < 9223372036854775808.0)
        return (int64_t)p->num;
    return dflt;
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
        size_t j;
        int seen = 0;
        if (!key->scalar || strcmp(key->scalar, "kernel") == 0)
            continue;
        if (strcmp(key->scalar, "device") == 0 && v->type == PG_NODE_SCALAR) {
            free(out->device);
            out->device = pg__strdup(v->scalar);
            continue;
        }
        /* Of two equal keys the first counts, as in pg_node_get(). */
        for (j = 0; j < n; j++)
            if (strcmp(out->params[j].name, key->scalar) == 0)
                seen = 1;
        if (seen)
            continue;
        p = &out->params[n];
        p->name = pg__strdup(key->scalar);
        if (v->type == PG_NODE_SCALAR) {
            p->value = pg__strdup(v->scalar);
            p->is_number = !v->quoted && is_number_text(v->scalar, &p->num);
        } else if (v->type == PG_NODE_SEQ) {
            /* A list in a workload is one value: its items joined by commas. */
            pg_buf b = PG_BUF_INIT;
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
