/*
 * postgres_runs.c - the PostgreSQL engine's runs: one run written in one
 * transaction (many runners may write at once), read back whole, and
 * listed; and what happens to a run the server could not take.
 */
#include "store/postgres.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often a transaction that lost a race with another writer (deadlock, serialization) is tried again. */
#define SAVE_TRIES 5

static const char insert_result_sql[] =
    "INSERT INTO results(run_id, case_id, metric, unit, status, message, n, number_per_run, median, q1, q3, iqr,"
    " mean, stddev, min, max, flops, bytes, mfu, warmup_s, warnings, extra, samples, threshold, alpha, absent)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,"
    " $23, $24, $25, $26)";

static const char insert_check_sql[] =
    "INSERT INTO checks(run_id, suite, name, kind, expected, actual, passed, message, skipped)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

static int prepare(pg_pq_store *s)
{
    PGresult *res;

    if (s->prepared)
        return 0;
    res = PQsendPrepare(s->conn, "pg_result", insert_result_sql, 0, NULL) ? pg__pq_collect(s) : NULL;
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        int err = pg__pq_error(s, res, "preparing result inserts");
        PQclear(res);
        return err;
    }
    PQclear(res);
    res = PQsendPrepare(s->conn, "pg_check", insert_check_sql, 0, NULL) ? pg__pq_collect(s) : NULL;
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        int err = pg__pq_error(s, res, "preparing check inserts");
        PQclear(res);
        return err;
    }
    PQclear(res);
    s->prepared = 1;
    return 0;
}

/* Text parameters: a fixed buffer per numeric parameter, so one row needs no allocation. */
typedef struct params {
    const char *v[26];
    int len[26], fmt[26];
    char num[26][40];
} params;

static void p_int(params *p, int i, int64_t v)
{
    snprintf(p->num[i], sizeof(p->num[i]), "%lld", (long long)v);
    p->v[i] = p->num[i];
}

/* %.17g reads back to the same double; the server writes it back exactly too (extra_float_digits). */
static void p_double(params *p, int i, double v, int valid)
{
    if (!valid) {
        p->v[i] = NULL;
        return;
    }
    snprintf(p->num[i], sizeof(p->num[i]), "%.17g", v);
    p->v[i] = p->num[i];
}

/* Appends `v` to a PostgreSQL array literal (quoted, `"` and `\` escaped; NULL for NULL). */
static void array_item(pg_buf *b, const char *v)
{
    const char *p;

    pg__buf_puts(b, b->len > 1 ? "," : "");
    if (!v) {
        pg__buf_puts(b, "NULL");
        return;
    }
    pg__buf_puts(b, "\"");
    for (p = v; *p; p++) {
        if (*p == '"' || *p == '\\')
            pg__buf_puts(b, "\\");
        pg__buf_put(b, p, 1);
    }
    pg__buf_puts(b, "\"");
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(const pg_result *const *)a)->key, (*(const pg_result *const *)b)->key);
}

/*
 * The case ids of every result of `run` into ids[] (in result order).
 * Cases are inserted in one statement in key order: two runs writing the
 * same new cases at once then wait on each other in one order, never
 * deadlock.
 */
