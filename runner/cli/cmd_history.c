/* cmd_history.c - `perfgate history`: medians over commits with change points. */
#include "cli.h"

#include "fmt.h"
#include "history.h"
#include "perfgate/errors.h"
#include "report/html.h"
#include "report/report.h"
#include "store/store.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_text(const pg_history *hs, size_t nh)
{
    size_t i, k;

    for (i = 0; i < nh; i++) {
        const pg_history *h = &hs[i];
        printf("%s  (%zu commits)\n", h->key, h->npoints);
        printf("  %-4s  %-12s  %10s  %8s  %4s\n", "#", "commit", "median", "IQR", "runs");
        for (k = 0; k < h->npoints; k++) {
            const pg_history_point *p = &h->points[k];
            char med[32];
            size_t c;
            int step = 0;
            pg_fmt_duration(med, sizeof(med), p->median);
            for (c = 0; c < h->nchanges; c++)
                step |= h->changes[c].index == k;
            printf("  %-4zu  %-12.12s  %10s  %7.1f%%  %4zu%s\n", k, p->commit ? p->commit : "-", med,
                   p->median > 0 ? 100 * (p->q3 - p->q1) / p->median : 0, p->runs, step ? "  <- step" : "");
        }
        if (h->nchanges == 0)
            printf("  no change points\n");
        for (k = 0; k < h->nchanges; k++) {
            const pg_change_point *c = &h->changes[k];
            char before[32], after[32], change[32];
            pg_fmt_duration(before, sizeof(before), c->before);
            pg_fmt_duration(after, sizeof(after), c->after);
            pg_fmt_change(change, sizeof(change), c->ratio);
            printf("  change point at #%zu, commit %.12s: %s (%s -> %s), p = %.2g\n", c->index,
                   h->points[c->index].commit ? h->points[c->index].commit : "-", change, before, after, c->p);
        }
        printf("\n");
    }
}

/*
 * The JSON document, written as it goes: a year of nightlies of a thousand
 * cases is a hundred megabytes of text, which a tree of JSON values would
 * hold three times over before writing a byte. The text is the one jansson
 * writes for the same values (JSON_INDENT(2), JSON_REAL_PRECISION(10)):
 * strings escaped as it does, reals as pg_fmt_json_real(), and a non-finite
 * real left out, as json_real() refuses one. Each case is put together in
 * a buffer and written at once.
 */
/* The text of one case, and the first error met putting it together. */
typedef struct jw {
    pg_buf b;
    int err;
} jw;

static void jput(jw *w, const char *s, size_t n)
{
    if (!w->err)
        w->err = pg__buf_put(&w->b, s, n);
}

static void jputs(jw *w, const char *s)
{
    jput(w, s, strlen(s));
}

static void json_next(jw *b, int depth, int *first, const char *name)
{
    static const char spaces[] = "                    ";

    if (!*first)
        jput(b, ",", 1);
    *first = 0;
    jput(b, "\n", 1);
    jput(b, spaces, (size_t)(2 * depth));
    if (name) {
        jput(b, "\"", 1);
        jputs(b, name);
        jput(b, "\": ", 3);
    }
}

static void json_close(jw *b, int depth, int first, const char *c)
{
    static const char spaces[] = "                    ";

    if (!first) {
        jput(b, "\n", 1);
        jput(b, spaces, (size_t)(2 * depth));
    }
    jputs(b, c);
}

static void json_str(jw *b, const char *s)
{
    const char *run;
    char esc[8];

    if (!s) {
        jput(b, "null", 4);
        return;
    }
    jput(b, "\"", 1);
    for (run = s; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
                      : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
        if (!e && c >= 0x20)
            continue;
        jput(b, run, (size_t)(s - run));
        if (!e) {
            snprintf(esc, sizeof(esc), "\\u%04X", c);
            e = esc;
        }
        jputs(b, e);
        run = s + 1;
    }
    jput(b, run, (size_t)(s - run));
    jput(b, "\"", 1);
}

/* Room for `n` more bytes, written at w->b.ptr + w->b.len by the caller; NULL after an error. */
static char *json_room(jw *w, size_t n)
{
    if (!w->err)
        w->err = pg__buf_grow(&w->b, n);
    return w->err ? NULL : w->b.ptr + w->b.len;
}

static char *put_int(char *o, int64_t v)
{
    char digits[24], *p = digits + sizeof(digits);
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    memcpy(o, p, (size_t)(digits + sizeof(digits) - p));
    return o + (digits + sizeof(digits) - p);
}

