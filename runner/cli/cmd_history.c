/* cmd_history.c - `perfgate history`: medians over commits with change points. */
#include "cli.h"

#include "history.h"
#include "perfgate/errors.h"
#include "report/html.h"
#include "report/report.h"
#include "store/store.h"

#include <errno.h>
#include <jansson.h>
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

static int print_json(const pg_history *hs, size_t nh)
{
    json_t *root = json_object(), *cases = json_array();
    size_t i, k;
    char *text;

    json_object_set_new(root, "schema_version", json_integer(1));
    for (i = 0; i < nh; i++) {
        const pg_history *h = &hs[i];
        json_t *c = json_object(), *pts = json_array(), *chg = json_array();
        json_object_set_new(c, "key", json_string(h->key));
        for (k = 0; k < h->npoints; k++) {
            const pg_history_point *p = &h->points[k];
            json_t *o = json_object();
            json_object_set_new(o, "index", json_integer((json_int_t)k));
            json_object_set_new(o, "run_id", json_integer(p->run_id));
            json_object_set_new(o, "commit", p->commit ? json_string(p->commit) : json_null());
            json_object_set_new(o, "branch", p->branch ? json_string(p->branch) : json_null());
            json_object_set_new(o, "started_at", json_integer(p->started_at));
            json_object_set_new(o, "median_s", json_real(p->median));
            json_object_set_new(o, "q1_s", json_real(p->q1));
            json_object_set_new(o, "q3_s", json_real(p->q3));
            json_object_set_new(o, "runs", json_integer((json_int_t)p->runs));
            json_array_append_new(pts, o);
        }
        for (k = 0; k < h->nchanges; k++) {
            const pg_change_point *cp = &h->changes[k];
            json_t *o = json_object();
            json_object_set_new(o, "index", json_integer((json_int_t)cp->index));
            json_object_set_new(o, "commit", h->points[cp->index].commit ? json_string(h->points[cp->index].commit)
                                                                         : json_null());
            json_object_set_new(o, "before_s", json_real(cp->before));
            json_object_set_new(o, "after_s", json_real(cp->after));
            json_object_set_new(o, "change", json_real(cp->ratio - 1));
            json_object_set_new(o, "p", json_real(cp->p));
            json_array_append_new(chg, o);
        }
        json_object_set_new(c, "points", pts);
        json_object_set_new(c, "change_points", chg);
        json_array_append_new(cases, c);
    }
    json_object_set_new(root, "cases", cases);
    text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (!text)
        return pg_cli_fail(pg_error_set(PG_ENOMEM, "out of memory writing JSON"));
    printf("%s\n", text);
    free(text);
    return 0;
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