static int case_ids(pg_pq_store *s, int64_t *ids, const pg_run *run)
{
    pg_buf a[6] = {PG_BUF_INIT, PG_BUF_INIT, PG_BUF_INIT, PG_BUF_INIT, PG_BUF_INIT, PG_BUF_INIT};
    const pg_result **sorted = NULL;
    PGresult *res = NULL;
    const char *p[6];
    size_t i, k;
    int n, err = 0;

    if (!run->nresults)
        return 0;
    if (!(sorted = malloc(run->nresults * sizeof(*sorted))))
        return pg_error_set(PG_ENOMEM, "out of memory saving a run");
    for (i = 0; i < run->nresults; i++)
        sorted[i] = &run->results[i];
    qsort(sorted, run->nresults, sizeof(*sorted), by_key);
    for (k = 0; k < 6; k++)
        pg__buf_puts(&a[k], "{");
    for (i = 0; i < run->nresults; i++) {
        const pg_result *r = sorted[i];
        char threads[16];
        snprintf(threads, sizeof(threads), "%d", r->threads);
        array_item(&a[0], r->key);
        array_item(&a[1], r->suite ? r->suite : "");
        array_item(&a[2], r->name ? r->name : "");
        array_item(&a[3], r->params_json ? r->params_json : "{}");
        array_item(&a[4], threads);
        array_item(&a[5], r->device ? r->device : "cpu");
    }
    for (k = 0; k < 6; k++) {
        pg__buf_puts(&a[k], "}");
        if (!a[k].ptr)
            err = pg_error_set(PG_ENOMEM, "out of memory saving a run");
        p[k] = a[k].ptr;
    }
    if (!err)
        err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                          "INSERT INTO cases(key, suite, name, params, threads, device)"
                          " SELECT DISTINCT ON (key) key, suite, name, params, threads, device"
                          " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[])"
                          "   AS u(key, suite, name, params, threads, device)"
                          " ORDER BY key ON CONFLICT (key) DO NOTHING",
                          6, p, "writing cases");
    /* Then the ids, in the run's own order. */
    pg__buf_clear(&a[0]);
    pg__buf_puts(&a[0], "{");
    for (i = 0; i < run->nresults; i++)
        array_item(&a[0], run->results[i].key);
    pg__buf_puts(&a[0], "}");
    p[0] = a[0].ptr;
    if (!err && !p[0])
        err = pg_error_set(PG_ENOMEM, "out of memory saving a run");
    if (!err)
        err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                          "SELECT k.i, c.id FROM unnest($1::text[]) WITH ORDINALITY AS k(key, i)"
                          " JOIN cases c ON c.key = k.key",
                          1, p, "reading case ids");
    if (!err) {
        n = PQntuples(res);
        if ((size_t)n != run->nresults)
            err = pg_error_set(PG_ESTORE, "%s: %d of %zu cases found after writing them", s->base.path, n,
                               run->nresults);
        for (i = 0; !err && i < (size_t)n; i++)
            ids[pg__pq_int(res, (int)i, 0, 1) - 1] = pg__pq_int(res, (int)i, 1, 0);
    }
    PQclear(res);
    for (k = 0; k < 6; k++)
        pg__buf_clear(&a[k]);
    free(sorted);
    return err;
}

/* Queues one result row in the pipeline; its outcome is read by drain(). */
static int send_result(pg_pq_store *s, int64_t run_id, int64_t case_id, const pg_result *r)
{
    int ok = r->status == PG_STATUS_OK && r->summary.n > 0;
    params p;

    memset(&p, 0, sizeof(p));
    p_int(&p, 0, run_id);
    p_int(&p, 1, case_id);
    p.v[2] = r->metric ? r->metric : "time";
    p.v[3] = r->unit ? r->unit : "s";
    p.v[4] = pg_status_name(r->status);
    p.v[5] = r->message;
    p_int(&p, 6, (int64_t)r->summary.n);
    p_int(&p, 7, r->number_per_run);
    p_double(&p, 8, r->summary.median, ok);
    p_double(&p, 9, r->summary.q1, ok);
    p_double(&p, 10, r->summary.q3, ok);
    p_double(&p, 11, r->summary.iqr, ok);
    p_double(&p, 12, r->summary.mean, ok);
    p_double(&p, 13, r->summary.stddev, ok);
    p_double(&p, 14, r->summary.min, ok);
    p_double(&p, 15, r->summary.max, ok);
    p_double(&p, 16, r->flops, r->flops > 0);
    p_double(&p, 17, r->bytes, r->bytes > 0);
    p_double(&p, 18, r->mfu, r->mfu >= 0);
    p_double(&p, 19, r->warmup_s, 1);
    p_int(&p, 20, (int64_t)r->warnings);
    p.v[21] = r->extra_json;
    /* The raw samples go as they lie in memory (little-endian float64), in binary: no text round trip. */
    if (r->nsamples) {
        p.v[22] = (const char *)r->samples;
        p.len[22] = (int)(r->nsamples * sizeof(double));
        p.fmt[22] = 1;
    }
    p_double(&p, 23, r->threshold, r->threshold > 0);
    p_double(&p, 24, r->alpha, r->alpha > 0);
    p_int(&p, 25, r->status != PG_STATUS_OK && r->absent);
    if (PQsendQueryPrepared(s->conn, "pg_result", 26, p.v, p.len, p.fmt, 0) != 1)
        return pg__pq_error(s, NULL, "writing a result");
    return 0;
}

