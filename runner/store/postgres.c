/*
 * postgres.c - the PostgreSQL engine: a shared server reached through
 * libpq, its schema and migrations (a version table), baseline pins, the
 * history query and maintenance. Runs themselves are written and read in
 * postgres_runs.c.
 *
 * Connection settings, TLS (sslmode) and passwords (PGPASSFILE, PGPASSWORD)
 * are libpq's own: the URL is handed to it unchanged, and messages only
 * ever show it with the password masked.
 */
#include "store/postgres.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Forward migrations: entry i takes schema version i to i+1. Append only;
 * never edit a migration that has shipped. The model is the SQLite engine's,
 * with 64-bit identities and raw samples as bytea.
 */
static const char *migrations[] = {
    /* 0 -> 1: the initial schema. */
    "CREATE TABLE machines ("
    "  id BIGSERIAL PRIMARY KEY,"
    "  hash TEXT NOT NULL UNIQUE,"
    "  fingerprint TEXT NOT NULL);"
    "CREATE TABLE runs ("
    "  id BIGSERIAL PRIMARY KEY,"
    "  uuid TEXT NOT NULL UNIQUE,"
    "  suite_set TEXT,"
    "  commit_sha TEXT,"
    "  branch TEXT,"
    "  ref TEXT,"
    "  pr BIGINT,"
    "  ci_url TEXT,"
    "  source TEXT NOT NULL DEFAULT 'perfgate',"
    "  tool_version TEXT,"
    "  machine_id BIGINT REFERENCES machines(id),"
    "  started_at BIGINT NOT NULL,"
    "  finished_at BIGINT NOT NULL);"
    /* Baseline selection filters on branch, commit prefix and machine, newest first. */
    "CREATE INDEX runs_branch ON runs(branch, id);"
    "CREATE INDEX runs_commit ON runs(commit_sha text_pattern_ops);"
    "CREATE INDEX runs_machine ON runs(machine_id, id);"
    "CREATE TABLE cases ("
    "  id BIGSERIAL PRIMARY KEY,"
    "  key TEXT NOT NULL UNIQUE,"
    "  suite TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  params TEXT NOT NULL,"
    "  threads INTEGER NOT NULL,"
    "  device TEXT NOT NULL);"
    "CREATE TABLE results ("
    "  id BIGSERIAL PRIMARY KEY,"
    "  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  case_id BIGINT NOT NULL REFERENCES cases(id),"
    "  metric TEXT NOT NULL,"
    "  unit TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  message TEXT,"
    "  n BIGINT NOT NULL,"
    "  number_per_run BIGINT NOT NULL,"
    "  median DOUBLE PRECISION, q1 DOUBLE PRECISION, q3 DOUBLE PRECISION, iqr DOUBLE PRECISION,"
    "  mean DOUBLE PRECISION, stddev DOUBLE PRECISION, min DOUBLE PRECISION, max DOUBLE PRECISION,"
    "  flops DOUBLE PRECISION, bytes DOUBLE PRECISION, mfu DOUBLE PRECISION, warmup_s DOUBLE PRECISION,"
    "  threshold DOUBLE PRECISION, alpha DOUBLE PRECISION,"
    "  warnings INTEGER NOT NULL DEFAULT 0,"
    "  extra TEXT,"
    "  samples BYTEA,"
    "  UNIQUE(run_id, case_id, metric));"
    /* History reads one case across runs. */
    "CREATE INDEX results_case ON results(case_id, run_id);"
    "CREATE TABLE checks ("
    "  id BIGSERIAL PRIMARY KEY,"
    "  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  suite TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  expected TEXT,"
    "  actual TEXT,"
    "  passed INTEGER NOT NULL,"
    "  skipped INTEGER NOT NULL DEFAULT 0,"
    "  message TEXT);"
    "CREATE INDEX checks_run ON checks(run_id);"
    "CREATE TABLE baselines ("
    "  name TEXT NOT NULL,"
    "  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  pinned_at BIGINT NOT NULL,"
    "  PRIMARY KEY(name, run_id));"
    "CREATE INDEX baselines_run ON baselines(run_id);",
    /* 1 -> 2: the machine's roofs, measured once per machine (roofline.h). */
    "CREATE TABLE roofs ("
    "  machine_hash TEXT NOT NULL,"
    "  device TEXT NOT NULL,"
    "  threads INTEGER NOT NULL,"
    "  peak_gflops DOUBLE PRECISION NOT NULL,"
    "  triad_gbs DOUBLE PRECISION NOT NULL,"
    "  copy_gbs DOUBLE PRECISION NOT NULL,"
    "  llc_bytes DOUBLE PRECISION NOT NULL,"
    "  blas TEXT NOT NULL,"
    "  measured_at BIGINT NOT NULL,"
    "  PRIMARY KEY(machine_hash, device, threads));",
    /* 2 -> 3: as the SQLite engine's: run modes, absent cases, decisions. */
    "ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'plain';"
    "ALTER TABLE results ADD COLUMN absent INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN fingerprint TEXT;"
    "CREATE TABLE decisions ("
    "  run_id BIGINT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  made_at BIGINT NOT NULL,"
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
    "  suite_shift DOUBLE PRECISION,"
    "  suite_spread DOUBLE PRECISION,"
    "  canary TEXT,"
    "  detail TEXT NOT NULL DEFAULT '{}');"
    "CREATE TABLE decision_cases ("
    "  run_id BIGINT NOT NULL REFERENCES decisions(run_id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  key TEXT NOT NULL,"
    "  verdict TEXT NOT NULL,"
    "  reason TEXT,"
    "  method TEXT,"
    "  ratio DOUBLE PRECISION, ci_lo DOUBLE PRECISION, ci_hi DOUBLE PRECISION,"
    "  p DOUBLE PRECISION, p_adj DOUBLE PRECISION,"
    "  rounds BIGINT,"
    "  confirm TEXT,"
    "  detail TEXT NOT NULL DEFAULT '{}',"
    "  PRIMARY KEY(run_id, idx));",
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

/* Serialises migrations of one database across processes (any constant will do; this one spells "perf"). */
#define MIGRATION_LOCK "1885696614"

/* The server's message on one line: libpq's may span several, with tabs. */
static void one_line(char *msg)
{
    char *p, *w;

    for (p = w = msg; *p; p++) {
        char c = (*p == '\n' || *p == '\r' || *p == '\t') ? ' ' : *p;
        if (c == ' ' && (w == msg || w[-1] == ' '))
            continue;
        *w++ = c;
    }
    while (w > msg && w[-1] == ' ')
        w--;
    *w = '\0';
}

int pg__pq_error(pg_pq_store *s, const PGresult *res, const char *what)
{
    const char *m = res ? PQresultErrorMessage(res) : NULL;
    char *msg;
    int err;

    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

    snprintf(s->sqlstate, sizeof(s->sqlstate), "%s", state ? state : "");
    if (s->timed_out)
        m = NULL;
    if ((!m || !*m) && s->timed_out)
        m = "the server did not answer within the deadline (PERFGATE_DB_TIMEOUT); the connection was closed";
    if (!m || !*m)
        m = s->conn ? PQerrorMessage(s->conn) : "out of memory";
    msg = pg__strdup(m && *m ? m : "unknown error");
    if (msg)
        one_line(msg);
    err = pg_error_set(PG_ESTORE, "%s: %s: %s", s->base.path, what, msg ? msg : "out of memory");
    free(msg);
    return err;
}

int pg__pq_exec(pg_pq_store *s, PGresult **out, ExecStatusType want, const char *sql, int nparams,
                const char *const *params, const char *what)
{
    /* Without parameters, the simple protocol: a migration is several statements in one string. */
    PGresult *res = pg__pq_query(s, sql, nparams, params);
    int err = 0;

    if (out)
        *out = NULL;
    if (!res || PQresultStatus(res) != want) {
        err = pg__pq_error(s, res, what);
        PQclear(res);
        return err;
    }
    if (out)
        *out = res;
    else
        PQclear(res);
    return 0;
}

char *pg__pq_text(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? NULL : pg__strdup(PQgetvalue(res, row, col));
}

int64_t pg__pq_int(const PGresult *res, int row, int col, int64_t dflt)
{
    return PQgetisnull(res, row, col) ? dflt : (int64_t)strtoll(PQgetvalue(res, row, col), NULL, 10);
}

double pg__pq_double(const PGresult *res, int row, int col, double dflt)
{
    return PQgetisnull(res, row, col) ? dflt : strtod(PQgetvalue(res, row, col), NULL);
}

/* Notices ("relation already exists, skipping") are not for the user. */
static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* Session settings every connection needs: exact floats, quiet notices, UTC. */
static int session(pg_pq_store *s)
{
    PQsetNoticeProcessor(s->conn, quiet, NULL);
    s->prepared = 0;
    return pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                       "SET extra_float_digits = 3; SET client_min_messages = warning; SET TIME ZONE 'UTC'", 0,
                       NULL, "configuring the session");
}

