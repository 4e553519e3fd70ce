/* cmd_history.c - `perfgate history`: medians over commits with change points. */
#include "cli/cli.h"

#include "base/fmt.h"
#include "history/history.h"
#include "cli/json_text.h"
#include "perfgate/errors.h"
#include "report/html.h"
#include "report/report.h"
#include "store/store.h"
#include "base/outfile.h"
#include "base/text.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_text(const pg_history *hs, size_t nh)
{
    size_t i, k;

    for (i = 0; i < nh; i++) {
        const pg_history *h = &hs[i];
        char *key = pg__text_term_dup(h->key);
        printf("%s  (%zu commits)\n", key ? key : "?", h->npoints);
        free(key);
        printf("  %-4s  %-12s  %10s  %8s  %4s  %s\n", "#", "commit", "median", "IQR", "runs", "gate");
        for (k = 0; k < h->npoints; k++) {
            const pg_history_point *p = &h->points[k];
            char med[32];
            size_t c;
            int step = 0;
            pg_fmt_duration(med, sizeof(med), p->median);
            for (c = 0; c < h->nchanges; c++)
                step |= h->changes[c].index == k;
            /* A commit is whatever a run was told (--commit, an import): shown as plain text (base/text.h). */
            char *commit = pg__text_term_dup(p->commit ? p->commit : "-");
            printf("  %-4zu  %-12.12s  %10s  %7.1f%%  %4zu  %s%s\n", k, commit ? commit : "?", med,
                   p->median > 0 ? 100 * (p->q3 - p->q1) / p->median : 0, p->runs, p->verdict ? p->verdict : "-",
                   step ? "  <- step" : "");
            free(commit);
        }
        if (h->nchanges == 0)
            printf("  no change points\n");
        for (k = 0; k < h->nchanges; k++) {
            const pg_change_point *c = &h->changes[k];
            char before[32], after[32], change[32];
            pg_fmt_duration(before, sizeof(before), c->before);
            pg_fmt_duration(after, sizeof(after), c->after);
            pg_fmt_change(change, sizeof(change), c->ratio);
            char *commit = pg__text_term_dup(h->points[c->index].commit ? h->points[c->index].commit : "-");
            printf("  change point at #%zu, commit %.12s: %s (%s -> %s), p = %.2g\n", c->index, commit ? commit : "?",
                   change, before, after, c->p);
            free(commit);
        }
        printf("\n");
    }
}

/*
 * The JSON document, written as it goes (json_text.h): a year of nightlies
 * of a thousand cases is a hundred megabytes of text. Each case is put
 * together in a buffer and written at once.
 */
static char *put_lit(char *o, const char *s, size_t n)
{
    memcpy(o, s, n);
    return o + n;
}

#define PUT(o, lit) put_lit((o), (lit), sizeof(lit) - 1)

/*
 * The JSON text of the commits and branches, kept by address: the loader
 * shares one copy of a run's strings between all its points, so a thousand
 * cases' points repeat a few hundred strings, escaped once each here.
 */
#define MEMO_SLOTS 4096

typedef struct str_memo {
    const char *src;
    char *text;
    size_t len;
} str_memo;

