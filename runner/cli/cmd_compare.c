/* cmd_compare.c - `perfgate compare`: verdicts between stored runs. */
#include "cli/cli.h"

#include "gate/gate.h"
#include "cli/json_text.h"
#include "perfgate/errors.h"
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A real member, null when not a finite number. */
static void num_or_null(pg_jt *w, int *first, const char *name, double v)
{
    if (isfinite(v))
        pg_jt_real(w, 3, first, name, v);
    else
        pg_jt_null(w, 3, first, name);
}

/*
 * The comparison alone, one object per case (field names as in the full
 * JSON report), written as it is put together (json_text.h), in writes of
 * about 64 KiB.
 */
static int print_comparison_json(const pg_comparison *cmp, int64_t head_id, const pg_selection *sel,
                                 const pg_decision *stored, int differs)
{
    pg_jt w = PG_JT_INIT;
    int first = 1, first_item = 1, err = 0;
    size_t i;

    pg_jt_put(&w, "{", 1);
    pg_jt_int(&w, 1, &first, "head_run", head_id);
    pg_jt_next(&w, 1, &first, "base_runs");
    pg_jt_put(&w, "[", 1);
    for (i = 0; i < sel->count; i++)
        pg_jt_int(&w, 2, &first_item, NULL, sel->ids[i]);
    pg_jt_close(&w, 1, first_item, "]");
    pg_jt_string(&w, 1, &first, "method", cmp->method ? cmp->method : "");
    pg_jt_next(&w, 1, &first, "cases");
    pg_jt_put(&w, "[", 1);
    first_item = 1;
    for (i = 0; i < cmp->ncases && !err; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        int f = 1;
        pg_jt_next(&w, 2, &first_item, NULL);
        pg_jt_put(&w, "{", 1);
        pg_jt_string(&w, 3, &f, "key", v->key);
        pg_jt_string(&w, 3, &f, "verdict", pg_verdict_name(v->verdict));
        pg_jt_string(&w, 3, &f, "reason", v->reason);
        pg_jt_int(&w, 3, &f, "base_n", (int64_t)v->est.base_n);
        pg_jt_int(&w, 3, &f, "head_n", (int64_t)v->est.head_n);
        if (v->est.base_median > 0)
            pg_jt_real(&w, 3, &f, "base_median", v->est.base_median);
        else
            pg_jt_null(&w, 3, &f, "base_median");
        if (v->est.head_median > 0)
            pg_jt_real(&w, 3, &f, "head_median", v->est.head_median);
        else
            pg_jt_null(&w, 3, &f, "head_median");
        num_or_null(&w, &f, "ratio", v->est.ratio);
        num_or_null(&w, &f, "ci_lo", v->est.ci_lo);
        num_or_null(&w, &f, "ci_hi", v->est.ci_hi);
        num_or_null(&w, &f, "p", v->est.p);
        num_or_null(&w, &f, "p_adj", v->est.p_adj);
        num_or_null(&w, &f, "threshold", v->threshold);
        num_or_null(&w, &f, "alpha", v->alpha);
        num_or_null(&w, &f, "resolution", v->est.resolution);
        pg_jt_int(&w, 3, &f, "base_runs", (int64_t)v->est.base_runs);
        num_or_null(&w, &f, "drift", v->est.base_runs ? v->drift.sd : NAN);
        pg_jt_close(&w, 2, f, "}");
        if (w.b.len >= 60000)
            err = pg_jt_flush(&w, stdout);
    }
    pg_jt_close(&w, 1, first_item, "]");
    pg_jt_next(&w, 1, &first, "counts");
    pg_jt_put(&w, "{", 1);
    first_item = 1;
    for (i = 0; i < PG_VERDICT__COUNT; i++)
        pg_jt_int(&w, 2, &first_item, pg_verdict_name((pg_verdict)i), (int64_t)cmp->counts[i]);
    pg_jt_close(&w, 1, first_item, "}");
    pg_jt_int(&w, 1, &first, "checks_total", (int64_t)cmp->checks_total);
    pg_jt_int(&w, 1, &first, "checks_failed", (int64_t)cmp->checks_failed);
    pg_jt_int(&w, 1, &first, "exit_code", pg_outcome_exit_code(cmp));
    pg_jt_string(&w, 1, &first, "outcome", pg_outcome_name(cmp->outcome));
    pg_jt_string(&w, 1, &first, "outcome_reason", cmp->outcome_reason);
    /* The gate's own decision of the head run, when it stored one: this comparison is made now, and may differ. */
    pg_jt_next(&w, 1, &first, "stored_decision");
    if (stored->outcome) {
        int f = 1;
        pg_jt_put(&w, "{", 1);
        pg_jt_string(&w, 2, &f, "outcome", stored->outcome);
        pg_jt_int(&w, 2, &f, "exit_code", stored->exit_code);
        pg_jt_next(&w, 2, &f, "differs");
        pg_jt_puts(&w, differs ? "true" : "false");
        pg_jt_close(&w, 1, f, "}");
    } else {
        pg_jt_puts(&w, "null");
    }
    pg_jt_close(&w, 0, first, "}\n");
    if (!err)
        err = pg_jt_flush(&w, stdout);
    pg_jt_clear(&w);
    return err;
}

/* The title of a comparison made now that says otherwise than the decision the gate stored for the run. */
static void print_differs(const pg_run *head, const pg_decision *d)
{
    size_t i, n = 0;

    for (i = 0; i < d->ncases; i++)
        n += strcmp(d->cases[i].verdict, "REGRESSED") == 0;
    printf("perfgate compare: a fresh comparison, which differs from the decision the gate stored for run %lld "
           "(%s", (long long)head->id, strcmp(d->outcome, "NOTHING_COMPARED") == 0 ? "nothing compared" : d->outcome);
    if (n)
        printf(", %zu regression%s", n, n == 1 ? "" : "s");
    printf("); 'perfgate report %lld' shows that decision\n\n", (long long)head->id);
}