int pg__pq_alive(pg_pq_store *s)
{
    if (PQstatus(s->conn) == CONNECTION_OK)
        return 0;
    /* A server that let a deadline pass is not waited for again: the caller saves locally at once. */
    if (s->timed_out || pg__pq_connect(s, s->conn != NULL) != 0 || PQstatus(s->conn) != CONNECTION_OK)
        return pg__pq_error(s, NULL, "the server connection was lost");
    return session(s);
}

static int schema_version(pg_store *store)
{
    pg_pq_store *s = pg__pq(store);
    PGresult *res = pg__pq_query(s, "SELECT max(version) FROM perfgate_schema", 0, NULL);
    int v = -1;

    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
        v = (int)pg__pq_int(res, 0, 0, 0);
    PQclear(res);
    return v;
}

static int migrate(pg_pq_store *s)
{
    char sql[96];
    int v, err;

    /*
     * One transaction under an advisory lock: a fleet of runners opening a
     * fresh server at once migrates it once, and a crash mid-way leaves the
     * previous version whole.
     */
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "BEGIN", 0, NULL, "starting a migration")) != 0)
        return err;
    if ((err = pg__pq_exec(s, NULL, PGRES_TUPLES_OK, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")", 0, NULL,
                           "locking the schema")) != 0 ||
        (err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                           "CREATE TABLE IF NOT EXISTS perfgate_schema (version INTEGER NOT NULL)", 0, NULL,
                           "creating the schema version table")) != 0)
        goto rollback;
    v = schema_version(&s->base);
    if (v < 0) {
        err = pg__pq_error(s, NULL, "reading the schema version");
        goto rollback;
    }
    if (v > NMIGRATIONS) {
        err = pg_error_set(PG_ESCHEMA, "%s: schema version %d is newer than this perfgate supports (%d); upgrade perfgate",
                           s->base.path, v, NMIGRATIONS);
        goto rollback;
    }
    for (; v < NMIGRATIONS; v++)
        if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, migrations[v], 0, NULL, "migrating the schema")) != 0)
            goto rollback;
    snprintf(sql, sizeof(sql), "DELETE FROM perfgate_schema; INSERT INTO perfgate_schema VALUES (%d)", v);
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, sql, 0, NULL, "recording the schema version")) != 0)
        goto rollback;
    return pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "COMMIT", 0, NULL, "committing a migration");

