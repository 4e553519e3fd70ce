/*
 * sqlite_runs.c - the SQLite engine's runs: one run written in one
 * transaction, read back whole, and listed.
 */
#include "store/sqlite.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static int lookup_or_insert(pg_sqlite_store *s, int64_t *out, const char *select_sql,
                            const char *insert_sql, const char **args, int nargs,
                            int nkey)
{
    sqlite3_stmt *st = NULL;
    int i, rc, err = 0;

    if (sqlite3_prepare_v2(s->db, select_sql, -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "preparing a lookup");
    for (i = 0; i < nkey; i++)
        pg__sqlite_bind_text(st, i + 1, args[i]);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return 0;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return pg__sqlite_error(s, "looking up a row");
    if (sqlite3_prepare_v2(s->db, insert_sql, -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "preparing an insert");
    for (i = 0; i < nargs; i++)
        pg__sqlite_bind_text(st, i + 1, args[i]);
    if (sqlite3_step(st) != SQLITE_DONE)
        err = pg__sqlite_error(s, "inserting a row");
    else
        *out = sqlite3_last_insert_rowid(s->db);
    sqlite3_finalize(st);
    return err;
}

/*
 * Whether `fingerprint` differs from the one machine `machine_id` was first
 * stored with (its roofs measured again, say): the run then keeps its own,
 * so that it reads back as its reports showed it.
 */
static int own_fingerprint(pg_sqlite_store *s, int *out, int64_t machine_id, const char *fingerprint)
{
    sqlite3_stmt *st = NULL;
    int rc;

    *out = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT fingerprint FROM machines WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "preparing a machine lookup");
    sqlite3_bind_int64(st, 1, machine_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = strcmp((const char *)sqlite3_column_text(st, 0), fingerprint) != 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : pg__sqlite_error(s, "reading a machine");
}

static void bind_double_or_null(sqlite3_stmt *st, int i, double v, int valid)
{
    if (valid)
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static int insert_result(pg_sqlite_store *s, sqlite3_stmt *st, int64_t run_id, const pg_result *r)
{
    int64_t case_id = 0;
    char threads[32];
    const char *args[6];
    int ok = r->status == PG_STATUS_OK && r->summary.n > 0;
    int err;

    snprintf(threads, sizeof(threads), "%d", r->threads);
    args[0] = r->key;
    args[1] = r->suite ? r->suite : "";
    args[2] = r->name ? r->name : "";
    args[3] = r->params_json ? r->params_json : "{}";
    args[4] = threads;
    args[5] = r->device ? r->device : "cpu";
    if ((err = lookup_or_insert(s, &case_id, "SELECT id FROM cases WHERE key = ?1",
                                "INSERT INTO cases(key, suite, name, params, threads, device) "
                                "VALUES (?1, ?2, ?3, ?4, CAST(?5 AS INTEGER), ?6)",
                                args, 6, 1)) != 0)
        return err;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, case_id);
    pg__sqlite_bind_text(st, 3, r->metric ? r->metric : "time");
    pg__sqlite_bind_text(st, 4, r->unit ? r->unit : "s");
    pg__sqlite_bind_text(st, 5, pg_status_name(r->status));
    pg__sqlite_bind_text(st, 6, r->message);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)r->summary.n);
    sqlite3_bind_int64(st, 8, r->number_per_run);
    bind_double_or_null(st, 9, r->summary.median, ok);
    bind_double_or_null(st, 10, r->summary.q1, ok);
    bind_double_or_null(st, 11, r->summary.q3, ok);
    bind_double_or_null(st, 12, r->summary.iqr, ok);
    bind_double_or_null(st, 13, r->summary.mean, ok);
    bind_double_or_null(st, 14, r->summary.stddev, ok);
    bind_double_or_null(st, 15, r->summary.min, ok);
    bind_double_or_null(st, 16, r->summary.max, ok);
    bind_double_or_null(st, 17, r->flops, r->flops > 0);
    bind_double_or_null(st, 18, r->bytes, r->bytes > 0);
    bind_double_or_null(st, 19, r->mfu, r->mfu >= 0);
    sqlite3_bind_double(st, 20, r->warmup_s);
    sqlite3_bind_int(st, 21, (int)r->warnings);
    pg__sqlite_bind_text(st, 22, r->extra_json);
    if (r->nsamples)
        sqlite3_bind_blob(st, 23, r->samples, (int)(r->nsamples * sizeof(double)), SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 23);
    bind_double_or_null(st, 24, r->threshold, r->threshold > 0);
    bind_double_or_null(st, 25, r->alpha, r->alpha > 0);
    sqlite3_bind_int(st, 26, r->status != PG_STATUS_OK && r->absent);
    if (sqlite3_step(st) != SQLITE_DONE)
        return pg__sqlite_error(s, r->key);
    return 0;
}

