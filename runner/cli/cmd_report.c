/* cmd_report.c - `perfgate report`: a stored run as markdown, JSON, JUnit, annotations or a table. */
#include "cli/cli.h"

#include "cli/report_cli.h"
#include "base/outfile.h"
#include "base/util.h"

#include "history/history.h"
#include "perfgate/errors.h"
#include "report/html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * HTML: the run's verdict table plus, per case of the run, its trend over
 * the newest 100 commits of the run's branch with change points.
 */
static int write_html(const pg_cli_compared *c, const char *out_path)
{
    pg_history_options ho = PG_HISTORY_OPTIONS_INIT;
    pg_history *hs = NULL, *keep = NULL;
    size_t nh = 0, nkeep = 0, i;
    pg_outfile out;
    char *title = NULL;
    int err;

    if ((err = pg_history_load(&hs, &nh, c->store, NULL, c->head->branch, 100, &ho)) != 0)
        return pg_cli_fail(err);
    /* Only the cases of this run, in the run's order. */
    keep = calloc(c->head->nresults + 1, sizeof(*keep));
    if (!keep) {
        pg_history_free_all(hs, nh);
        return pg_cli_fail(pg_error_set(PG_ENOMEM, "out of memory writing HTML"));
    }
    for (i = 0; i < c->head->nresults; i++) {
        size_t k;
        for (k = 0; k < nh; k++)
            if (hs[k].key && strcmp(hs[k].key, c->head->results[i].key) == 0) {
                keep[nkeep++] = hs[k];
                memset(&hs[k], 0, sizeof(hs[k]));
                break;
            }
    }
    title = pg__asprintf("perfgate: run %lld (%s @ %.12s)", (long long)c->head->id,
                         c->head->branch ? c->head->branch : "?", c->head->commit ? c->head->commit : "no commit");
    /* Written beside its name and renamed over it only when whole (base/outfile.h). */
    if ((err = pg__outfile_open(&out, out_path, "HTML report")) == 0) {
        err = pg_report_html(out.f, title ? title : "perfgate", keep, nkeep, c->cmp);
        err = err ? (pg__outfile_abort(&out), err) : pg__outfile_commit(&out, "HTML report");
    }
    free(title);
    pg_history_free_all(keep, nkeep);
    pg_history_free_all(hs, nh);
    return err ? pg_cli_fail(err) : 0;
}

int pg_cmd_report(int argc, char **argv)
{
    const char *db = NULL, *base_sel = NULL, *format = "md", *out_path = "-";
    long max_bytes = 0;
    pg_cli_compared c;
    pg_reporter *r = NULL;
    pg_report_mux mux = {0};
    pg_report_origin origin = {0};
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"format", 'F', PG_OPT_STR, &format, "FMT", "md, json, junit, annotations, terminal or html (default md)"},
        {"output", 'o', PG_OPT_STR, &out_path, "FILE", "write to FILE instead of stdout"},
        {"db", 0, PG_OPT_STR, &db, "PATH",
         "database file or postgresql:// URL (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"base", 'b', PG_OPT_STR, &base_sel, "SEL",
         "compare now with this baseline (id, commit:SHA, branch:NAME, last:K[:BRANCH]) instead of showing the "
         "stored decision"},
        {"max-bytes", 0, PG_OPT_INT, &max_bytes, "N", "markdown: leave rows out to stay under N bytes"},
        {0},
    };
    const pg_cmd_spec spec = {
        "report", "[options] [RUN]", "Write a stored run and its verdicts as markdown, JSON, JUnit, annotations or HTML.",
        "RUN is a run id, latest, commit:SHA or branch:NAME (default latest). A run the\n"
        "gate decided is shown with the decision it stored: the same outcome, verdicts\n"
        "and numbers the gate printed, byte for byte. A run without one (stored by\n"
        "'perfgate run') is compared with its baseline as 'perfgate compare' does, and\n"
        "so is any run given --base (a fresh comparison with that baseline). The JSON report\n"
        "(schema_version 1) holds everything: metadata, machine fingerprint, raw samples,\n"
        "exact checks and verdicts; 'perfgate post --from FILE' posts from it.\n\n"
        "examples:\n"
        "  perfgate report --format md latest\n"
        "  perfgate report --format json -o perfgate.json\n"
        "  perfgate report --format junit -o junit.xml 42\n"
        "  perfgate report --format html -o perfgate.html   (trend plots, self-contained)",
        opts, 0, 1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (max_bytes < 0) {
        fprintf(stderr, "perfgate report: --max-bytes must not be negative\n");
        return 2;
    }
    if (strcmp(format, "html") == 0) {
        if ((rc = pg_cli_compare_stored(&c, db, nargs ? argv[1] : NULL, base_sel)) == 0)
            rc = write_html(&c, out_path);
        pg_cli_compared_clear(&c);
        return rc;
    }
    if ((err = pg_reporter_file(&r, format, out_path)) != 0)
        return pg_cli_fail(err);
    r->opts.max_bytes = (size_t)max_bytes;
    r->opts.color = strcmp(out_path, "-") == 0 && pg_term_style_auto(stdout).color;
    if ((err = pg_report_mux_add(&mux, r)) != 0)
        return pg_cli_fail(err);
    if ((rc = pg_cli_compare_stored(&c, db, nargs ? argv[1] : NULL, base_sel)) != 0) {
        pg_cli_compared_clear(&c);
        pg_report_mux_clear(&mux);
        return rc;
    }
    {
        /* A decided run where the gate's reports put it (its pull request, its head): the same report again. */
        pg_report_data d = {c.head, c.cmp, c.stored.decided ? &c.stored.origin : &origin};
        rc = pg_report_mux_emit(&mux, &d) ? 3 : 0;
    }
    pg_cli_compared_clear(&c);
    pg_report_mux_clear(&mux);
    return rc;
}