/* Branch and commit come from the store, which merges other people's runs: plain text (base/text.h). */
static void print_head(const pg_run *head, const char *described)
{
    char *branch = pg__text_term_dup(head->branch ? head->branch : "?");
    char *commit = pg__text_term_dup(head->commit ? head->commit : "no commit");
    char *base = pg__text_term_dup(described ? described : "stored run");

    printf("head: run %lld (%s @ %.12s)\nbase: %s\n\n", (long long)head->id, branch ? branch : "?",
           commit ? commit : "?", base ? base : "?");
    free(branch);
    free(commit);
    free(base);
}

int pg_cmd_compare(int argc, char **argv)
{
    const char *db = NULL, *base_sel = NULL, *head_sel = NULL, *format = "table";
    double threshold = -1, alpha = -1, drift = -1;
    int allow_other = 0, fail_new = 0, fail_missing = 0, json, differs;
    pg_term_style style = pg_term_style_auto(stdout);
    pg_store *store = NULL;
    pg_stored_comparison sc;
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    pg_select_options so = PG_SELECT_OPTIONS_INIT;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"db", 0, PG_OPT_STR, &db, "PATH",
         "database file or postgresql:// URL (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"head", 0, PG_OPT_STR, &head_sel, "SEL", "the run to judge: id, latest, commit:SHA, branch:NAME (default latest)"},
        {"base", 'b', PG_OPT_STR, &base_sel, "SEL",
         "baseline: id, commit:SHA, branch:NAME, last:K[:BRANCH], pin:NAME (default: see below)"},
        {"threshold", 0, PG_OPT_DOUBLE, &threshold, "PCT", "minimum effect that can fail, overriding the suites (e.g. 5%)"},
        {"alpha", 0, PG_OPT_DOUBLE, &alpha, "P", "family-wise significance level, overriding the suites"},
        {"drift", 0, PG_OPT_DOUBLE, &drift, "PCT",
         "run-to-run spread of medians assumed before baseline runs measure it (default 2%)"},
        {"allow-other-machine", 0, PG_OPT_FLAG, &allow_other, NULL, "compare with runs from another machine fingerprint"},
        {"fail-on-new", 0, PG_OPT_FLAG, &fail_new, NULL, "exit 1 when a case has no baseline"},
        {"fail-on-missing", 0, PG_OPT_FLAG, &fail_missing, NULL, "exit 1 when a baseline case is missing from the head"},
        {"format", 0, PG_OPT_STR, &format, "FMT", "table (default) or json"},
        {0},
    };
    const pg_cmd_spec spec = {
        "compare", "[options]", "Compare a stored run with its baseline and print a verdict per case.",
        "Nothing is measured: both sides come from the database. Per case: the ratio of\n"
        "medians (head/base) with its interval, a one-sided Mann-Whitney p-value Holm-adjusted\n"
        "over the run's cases, and a verdict: REGRESSED (significant and surely beyond the\n"
        "threshold), IMPROVED, SAME (interval within the threshold) or UNSURE (with advice;\n"
        "never fails). Pool baseline runs (--base last:5) so run-to-run drift is measured.\n"
        "Default baseline: for a pull request its base commit, else the newest run on the\n"
        "default branch; for a nightly (schedule, workflow_dispatch) or outside CI the\n"
        "previous 5 runs of the head's branch, pooled; always on the head's machine.\n"
        "A comparison is made now, from the stored samples: when the gate stored a\n"
        "decision for the head run and this one says otherwise (its confirmation re-runs\n"
        "are not stored, nor are interleaved rounds a history baseline), the first line\n"
        "says so and 'perfgate report RUN' shows what the gate decided. Runs measured\n"
        "otherwise than the head (interleaved, counted) are left out of the baseline.\n"
        "Exit code 1 when a case REGRESSED or an exact check of the head run failed, 3 when\n"
        "a case ended in ERROR, 4 when nothing was compared (no baseline on this machine,\n"
        "or no case decided).\n\n"
        "examples:\n"
        "  perfgate compare --base last:5\n"
        "  perfgate compare --head 42 --base pin:release --format json",
        opts, 0, 0};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    json = strcmp(format, "json") == 0;
    if (!json && strcmp(format, "table") != 0) {
        fprintf(stderr, "perfgate compare: unknown format '%s' (use table or json)\n", format);
        return 2;
    }
    co.threshold = threshold;
    co.alpha = alpha;
    co.drift = drift;
    co.fail_on_new = fail_new;
    co.fail_on_missing = fail_missing;
    so.allow_other_machine = allow_other;
    memset(&sc, 0, sizeof(sc));
    if ((err = pg_store_open_read(&store, pg_store_path(db))) != 0 ||
        (err = pg_stored_compare_head(&sc, store, head_sel, base_sel, &so, &co)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    differs = pg_stored_decision_differs(&sc, store);
    if (json) {
        if ((err = print_comparison_json(sc.cmp, sc.head->id, &sc.selection, &sc.decision, differs)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
    } else {
        if (differs)
            print_differs(sc.head, &sc.decision);
        if (sc.nbases == 0)
            printf("run %lld has no baseline: every case is NEW\n\n", (long long)sc.head->id);
        else
            print_head(sc.head, sc.selection.described);
        pg_report_compare_terminal(stdout, sc.cmp, &style);
        pg_report_outcome_terminal(stdout, sc.cmp);
    }
    rc = pg_outcome_exit_code(sc.cmp);

cleanup:
    pg_stored_clear(&sc);
    pg_store_close(store);
    return rc;
}