static int insert_check(pg_sqlite_store *s, sqlite3_stmt *st, int64_t run_id, const pg_check_result *c)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_bind_int64(st, 1, run_id);
    pg__sqlite_bind_text(st, 2, c->suite ? c->suite : "");
    pg__sqlite_bind_text(st, 3, c->name ? c->name : "");
    pg__sqlite_bind_text(st, 4, c->kind ? c->kind : "");
    pg__sqlite_bind_text(st, 5, c->expected);
    pg__sqlite_bind_text(st, 6, c->actual);
    sqlite3_bind_int(st, 7, c->passed ? 1 : 0);
    pg__sqlite_bind_text(st, 8, c->message);
    sqlite3_bind_int(st, 9, c->skipped ? 1 : 0);
    if (sqlite3_step(st) != SQLITE_DONE)
        return pg__sqlite_error(s, "writing a check result");
    return 0;
}

int pg__sqlite_save_run(int *out_added, pg_store *store, pg_run *run)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL, *rst = NULL, *cst = NULL;
    int64_t machine_id = 0, run_id = 0;
    int err = PG_ESTORE, in_tx = 0, own = 0;
    size_t i;

    if (out_added)
        *out_added = 0;
    if ((err = pg__sqlite_exec(s, "BEGIN IMMEDIATE", "starting a transaction")) != 0)
        return err;
    in_tx = 1;

    /* Idempotent by uuid: a run already present (e.g. merged before) is kept. */
    if (sqlite3_prepare_v2(s->db, "SELECT id FROM runs WHERE uuid = ?1", -1, &st, NULL) != SQLITE_OK) {
        err = pg__sqlite_error(s, "preparing a run lookup");
        goto cleanup;
    }
    pg__sqlite_bind_text(st, 1, run->uuid);
    if (sqlite3_step(st) == SQLITE_ROW) {
        run->id = sqlite3_column_int64(st, 0);
        err = 0;
        goto cleanup;
    }
    sqlite3_finalize(st);
    st = NULL;

    if (run->machine_hash) {
        const char *args[2] = {run->machine_hash, run->machine_json ? run->machine_json : "{}"};
        if ((err = lookup_or_insert(s, &machine_id, "SELECT id FROM machines WHERE hash = ?1",
                                    "INSERT INTO machines(hash, fingerprint) VALUES (?1, ?2)",
                                    args, 2, 1)) != 0 ||
            (err = own_fingerprint(s, &own, machine_id, args[1])) != 0)
            goto cleanup;
    }

    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO runs(uuid, suite_set, commit_sha, branch, ref, pr, ci_url, source,"
                           " tool_version, machine_id, started_at, finished_at, mode, fingerprint)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                           -1, &st, NULL) != SQLITE_OK) {
        err = pg__sqlite_error(s, "preparing a run insert");
        goto cleanup;
    }
    pg__sqlite_bind_text(st, 1, run->uuid);
    pg__sqlite_bind_text(st, 2, run->suite_set);
    pg__sqlite_bind_text(st, 3, run->commit);
    pg__sqlite_bind_text(st, 4, run->branch);
    pg__sqlite_bind_text(st, 5, run->ref);
    if (run->pr > 0)
        sqlite3_bind_int64(st, 6, run->pr);
    pg__sqlite_bind_text(st, 7, run->ci_url);
    pg__sqlite_bind_text(st, 8, run->source ? run->source : "perfgate");
    pg__sqlite_bind_text(st, 9, run->tool_version);
    if (machine_id)
        sqlite3_bind_int64(st, 10, machine_id);
    sqlite3_bind_int64(st, 11, run->started_at);
    sqlite3_bind_int64(st, 12, run->finished_at ? run->finished_at : run->started_at);
    pg__sqlite_bind_text(st, 13, pg_run_mode_name(run->mode));
    pg__sqlite_bind_text(st, 14, own ? run->machine_json : NULL);
    if (sqlite3_step(st) != SQLITE_DONE) {
        err = pg__sqlite_error(s, "writing a run");
        goto cleanup;
    }
    run_id = sqlite3_last_insert_rowid(s->db);

    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO results(run_id, case_id, metric, unit, status, message, n,"
                           " number_per_run, median, q1, q3, iqr, mean, stddev, min, max, flops, bytes,"
                           " mfu, warmup_s, warnings, extra, samples, threshold, alpha, absent)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
                           " ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
                           -1, &rst, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db,
                           "INSERT INTO checks(run_id, suite, name, kind, expected, actual, passed, message, skipped)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                           -1, &cst, NULL) != SQLITE_OK) {
        err = pg__sqlite_error(s, "preparing result inserts");
        goto cleanup;
    }
    for (i = 0; i < run->nresults; i++) {
        if ((err = insert_result(s, rst, run_id, &run->results[i])) != 0)
            goto cleanup;
        if (pg__store_after_result_hook)
            pg__store_after_result_hook(i);
    }
    for (i = 0; i < run->nchecks; i++)
        if ((err = insert_check(s, cst, run_id, &run->checks[i])) != 0)
            goto cleanup;

    if ((err = pg__sqlite_exec(s, "COMMIT", "committing the run")) != 0)
        goto cleanup;
    in_tx = 0;
    run->id = run_id;
    if (out_added)
        *out_added = 1;
    err = 0;