static int send_check(pg_pq_store *s, int64_t run_id, const pg_check_result *c)
{
    params p;

    memset(&p, 0, sizeof(p));
    p_int(&p, 0, run_id);
    p.v[1] = c->suite ? c->suite : "";
    p.v[2] = c->name ? c->name : "";
    p.v[3] = c->kind ? c->kind : "";
    p.v[4] = c->expected;
    p.v[5] = c->actual;
    p_int(&p, 6, c->passed ? 1 : 0);
    p.v[7] = c->message;
    p_int(&p, 8, c->skipped ? 1 : 0);
    if (PQsendQueryPrepared(s->conn, "pg_check", 9, p.v, NULL, NULL, 0) != 1)
        return pg__pq_error(s, NULL, "writing a check result");
    return 0;
}

/*
 * Ends a batch of `n` queued statements with a sync and reads their
 * outcomes; the first failure is returned (the ones after it are only
 * "aborted"). The transaction stays open: BEGIN made it explicit.
 */
static int drain(pg_pq_store *s, size_t n)
{
    PGresult *res;
    size_t i;
    int err = 0;

    if (PQpipelineSync(s->conn) != 1 || pg__pq_flush(s) != 0)
        return pg__pq_error(s, NULL, "writing results");
    for (i = 0; i < n; i++) {
        if (!(res = pg__pq_next(s)))
            return err ? err : pg__pq_error(s, NULL, "writing results");
        if (PQresultStatus(res) != PGRES_COMMAND_OK && !err)
            err = pg__pq_error(s, res, "writing results");
        PQclear(res);
        PQclear(pg__pq_next(s)); /* the end of this statement's results */
    }
    while ((res = pg__pq_next(s)) != NULL) {
        int sync = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
        PQclear(res);
        if (sync)
            break;
        if (PQstatus(s->conn) != CONNECTION_OK)
            return err ? err : pg__pq_error(s, NULL, "writing results");
    }
    return err;
}

/*
 * Statements queued before their outcomes are read: one round trip per
 * batch instead of one per row. Batches stay small enough that neither
 * side's socket buffer fills while the other is not reading.
 */
#define BATCH 256

static int write_rows(pg_pq_store *s, int64_t run_id, const int64_t *ids, const pg_run *run)
{
    size_t i, queued = 0;
    int err = 0;

    if (PQenterPipelineMode(s->conn) != 1)
        return pg__pq_error(s, NULL, "writing results");
    for (i = 0; !err && i < run->nresults + run->nchecks; i++) {
        if (i < run->nresults) {
            err = send_result(s, run_id, ids[i], &run->results[i]);
            if (!err && pg__store_after_result_hook)
                pg__store_after_result_hook(i);
        } else {
            err = send_check(s, run_id, &run->checks[i - run->nresults]);
        }
        if (!err && ++queued == BATCH) {
            err = drain(s, queued);
            queued = 0;
        }
    }
    if (queued && PQstatus(s->conn) == CONNECTION_OK) {
        int last = drain(s, queued);
        err = err ? err : last;
    }
    if (PQstatus(s->conn) == CONNECTION_OK)
        PQexitPipelineMode(s->conn);
    return err;
}

