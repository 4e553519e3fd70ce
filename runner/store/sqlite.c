/*
 * sqlite.c - the SQLite engine: one database file in WAL mode, its schema
 * and migrations, baseline pins and maintenance. Runs themselves are
 * written and read in sqlite_runs.c, the history rows in sqlite_history.c.
 */
#include "store/sqlite.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Forward migrations: entry i takes user_version i to i+1. Append only;
 * never edit a migration that has shipped.
 */
static const char *migrations[] = {
    /* 0 -> 1: the initial schema. */
    "CREATE TABLE machines ("
    "  id INTEGER PRIMARY KEY,"
    "  hash TEXT NOT NULL UNIQUE,"
    "  fingerprint TEXT NOT NULL);"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  uuid TEXT NOT NULL UNIQUE,"
    "  suite_set TEXT,"
    "  commit_sha TEXT,"
    "  branch TEXT,"
    "  ref TEXT,"
    "  pr INTEGER,"
    "  ci_url TEXT,"
    "  source TEXT NOT NULL DEFAULT 'perfgate',"
    "  tool_version TEXT,"
    "  machine_id INTEGER REFERENCES machines(id),"
    "  started_at INTEGER NOT NULL,"
    "  finished_at INTEGER NOT NULL);"
    "CREATE INDEX runs_branch ON runs(branch, id);"
    "CREATE INDEX runs_commit ON runs(commit_sha);"
    "CREATE TABLE cases ("
    "  id INTEGER PRIMARY KEY,"
    "  key TEXT NOT NULL UNIQUE,"
    "  suite TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  params TEXT NOT NULL,"
    "  threads INTEGER NOT NULL,"
    "  device TEXT NOT NULL);"
    "CREATE TABLE results ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  case_id INTEGER NOT NULL REFERENCES cases(id),"
    "  metric TEXT NOT NULL,"
    "  unit TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  message TEXT,"
    "  n INTEGER NOT NULL,"
    "  number_per_run INTEGER NOT NULL,"
    "  median REAL, q1 REAL, q3 REAL, iqr REAL,"
    "  mean REAL, stddev REAL, min REAL, max REAL,"
    "  flops REAL, bytes REAL, mfu REAL, warmup_s REAL, threshold REAL, alpha REAL,"
    "  warnings INTEGER NOT NULL DEFAULT 0,"
    "  extra TEXT,"
    "  samples BLOB,"
    "  UNIQUE(run_id, case_id, metric));"
    "CREATE INDEX results_case ON results(case_id, run_id);"
    "CREATE TABLE checks ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  suite TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  expected TEXT,"
    "  actual TEXT,"
    "  passed INTEGER NOT NULL,"
    "  skipped INTEGER NOT NULL DEFAULT 0,"
    "  message TEXT);"
    "CREATE TABLE baselines ("
    "  name TEXT NOT NULL,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  pinned_at INTEGER NOT NULL,"
    "  PRIMARY KEY(name, run_id));",
    /* 1 -> 2: the machine's roofs, measured once per machine (roofline.h). */
    "CREATE TABLE roofs ("
    "  machine_hash TEXT NOT NULL,"
    "  device TEXT NOT NULL,"
    "  threads INTEGER NOT NULL,"
    "  peak_gflops REAL NOT NULL,"
    "  triad_gbs REAL NOT NULL,"
    "  copy_gbs REAL NOT NULL,"
    "  llc_bytes REAL NOT NULL,"
    "  blas TEXT NOT NULL,"
    "  measured_at INTEGER NOT NULL,"
    "  PRIMARY KEY(machine_hash, device, threads));",
    /*
     * 2 -> 3: how each run was measured (earlier runs were all measured
     * alone), cases absent from the build measured, a run's own machine
     * fingerprint where it differs from the machine's first (its roofs, as
     * its reports showed them), and the gate's decision as a record of its
     * own (baselines/README.md, "Decisions").
     */
    "ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'plain';"
    "ALTER TABLE results ADD COLUMN absent INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN fingerprint TEXT;"
    "CREATE TABLE decisions ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  made_at INTEGER NOT NULL,"
    "  outcome TEXT NOT NULL,"
    "  exit_code INTEGER NOT NULL,"
    "  reason TEXT,"
    "  method TEXT,"
    "  baseline TEXT NOT NULL,"
    "  base_ids TEXT,"
    "  base_uuids TEXT,"
    "  base_described TEXT,"
    "  base_build TEXT,"
    "  base_commit TEXT,"
    "  base_hash TEXT,"
    "  confirmed INTEGER NOT NULL DEFAULT 0,"
    "  suite_shift REAL,"
    "  suite_spread REAL,"
    "  canary TEXT,"
    "  detail TEXT NOT NULL DEFAULT '{}');"
    "CREATE TABLE decision_cases ("
    "  run_id INTEGER NOT NULL REFERENCES decisions(run_id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  key TEXT NOT NULL,"
    "  verdict TEXT NOT NULL,"
    "  reason TEXT,"
    "  method TEXT,"
    "  ratio REAL, ci_lo REAL, ci_hi REAL, p REAL, p_adj REAL,"
    "  rounds INTEGER,"
    "  confirm TEXT,"
    "  detail TEXT NOT NULL DEFAULT '{}',"
    "  PRIMARY KEY(run_id, idx));",
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

int pg__sqlite_error(pg_sqlite_store *s, const char *what)
{
    return pg_error_set(PG_ESTORE, "%s: %s: %s", s->base.path, what, sqlite3_errmsg(s->db));
}

/* PG_ESTORE with "WHAT: sqlite's message", for messages that never named the file. */
static int plain_error(pg_sqlite_store *s, const char *what)
{
    return pg_error_set(PG_ESTORE, "%s: %s", what, sqlite3_errmsg(s->db));
}

static int exec_as(pg_sqlite_store *s, const char *sql, const char *what, int with_path)
{
    char *msg = NULL;
    int err;

    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    if (with_path)
        err = pg_error_set(PG_ESTORE, "%s: %s: %s", s->base.path, what, msg ? msg : sqlite3_errmsg(s->db));
    else
        err = pg_error_set(PG_ESTORE, "%s: %s", what, msg ? msg : sqlite3_errmsg(s->db));
    sqlite3_free(msg);
    return err;
}

int pg__sqlite_exec(pg_sqlite_store *s, const char *sql, const char *what)
{
    return exec_as(s, sql, what, 1);
}

void pg__sqlite_bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

void pg__sqlite_bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

double pg__sqlite_col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

char *pg__sqlite_col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);

    return t ? pg__strdup((const char *)t) : NULL;
}

