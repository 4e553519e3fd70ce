/* import.c - reading another harness's JSON and turning its cases into results. */
#include "import/import.h"

#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/json_walk.h"
#include "base/text.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Read in one pass with memory bounded by the largest case (stream.h), so the cap only bounds the time a wrong
 * file can take. */
#define PG_IMPORT_MAX_BYTES ((uint64_t)4 << 30)

const char *const pg_import_formats[] = {"google-benchmark", "hyperfine", "pytest-benchmark", NULL};

int pg_import_format_known(const char *format)
{
    size_t i;

    for (i = 0; pg_import_formats[i]; i++)
        if (strcmp(pg_import_formats[i], format) == 0)
            return 1;
    return 0;
}

void pg_import_notes_clear(pg_import_notes *notes)
{
    size_t i;

    if (!notes)
        return;
    for (i = 0; i < notes->count; i++)
        free(notes->lines[i]);
    free(notes->lines);
    notes->lines = NULL;
    notes->count = 0;
}

int pg__import_note(pg_import_notes *notes, const char *fmt, ...)
{
    va_list ap;
    char *line, **p;
    int n;

    if (!notes)
        return 0;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(line = malloc((size_t)n + 1)))
        return PG_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(line, (size_t)n + 1, fmt, ap);
    va_end(ap);
    /* A note quotes names from the file: one line of plain text, as every message (base/text.h). */
    pg__text_plain_inplace(line, 0);
    p = realloc(notes->lines, (notes->count + 1) * sizeof(*p));
    if (!p) {
        free(line);
        return PG_ENOMEM;
    }
    notes->lines = p;
    notes->lines[notes->count++] = line;
    return 0;
}

int pg__import_number(double *out, const json_t *v)
{
    const char *s;

    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 0;
    }
    if (!json_is_string(v))
        return -1;
    s = json_string_value(v);
    if (strcmp(s, "NaN") == 0 || strcmp(s, "-NaN") == 0)
        *out = NAN;
    else if (strcmp(s, "Infinity") == 0 || strcmp(s, "inf") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-Infinity") == 0 || strcmp(s, "-inf") == 0)
        *out = -INFINITY;
    else
        return -1;
    return 0;
}

static int param_cmp(const void *a, const void *b)
{
    return strcmp(((const pg_import_param *)a)->name, ((const pg_import_param *)b)->name);
}

static void json_text(pg_buf *b, const char *s)
{
    json_t *str = json_string(s);
    char *enc = str ? json_dumps(str, JSON_ENCODE_ANY) : NULL;

    pg__buf_puts(b, enc ? enc : "\"\"");
    free(enc);
    json_decref(str);
}

/* Sets r->key and r->params_json from `params` (sorted here), r->suite, r->name and r->threads. */
static int set_key(pg_result *r, pg_import_param *params, size_t nparams)
{
    pg_buf key = PG_BUF_INIT, pj = PG_BUF_INIT;
    size_t i;

    if (nparams)
        qsort(params, nparams, sizeof(*params), param_cmp);
    /* The same layout as native case keys (suite.c), so imports gate the same way. */
    pg__buf_printf(&key, "%s/%s[", r->suite, r->name);
    pg__buf_puts(&pj, "{");
    for (i = 0; i < nparams; i++) {
        pg__buf_printf(&key, "%s%s=%s", i ? "," : "", params[i].name, params[i].value);
        if (i)
            pg__buf_puts(&pj, ",");
        json_text(&pj, params[i].name);
        pg__buf_puts(&pj, ":");
        if (params[i].is_number)
            pg__buf_puts(&pj, params[i].value);
        else
            json_text(&pj, params[i].value);
    }
    pg__buf_printf(&key, "]@%d:cpu", r->threads);
    pg__buf_puts(&pj, "}");
    free(r->key);
    free(r->params_json);
    r->key = pg__buf_detach(&key);
    r->params_json = pg__buf_detach(&pj);
    pg__buf_clear(&key);
    pg__buf_clear(&pj);
    return r->key && r->params_json ? 0 : pg_error_set(PG_ENOMEM, "out of memory importing '%s'", r->name);
}