/* One attempt at writing the run in one transaction; nothing of it is visible unless all of it is. */
static int save_once(int *out_added, pg_pq_store *s, pg_run *run)
{
    PGresult *res = NULL;
    int64_t machine_id = 0, run_id = 0, *ids = NULL;
    char machine[32], pr[32], started[32], finished[32];
    const char *p[14];
    int err, own = 0;

    if ((err = prepare(s)) != 0)
        return err;
    if (run->nresults && !(ids = calloc(run->nresults, sizeof(*ids))))
        return pg_error_set(PG_ENOMEM, "out of memory saving a run");
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "BEGIN", 0, NULL, "starting a transaction")) != 0) {
        free(ids);
        return err;
    }
    if (run->machine_hash) {
        p[0] = run->machine_hash;
        p[1] = run->machine_json ? run->machine_json : "{}";
        if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                               "INSERT INTO machines(hash, fingerprint) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
                               2, p, "writing the machine")) != 0 ||
            (err = pg__pq_exec(s, &res, PGRES_TUPLES_OK, "SELECT id, fingerprint FROM machines WHERE hash = $1", 1,
                               p, "reading the machine")) != 0)
            goto rollback;
        machine_id = pg__pq_int(res, 0, 0, 0);
        /* A fingerprint other than the machine's first (its roofs measured again): the run keeps its own. */
        own = strcmp(PQgetvalue(res, 0, 1), p[1]) != 0;
        PQclear(res);
        res = NULL;
    }

    /* Idempotent by uuid: a run already present (merged before, or by another writer) is kept. */
    snprintf(machine, sizeof(machine), "%lld", (long long)machine_id);
    snprintf(pr, sizeof(pr), "%lld", (long long)run->pr);
    snprintf(started, sizeof(started), "%lld", (long long)run->started_at);
    snprintf(finished, sizeof(finished), "%lld", (long long)(run->finished_at ? run->finished_at : run->started_at));
    p[0] = run->uuid;
    p[1] = run->suite_set;
    p[2] = run->commit;
    p[3] = run->branch;
    p[4] = run->ref;
    p[5] = run->pr > 0 ? pr : NULL;
    p[6] = run->ci_url;
    p[7] = run->source ? run->source : "perfgate";
    p[8] = run->tool_version;
    p[9] = machine_id ? machine : NULL;
    p[10] = started;
    p[11] = finished;
    p[12] = pg_run_mode_name(run->mode);
    p[13] = own ? run->machine_json : NULL;
    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "INSERT INTO runs(uuid, suite_set, commit_sha, branch, ref, pr, ci_url, source,"
                           " tool_version, machine_id, started_at, finished_at, mode, fingerprint)"
                           " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
                           " ON CONFLICT (uuid) DO NOTHING RETURNING id",
                           14, p, "writing a run")) != 0)
        goto rollback;
    if (PQntuples(res) == 0) {
        PQclear(res);
        res = NULL;
        if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK, "SELECT id FROM runs WHERE uuid = $1", 1, p,
                               "reading a stored run")) != 0)
            goto rollback;
        run->id = pg__pq_int(res, 0, 0, 0);
        PQclear(res);
        free(ids);
        return pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "COMMIT", 0, NULL, "ending a transaction");
    }
    run_id = pg__pq_int(res, 0, 0, 0);
    PQclear(res);
    res = NULL;

    if ((err = case_ids(s, ids, run)) != 0)
        goto rollback;
    if ((err = write_rows(s, run_id, ids, run)) != 0)
        goto rollback;
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "COMMIT", 0, NULL, "committing the run")) != 0)
        goto rollback;
    free(ids);
    run->id = run_id;
    if (out_added)
        *out_added = 1;
    return 0;

rollback:
    PQclear(res);
    free(ids);
    if (PQstatus(s->conn) == CONNECTION_OK)
        pg__pq_run(s, "ROLLBACK");
    return err;
}

/* Lost a race with another writer: the same transaction, tried again, goes through. */
static int retryable(const pg_pq_store *s)
{
    return strcmp(s->sqlstate, "40P01") == 0 || strcmp(s->sqlstate, "40001") == 0 ||
           strcmp(s->sqlstate, "23503") == 0 || strcmp(s->sqlstate, "23505") == 0;
}

/*
 * The server could not take the run: its measurements go to a SQLite file
 * of their own (in $PERFGATE_SPOOL_DIR, else the working directory), named
 * in the one-line message, for `perfgate db merge` to bring in later.
 */
