/* cmd_db.c - `perfgate db merge|prune|check|fetch`: database maintenance. */
#include "cli/cli.h"

#include "perfgate/errors.h"
#include "post/artifacts.h"
#include "store/store.h"
#include "suite/suite.h"
#include "suite/units.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int db_merge(int argc, char **argv)
{
    const char *out_path = NULL;
    char *out_name;
    pg_merge_stats ms;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"output", 'o', PG_OPT_STR, &out_path, "OUT.db",
         "database to merge into: a file (created if absent) or a postgresql:// URL (required)"},
        {0},
    };
    const pg_cmd_spec spec = {
        "db merge", "-o OUT.db IN.db...", "Merge the runs of several databases into one.",
        "Every run is copied once: runs are identified by uuid, so merging the same\n"
        "input again adds nothing. Matrix jobs on several runners can each write their\n"
        "own file and a final job merges them. Inputs and output may be SQLite files or\n"
        "postgresql:// URLs, in any mix: a file into a server, a server into a file.\n"
        "Runs are merged into OUT.db itself, each in one transaction, so gates may keep\n"
        "writing runs into it meanwhile and none is lost (the file is never replaced\n"
        "by a copy). A merge stopped half-way leaves whole runs only and no temporary\n"
        "file: run it again to add the rest. Inputs are only read (a read-only file\n"
        "in a read-only folder merges too); a damaged OUT.db is refused (exit 3).",
        opts, 1, -1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (!out_path) {
        fprintf(stderr, "perfgate db merge: -o OUT.db is required; see 'perfgate db merge --help'\n");
        return 2;
    }
    if ((err = pg_store_merge_file(&ms, out_path, (const char *const *)argv + 1, (size_t)nargs)) != 0)
        return pg_cli_fail(err);
    out_name = pg_store_redacted(out_path);
    printf("merged %zu database%s into %s: %zu runs seen, %zu added, %zu already present\n", ms.inputs,
           ms.inputs == 1 ? "" : "s", out_name ? out_name : "the output", ms.runs_seen, ms.runs_added,
           ms.runs_seen - ms.runs_added);
    free(out_name);
    return 0;
}

