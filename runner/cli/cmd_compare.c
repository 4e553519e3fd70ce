/* cmd_compare.c - `perfgate compare`: verdicts between stored runs. */
#include "cli.h"

#include "gate/gate.h"
#include "perfgate/errors.h"
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* The comparison alone, one object per case (field names as in the full JSON report). */
static json_t *comparison_json(const pg_comparison *cmp, int64_t head_id, const pg_selection *sel)
{
    json_t *root = json_object(), *cases = json_array(), *counts = json_object(), *base_ids = json_array();
    size_t i;

    for (i = 0; i < sel->count; i++)
        json_array_append_new(base_ids, json_integer(sel->ids[i]));
    json_object_set_new(root, "head_run", json_integer(head_id));
    json_object_set_new(root, "base_runs", base_ids);
    json_object_set_new(root, "method", json_string(cmp->method ? cmp->method : ""));
    for (i = 0; i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        json_t *o = json_object();
        json_object_set_new(o, "key", json_string(v->key));
        json_object_set_new(o, "verdict", json_string(pg_verdict_name(v->verdict)));
        json_object_set_new(o, "reason", v->reason ? json_string(v->reason) : json_null());
        json_object_set_new(o, "base_n", json_integer((json_int_t)v->est.base_n));
        json_object_set_new(o, "head_n", json_integer((json_int_t)v->est.head_n));
        json_object_set_new(o, "base_median", v->est.base_median > 0 ? json_real(v->est.base_median) : json_null());
        json_object_set_new(o, "head_median", v->est.head_median > 0 ? json_real(v->est.head_median) : json_null());
        json_object_set_new(o, "ratio", num_or_null(v->est.ratio));
        json_object_set_new(o, "ci_lo", num_or_null(v->est.ci_lo));
        json_object_set_new(o, "ci_hi", num_or_null(v->est.ci_hi));
        json_object_set_new(o, "p", num_or_null(v->est.p));
        json_object_set_new(o, "p_adj", num_or_null(v->est.p_adj));
        json_object_set_new(o, "threshold", num_or_null(v->threshold));
        json_object_set_new(o, "alpha", num_or_null(v->alpha));
        json_object_set_new(o, "resolution", num_or_null(v->est.resolution));
        json_object_set_new(o, "base_runs", json_integer((json_int_t)v->est.base_runs));
        json_object_set_new(o, "drift", num_or_null(v->est.base_runs ? v->drift.sd : NAN));
        json_array_append_new(cases, o);
    }
    json_object_set_new(root, "cases", cases);
    for (i = 0; i < PG_VERDICT__COUNT; i++)
        json_object_set_new(counts, pg_verdict_name((pg_verdict)i), json_integer((json_int_t)cmp->counts[i]));
    json_object_set_new(root, "counts", counts);
    json_object_set_new(root, "checks_total", json_integer((json_int_t)cmp->checks_total));
    json_object_set_new(root, "checks_failed", json_integer((json_int_t)cmp->checks_failed));
    json_object_set_new(root, "exit_code", json_integer(pg_outcome_exit_code(cmp)));
    json_object_set_new(root, "outcome", json_string(pg_outcome_name(cmp->outcome)));
    json_object_set_new(root, "outcome_reason", cmp->outcome_reason ? json_string(cmp->outcome_reason) : json_null());
    return root;
}

/*
 * The JSON text in 64 KiB writes: json_dumpf puts every token through its
 * own locked fwrite, a tenth of a large comparison's time.
 */
typedef struct json_chunks {
    char buf[65536];
    size_t n;
} json_chunks;

static int take_chunk(const char *text, size_t size, void *data)
{
    json_chunks *out = data;

    if (out->n + size > sizeof(out->buf)) {
        fwrite(out->buf, 1, out->n, stdout);
        out->n = 0;
    }
    if (size > sizeof(out->buf))
        return fwrite(text, 1, size, stdout) == size ? 0 : -1;
    memcpy(out->buf + out->n, text, size);
    out->n += size;
    return 0;
}

int pg_cmd_compare(int argc, char **argv)
{
    const char *db = NULL, *base_sel = NULL, *head_sel = NULL, *format = "table";
    double threshold = -1, alpha = -1, drift = -1;
    int allow_other = 0, fail_new = 0, fail_missing = 0, json;
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
        "Exit code 1 when a case REGRESSED or an exact check of the head run failed, 4 when\n"
        "nothing was compared (no baseline on this machine, or no case decided).\n\n"
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
    if ((err = pg_store_open(&store, pg_store_path(db))) != 0 ||
        (err = pg_compare_stored(&sc, store, head_sel, base_sel, &so, &co)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if (json) {
        json_t *doc = comparison_json(sc.cmp, sc.head->id, &sc.selection);
        json_chunks out;
        out.n = 0;
        json_dump_callback(doc, take_chunk, &out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fwrite(out.buf, 1, out.n, stdout);
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        if (sc.nbases == 0)
            printf("run %lld has no baseline: every case is NEW\n\n", (long long)sc.head->id);
        else
            printf("head: run %lld (%s @ %.12s)\nbase: %s\n\n", (long long)sc.head->id,
                   sc.head->branch ? sc.head->branch : "?", sc.head->commit ? sc.head->commit : "no commit",
                   sc.selection.described ? sc.selection.described : "stored run");
        pg_report_compare_terminal(stdout, sc.cmp, &style);
        pg_report_outcome_terminal(stdout, sc.cmp);
    }
    rc = pg_outcome_exit_code(sc.cmp);

cleanup:
    pg_stored_comparison_free(&sc);
    pg_store_close(store);
    return rc;
}