static int schema_version(pg_store *store)
{
    sqlite3_stmt *st = NULL;
    int v = -1;

    if (sqlite3_prepare_v2(pg__sqlite(store)->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

int pg__sqlite_migrate(pg_sqlite_store *s)
{
    int v = schema_version(&s->base), err;
    char sql[64];

    if (v < 0)
        return pg__sqlite_error(s, "not a perfgate database (cannot read its schema version)");
    while (v < NMIGRATIONS) {
        /*
         * Each step commits with its version bump, so a crash mid-way resumes
         * cleanly; the version is re-read under the write lock because another
         * process may have migrated while we waited for it.
         */
        if ((err = pg__sqlite_exec(s, "BEGIN IMMEDIATE", "starting a migration")) != 0)
            return err;
        v = schema_version(&s->base);
        if (v >= NMIGRATIONS) {
            pg__sqlite_exec(s, "COMMIT", "ending a migration");
            break;
        }
        if ((err = pg__sqlite_exec(s, migrations[v], "migrating the schema")) != 0) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return err;
        }
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
        if ((err = pg__sqlite_exec(s, sql, "recording the schema version")) != 0 ||
            (err = pg__sqlite_exec(s, "COMMIT", "committing a migration")) != 0) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return err;
        }
        v++;
    }
    if (v > NMIGRATIONS)
        return pg_error_set(PG_ESCHEMA,
                            "%s: schema version %d is newer than this perfgate supports (%d); upgrade perfgate",
                            s->base.path, v, NMIGRATIONS);
    return 0;
}

static void sqlite_close(pg_store *store);

/*
 * No allocation statistics: nothing here reads them, and with them on every
 * sqlite3_malloc and free takes a global mutex. Only possible before SQLite
 * initialises, hence once, first. Likewise a connection is opened NOMUTEX:
 * it is used by the thread that opened it (worker threads of the plugin host
 * and the roofline never touch the store), so serialising every step and
 * column read on it buys nothing.
 */
static void sqlite_configure(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int sqlite_open(pg_store **out, const char *path)
{
    static pthread_once_t configured = PTHREAD_ONCE_INIT;
    pg_sqlite_store *s = NULL;
    int err = PG_ESTORE;

    *out = NULL;
    pthread_once(&configured, sqlite_configure);
    s = calloc(1, sizeof(*s));
    if (s)
        s->base.ops = &pg__store_sqlite;
    if (!s || !(s->base.path = pg__strdup(path))) {
        err = pg_error_set(PG_ENOMEM, "out of memory opening %s", path);
        goto cleanup;
    }
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        err = pg_error_set(PG_ESTORE, "%s: cannot open database: %s", path,
                           s->db ? sqlite3_errmsg(s->db) : "out of memory");
        goto cleanup;
    }
    sqlite3_busy_timeout(s->db, 10000);
    sqlite3_extended_result_codes(s->db, 1);
    /* A file may come from elsewhere (an artifact): what its schema holds never calls functions with side effects. */
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    /* journal_mode reads the file: a non-database fails here with a clear message. */
    if ((err = pg__sqlite_exec(s, "PRAGMA journal_mode = WAL", "cannot open database")) != 0 ||
        (err = pg__sqlite_exec(s, "PRAGMA foreign_keys = ON", "enabling foreign keys")) != 0 ||
        (err = pg__sqlite_exec(s, "PRAGMA synchronous = NORMAL", "setting synchronous mode")) != 0)
        goto cleanup;
    if ((err = pg__sqlite_migrate(s)) != 0)
        goto cleanup;
    *out = &s->base;
    s = NULL;
    err = 0;

cleanup:
    sqlite_close(s ? &s->base : NULL);
    return err;
}

static void sqlite_close(pg_store *store)
{
    pg_sqlite_store *s = pg__sqlite(store);

    if (!s)
        return;
    if (s->db)
        sqlite3_close_v2(s->db);
    free(s->base.path);
    free(s);
}


/* ---- baseline pins ------------------------------------------------------ */

static int sqlite_pin(pg_store *store, const char *name, int64_t run_id, int64_t pinned_at)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    int err;

    if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO baselines(name, run_id, pinned_at) VALUES(?, ?, ?)", -1,
                           &st, NULL) != SQLITE_OK)
        return plain_error(s, "pinning a baseline");
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, run_id);
    sqlite3_bind_int64(st, 3, pinned_at);
    err = sqlite3_step(st) == SQLITE_DONE ? 0 : plain_error(s, "pinning a baseline");
    sqlite3_finalize(st);
    return err;
}