static int save_locally(pg_pq_store *s, pg_run *run)
{
    const char *dir = getenv("PERFGATE_SPOOL_DIR");
    char *why = pg__strdup(pg_error_last());
    char *path = pg__asprintf("%s/perfgate-unsaved-%s.db", dir && *dir ? dir : ".", run->uuid ? run->uuid : "run");
    pg_store *local = NULL;
    int err;

    if (!why || !path) {
        free(why);
        free(path);
        return pg_error_set(PG_ENOMEM, "out of memory saving a run");
    }
    if ((err = pg__store_sqlite.open(&local, path)) == 0) {
        err = pg__store_sqlite.save_run(NULL, local, run);
        pg__store_sqlite.close(local);
    }
    run->id = 0;
    if (err)
        err = pg_error_set(PG_ESTORE, "%s; saving the run to %s failed too: %s", why, path, pg_error_last());
    else
        err = pg_error_set(PG_ESTORE, "%s; the run was saved to %s: bring it in later with perfgate db merge -o '%s' %s",
                           why, path, s->base.path, path);
    free(why);
    free(path);
    return err;
}

int pg__pq_save_run(int *out_added, pg_store *store, pg_run *run)
{
    pg_pq_store *s = pg__pq(store);
    int tries, err;

    if (out_added)
        *out_added = 0;
    err = pg__pq_alive(s);
    for (tries = 0; !err && tries < SAVE_TRIES; tries++) {
        if ((err = save_once(out_added, s, run)) == 0 || err == PG_ENOMEM)
            break;
        /* A server that restarted since the store was opened takes the run on a new connection. */
        if (PQstatus(s->conn) != CONNECTION_OK) {
            char *why = pg__strdup(pg_error_last());
            if (pg__pq_alive(s) != 0) {
                err = pg_error_set(PG_ESTORE, "%s", why ? why : pg_error_last());
                free(why);
                break;
            }
            free(why);
        } else if (!retryable(s)) {
            break;
        }
    }
    if (err && err != PG_ENOMEM)
        err = save_locally(s, run);
    return err;
}

/* ---- reading ------------------------------------------------------------ */

static int load_results(pg_pq_store *s, pg_run *run, const char *const *p)
{
    PGresult *res;
    int i, n, err;

    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "SELECT c.key, c.suite, c.name, c.params, c.threads, c.device, r.metric, r.unit,"
                           " r.status, r.message, r.n, r.number_per_run, r.median, r.q1, r.q3, r.iqr,"
                           " r.mean, r.stddev, r.min, r.max, r.flops, r.bytes, r.mfu, r.warmup_s,"
                           " r.warnings, r.extra, r.samples, r.threshold, r.alpha, r.absent"
                           " FROM results r JOIN cases c ON c.id = r.case_id"
                           " WHERE r.run_id = $1 ORDER BY r.id",
                           1, p, "reading results")) != 0)
        return err;
    n = PQntuples(res);
    for (i = 0; i < n; i++) {
        pg_result *r;

        if ((err = pg_run_add_result(&r, run)) != 0)
            break;
        r->key = pg__pq_text(res, i, 0);
        r->suite = pg__pq_text(res, i, 1);
        r->name = pg__pq_text(res, i, 2);
        r->params_json = pg__pq_text(res, i, 3);
        r->threads = (int)pg__pq_int(res, i, 4, 0);
        r->device = pg__pq_text(res, i, 5);
        r->metric = pg__pq_text(res, i, 6);
        r->unit = pg__pq_text(res, i, 7);
        pg_status_parse(&r->status, PQgetvalue(res, i, 8));
        r->message = pg__pq_text(res, i, 9);
        r->summary.n = (size_t)pg__pq_int(res, i, 10, 0);
        r->number_per_run = pg__pq_int(res, i, 11, 0);
        r->summary.median = pg__pq_double(res, i, 12, 0);
        r->summary.q1 = pg__pq_double(res, i, 13, 0);
        r->summary.q3 = pg__pq_double(res, i, 14, 0);
        r->summary.iqr = pg__pq_double(res, i, 15, 0);
        r->summary.mean = pg__pq_double(res, i, 16, 0);
        r->summary.stddev = pg__pq_double(res, i, 17, 0);
        r->summary.min = pg__pq_double(res, i, 18, 0);
        r->summary.max = pg__pq_double(res, i, 19, 0);
        r->flops = pg__pq_double(res, i, 20, 0);
        r->bytes = pg__pq_double(res, i, 21, 0);
        r->mfu = pg__pq_double(res, i, 22, -1);
        r->warmup_s = pg__pq_double(res, i, 23, 0);
        r->warnings = (unsigned)pg__pq_int(res, i, 24, 0);
        r->extra_json = pg__pq_text(res, i, 25);
        r->threshold = pg__pq_double(res, i, 27, 0);
        r->alpha = pg__pq_double(res, i, 28, 0);
        r->absent = (int)pg__pq_int(res, i, 29, 0);
        if (!PQgetisnull(res, i, 26)) {
            size_t bytes = 0;
            unsigned char *raw = PQunescapeBytea((const unsigned char *)PQgetvalue(res, i, 26), &bytes);
            if (!raw) {
                err = pg_error_set(PG_ENOMEM, "out of memory loading samples");
                break;
            }
            if (bytes >= sizeof(double)) {
                r->nsamples = bytes / sizeof(double);
                if (!(r->samples = malloc(r->nsamples * sizeof(double)))) {
                    PQfreemem(raw);
                    err = pg_error_set(PG_ENOMEM, "out of memory loading samples");
                    break;
                }
                memcpy(r->samples, raw, r->nsamples * sizeof(double));
            }
            PQfreemem(raw);
        }
    }
    PQclear(res);
    return err;
}