int pg__import_add(pg_result **out, pg_run *run, const char *suite, const char *name, pg_import_param *params,
                   size_t nparams, int threads)
{
    pg_result *r;
    int err;

    if (run->nresults >= PG_IMPORT_MAX_CASES)
        return pg_error_set(PG_EFORMAT, "more than %d cases in one import; split the file", PG_IMPORT_MAX_CASES);
    if ((err = pg_run_add_result(&r, run)) != 0)
        return err;
    r->suite = pg__strdup(suite);
    r->name = pg__strdup(name);
    r->threads = threads > 0 ? threads : 1;
    r->device = pg__strdup("cpu");
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->status = PG_STATUS_OK;
    if (!r->suite || !r->name || !r->device || !r->metric || !r->unit)
        return pg_error_set(PG_ENOMEM, "out of memory importing '%s'", name);
    if ((err = set_key(r, params, nparams)) != 0)
        return err;
    *out = r;
    return 0;
}

int pg__import_add_param(pg_result *r, const char *name, const char *value)
{
    pg_import_param ps[PG_IMPORT_MAX_PARAMS + 1];
    char *texts[PG_IMPORT_MAX_PARAMS];
    json_error_t jerr;
    json_t *obj = json_loads(r->params_json ? r->params_json : "{}", 0, &jerr), *v;
    const char *k;
    size_t np = 0, i;
    int err;

    if (!obj)
        return pg_error_set(PG_ENOMEM, "out of memory importing '%s'", r->name);
    json_object_foreach(obj, k, v) {
        if (np == PG_IMPORT_MAX_PARAMS)
            break;
        ps[np].name = k;
        ps[np].is_number = json_is_number(v);
        texts[np] = json_is_string(v) ? pg__strdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY);
        ps[np].value = texts[np] ? texts[np] : "";
        np++;
    }
    ps[np].name = name;
    ps[np].value = value;
    ps[np].is_number = 0;
    err = set_key(r, ps, np + 1);
    for (i = 0; i < np; i++)
        free(texts[i]);
    json_decref(obj);
    return err;
}

int pg__import_time(double *out, const json_t *v)
{
    if (pg__import_number(out, v) != 0)
        return -1;
    if (!isfinite(*out))
        return -2;
    return *out > 0 ? 0 : -3;
}

const char *pg__import_time_problem(int code)
{
    return code == -1 ? "is not a number" : code == -2 ? "is not finite (NaN or Infinity)" : "is not a positive time";
}

int pg__import_set_samples(pg_result *r, double *samples, size_t n)
{
    pg_summary s;

    free(r->samples);
    r->samples = samples;
    r->nsamples = n;
    if (n == 0)
        return 0;
    if (pg_stats_summarize(&s, samples, n) != 0)
        return PG_ENOMEM;
    r->summary = s;
    if (s.median > 0 && s.iqr / s.median >= 0.10)
        r->warnings |= PG_WARN_NOISY;
    if (s.median > 0 && s.iqr / s.median >= PG_VERY_NOISY_IQR)
        r->warnings |= PG_WARN_VERY_NOISY;
    return 0;
}

static const pg_run *sort_run;

static int key_cmp(const void *a, const void *b)
{
    return strcmp(sort_run->results[*(const size_t *)a].key, sort_run->results[*(const size_t *)b].key);
}

/*
 * Two cases with one key cannot be stored in one run. The formats give their
 * own duplicates a distinguishing parameter first; what is left is an error
 * naming the key, never a database constraint failure.
 */
static int check_unique(const pg_run *run, size_t from, const char *name)
{
    size_t n = run->nresults - from, i, *idx = n ? malloc(n * sizeof(*idx)) : NULL;
    int err = 0;

    if (n && !idx)
        return pg_error_set(PG_ENOMEM, "out of memory importing %s", name);
    for (i = 0; i < n; i++)
        idx[i] = from + i;
    sort_run = run;
    if (n > 1)
        qsort(idx, n, sizeof(*idx), key_cmp);
    for (i = 1; i < n; i++) {
        if (strcmp(run->results[idx[i - 1]].key, run->results[idx[i]].key) == 0) {
            err = pg_error_set(PG_EFORMAT, "%s: two cases have the key '%s'; give them distinct names or "
                                           "parameters", name, run->results[idx[i]].key);
            break;
        }
    }
    free(idx);
    return err;
}