static int sqlite_unpin(size_t *out_removed, pg_store *store, const char *name, int64_t run_id)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    int err;

    if (sqlite3_prepare_v2(s->db,
                           run_id ? "DELETE FROM baselines WHERE name = ? AND run_id = ?"
                                  : "DELETE FROM baselines WHERE name = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return plain_error(s, "unpinning a baseline");
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    if (run_id)
        sqlite3_bind_int64(st, 2, run_id);
    err = sqlite3_step(st) == SQLITE_DONE ? 0 : plain_error(s, "unpinning a baseline");
    if (!err && out_removed)
        *out_removed = (size_t)sqlite3_changes(s->db);
    sqlite3_finalize(st);
    return err;
}

static int sqlite_list_pins(pg_baseline_list *out, pg_store *store, const char *name)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    int rc, err = 0;

    memset(out, 0, sizeof(*out));
    if (sqlite3_prepare_v2(s->db,
                           "SELECT b.name, b.run_id, b.pinned_at, r.commit_sha, r.branch FROM baselines b"
                           " JOIN runs r ON r.id = b.run_id WHERE (?1 IS NULL OR b.name = ?1)"
                           " ORDER BY b.name, b.run_id DESC",
                           -1, &st, NULL) != SQLITE_OK)
        return plain_error(s, "listing baselines");
    if (name)
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        pg_baseline_entry *p = realloc(out->items, (out->count + 1) * sizeof(*p));
        if (!p) {
            err = pg_error_set(PG_ENOMEM, "out of memory listing baselines");
            break;
        }
        out->items = p;
        p += out->count++;
        p->name = pg__sqlite_col_text(st, 0);
        p->run_id = sqlite3_column_int64(st, 1);
        p->pinned_at = sqlite3_column_int64(st, 2);
        p->commit = pg__sqlite_col_text(st, 3);
        p->branch = pg__sqlite_col_text(st, 4);
    }
    if (!err && rc != SQLITE_DONE)
        err = plain_error(s, "listing baselines");
    sqlite3_finalize(st);
    if (err)
        pg_baseline_list_clear(out);
    return err;
}

