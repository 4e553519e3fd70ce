/* store_maint.c - database maintenance: merge, prune, check. */
#include "store_maint.h"

#include "perfgate/errors.h"
#include "util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int64_t pg_store_file_size(pg_store *store)
{
    const char *path = sqlite3_db_filename(pg__store_db(store), "main");
    struct stat st;
    int64_t total = -1;
    char *wal;

    if (!path || stat(path, &st) != 0)
        return -1;
    total = (int64_t)st.st_size;
    wal = pg__asprintf("%s-wal", path);
    if (wal && stat(wal, &st) == 0)
        total += (int64_t)st.st_size;
    free(wal);
    return total;
}

int pg_store_merge(pg_merge_stats *stats, pg_store *out, const char *const *inputs, size_t ninputs)
{
    const char *out_path = sqlite3_db_filename(pg__store_db(out), "main");
    size_t i, j;
    int err = 0;

    memset(stats, 0, sizeof(*stats));
    for (i = 0; i < ninputs; i++) {
        pg_store *in = NULL;
        pg_run_list list = {0};
        char *real_in = realpath(inputs[i], NULL);
        char *real_out = out_path ? realpath(out_path, NULL) : NULL;
        int same = real_in && real_out && strcmp(real_in, real_out) == 0;

        free(real_in);
        free(real_out);
        if (same)
            return pg_error_set(PG_EUSAGE, "%s: an input cannot also be the output", inputs[i]);
        if (access(inputs[i], R_OK) != 0)
            return pg_error_set(PG_ENOTFOUND, "%s: no such database", inputs[i]);
        if ((err = pg_store_open(&in, inputs[i])) != 0)
            return err;
        if ((err = pg_store_list_runs(&list, in, NULL)) != 0) {
            pg_store_close(in);
            return err;
        }
        /* Oldest first, so ids in the output follow the inputs' order. */
        for (j = list.count; j-- > 0;) {
            pg_run *run = NULL;
            int64_t before;
            if ((err = pg_store_load_run(&run, in, list.items[j].id)) != 0)
                break;
            run->id = 0;
            before = sqlite3_total_changes(pg__store_db(out));
            err = pg_store_save_run(out, run);
            if (!err && sqlite3_total_changes(pg__store_db(out)) != before)
                stats->runs_added++;
            pg_run_free(run);
            if (err)
                break;
            stats->runs_seen++;
        }
        pg_run_list_free(&list);
        pg_store_close(in);
        if (err)
            return err;
        stats->inputs++;
    }
    return 0;
}

static int exec1(sqlite3 *db, const char *sql, const char *what)
{
    char *msg = NULL;

    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int err = pg_error_set(PG_ESTORE, "%s: %s", what, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return err;
    }
    return 0;
}

int pg_store_prune(pg_prune_stats *stats, pg_store *store, const pg_prune_options *opts)
{
    sqlite3 *db = pg__store_db(store);
    sqlite3_stmt *st = NULL;
    int64_t now = opts->now ? opts->now : pg__now_unix();
    int err;

    memset(stats, 0, sizeof(*stats));
    if (!opts->keep_runs && !opts->older_than)
        return pg_error_set(PG_EUSAGE, "prune needs --keep-runs N or --older-than AGE");
    stats->bytes_before = pg_store_file_size(store);
    if ((err = exec1(db, "BEGIN IMMEDIATE", "starting prune")) != 0)
        return err;
    /*
     * A run is pruned when it is outside the newest keep_runs (if given) and
     * older than older_than (if given); pinned runs never are.
     */
    if ((err = exec1(db,
                     "CREATE TEMP TABLE IF NOT EXISTS prune_ids(id INTEGER PRIMARY KEY);"
                     "DELETE FROM prune_ids;",
                     "preparing prune")) != 0)
        goto rollback;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO prune_ids(id) SELECT r.id FROM runs r"
                           " WHERE (?1 = 0 OR r.id NOT IN (SELECT id FROM runs ORDER BY id DESC LIMIT ?1))"
                           "   AND (?2 = 0 OR r.started_at < ?3 - ?2)"
                           "   AND r.id NOT IN (SELECT run_id FROM baselines)",
                           -1, &st, NULL) != SQLITE_OK) {
        err = pg_error_set(PG_ESTORE, "selecting runs to prune: %s", sqlite3_errmsg(db));
        goto rollback;
    }
    sqlite3_bind_int64(st, 1, (sqlite3_int64)opts->keep_runs);
    sqlite3_bind_int64(st, 2, opts->older_than);
    sqlite3_bind_int64(st, 3, now);
    if (sqlite3_step(st) != SQLITE_DONE) {
        err = pg_error_set(PG_ESTORE, "selecting runs to prune: %s", sqlite3_errmsg(db));
        goto rollback;
    }
    sqlite3_finalize(st);
    st = NULL;
    stats->runs_pruned = (size_t)sqlite3_changes(db);
    if ((err = exec1(db,
                     opts->keep_summaries
                         ? "UPDATE results SET samples = NULL WHERE run_id IN (SELECT id FROM prune_ids)"
                         : "DELETE FROM runs WHERE id IN (SELECT id FROM prune_ids)",
                     "pruning")) != 0)
        goto rollback;
    if (!opts->keep_summaries &&
        (err = exec1(db, "DELETE FROM cases WHERE id NOT IN (SELECT DISTINCT case_id FROM results)",
                     "removing unused cases")) != 0)
        goto rollback;
    if ((err = exec1(db, "COMMIT", "committing prune")) != 0)
        goto rollback;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        stats->runs_kept = (size_t)sqlite3_column_int64(st, 0) - (opts->keep_summaries ? stats->runs_pruned : 0);
    sqlite3_finalize(st);
    st = NULL;
    /* Give the space back: checkpoint the WAL, then rebuild the file. */
    if ((err = exec1(db, "PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE);",
                     "compacting the database")) != 0)
        return err;
    stats->bytes_after = pg_store_file_size(store);
    return 0;

rollback:
    sqlite3_finalize(st);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return err;
}

static int64_t count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

int pg_store_check(pg_check_report *out, pg_store *store)
{
    sqlite3 *db = pg__store_db(store);
    sqlite3_stmt *st = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    out->ok = 1;
    snprintf(out->message, sizeof(out->message), "ok");
    out->schema_version = pg_store_schema_version(store);
    out->schema_latest = pg_store_schema_latest();
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK)
        return pg_error_set(PG_ESTORE, "integrity check: %s", sqlite3_errmsg(db));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (line && strcmp(line, "ok") != 0 && out->ok) {
            out->ok = 0;
            snprintf(out->message, sizeof(out->message), "integrity: %s", line);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        out->ok = 0;
        snprintf(out->message, sizeof(out->message), "integrity check failed: %s", sqlite3_errmsg(db));
        return 0;
    }
    if (out->ok && count(db, "SELECT COUNT(*) FROM pragma_foreign_key_check") > 0) {
        out->ok = 0;
        snprintf(out->message, sizeof(out->message), "foreign keys: rows refer to missing parents");
    }
    if (out->ok && out->schema_version != out->schema_latest) {
        out->ok = 0;
        snprintf(out->message, sizeof(out->message), "schema version %d, expected %d", out->schema_version,
                 out->schema_latest);
    }
    out->runs = count(db, "SELECT COUNT(*) FROM runs");
    out->results = count(db, "SELECT COUNT(*) FROM results");
    out->results_with_samples = count(db, "SELECT COUNT(*) FROM results WHERE samples IS NOT NULL");
    out->checks = count(db, "SELECT COUNT(*) FROM checks");
    out->bytes = pg_store_file_size(store);
    return 0;
}