rollback:
    pg__pq_run(s, "ROLLBACK");
    return err;
}

static void pq_close(pg_store *store);

static int pq_open(pg_store **out, const char *url)
{
    pg_pq_store *s = calloc(1, sizeof(*s));
    int err;

    *out = NULL;
    if (s)
        s->base.ops = &pg__store_postgres;
    if (!s || !(s->base.path = pg__store_redact(url)) || !(s->url = pg__strdup(url))) {
        pq_close(s ? &s->base : NULL);
        return pg_error_set(PG_ENOMEM, "out of memory opening a database");
    }
    s->timeout_ns = pg__pq_timeout_ns();
    if (pg__pq_connect(s, 0) != 0 || PQstatus(s->conn) != CONNECTION_OK) {
        err = pg__pq_error(s, NULL, "cannot connect");
        goto fail;
    }
    if ((err = session(s)) != 0 || (err = migrate(s)) != 0)
        goto fail;
    *out = &s->base;
    return 0;

fail:
    pq_close(&s->base);
    return err;
}

static void pq_close(pg_store *store)
{
    pg_pq_store *s = pg__pq(store);

    if (!s)
        return;
    if (s->conn)
        PQfinish(s->conn);
    free(s->url);
    free(s->base.path);
    free(s);
}

/* ---- baseline pins ------------------------------------------------------ */