static int load_checks(pg_pq_store *s, pg_run *run, const char *const *p)
{
    PGresult *res;
    int i, n, err;

    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "SELECT suite, name, kind, expected, actual, passed, message, skipped"
                           " FROM checks WHERE run_id = $1 ORDER BY id",
                           1, p, "reading checks")) != 0)
        return err;
    n = PQntuples(res);
    for (i = 0; i < n; i++) {
        pg_check_result *c;

        if ((err = pg_run_add_check(&c, run)) != 0)
            break;
        c->suite = pg__pq_text(res, i, 0);
        c->name = pg__pq_text(res, i, 1);
        c->kind = pg__pq_text(res, i, 2);
        c->expected = pg__pq_text(res, i, 3);
        c->actual = pg__pq_text(res, i, 4);
        c->passed = (int)pg__pq_int(res, i, 5, 0);
        c->message = pg__pq_text(res, i, 6);
        c->skipped = (int)pg__pq_int(res, i, 7, 0);
    }
    PQclear(res);
    return err;
}

int pg__pq_load_run(pg_run **out, pg_store *store, int64_t run_id)
{
    pg_pq_store *s = pg__pq(store);
    PGresult *res = NULL;
    pg_run *run = NULL;
    char id[32];
    const char *p[1] = {id};
    int err;

    *out = NULL;
    snprintf(id, sizeof(id), "%lld", (long long)run_id);
    /* One snapshot for the run, its results and its checks. */
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", 0, NULL,
                           "starting a read")) != 0)
        return err;
    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "SELECT r.uuid, r.suite_set, r.commit_sha, r.branch, r.ref, r.pr, r.ci_url,"
                           " r.source, r.tool_version, m.hash, coalesce(r.fingerprint, m.fingerprint), r.started_at,"
                           " r.finished_at, r.mode FROM runs r LEFT JOIN machines m ON m.id = r.machine_id"
                           " WHERE r.id = $1",
                           1, p, "reading a run")) != 0)
        goto cleanup;
    if (PQntuples(res) == 0) {
        err = pg_error_set(PG_ENOTFOUND, "%s: no run with id %lld", s->base.path, (long long)run_id);
        goto cleanup;
    }
    if ((err = pg_run_new(&run)) != 0)
        goto cleanup;
    run->id = run_id;
    free(run->uuid);
    free(run->source);
    run->uuid = pg__pq_text(res, 0, 0);
    run->suite_set = pg__pq_text(res, 0, 1);
    run->commit = pg__pq_text(res, 0, 2);
    run->branch = pg__pq_text(res, 0, 3);
    run->ref = pg__pq_text(res, 0, 4);
    run->pr = pg__pq_int(res, 0, 5, 0);
    run->ci_url = pg__pq_text(res, 0, 6);
    run->source = pg__pq_text(res, 0, 7);
    run->tool_version = pg__pq_text(res, 0, 8);
    run->machine_hash = pg__pq_text(res, 0, 9);
    run->machine_json = pg__pq_text(res, 0, 10);
    run->started_at = pg__pq_int(res, 0, 11, 0);
    run->finished_at = pg__pq_int(res, 0, 12, 0);
    if ((err = pg_run_mode_parse(&run->mode, PQgetvalue(res, 0, 13))) != 0)
        goto cleanup;
    if ((err = load_results(s, run, p)) != 0 || (err = load_checks(s, run, p)) != 0)
        goto cleanup;
    *out = run;
    run = NULL;