static char *put_lit(char *o, const char *s, size_t n)
{
    memcpy(o, s, n);
    return o + n;
}

#define PUT(o, lit) put_lit((o), (lit), sizeof(lit) - 1)
#define POINT_FIELD(name) ",\n          \"" name "\": "

static void json_int(jw *b, int depth, int *first, const char *name, int64_t v)
{
    char *o;

    json_next(b, depth, first, name);
    if ((o = json_room(b, 24)) != NULL)
        b->b.len += (size_t)(put_int(o, v) - o);
}

static void json_real(jw *b, int depth, int *first, const char *name, double v)
{
    char text[48];
    size_t n;

    if (!isfinite(v))
        return;
    n = pg_fmt_json_real(text, v, 10);
    json_next(b, depth, first, name);
    jput(b, text, n);
}

/* One point: the hot loop of a long history, so written field by field into reserved room. */
static void json_point(jw *b, size_t k, const pg_history_point *p)
{
    char *o;

    if (!isfinite(p->median) || !isfinite(p->q1) || !isfinite(p->q3)) {
        int first = 1;
        jput(b, "{", 1);
        json_int(b, 5, &first, "index", (int64_t)k);
        json_int(b, 5, &first, "run_id", p->run_id);
        json_next(b, 5, &first, "commit");
        json_str(b, p->commit);
        json_next(b, 5, &first, "branch");
        json_str(b, p->branch);
        json_int(b, 5, &first, "started_at", p->started_at);
        json_real(b, 5, &first, "median_s", p->median);
        json_real(b, 5, &first, "q1_s", p->q1);
        json_real(b, 5, &first, "q3_s", p->q3);
        json_int(b, 5, &first, "runs", (int64_t)p->runs);
        json_close(b, 4, first, "}");
        return;
    }
    if (!(o = json_room(b, 512)))
        return;
    o = PUT(o, "{\n          \"index\": ");
    o = put_int(o, (int64_t)k);
    o = PUT(o, POINT_FIELD("run_id"));
    o = put_int(o, p->run_id);
    o = PUT(o, POINT_FIELD("commit"));
    b->b.len += (size_t)(o - (b->b.ptr + b->b.len));
    json_str(b, p->commit);
    jputs(b, POINT_FIELD("branch"));
    json_str(b, p->branch);
    if (!(o = json_room(b, 512)))
        return;
    o = PUT(o, POINT_FIELD("started_at"));
    o = put_int(o, p->started_at);
    o = PUT(o, POINT_FIELD("median_s"));
    o += pg_fmt_json_real(o, p->median, 10);
    o = PUT(o, POINT_FIELD("q1_s"));
    o += pg_fmt_json_real(o, p->q1, 10);
    o = PUT(o, POINT_FIELD("q3_s"));
    o += pg_fmt_json_real(o, p->q3, 10);
    o = PUT(o, POINT_FIELD("runs"));
    o = put_int(o, (int64_t)p->runs);
    o = PUT(o, "\n        }");
    b->b.len += (size_t)(o - (b->b.ptr + b->b.len));
    b->b.ptr[b->b.len] = '\0';
}

static void json_change(jw *b, const pg_history *h, const pg_change_point *cp)
{
    int first = 1;

    jput(b, "{", 1);
    json_int(b, 5, &first, "index", (int64_t)cp->index);
    json_next(b, 5, &first, "commit");
    json_str(b, h->points[cp->index].commit);
    json_real(b, 5, &first, "before_s", cp->before);
    json_real(b, 5, &first, "after_s", cp->after);
    json_real(b, 5, &first, "change", cp->ratio - 1);
    json_real(b, 5, &first, "p", cp->p);
    json_close(b, 4, first, "}");
}