static void json_str_memo(pg_jt *b, str_memo *memo, const char *s)
{
    str_memo *m;
    pg_jt t = PG_JT_INIT;

    if (!s) {
        pg_jt_put(b, "null", 4);
        return;
    }
    m = &memo[((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ull >> 52];
    if (m->src != s) {
        pg_jt_str(&t, s);
        if (t.err) {
            pg_jt_clear(&t);
            pg_jt_str(b, s);
            return;
        }
        free(m->text);
        m->text = t.b.ptr;
        m->len = t.b.len;
        m->src = s;
    }
    pg_jt_put(b, m->text, m->len);
}
#define POINT_FIELD(name) ",\n          \"" name "\": "

/* One point: the hot loop of a long history, so written field by field into reserved room. */
static void json_point(pg_jt *b, str_memo *memo, size_t k, const pg_history_point *p)
{
    char *o;

    if (!isfinite(p->median) || !isfinite(p->q1) || !isfinite(p->q3)) {
        int first = 1;
        pg_jt_put(b, "{", 1);
        pg_jt_int(b, 5, &first, "index", (int64_t)k);
        pg_jt_int(b, 5, &first, "run_id", p->run_id);
        pg_jt_next(b, 5, &first, "commit");
        pg_jt_str(b, p->commit);
        pg_jt_next(b, 5, &first, "branch");
        pg_jt_str(b, p->branch);
        pg_jt_int(b, 5, &first, "started_at", p->started_at);
        pg_jt_real(b, 5, &first, "median_s", p->median);
        pg_jt_real(b, 5, &first, "q1_s", p->q1);
        pg_jt_real(b, 5, &first, "q3_s", p->q3);
        pg_jt_int(b, 5, &first, "runs", (int64_t)p->runs);
        pg_jt_next(b, 5, &first, "verdict");
        pg_jt_str(b, p->verdict);
        pg_jt_close(b, 4, first, "}");
        return;
    }
    if (!(o = pg_jt_room(b, 512)))
        return;
    o = PUT(o, "{\n          \"index\": ");
    o = pg_jt_int_text(o, (int64_t)k);
    o = PUT(o, POINT_FIELD("run_id"));
    o = pg_jt_int_text(o, p->run_id);
    o = PUT(o, POINT_FIELD("commit"));
    b->b.len += (size_t)(o - (b->b.ptr + b->b.len));
    json_str_memo(b, memo, p->commit);
    pg_jt_puts(b, POINT_FIELD("branch"));
    json_str_memo(b, memo, p->branch);
    if (!(o = pg_jt_room(b, 512)))
        return;
    o = PUT(o, POINT_FIELD("started_at"));
    o = pg_jt_int_text(o, p->started_at);
    o = PUT(o, POINT_FIELD("median_s"));
    o += pg_fmt_json_real(o, p->median, 10);
    o = PUT(o, POINT_FIELD("q1_s"));
    o += pg_fmt_json_real(o, p->q1, 10);
    o = PUT(o, POINT_FIELD("q3_s"));
    o += pg_fmt_json_real(o, p->q3, 10);
    o = PUT(o, POINT_FIELD("runs"));
    o = pg_jt_int_text(o, (int64_t)p->runs);
    o = PUT(o, POINT_FIELD("verdict"));
    b->b.len += (size_t)(o - (b->b.ptr + b->b.len));
    json_str_memo(b, memo, p->verdict);
    pg_jt_puts(b, "\n        }");
}

static void json_change(pg_jt *b, const pg_history *h, const pg_change_point *cp)
{
    int first = 1;

    pg_jt_put(b, "{", 1);
    pg_jt_int(b, 5, &first, "index", (int64_t)cp->index);
    pg_jt_next(b, 5, &first, "commit");
    pg_jt_str(b, h->points[cp->index].commit);
    pg_jt_real(b, 5, &first, "before_s", cp->before);
    pg_jt_real(b, 5, &first, "after_s", cp->after);
    pg_jt_real(b, 5, &first, "change", cp->ratio - 1);
    pg_jt_real(b, 5, &first, "p", cp->p);
    pg_jt_close(b, 4, first, "}");
}

static int print_json(const pg_history *hs, size_t nh)
{
    pg_jt b = PG_JT_INIT;
    int first_case = 1, err = 0;
    size_t i, k;
    str_memo *memo = calloc(MEMO_SLOTS, sizeof(*memo));

    if (!memo)
        return pg_cli_fail(pg_error_set(PG_ENOMEM, "out of memory writing JSON"));
    pg_jt_puts(&b, "{\n  \"schema_version\": 1,\n  \"cases\": [");
    for (i = 0; i < nh && !err; i++) {
        const pg_history *h = &hs[i];
        int first = 1, first_item = 1;
        pg_jt_next(&b, 2, &first_case, NULL);
        pg_jt_put(&b, "{", 1);
        pg_jt_next(&b, 3, &first, "key");
        pg_jt_str(&b, h->key);
        pg_jt_next(&b, 3, &first, "points");
        pg_jt_put(&b, "[", 1);
        for (k = 0; k < h->npoints; k++) {
            pg_jt_next(&b, 4, &first_item, NULL);
            json_point(&b, memo, k, &h->points[k]);
        }
        pg_jt_close(&b, 3, first_item, "]");
        pg_jt_next(&b, 3, &first, "change_points");
        pg_jt_put(&b, "[", 1);
        first_item = 1;
        for (k = 0; k < h->nchanges; k++) {
            pg_jt_next(&b, 4, &first_item, NULL);
            json_change(&b, h, &h->changes[k]);
        }
        pg_jt_close(&b, 3, first_item, "]");
        pg_jt_close(&b, 2, first, "}");
        if (i + 1 == nh)
            pg_jt_close(&b, 1, first_case, "]\n}\n");
        /* A buffer that failed to grow has lost text: stop rather than write a broken document. */
        err = pg_jt_flush(&b, stdout);
    }
    pg_jt_clear(&b);
    for (i = 0; i < MEMO_SLOTS; i++)
        free(memo[i].text);
    free(memo);
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
        "Each point is one commit (re-runs of a commit are pooled by their median);\n"
        "'gate' is the verdict the gate stored for the case at that commit (its newest\n"
        "decided run), '-' where no gate decided it. Runs of interleaved gates are left\n"
        "out: one sample per round is another measurement than a plain run's.\n"
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
    if ((err = pg_store_open_read(&store, pg_store_path(db))) != 0 ||
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
        pg_outfile out;
        /* Written beside its name and renamed over it only when whole (base/outfile.h). */
        if ((err = pg__outfile_open(&out, html, "HTML page")) == 0) {
            err = pg_report_html(out.f, "perfgate history", hs, nh, NULL);
            err = err ? (pg__outfile_abort(&out), err) : pg__outfile_commit(&out, "HTML page");
        }
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