static int parse_age(int64_t *out, const char *text)
{
    size_t n = strlen(text);
    double v;
    char *end;

    if (n > 1 && (text[n - 1] == 'd' || text[n - 1] == 'w')) {
        v = strtod(text, &end);
        if (end != text + n - 1 || v <= 0)
            return -1;
        *out = (int64_t)(v * (text[n - 1] == 'd' ? 86400.0 : 604800.0));
        return 0;
    }
    if (pg_parse_duration(&v, text) != 0 || v <= 0)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int db_prune(int argc, char **argv)
{
    const char *db = NULL, *older = NULL;
    long keep = 0;
    int keep_summaries = 0, nargs, rc, err;
    pg_prune_options po = PG_PRUNE_OPTIONS_INIT;
    pg_prune_stats ps;
    pg_store *store = NULL;
    const pg_opt opts[] = {
        {"db", 0, PG_OPT_STR, &db, "PATH",
         "database file or postgresql:// URL (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"keep-runs", 0, PG_OPT_INT, &keep, "N", "leave the newest N runs untouched"},
        {"older-than", 0, PG_OPT_STR, &older, "AGE", "prune only runs older than AGE (90d, 12w, 36h)"},
        {"keep-summaries", 0, PG_OPT_FLAG, &keep_summaries, NULL,
         "drop raw samples only; runs and their summaries stay, so history stays"},
        {0},
    };
    const pg_cmd_spec spec = {
        "db prune", "[options]", "Drop raw samples or whole runs that are no longer needed.",
        "Pinned baselines are never pruned. With both --keep-runs and --older-than, a run\n"
        "is pruned only when it meets both. The file is compacted afterwards.\n\n"
        "example (nightly job): perfgate db prune --older-than 90d --keep-summaries",
        opts, 0, 0};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (keep < 0 || (older && parse_age(&po.older_than, older) != 0)) {
        fprintf(stderr, "perfgate db prune: bad %s; see 'perfgate db prune --help'\n",
                keep < 0 ? "--keep-runs" : "--older-than (use e.g. 90d)");
        return 2;
    }
    if (!keep && !older) {
        fprintf(stderr, "perfgate db prune: give --keep-runs N and/or --older-than AGE\n");
        return 2;
    }
    po.keep_runs = (size_t)keep;
    po.keep_summaries = keep_summaries;
    if (!pg_store_is_server(pg_store_path(db)) && access(pg_store_path(db), F_OK) != 0) {
        fprintf(stderr, "perfgate: %s: no such database\n", pg_store_path(db));
        return 2;
    }
    if ((err = pg_store_open(&store, pg_store_path(db))) != 0 || (err = pg_store_prune(&ps, store, &po)) != 0) {
        pg_store_close(store);
        return pg_cli_fail(err);
    }
    pg_store_close(store);
    printf("%s %zu run%s; %zu kept whole", keep_summaries ? "dropped the samples of" : "deleted", ps.runs_pruned,
           ps.runs_pruned == 1 ? "" : "s", ps.runs_kept);
    /* A server has no file to measure: it reclaims the space itself. */
    if (ps.bytes_before >= 0)
        printf("; %lld -> %lld bytes", (long long)ps.bytes_before, (long long)ps.bytes_after);
    printf("\n");
    return 0;
}

static int db_check(int argc, char **argv)
{
    const char *db = NULL;
    pg_check_report r;
    pg_store *store = NULL;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"db", 0, PG_OPT_STR, &db, "PATH",
         "database file or postgresql:// URL (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {0},
    };
    const pg_cmd_spec spec = {"db check", "[options]",
                              "Check a database: SQLite integrity, foreign keys, schema version.",
                              "A SQLite file must also hold exactly the tables, indexes, triggers and\n"
                              "views perfgate's migrations create (a file from elsewhere may add a trigger\n"
                              "or put a view in place of a table), and every sample blob exactly 8 bytes per\n"
                              "sample its result counts. The file is opened read-only.\n\n"
                              "Exit code 0 when healthy, 3 when damaged.", opts, 0, 0};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (!pg_store_is_server(pg_store_path(db)) && access(pg_store_path(db), F_OK) != 0) {
        fprintf(stderr, "perfgate: %s: no such database\n", pg_store_path(db));
        return 2;
    }
    if ((err = pg_store_open_read(&store, pg_store_path(db))) != 0 || (err = pg_store_check(&r, store)) != 0) {
        pg_store_close(store);
        return pg_cli_fail(err);
    }
    printf("%s: %s\n  schema version %d (this perfgate writes %d)\n  %lld runs, %lld results (%lld with raw "
           "samples), %lld check results, %lld bytes\n",
           pg_store_name(store), r.message, r.schema_version, r.schema_latest, (long long)r.runs, (long long)r.results,
           (long long)r.results_with_samples, (long long)r.checks, (long long)r.bytes);
    pg_store_close(store);
    return r.ok ? 0 : 3;
}

/* `db fetch` exits with this when no artifact qualifies: a first run, or every one expired. */
#define PG_DB_FETCH_NOTHING 4

static int db_fetch(int argc, char **argv)
{
    const char *repo = getenv("GITHUB_REPOSITORY"), *artifact = NULL, *branch = "main", *out_path = NULL;
    pg_gh_options go = PG_GH_OPTIONS_INIT;
    pg_artifact_restore ar;
    pg_gh *gh = NULL;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"repo", 0, PG_OPT_STR, &repo, "OWNER/NAME", "repository (default GITHUB_REPOSITORY)"},
        {"artifact", 0, PG_OPT_STR, &artifact, "NAME", "artifact name the default branch uploads (required)"},
        {"branch", 0, PG_OPT_STR, &branch, "BRANCH", "take the newest artifact of runs on BRANCH (default main)"},
        {"out", 'o', PG_OPT_STR, &out_path, "PATH", "where to write the database (required)"},
        {0},
    };
    const pg_cmd_spec spec = {
        "db fetch", "--artifact NAME --out PATH [options]",
        "Restore the database from the newest artifact of a branch (after a cache miss).",
        "Lists the repository's artifacts named NAME through the REST API, takes the\n"
        "newest unexpired one uploaded by a run on BRANCH of the repository itself\n"
        "(never a fork's), downloads it (the archive's signed URL is fetched without\n"
        "the token), extracts its one file, checks that it opens as a healthy perfgate\n"
        "database and only then moves it over PATH. The token comes from GITHUB_TOKEN\n"
        "(needs actions: read) and is never printed; the API from GITHUB_API_URL.\n\n"
        "exit codes: 0 restored; 4 nothing to restore (no such artifact: compare\n"
        "nothing, measure a new baseline); 2 usage; 3 network, API, archive or\n"
        "database errors. PATH is untouched unless the exit code is 0.\n\n"
        "example: perfgate db fetch --artifact perfgate-db --out baselines/perfgate.db",
        opts, 0, 0};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (!artifact || !out_path || !*out_path || !repo || !*branch) {
        fprintf(stderr, "perfgate db fetch: %s is required; see 'perfgate db fetch --help'\n",
                !artifact ? "--artifact NAME" : !out_path || !*out_path ? "--out PATH"
                                              : !repo ? "--repo OWNER/NAME (or GITHUB_REPOSITORY)" : "--branch");
        return 2;
    }
    go.debug = getenv("PERFGATE_DEBUG") && *getenv("PERFGATE_DEBUG") ? stderr : NULL;
    if ((err = pg_gh_new(&gh, &go)) != 0)
        return pg_cli_fail(err);
    err = pg_artifact_restore_db(&ar, gh, repo, artifact, branch, out_path);
    pg_gh_free(gh);
    if (err == PG_ENOTFOUND) {
        fprintf(stderr, "perfgate db fetch: %s\n", pg_error_last());
        return PG_DB_FETCH_NOTHING;
    }
    if (err) {
        /* Usage problems keep exit 2; everything else here is infrastructure. */
        fprintf(stderr, "perfgate db fetch: %s\n", pg_error_last());
        return err == PG_EUSAGE ? 2 : 3;
    }
    printf("restored %s from artifact '%s' (id %lld, %s@%.12s, created %s): %lld runs, %lld bytes\n", out_path,
           ar.artifact.name, (long long)ar.artifact.id, ar.artifact.head_branch,
           ar.artifact.head_sha ? ar.artifact.head_sha : "?", ar.artifact.created_at, (long long)ar.runs,
           (long long)ar.bytes);
    pg_artifact_clear(&ar.artifact);
    return 0;
}

int pg_cmd_db(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: perfgate db <merge|prune|check|fetch> [options]\n\n"
                   "  merge -o OUT.db IN.db...   merge runs of several databases (idempotent)\n"
                   "  prune [--keep-runs N] [--older-than AGE] [--keep-summaries]\n"
                   "                             drop old samples or runs, then compact\n"
                   "  check                      integrity, foreign keys, the exact schema, samples\n"
                   "  fetch --artifact NAME --out PATH [--repo R] [--branch B]\n"
                   "                             restore from the newest artifact of a branch\n");
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "merge") == 0)
        return db_merge(argc - 1, argv + 1);
    if (strcmp(argv[1], "prune") == 0)
        return db_prune(argc - 1, argv + 1);
    if (strcmp(argv[1], "check") == 0)
        return db_check(argc - 1, argv + 1);
    if (strcmp(argv[1], "fetch") == 0)
        return db_fetch(argc - 1, argv + 1);
    fprintf(stderr, "perfgate db: unknown subcommand '%s' (merge, prune, check or fetch)\n", argv[1]);
    return 2;
}
