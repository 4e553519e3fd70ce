/* cmd_compare.c - `perfgate compare`: verdicts between stored runs. */
#include "cli.h"

#include "perfgate/errors.h"
#include "report/report.h"
#include "select.h"
#include "store.h"
#include "verdict.h"

#include <stdlib.h>

int pg_cmd_compare(int argc, char **argv)
{
    const char *db = NULL, *base_sel = NULL, *head_sel = NULL;
    double threshold = -1, alpha = -1;
    pg_term_style style = pg_term_style_auto(stdout);
    pg_store *store = NULL;
    pg_selection sel = {0};
    pg_run *head = NULL, **bases = NULL;
    pg_comparison *cmp = NULL;
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    size_t nb = 0, i;
    int64_t head_id;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"db", 0, PG_OPT_STR, &db, "PATH", "database file (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"head", 0, PG_OPT_STR, &head_sel, "SEL", "the run to judge: id, latest, commit:SHA, branch:NAME (default latest)"},
        {"base", 'b', PG_OPT_STR, &base_sel, "SEL",
         "baseline: id, commit:SHA, branch:NAME, last:K[:BRANCH] (default: previous run on the head's branch)"},
        {"threshold", 0, PG_OPT_DOUBLE, &threshold, "PCT", "minimum effect that can fail, overriding the suites (e.g. 5%)"},
        {"alpha", 0, PG_OPT_DOUBLE, &alpha, "P", "family-wise significance level, overriding the suites"},
        {0},
    };
    const pg_cmd_spec spec = {
        "compare", "[options]", "Compare a stored run with its baseline and print a verdict per case.",
        "Nothing is measured: both sides come from the database. Exit code 1 when a\n"
        "case REGRESSED or an exact check of the head run failed.",
        opts, 0, 0};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    co.threshold = threshold;
    co.alpha = alpha;
    if ((err = pg_store_open(&store, pg_store_path(db))) != 0 ||
        (err = pg_select_head(&head_id, store, head_sel)) != 0 ||
        (err = pg_store_load_run(&head, store, head_id)) != 0 ||
        (err = pg_select_base(&sel, store, base_sel, head_id)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    bases = calloc(sel.count + 1, sizeof(*bases));
    if (!bases) {
        rc = pg_cli_fail(PG_ENOMEM);
        goto cleanup;
    }
    for (i = 0; i < sel.count; i++) {
        if ((err = pg_store_load_run(&bases[nb], store, sel.ids[i])) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        nb++;
    }
    if (nb == 0)
        printf("run %lld has no baseline (%s): every case is NEW\n\n", (long long)head_id,
               base_sel ? base_sel : "no earlier run on its branch and machine");
    else
        printf("head: run %lld (%s @ %.12s)\nbase: %s\n\n", (long long)head_id, head->branch ? head->branch : "?",
               head->commit ? head->commit : "no commit", sel.described ? sel.described : "stored run");
    if ((err = pg_compare(&cmp, head, (const pg_run *const *)bases, nb, &co)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    pg_report_compare_terminal(stdout, cmp, &style);
    rc = cmp->exit_code;

cleanup:
    pg_comparison_free(cmp);
    for (i = 0; i < nb; i++)
        pg_run_free(bases[i]);
    free(bases);
    pg_run_free(head);
    pg_selection_free(&sel);
    pg_store_close(store);
    return rc;
}