int pg__import_disambiguate(pg_run *run, size_t from, const char *param, char *const *values, size_t *changed)
{
    size_t n = run->nresults - from, i, j, k, *idx = n ? malloc(n * sizeof(*idx)) : NULL;
    int err = 0;

    if (n && !idx)
        return pg_error_set(PG_ENOMEM, "out of memory importing");
    for (i = 0; i < n; i++)
        idx[i] = from + i;
    sort_run = run;
    if (n > 1)
        qsort(idx, n, sizeof(*idx), key_cmp);
    for (i = 0; i < n && !err; i = j) {
        for (j = i + 1; j < n && strcmp(run->results[idx[i]].key, run->results[idx[j]].key) == 0; j++)
            ;
        for (k = i; j - i > 1 && k < j && !err; k++)
            if (values[idx[k] - from]) {
                err = pg__import_add_param(&run->results[idx[k]], param, values[idx[k] - from]);
                ++*changed;
            }
    }
    free(idx);
    return err;
}

static void drop_results(pg_run *run, size_t from)
{
    while (run->nresults > from)
        pg__result_clear(&run->results[--run->nresults]);
}

typedef struct walk_adapter {
    pg__import_element_fn fn;
    void *ctx;
} walk_adapter;

static int walk_element(void *ctx, const char *key, const json_t *element, size_t index, const char *where)
{
    walk_adapter *a = ctx;

    (void)key;
    return a->fn(a->ctx, element, index, where);
}

int pg__import_walk(FILE *f, const char *name, const char *format, const char *array_key, const char *missing,
                    pg__import_element_fn fn, void *ctx)
{
    const char *arrays[] = {array_key, NULL};
    walk_adapter a = {fn, ctx};
    pg__json_walk_spec spec = {name, format, arrays, walk_element, NULL, 1, &a};
    size_t found = 0;
    int err = pg__json_walk(&found, f, &spec);

    if (!err && !found)
        err = pg_error_set(PG_EFORMAT, "%s: %s", name, missing);
    return err;
}

int pg_import_stream(pg_run *run, const char *format, FILE *f, const char *name, const pg_import_options *opts,
                     pg_import_notes *notes)
{
    pg_import_options dflt = PG_IMPORT_OPTIONS_INIT;
    const char *suite;
    size_t before = run->nresults;
    int err;

    if (!opts)
        opts = &dflt;
    if (strcmp(format, "google-benchmark") != 0 && strcmp(format, "hyperfine") != 0 &&
        strcmp(format, "pytest-benchmark") != 0)
        return pg_error_set(PG_EINVAL, "unknown import format '%s'; known: google-benchmark, hyperfine, "
                                       "pytest-benchmark", format);
    suite = opts->suite && *opts->suite ? opts->suite : format;
    if (strcmp(format, "google-benchmark") == 0)
        err = pg__import_gbench(run, f, name, suite, notes);
    else if (strcmp(format, "hyperfine") == 0)
        err = pg__import_hyperfine(run, f, name, suite, notes);
    else
        err = pg__import_pytest(run, f, name, suite, notes);
    if (!err && run->nresults == before)
        err = pg_error_set(PG_EFORMAT, "%s: no benchmark results found in this %s file", name, format);
    if (!err)
        err = check_unique(run, before, name);
    if (err) {
        /* Nothing half-read stays in the run. */
        drop_results(run, before);
        return err;
    }
    free(run->source);
    run->source = pg__strdup(format);
    if (!run->suite_set)
        run->suite_set = pg__strdup(suite);
    return 0;
}

int pg_import_file(pg_run *run, const char *format, const char *path, const pg_import_options *opts,
                   pg_import_notes *notes)
{
    FILE *f;
    int err;

    if (!pg_import_format_known(format))
        return pg_import_stream(run, format, NULL, path, opts, notes);
    if ((err = pg__open_input(&f, NULL, path, "result", PG_IMPORT_MAX_BYTES)) != 0)
        return err;
    err = pg_import_stream(run, format, f, path, opts, notes);
    fclose(f);
    return err;
}
