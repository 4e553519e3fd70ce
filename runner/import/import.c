/* import.c - reading another harness's JSON and turning its cases into results. */
#include "import/import.h"

#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Result files are read whole and parsed as one JSON tree, whose memory is
 * several times the text: the cap keeps a wrong file from exhausting it. */
#define PG_IMPORT_MAX_BYTES ((uint64_t)64 << 20)

const char *const pg_import_formats[] = {"google-benchmark", "hyperfine", "pytest-benchmark", NULL};

void pg_import_notes_free(pg_import_notes *notes)
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

/*
 * Google Benchmark (and Python's json) write bare NaN and Infinity, which
 * JSON does not allow; quote them outside strings so the parser takes them.
 */
static char *quote_bare_nonfinite(const char *in, size_t len)
{
    static const char *const words[] = {"-Infinity", "Infinity", "-NaN", "NaN"};
    pg_buf b = PG_BUF_INIT;
    size_t i = 0, w;
    int in_str = 0;

    while (i < len) {
        char ch = in[i];
        if (in_str) {
            if (ch == '\\' && i + 1 < len) {
                pg__buf_put(&b, in + i, 2);
                i += 2;
                continue;
            }
            if (ch == '"')
                in_str = 0;
            pg__buf_put(&b, in + i, 1);
            i++;
            continue;
        }
        if (ch == '"') {
            in_str = 1;
            pg__buf_put(&b, in + i, 1);
            i++;
            continue;
        }
        for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
            size_t wl = strlen(words[w]);
            if (i + wl <= len && memcmp(in + i, words[w], wl) == 0) {
                pg__buf_printf(&b, "\"%s\"", words[w]);
                i += wl;
                break;
            }
        }
        if (w == sizeof(words) / sizeof(words[0])) {
            pg__buf_put(&b, in + i, 1);
            i++;
        }
    }
    if (!b.ptr)
        pg__buf_puts(&b, "");
    return pg__buf_detach(&b);
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

int pg__import_add(pg_result **out, pg_run *run, const char *suite, const char *name, pg_import_param *params,
                   size_t nparams, int threads)
{
    pg_buf key = PG_BUF_INIT, pj = PG_BUF_INIT;
    pg_result *r;
    size_t i;
    int err;

    if ((err = pg_run_add_result(&r, run)) != 0)
        return err;
    if (nparams)
        qsort(params, nparams, sizeof(*params), param_cmp);
    /* The same layout as native case keys (suite.c), so imports gate the same way. */
    pg__buf_printf(&key, "%s/%s[", suite, name);
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
    pg__buf_printf(&key, "]@%d:cpu", threads > 0 ? threads : 1);
    pg__buf_puts(&pj, "}");
    r->key = pg__buf_detach(&key);
    r->params_json = pg__buf_detach(&pj);
    r->suite = pg__strdup(suite);
    r->name = pg__strdup(name);
    r->threads = threads > 0 ? threads : 1;
    r->device = pg__strdup("cpu");
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->status = PG_STATUS_OK;
    pg__buf_free(&key);
    pg__buf_free(&pj);
    if (!r->key || !r->params_json || !r->suite || !r->name || !r->device || !r->metric || !r->unit)
        return pg_error_set(PG_ENOMEM, "out of memory importing '%s'", name);
    *out = r;
    return 0;
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

int pg_import_file(pg_run *run, const char *format, const char *path, const pg_import_options *opts,
                   pg_import_notes *notes)
{
    pg_import_options dflt = PG_IMPORT_OPTIONS_INIT;
    char *text = NULL, *fixed = NULL;
    size_t len = 0;
    json_error_t jerr;
    json_t *root = NULL;
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
    if ((err = pg__read_input(&text, &len, path, "result", PG_IMPORT_MAX_BYTES)) != 0)
        return err;
    fixed = quote_bare_nonfinite(text, len);
    if (!fixed) {
        err = pg_error_set(PG_ENOMEM, "out of memory reading %s", path);
        goto cleanup;
    }
    root = json_loads(fixed, 0, &jerr);
    if (!root) {
        err = pg_error_set(PG_EFORMAT, "%s:%d:%d: not valid JSON: %s", path, jerr.line, jerr.column, jerr.text);
        goto cleanup;
    }
    if (!json_is_object(root)) {
        err = pg_error_set(PG_EFORMAT, "%s: expected a JSON object at the top, as %s writes", path, format);
        goto cleanup;
    }
    if (strcmp(format, "google-benchmark") == 0)
        err = pg__import_gbench(run, root, path, suite, notes);
    else if (strcmp(format, "hyperfine") == 0)
        err = pg__import_hyperfine(run, root, path, suite, notes);
    else
        err = pg__import_pytest(run, root, path, suite, notes);
    if (err)
        goto cleanup;
    if (run->nresults == before) {
        err = pg_error_set(PG_EFORMAT, "%s: no benchmark results found in this %s file", path, format);
        goto cleanup;
    }
    free(run->source);
    run->source = pg__strdup(format);
    if (!run->suite_set)
        run->suite_set = pg__strdup(suite);
cleanup:
    json_decref(root);
    free(fixed);
    free(text);
    return err;
}