/* ---- maintenance -------------------------------------------------------- */

static int sqlite_prune(pg_prune_stats *stats, pg_store *store, const pg_prune_options *opts)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    int64_t now = opts->now ? opts->now : pg__now_unix();
    int err;

    if ((err = exec_as(s, "BEGIN IMMEDIATE", "starting prune", 0)) != 0)
        return err;
    /*
     * A run is pruned when it is outside the newest keep_runs (if given) and
     * older than older_than (if given); pinned runs never are.
     */
    if ((err = exec_as(s,
                       "CREATE TEMP TABLE IF NOT EXISTS prune_ids(id INTEGER PRIMARY KEY);"
                       "DELETE FROM prune_ids;",
                       "preparing prune", 0)) != 0)
        goto rollback;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO prune_ids(id) SELECT r.id FROM runs r"
                           " WHERE (?1 = 0 OR r.id NOT IN (SELECT id FROM runs ORDER BY id DESC LIMIT ?1))"
                           "   AND (?2 = 0 OR r.started_at < ?3 - ?2)"
                           "   AND r.id NOT IN (SELECT run_id FROM baselines)",
                           -1, &st, NULL) != SQLITE_OK) {
        err = plain_error(s, "selecting runs to prune");
        goto rollback;
    }
    sqlite3_bind_int64(st, 1, (sqlite3_int64)opts->keep_runs);
    sqlite3_bind_int64(st, 2, opts->older_than);
    sqlite3_bind_int64(st, 3, now);
    if (sqlite3_step(st) != SQLITE_DONE) {
        err = plain_error(s, "selecting runs to prune");
        goto rollback;
    }
    sqlite3_finalize(st);
    st = NULL;
    stats->runs_pruned = (size_t)sqlite3_changes(s->db);
    if ((err = exec_as(s,
                       opts->keep_summaries
                           ? "UPDATE results SET samples = NULL WHERE run_id IN (SELECT id FROM prune_ids)"
                           : "DELETE FROM runs WHERE id IN (SELECT id FROM prune_ids)",
                       "pruning", 0)) != 0)
        goto rollback;
    if (!opts->keep_summaries &&
        (err = exec_as(s, "DELETE FROM cases WHERE id NOT IN (SELECT DISTINCT case_id FROM results)",
                       "removing unused cases", 0)) != 0)
        goto rollback;
    if ((err = exec_as(s, "COMMIT", "committing prune", 0)) != 0)
        goto rollback;
    if (sqlite3_prepare_v2(s->db, "SELECT COUNT(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        stats->runs_kept = (size_t)sqlite3_column_int64(st, 0) - (opts->keep_summaries ? stats->runs_pruned : 0);
    sqlite3_finalize(st);
    /* Give the space back: checkpoint the WAL, then rebuild the file. */
    return exec_as(s, "PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE);",
                   "compacting the database", 0);

rollback:
    sqlite3_finalize(st);
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return err;
}

static int64_t count(pg_sqlite_store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;

    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static int sqlite_check(pg_check_report *out, pg_store *store)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK)
        return plain_error(s, "integrity check");
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
        snprintf(out->message, sizeof(out->message), "integrity check failed: %s", sqlite3_errmsg(s->db));
        return 0;
    }
    if (out->ok && count(s, "SELECT COUNT(*) FROM pragma_foreign_key_check") > 0) {
        out->ok = 0;
        snprintf(out->message, sizeof(out->message), "foreign keys: rows refer to missing parents");
    }
    if (out->ok && out->schema_version != out->schema_latest) {
        out->ok = 0;
        snprintf(out->message, sizeof(out->message), "schema version %d, expected %d", out->schema_version,
                 out->schema_latest);
    }
    /* What integrity cannot see: objects perfgate did not create, and samples that do not match their count. */
    if (out->ok)
        out->ok = pg__sqlite_check_schema(s, out->message, sizeof(out->message)) &&
                  pg__sqlite_check_samples(s, out->message, sizeof(out->message));
    out->runs = count(s, "SELECT COUNT(*) FROM runs");
    out->results = count(s, "SELECT COUNT(*) FROM results");
    out->results_with_samples = count(s, "SELECT COUNT(*) FROM results WHERE samples IS NOT NULL");
    out->checks = count(s, "SELECT COUNT(*) FROM checks");
    out->decisions = count(s, "SELECT COUNT(*) FROM decisions");
    out->bytes = pg_store_file_size(store);
    return 0;
}