static int pq_pin(pg_store *store, const char *name, int64_t run_id, int64_t pinned_at)
{
    pg_pq_store *s = pg__pq(store);
    char id[32], at[32];
    const char *p[3] = {name, id, at};

    snprintf(id, sizeof(id), "%lld", (long long)run_id);
    snprintf(at, sizeof(at), "%lld", (long long)pinned_at);
    return pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                       "INSERT INTO baselines(name, run_id, pinned_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", 3,
                       p, "pinning a baseline");
}

static int pq_unpin(size_t *out_removed, pg_store *store, const char *name, int64_t run_id)
{
    pg_pq_store *s = pg__pq(store);
    PGresult *res;
    char id[32];
    const char *p[2] = {name, id};
    int err;

    snprintf(id, sizeof(id), "%lld", (long long)run_id);
    if ((err = pg__pq_exec(s, &res, PGRES_COMMAND_OK,
                           run_id ? "DELETE FROM baselines WHERE name = $1 AND run_id = $2"
                                  : "DELETE FROM baselines WHERE name = $1",
                           run_id ? 2 : 1, p, "unpinning a baseline")) != 0)
        return err;
    if (out_removed)
        *out_removed = (size_t)strtoul(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return 0;
}

static int pq_list_pins(pg_baseline_list *out, pg_store *store, const char *name)
{
    pg_pq_store *s = pg__pq(store);
    PGresult *res;
    const char *p[1] = {name};
    int i, n, err;

    memset(out, 0, sizeof(*out));
    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "SELECT b.name, b.run_id, b.pinned_at, r.commit_sha, r.branch FROM baselines b"
                           " JOIN runs r ON r.id = b.run_id WHERE ($1::text IS NULL OR b.name = $1)"
                           " ORDER BY b.name COLLATE \"C\", b.run_id DESC",
                           1, p, "listing baselines")) != 0)
        return err;
    n = PQntuples(res);
    if (n > 0 && !(out->items = calloc((size_t)n, sizeof(*out->items)))) {
        PQclear(res);
        return pg_error_set(PG_ENOMEM, "out of memory listing baselines");
    }
    for (i = 0; i < n; i++) {
        pg_baseline_entry *e = &out->items[out->count++];
        e->name = pg__pq_text(res, i, 0);
        e->run_id = pg__pq_int(res, i, 1, 0);
        e->pinned_at = pg__pq_int(res, i, 2, 0);
        e->commit = pg__pq_text(res, i, 3);
        e->branch = pg__pq_text(res, i, 4);
    }
    PQclear(res);
    return 0;
}

/* ---- history ------------------------------------------------------------ */

/*
 * The SQLite engine matches case keys with GLOB (`*`, `?`, `[...]` with `^`
 * to negate, case-sensitive); the same pattern as an anchored POSIX regular
 * expression, so both engines select the same keys.
 */
static char *glob_to_regex(const char *glob)
{
    pg_buf b = PG_BUF_INIT;
    const char *p;

    pg__buf_puts(&b, "^");
    for (p = glob; *p; p++) {
        if (*p == '*') {
            pg__buf_puts(&b, ".*");
        } else if (*p == '?') {
            pg__buf_puts(&b, ".");
        } else if (*p == '[' && strchr(p + 1, ']')) {
            const char *end = strchr(p + (p[1] == '^' ? 3 : 2), ']');
            if (!end)
                end = strchr(p + 1, ']');
            pg__buf_put(&b, p, (size_t)(end - p + 1));
            p = end;
        } else {
            if (strchr(".^$+(){}|\\[]", *p))
                pg__buf_puts(&b, "\\");
            pg__buf_put(&b, p, 1);
        }
    }
    pg__buf_puts(&b, "$");
    return pg__buf_detach(&b);
}