static int print_json(const pg_history *hs, size_t nh)
{
    jw b = {PG_BUF_INIT, 0};
    int first_case = 1, err = 0;
    size_t i, k;

    jputs(&b, "{\n  \"schema_version\": 1,\n  \"cases\": [");
    for (i = 0; i < nh && !err; i++) {
        const pg_history *h = &hs[i];
        int first = 1, first_item = 1;
        json_next(&b, 2, &first_case, NULL);
        jput(&b, "{", 1);
        json_next(&b, 3, &first, "key");
        json_str(&b, h->key);
        json_next(&b, 3, &first, "points");
        jput(&b, "[", 1);
        for (k = 0; k < h->npoints; k++) {
            json_next(&b, 4, &first_item, NULL);
            json_point(&b, k, &h->points[k]);
        }
        json_close(&b, 3, first_item, "]");
        json_next(&b, 3, &first, "change_points");
        jput(&b, "[", 1);
        first_item = 1;
        for (k = 0; k < h->nchanges; k++) {
            json_next(&b, 4, &first_item, NULL);
            json_change(&b, h, &h->changes[k]);
        }
        json_close(&b, 3, first_item, "]");
        json_close(&b, 2, first, "}");
        if (i + 1 == nh)
            json_close(&b, 1, first_case, "]\n}\n");
        /* A buffer that failed to grow has lost text: stop rather than write a broken document. */
        if ((err = b.err) == 0 && fwrite(b.b.ptr, 1, b.b.len, stdout) != b.b.len)
            err = pg_error_set(PG_EIO, "writing JSON to standard output failed");
        b.b.len = 0;
    }
    pg__buf_free(&b.b);
    if (!err && fflush(stdout) != 0)
        err = pg_error_set(PG_EIO, "writing JSON to standard output failed");
    return err ? pg_cli_fail(err) : 0;
}

int pg_cmd_history(int argc, char **argv)
{
    const char *db = NULL, *branch = NULL, *format = NULL, *html = NULL;
    long last = 100;
    double penalty = 3.0, min_effect = 0.02;
    pg_history_options ho = PG_HISTORY_OPTIONS_INIT;
    pg_store *store = NULL;
    pg_history *hs = NULL;
    size_t nh = 0;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"db", 0, PG_OPT_STR, &db, "PATH",
         "database file or postgresql:// URL (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"branch", 0, PG_OPT_STR, &branch, "NAME", "only runs of this branch (default: all)"},
        {"last", 'n', PG_OPT_INT, &last, "N", "the newest N commits per case (default 100; 0 = all)"},
        {"format", 0, PG_OPT_STR, &format, "FMT", "text (default) or json"},
        {"html", 0, PG_OPT_STR, &html, "FILE", "also write a self-contained HTML page with trend plots"},
        {"penalty", 0, PG_OPT_DOUBLE, &penalty, "X", "step-fit penalty in noise units x ln(n) (default 3)"},
        {"min-effect", 0, PG_OPT_DOUBLE, &min_effect, "PCT", "smallest step reported (default 2%)"},
        {0},
    };
    const pg_cmd_spec spec = {
        "history", "[options] [CASE-GLOB]", "Show cases' medians over commits and the commits where they stepped.",
        "Each point is one commit (re-runs of a commit are pooled by their median).\n"
        "Change points: an exact penalised L1 step fit on log medians, each step kept\n"
        "only if a one-sided Mann-Whitney test between its neighbouring segments gives\n"
        "p < 0.001 and it is at least --min-effect. See docs/history.md.\n\n"
        "examples:\n"
        "  perfgate history 'cpu/sgemm*' --branch main\n"
        "  perfgate history --format json > history.json",
        opts, 0, 1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "perfgate history: unknown format '%s' (text or json)\n", format);
        return 2;
    }
    if (last < 0 || penalty <= 0 || min_effect < 0) {
        fprintf(stderr, "perfgate history: --last, --penalty and --min-effect must be positive\n");
        return 2;
    }
    ho.penalty = penalty;
    ho.min_effect = min_effect;
    if ((err = pg_store_open(&store, pg_store_path(db))) != 0 ||
        (err = pg_history_load(&hs, &nh, store, nargs ? argv[1] : NULL, branch, (size_t)last, &ho)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if (nh == 0) {
        fprintf(stderr, "perfgate history: no stored results match %s\n", nargs ? argv[1] : "any case");
        rc = 2;
        goto cleanup;
    }
    if (html) {
        FILE *f = fopen(html, "w");
        if (!f) {
            rc = pg_cli_fail(pg_error_set(PG_EIO, "%s: cannot write: %s", html, strerror(errno)));
            goto cleanup;
        }
        err = pg_report_html(f, "perfgate history", hs, nh, NULL);
        if (fclose(f) != 0 && !err)
            err = pg_error_set(PG_EIO, "%s: write failed", html);
        if (err) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
    }
    rc = format && strcmp(format, "json") == 0 ? print_json(hs, nh) : (print_text(hs, nh), 0);

cleanup:
    pg_history_free_all(hs, nh);
    pg_store_close(store);
    return rc;
}
