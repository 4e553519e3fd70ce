/* cmd_import.c - `perfgate import FORMAT FILE`: store another harness's results as a run. */
#include "cli.h"

#include "import/import.h"
#include "meta.h"
#include "perfgate/errors.h"
#include "report/report.h"
#include "store/store.h"
#include "util.h"

#include <stdlib.h>

int pg_cmd_import(int argc, char **argv)
{
    const char *db = NULL, *suite = NULL, *commit = NULL, *branch = NULL;
    int dry = 0, nargs, rc, err;
    pg_import_options io = PG_IMPORT_OPTIONS_INIT;
    pg_meta_options mo = {NULL, NULL};
    pg_import_notes notes = {0};
    pg_term_style style = pg_term_style_auto(stdout);
    pg_store *store = NULL;
    pg_run *run = NULL;
    size_t i;
    const pg_opt opts[] = {
        {"suite", 's', PG_OPT_STR, &suite, "NAME", "suite name in the case keys (default: the format's name)"},
        {"db", 0, PG_OPT_STR, &db, "PATH",
         "database file or postgresql:// URL (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"commit", 0, PG_OPT_STR, &commit, "SHA", "commit to record (default GITHUB_SHA, else git)"},
        {"branch", 0, PG_OPT_STR, &branch, "NAME", "branch to record (default GITHUB_REF_NAME, else git)"},
        {"no-store", 0, PG_OPT_FLAG, &dry, NULL, "read and print without storing"},
        {0},
    };
    const pg_cmd_spec spec = {
        "import", "[options] FORMAT FILE", "Store another harness's results as a perfgate run.",
        "FORMAT is one of:\n"
        "  google-benchmark  --benchmark_format=json / --benchmark_out JSON: one sample per\n"
        "                    repetition (iteration rows); aggregates recognised; error_occurred\n"
        "                    rows become errors; BigO/RMS rows skipped with a note\n"
        "  hyperfine         --export-json: times[] are the samples, parameters the params\n"
        "  pytest-benchmark  --benchmark-json or a saved .benchmarks/ file: stats.data[] are the\n"
        "                    samples when present, else the summary only (marked so)\n\n"
        "The run is stored with the commit, branch and machine of this job, so\n"
        "'perfgate compare' gates it like a native run. See docs/importers.md.\n\n"
        "examples:\n"
        "  ./bench --benchmark_repetitions=9 --benchmark_out=gb.json\n"
        "  perfgate import google-benchmark gb.json --suite mylib && perfgate compare",
        opts, 2, 2};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    io.suite = suite;
    mo.commit = commit;
    mo.branch = branch;
    rc = 3;
    if (!dry && (err = pg_store_open(&store, pg_store_path(db))) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if ((err = pg_run_new(&run)) != 0 || (err = pg_meta_fill(run, &mo)) != 0 ||
        (err = pg_import_file(run, argv[1], argv[2], &io, &notes)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    run->finished_at = pg__now_unix();
    pg_report_run_terminal(stdout, run, &style);
    for (i = 0; i < notes.count; i++)
        printf("note: %s\n", notes.lines[i]);
    if (store) {
        if ((err = pg_store_save_run(store, run)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        printf("\nimported %zu cases from %s (%s) as run %lld in %s\n", run->nresults, argv[2], argv[1],
               (long long)run->id, pg_store_name(store));
    }
    rc = 0;
cleanup:
    pg_import_notes_free(&notes);
    pg_run_free(run);
    pg_store_close(store);
    return rc;
}