cleanup:
    sqlite3_finalize(st);
    sqlite3_finalize(rst);
    sqlite3_finalize(cst);
    if (in_tx)
        sqlite3_exec(s->db, err ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
    return err;
}

static double col_double(sqlite3_stmt *st, int i, double dflt)
{
    /* sqlite3_column_double() of a NULL is 0.0: only another default needs the type. */
    if (dflt == 0)
        return sqlite3_column_double(st, i);
    return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_double(st, i);
}

static int load_results(pg_sqlite_store *s, pg_run *run)
{
    sqlite3_stmt *st = NULL;
    int rc, err = 0;

    if (sqlite3_prepare_v2(s->db,
                           "SELECT c.key, c.suite, c.name, c.params, c.threads, c.device, r.metric, r.unit,"
                           " r.status, r.message, r.n, r.number_per_run, r.median, r.q1, r.q3, r.iqr,"
                           " r.mean, r.stddev, r.min, r.max, r.flops, r.bytes, r.mfu, r.warmup_s,"
                           " r.warnings, r.extra, r.samples, r.threshold, r.alpha, r.absent"
                           " FROM results r JOIN cases c ON c.id = r.case_id"
                           /*
                            * A run's results are written in one transaction, so their ids
                            * are one range: read it in id order straight from the table
                            * instead of through the run_id index and a sort of every row
                            * with its samples (a quarter of a 10,000-case compare).
                            */
                           " WHERE r.id BETWEEN (SELECT min(id) FROM results WHERE run_id = ?1)"
                           "   AND (SELECT max(id) FROM results WHERE run_id = ?1)"
                           "   AND +r.run_id = ?1 ORDER BY r.id",
                           -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "preparing a results query");
    sqlite3_bind_int64(st, 1, run->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        pg_result *r;
        const void *blob;
        int bytes;

        if ((err = pg_run_add_result(&r, run)) != 0)
            break;
        r->key = pg__sqlite_col_text(st, 0);
        r->suite = pg__sqlite_col_text(st, 1);
        r->name = pg__sqlite_col_text(st, 2);
        r->params_json = pg__sqlite_col_text(st, 3);
        r->threads = sqlite3_column_int(st, 4);
        r->device = pg__sqlite_col_text(st, 5);
        r->metric = pg__sqlite_col_text(st, 6);
        r->unit = pg__sqlite_col_text(st, 7);
        pg_status_parse(&r->status, (const char *)sqlite3_column_text(st, 8));
        r->message = pg__sqlite_col_text(st, 9);
        r->summary.n = (size_t)sqlite3_column_int64(st, 10);
        r->number_per_run = sqlite3_column_int64(st, 11);
        r->summary.median = col_double(st, 12, 0);
        r->summary.q1 = col_double(st, 13, 0);
        r->summary.q3 = col_double(st, 14, 0);
        r->summary.iqr = col_double(st, 15, 0);
        r->summary.mean = col_double(st, 16, 0);
        r->summary.stddev = col_double(st, 17, 0);
        r->summary.min = col_double(st, 18, 0);
        r->summary.max = col_double(st, 19, 0);
        r->flops = col_double(st, 20, 0);
        r->bytes = col_double(st, 21, 0);
        r->mfu = col_double(st, 22, -1);
        r->warmup_s = col_double(st, 23, 0);
        r->warnings = (unsigned)sqlite3_column_int(st, 24);
        r->extra_json = pg__sqlite_col_text(st, 25);
        r->threshold = col_double(st, 27, 0);
        r->alpha = col_double(st, 28, 0);
        r->absent = sqlite3_column_int(st, 29);
        blob = sqlite3_column_blob(st, 26);
        bytes = sqlite3_column_bytes(st, 26);
        if (blob && bytes > 0) {
            r->nsamples = (size_t)bytes / sizeof(double);
            r->samples = malloc((size_t)bytes);
            if (!r->samples) {
                err = pg_error_set(PG_ENOMEM, "out of memory loading samples");
                break;
            }
            memcpy(r->samples, blob, r->nsamples * sizeof(double));
        }
    }
    if (!err && rc != SQLITE_DONE)
        err = pg__sqlite_error(s, "reading results");
    sqlite3_finalize(st);
    return err;
}

static int load_checks(pg_sqlite_store *s, pg_run *run)
{
    sqlite3_stmt *st = NULL;
    int rc, err = 0;

    if (sqlite3_prepare_v2(s->db,
                           "SELECT suite, name, kind, expected, actual, passed, message, skipped"
                           " FROM checks WHERE run_id = ?1 ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "preparing a checks query");
    sqlite3_bind_int64(st, 1, run->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        pg_check_result *c;

        if ((err = pg_run_add_check(&c, run)) != 0)
            break;
        c->suite = pg__sqlite_col_text(st, 0);
        c->name = pg__sqlite_col_text(st, 1);
        c->kind = pg__sqlite_col_text(st, 2);
        c->expected = pg__sqlite_col_text(st, 3);
        c->actual = pg__sqlite_col_text(st, 4);
        c->passed = sqlite3_column_int(st, 5);
        c->message = pg__sqlite_col_text(st, 6);
        c->skipped = sqlite3_column_int(st, 7);
    }
    if (!err && rc != SQLITE_DONE)
        err = pg__sqlite_error(s, "reading checks");
    sqlite3_finalize(st);
    return err;
}

int pg__sqlite_load_run(pg_run **out, pg_store *store, int64_t run_id)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    pg_run *run = NULL;
    int rc, err;

    *out = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT r.uuid, r.suite_set, r.commit_sha, r.branch, r.ref, r.pr, r.ci_url,"
                           " r.source, r.tool_version, m.hash, coalesce(r.fingerprint, m.fingerprint), r.started_at,"
                           " r.finished_at, r.mode FROM runs r LEFT JOIN machines m ON m.id = r.machine_id"
                           " WHERE r.id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "preparing a run query");
    sqlite3_bind_int64(st, 1, run_id);
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        err = rc == SQLITE_DONE ? pg_error_set(PG_ENOTFOUND, "%s: no run with id %lld", s->base.path,
                                               (long long)run_id)
                                : pg__sqlite_error(s, "reading a run");
        goto cleanup;
    }
    if ((err = pg_run_new(&run)) != 0)
        goto cleanup;
    run->id = run_id;
    free(run->uuid);
    free(run->source);
    run->uuid = pg__sqlite_col_text(st, 0);
    run->suite_set = pg__sqlite_col_text(st, 1);
    run->commit = pg__sqlite_col_text(st, 2);
    run->branch = pg__sqlite_col_text(st, 3);
    run->ref = pg__sqlite_col_text(st, 4);
    run->pr = sqlite3_column_int64(st, 5);
    run->ci_url = pg__sqlite_col_text(st, 6);
    run->source = pg__sqlite_col_text(st, 7);
    run->tool_version = pg__sqlite_col_text(st, 8);
    run->machine_hash = pg__sqlite_col_text(st, 9);
    run->machine_json = pg__sqlite_col_text(st, 10);
    run->started_at = sqlite3_column_int64(st, 11);
    run->finished_at = sqlite3_column_int64(st, 12);
    if ((err = pg_run_mode_parse(&run->mode, (const char *)sqlite3_column_text(st, 13))) != 0)
        goto cleanup;
    if ((err = load_results(s, run)) != 0 || (err = load_checks(s, run)) != 0)
        goto cleanup;
    *out = run;
    run = NULL;

cleanup:
    sqlite3_finalize(st);
    pg_run_free(run);
    return err;
}

int pg__sqlite_list_runs(pg_run_list *out, pg_store *store, const pg_run_filter *f)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    pg_buf sql = PG_BUF_INIT;
    int rc, err = 0;
    pg_run_filter none = {0};

    memset(out, 0, sizeof(*out));
    if (!f)
        f = &none;
    pg__buf_puts(&sql,
                 "SELECT r.id, r.uuid, r.commit_sha, r.branch, r.suite_set, m.hash, r.source, r.started_at,"
                 " (SELECT COUNT(*) FROM results x WHERE x.run_id = r.id),"
                 " (SELECT COUNT(*) FROM checks y WHERE y.run_id = r.id), r.mode"
                 " FROM runs r LEFT JOIN machines m ON m.id = r.machine_id WHERE 1");
    if (f->branch)
        pg__buf_puts(&sql, " AND r.branch = :branch");
    if (f->commit)
        pg__buf_puts(&sql, " AND r.commit_sha LIKE :commit || '%'");
    if (f->machine_hash)
        pg__buf_puts(&sql, " AND m.hash = :machine");
    if (f->mode)
        pg__buf_puts(&sql, " AND r.mode = :mode");
    if (f->uuid)
        pg__buf_puts(&sql, " AND r.uuid = :uuid");
    if (f->before_id)
        pg__buf_puts(&sql, " AND r.id < :before");
    pg__buf_puts(&sql, " ORDER BY r.id DESC");
    if (f->limit)
        pg__buf_printf(&sql, " LIMIT %zu", f->limit);
    if (!sql.ptr) {
        return pg_error_set(PG_ENOMEM, "out of memory building a query");
    }
    if (sqlite3_prepare_v2(s->db, sql.ptr, -1, &st, NULL) != SQLITE_OK) {
        err = pg__sqlite_error(s, "preparing a run listing");
        goto cleanup;
    }
    if (f->branch)
        pg__sqlite_bind_text(st, sqlite3_bind_parameter_index(st, ":branch"), f->branch);
    if (f->commit)
        pg__sqlite_bind_text(st, sqlite3_bind_parameter_index(st, ":commit"), f->commit);
    if (f->machine_hash)
        pg__sqlite_bind_text(st, sqlite3_bind_parameter_index(st, ":machine"), f->machine_hash);
    if (f->mode)
        pg__sqlite_bind_text(st, sqlite3_bind_parameter_index(st, ":mode"), f->mode);
    if (f->uuid)
        pg__sqlite_bind_text(st, sqlite3_bind_parameter_index(st, ":uuid"), f->uuid);
    if (f->before_id)
        sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":before"), f->before_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        pg_run_info *p = realloc(out->items, (out->count + 1) * sizeof(*p));
        pg_run_info *it;

        if (!p) {
            err = pg_error_set(PG_ENOMEM, "out of memory listing runs");
            goto cleanup;
        }
        out->items = p;
        it = &p[out->count++];
        it->id = sqlite3_column_int64(st, 0);
        it->uuid = pg__sqlite_col_text(st, 1);
        it->commit = pg__sqlite_col_text(st, 2);
        it->branch = pg__sqlite_col_text(st, 3);
        it->suite_set = pg__sqlite_col_text(st, 4);
        it->machine_hash = pg__sqlite_col_text(st, 5);
        it->source = pg__sqlite_col_text(st, 6);
        it->started_at = sqlite3_column_int64(st, 7);
        it->nresults = sqlite3_column_int64(st, 8);
        it->nchecks = sqlite3_column_int64(st, 9);
        it->mode = pg__sqlite_col_text(st, 10);
    }
    if (rc != SQLITE_DONE)
        err = pg__sqlite_error(s, "listing runs");

cleanup:
    sqlite3_finalize(st);
    pg__buf_clear(&sql);
    if (err)
        pg_run_list_clear(out);
    return err;
}

