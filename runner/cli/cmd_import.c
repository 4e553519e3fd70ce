/* cmd_import.c - `perfgate import FORMAT FILE`: store another harness's results as a run. */
#include "cli/cli.h"

#include "import/import.h"
#include "machine/meta.h"
#include "perfgate/errors.h"
#include "report/report.h"
#include "store/store.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/*
 * {"schema_version": 1, "format", "file", "run": id or null, "db", "cases": [{key, status, message, samples,
 * median_s}], "notes": [...]}
 */
static int print_json(const pg_run *run, const char *format, const char *file, const pg_import_notes *notes,
                      const char *db)
{
    json_t *root = json_object(), *cases = json_array(), *ns = json_array();
    size_t i;
    int rc;

    for (i = 0; i < run->nresults; i++) {
        const pg_result *r = &run->results[i];
        json_t *o = json_object();
        json_object_set_new(o, "key", json_string(r->key));
        json_object_set_new(o, "status", json_string(pg_status_name(r->status)));
        json_object_set_new(o, "message", r->message ? json_string(r->message) : json_null());
        json_object_set_new(o, "samples", json_integer((json_int_t)r->nsamples));
        json_object_set_new(o, "median_s", r->summary.median > 0 ? json_real(r->summary.median) : json_null());
        json_array_append_new(cases, o);
    }
    for (i = 0; i < notes->count; i++)
        json_array_append_new(ns, json_string(notes->lines[i]));
    json_object_set_new(root, "schema_version", json_integer(1));
    json_object_set_new(root, "format", json_string(format));
    json_object_set_new(root, "file", json_string(file));
    json_object_set_new(root, "run", run->id ? json_integer(run->id) : json_null());
    json_object_set_new(root, "db", db ? json_string(db) : json_null());
    json_object_set_new(root, "cases", cases);
    json_object_set_new(root, "notes", ns);
    rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    fputc('\n', stdout);
    json_decref(root);
    return rc == 0 && fflush(stdout) == 0 ? 0 : 3;
}

int pg_cmd_import(int argc, char **argv)
{
    const char *db = NULL, *suite = NULL, *commit = NULL, *branch = NULL, *format = NULL;
    int dry = 0, nargs, rc, err, as_json = 0;
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
        {"format", 0, PG_OPT_STR, &format, "FMT", "text (default) or json: the cases, notes and run id as one object"},
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
    if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "perfgate import: unknown format '%s' (text or json)\n", format);
        return 2;
    }
    as_json = format && strcmp(format, "json") == 0;
    io.suite = suite;
    mo.commit = commit;
    mo.branch = branch;
    rc = 3;
    /* A damaged database is refused before anything is read or written, as the gate does. */
    if (!dry && ((err = pg_store_open(&store, pg_store_path(db))) != 0 || (err = pg_store_quick_check(store)) != 0)) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if ((err = pg_run_new(&run)) != 0 || (err = pg_meta_fill(run, &mo)) != 0 ||
        (err = pg_import_file(run, argv[1], argv[2], &io, &notes)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    run->finished_at = pg__now_unix();
    if (!as_json) {
        pg_report_run_terminal(stdout, run, &style);
        for (i = 0; i < notes.count; i++)
            printf("note: %s\n", notes.lines[i]);
    }
    if (store) {
        if ((err = pg_store_save_run(store, run)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        if (!as_json)
            printf("\nimported %zu cases from %s (%s) as run %lld in %s\n", run->nresults, argv[2], argv[1],
                   (long long)run->id, pg_store_name(store));
    }
    rc = as_json ? print_json(run, argv[1], argv[2], &notes, store ? pg_store_name(store) : NULL) : 0;
cleanup:
    pg_import_notes_clear(&notes);
    pg_run_free(run);
    pg_store_close(store);
    return rc;
}