cleanup:
    PQclear(res);
    pg__pq_run(s, err ? "ROLLBACK" : "COMMIT");
    pg_run_free(run);
    return err;
}

int pg__pq_list_runs(pg_run_list *out, pg_store *store, const pg_run_filter *f)
{
    pg_pq_store *s = pg__pq(store);
    pg_buf sql = PG_BUF_INIT;
    pg_run_filter none = {0};
    PGresult *res = NULL;
    const char *p[6];
    char before[32];
    int i, n, np = 0, err;

    memset(out, 0, sizeof(*out));
    if (!f)
        f = &none;
    pg__buf_puts(&sql,
                 "SELECT r.id, r.uuid, r.commit_sha, r.branch, r.suite_set, m.hash, r.source, r.started_at,"
                 " (SELECT COUNT(*) FROM results x WHERE x.run_id = r.id),"
                 " (SELECT COUNT(*) FROM checks y WHERE y.run_id = r.id), r.mode"
                 " FROM runs r LEFT JOIN machines m ON m.id = r.machine_id WHERE true");
    if (f->branch) {
        p[np++] = f->branch;
        pg__buf_printf(&sql, " AND r.branch = $%d", np);
    }
    if (f->commit) {
        p[np++] = f->commit;
        pg__buf_printf(&sql, " AND starts_with(r.commit_sha, $%d)", np);
    }
    if (f->machine_hash) {
        p[np++] = f->machine_hash;
        pg__buf_printf(&sql, " AND m.hash = $%d", np);
    }
    if (f->mode) {
        p[np++] = f->mode;
        pg__buf_printf(&sql, " AND r.mode = $%d", np);
    }
    if (f->uuid) {
        p[np++] = f->uuid;
        pg__buf_printf(&sql, " AND r.uuid = $%d", np);
    }
    if (f->before_id) {
        snprintf(before, sizeof(before), "%lld", (long long)f->before_id);
        p[np++] = before;
        pg__buf_printf(&sql, " AND r.id < $%d", np);
    }
    pg__buf_puts(&sql, " ORDER BY r.id DESC");
    if (f->limit)
        pg__buf_printf(&sql, " LIMIT %zu", f->limit);
    if (!sql.ptr)
        return pg_error_set(PG_ENOMEM, "out of memory building a query");
    err = pg__pq_exec(s, &res, PGRES_TUPLES_OK, sql.ptr, np, p, "listing runs");
    pg__buf_clear(&sql);
    if (err)
        return err;
    n = PQntuples(res);
    if (n > 0 && !(out->items = calloc((size_t)n, sizeof(*out->items)))) {
        PQclear(res);
        return pg_error_set(PG_ENOMEM, "out of memory listing runs");
    }
    for (i = 0; i < n; i++) {
        pg_run_info *it = &out->items[out->count++];
        it->id = pg__pq_int(res, i, 0, 0);
        it->uuid = pg__pq_text(res, i, 1);
        it->commit = pg__pq_text(res, i, 2);
        it->branch = pg__pq_text(res, i, 3);
        it->suite_set = pg__pq_text(res, i, 4);
        it->machine_hash = pg__pq_text(res, i, 5);
        it->source = pg__pq_text(res, i, 6);
        it->started_at = pg__pq_int(res, i, 7, 0);
        it->nresults = pg__pq_int(res, i, 8, 0);
        it->nchecks = pg__pq_int(res, i, 9, 0);
        it->mode = pg__pq_text(res, i, 10);
    }
    PQclear(res);
    return 0;
}