static int pq_history_rows(pg_store *store, const char *glob, const char *branch, pg_store_history_cb cb,
                           void *payload)
{
    pg_pq_store *s = pg__pq(store);
    char *re = glob ? glob_to_regex(glob) : NULL;
    const char *p[2] = {re, branch};
    PGresult *res;
    int err = 0, sent;

    if (glob && !re)
        return pg_error_set(PG_ENOMEM, "out of memory reading history");
    /* Row by row (single-row mode): a year of a thousand cases never sits in memory at once. */
    sent = PQsendQueryParams(s->conn,
                             "SELECT c.key, r.id, r.commit_sha, r.branch, r.started_at, x.median, x.q1, x.q3,"
                             " d.verdict"
                             " FROM results x JOIN runs r ON r.id = x.run_id JOIN cases c ON c.id = x.case_id"
                             " LEFT JOIN decision_cases d ON d.run_id = r.id AND d.key = c.key"
                             " WHERE x.status = 'ok' AND x.median > 0 AND r.mode NOT LIKE 'interleaved%'"
                             "   AND ($1::text IS NULL OR c.key ~ $1) AND ($2::text IS NULL OR r.branch = $2)"
                             " ORDER BY c.key COLLATE \"C\", r.id",
                             2, NULL, p, NULL, NULL, 0);
    free(re);
    if (!sent || !PQsetSingleRowMode(s->conn)) {
        err = pg__pq_error(s, NULL, "reading history");
        while ((res = pg__pq_next(s)) != NULL)
            PQclear(res);
        return err;
    }
    while ((res = pg__pq_next(s)) != NULL) {
        ExecStatusType st = PQresultStatus(res);

        if (st == PGRES_SINGLE_TUPLE && !err) {
            pg_store_history_row row;
            row.key = PQgetvalue(res, 0, 0);
            row.run_id = pg__pq_int(res, 0, 1, 0);
            row.commit = PQgetisnull(res, 0, 2) ? NULL : PQgetvalue(res, 0, 2);
            row.branch = PQgetisnull(res, 0, 3) ? NULL : PQgetvalue(res, 0, 3);
            row.started_at = pg__pq_int(res, 0, 4, 0);
            row.median = pg__pq_double(res, 0, 5, 0);
            row.q1 = pg__pq_double(res, 0, 6, 0);
            row.q3 = pg__pq_double(res, 0, 7, 0);
            row.verdict = PQgetisnull(res, 0, 8) ? NULL : PQgetvalue(res, 0, 8);
            err = cb(&row, payload);
        } else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && !err) {
            err = pg__pq_error(s, res, "reading history");
        }
        /* After a stop or a failure the remaining rows are only read past: the connection must end idle. */
        PQclear(res);
    }
    if (!err && s->timed_out)
        err = pg__pq_error(s, NULL, "reading history");
    return err;
}

/* ---- maintenance -------------------------------------------------------- */