/*
 * quick_check: the structure of every page (linear in the file, no index
 * cross-checks), so one overwritten page is found before a gate reads a
 * baseline from the file or writes a run into it.
 */
static int sqlite_quick_check(pg_store *store)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    char first[256] = "";
    int rc;

    if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK)
        snprintf(first, sizeof(first), "%s", sqlite3_errmsg(s->db));
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (line && strcmp(line, "ok") != 0 && !first[0])
            snprintf(first, sizeof(first), "%s", line);
    }
    if (st && rc != SQLITE_DONE && !first[0])
        snprintf(first, sizeof(first), "%s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    if (!first[0])
        return 0;
    return pg_error_set(PG_ESTORE, "%s: the database is damaged (%s); nothing was measured or stored. Restore it "
                                   "(perfgate db fetch, or a backup) and see perfgate db check",
                        s->base.path, first);
}

static const char *sqlite_filename(pg_store *store)
{
    return sqlite3_db_filename(pg__sqlite(store)->db, "main");
}

const pg_store_ops pg__store_sqlite = {
    .name = "sqlite",
    .schema_latest = NMIGRATIONS,
    .open = sqlite_open,
    .open_read = pg__sqlite_open_read,
    .close = sqlite_close,
    .schema_version = schema_version,
    .save_run = pg__sqlite_save_run,
    .load_run = pg__sqlite_load_run,
    .save_decision = pg__sqlite_save_decision,
    .load_decision = pg__sqlite_load_decision,
    .list_runs = pg__sqlite_list_runs,
    .pin = sqlite_pin,
    .unpin = sqlite_unpin,
    .list_pins = sqlite_list_pins,
    .history_rows = pg__sqlite_history_rows,
    .prune = sqlite_prune,
    .check = sqlite_check,
    .quick_check = sqlite_quick_check,
    .filename = sqlite_filename,
    .roofs_load = pg__sqlite_roofs_load,
    .roofs_save = pg__sqlite_roofs_save,
};