static int pq_prune(pg_prune_stats *stats, pg_store *store, const pg_prune_options *opts)
{
    pg_pq_store *s = pg__pq(store);
    char keep[32], older[32], now[32];
    const char *p[3] = {keep, older, now};
    PGresult *res = NULL;
    int err;

    snprintf(keep, sizeof(keep), "%zu", opts->keep_runs);
    snprintf(older, sizeof(older), "%lld", (long long)opts->older_than);
    snprintf(now, sizeof(now), "%lld", (long long)(opts->now ? opts->now : pg__now_unix()));
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "BEGIN", 0, NULL, "starting prune")) != 0)
        return err;
    /* As in the SQLite engine: outside the newest keep_runs, older than older_than, never pinned. */
    if ((err = pg__pq_exec(s, &res, PGRES_COMMAND_OK,
                           "CREATE TEMP TABLE prune_ids ON COMMIT DROP AS SELECT r.id FROM runs r"
                           " WHERE ($1::bigint = 0 OR r.id NOT IN (SELECT id FROM runs ORDER BY id DESC LIMIT $1))"
                           "   AND ($2::bigint = 0 OR r.started_at < $3::bigint - $2::bigint)"
                           "   AND r.id NOT IN (SELECT run_id FROM baselines)",
                           3, p, "selecting runs to prune")) != 0)
        goto rollback;
    stats->runs_pruned = (size_t)strtoul(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    res = NULL;
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                           opts->keep_summaries
                               ? "UPDATE results SET samples = NULL WHERE run_id IN (SELECT id FROM prune_ids)"
                               : "DELETE FROM runs WHERE id IN (SELECT id FROM prune_ids)",
                           0, NULL, "pruning")) != 0)
        goto rollback;
    if (!opts->keep_summaries &&
        (err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                           "DELETE FROM cases c WHERE NOT EXISTS (SELECT 1 FROM results x WHERE x.case_id = c.id)", 0,
                           NULL, "removing unused cases")) != 0)
        goto rollback;
    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK, "SELECT COUNT(*) FROM runs", 0, NULL, "counting runs")) != 0)
        goto rollback;
    stats->runs_kept = (size_t)pg__pq_int(res, 0, 0, 0) - (opts->keep_summaries ? stats->runs_pruned : 0);
    PQclear(res);
    /* The server reclaims the space itself (autovacuum); nothing to compact by hand. */
    return pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "COMMIT", 0, NULL, "committing prune");

rollback:
    PQclear(res);
    pg__pq_run(s, "ROLLBACK");
    return err;
}

static int64_t count(pg_pq_store *s, const char *sql)
{
    PGresult *res = pg__pq_query(s, sql, 0, NULL);
    int64_t n = -1;

    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
        n = pg__pq_int(res, 0, 0, -1);
    PQclear(res);
    return n;
}

static int pq_check(pg_check_report *out, pg_store *store)
{
    pg_pq_store *s = pg__pq(store);
    int64_t bad;

    /* The server keeps its own pages and foreign keys whole; what it cannot know is a sample blob's shape. */
    bad = count(s, "SELECT COUNT(*) FROM results WHERE samples IS NOT NULL AND length(samples) % 8 <> 0");
    if (bad != 0) {
        out->ok = 0;
        if (bad < 0)
            snprintf(out->message, sizeof(out->message), "cannot read the results: %s", PQerrorMessage(s->conn));
        else
            snprintf(out->message, sizeof(out->message), "%lld results hold samples that are not float64 arrays",
                     (long long)bad);
    }
    if (out->ok && out->schema_version != out->schema_latest) {
        out->ok = 0;
        snprintf(out->message, sizeof(out->message), "schema version %d, expected %d", out->schema_version,
                 out->schema_latest);
    }
    out->runs = count(s, "SELECT COUNT(*) FROM runs");
    out->results = count(s, "SELECT COUNT(*) FROM results");
    out->results_with_samples = count(s, "SELECT COUNT(*) FROM results WHERE samples IS NOT NULL");
    out->checks = count(s, "SELECT COUNT(*) FROM checks");
    out->decisions = count(s, "SELECT COUNT(*) FROM decisions");
    out->bytes = count(s, "SELECT pg_database_size(current_database())");
    if (out->runs < 0)
        return pg__pq_error(s, NULL, "checking the database");
    return 0;
}

static const char *pq_filename(pg_store *store)
{
    (void)store;
    return NULL;
}

const pg_store_ops pg__store_postgres = {
    .name = "postgresql",
    .schema_latest = NMIGRATIONS,
    .open = pq_open,
    .open_read = pq_open,
    .close = pq_close,
    .schema_version = schema_version,
    .save_run = pg__pq_save_run,
    .load_run = pg__pq_load_run,
    .save_decision = pg__pq_save_decision,
    .load_decision = pg__pq_load_decision,
    .list_runs = pg__pq_list_runs,
    .pin = pq_pin,
    .unpin = pq_unpin,
    .list_pins = pq_list_pins,
    .history_rows = pq_history_rows,
    .prune = pq_prune,
    .check = pq_check,
    .filename = pq_filename,
    .roofs_load = pg__pq_roofs_load,
    .roofs_save = pg__pq_roofs_save,
};
