/*
 * sqlite_decision.c - the SQLite engine's decisions: the gate's outcome of
 * a run and its per-case verdicts, written in one transaction and read back
 * in the order they were decided.
 */
#include "store/sqlite.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char insert_decision_sql[] =
    "INSERT INTO decisions(run_id, made_at, outcome, exit_code, reason, method, baseline, base_ids, base_uuids,"
    " base_described, base_build, base_commit, base_hash, confirmed, suite_shift, suite_spread, canary, detail)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";

static const char insert_case_sql[] =
    "INSERT INTO decision_cases(run_id, idx, key, verdict, reason, method, ratio, ci_lo, ci_hi, p, p_adj, rounds,"
    " confirm, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";

static int insert_case(pg_sqlite_store *s, sqlite3_stmt *st, int64_t run_id, size_t idx, const pg_decision_case *c)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)idx);
    pg__sqlite_bind_text(st, 3, c->key);
    pg__sqlite_bind_text(st, 4, c->verdict);
    pg__sqlite_bind_text(st, 5, c->reason);
    pg__sqlite_bind_text(st, 6, c->method);
    pg__sqlite_bind_real(st, 7, c->ratio);
    pg__sqlite_bind_real(st, 8, c->ci_lo);
    pg__sqlite_bind_real(st, 9, c->ci_hi);
    pg__sqlite_bind_real(st, 10, c->p);
    pg__sqlite_bind_real(st, 11, c->p_adj);
    if (c->rounds > 0)
        sqlite3_bind_int64(st, 12, c->rounds);
    pg__sqlite_bind_text(st, 13, c->confirm);
    pg__sqlite_bind_text(st, 14, c->detail ? c->detail : "{}");
    return sqlite3_step(st) == SQLITE_DONE ? 0 : pg__sqlite_error(s, "writing a decided case");
}

static int insert_decision(pg_sqlite_store *s, sqlite3_stmt *st, const pg_decision *d)
{
    sqlite3_bind_int64(st, 1, d->run_id);
    sqlite3_bind_int64(st, 2, d->made_at);
    pg__sqlite_bind_text(st, 3, d->outcome);
    sqlite3_bind_int(st, 4, d->exit_code);
    pg__sqlite_bind_text(st, 5, d->reason);
    pg__sqlite_bind_text(st, 6, d->method);
    pg__sqlite_bind_text(st, 7, d->baseline ? d->baseline : "none");
    pg__sqlite_bind_text(st, 8, d->base_ids);
    pg__sqlite_bind_text(st, 9, d->base_uuids);
    pg__sqlite_bind_text(st, 10, d->base_described);
    pg__sqlite_bind_text(st, 11, d->base_build);
    pg__sqlite_bind_text(st, 12, d->base_commit);
    pg__sqlite_bind_text(st, 13, d->base_hash);
    sqlite3_bind_int(st, 14, d->confirmed ? 1 : 0);
    pg__sqlite_bind_real(st, 15, d->suite_shift);
    pg__sqlite_bind_real(st, 16, d->suite_spread);
    pg__sqlite_bind_text(st, 17, d->canary);
    pg__sqlite_bind_text(st, 18, d->detail ? d->detail : "{}");
    return sqlite3_step(st) == SQLITE_DONE ? 0 : pg__sqlite_error(s, "writing a decision");
}

int pg__sqlite_save_decision(int *out_added, pg_store *store, const pg_decision *d)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL, *cst = NULL;
    size_t i;
    int err;

    if (out_added)
        *out_added = 0;
    if ((err = pg__sqlite_exec(s, "BEGIN IMMEDIATE", "starting a transaction")) != 0)
        return err;
    /* A run is decided once: a decision merged in before is the same one, and is kept. */
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM decisions WHERE run_id = ?1", -1, &st, NULL) != SQLITE_OK) {
        err = pg__sqlite_error(s, "preparing a decision lookup");
        goto cleanup;
    }
    sqlite3_bind_int64(st, 1, d->run_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        goto cleanup;
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(s->db, insert_decision_sql, -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, insert_case_sql, -1, &cst, NULL) != SQLITE_OK) {
        err = pg__sqlite_error(s, "preparing decision inserts");
        goto cleanup;
    }
    if ((err = insert_decision(s, st, d)) != 0)
        goto cleanup;
    for (i = 0; i < d->ncases && !err; i++)
        err = insert_case(s, cst, d->run_id, i, &d->cases[i]);
    if (!err && out_added)
        *out_added = 1;

cleanup:
    sqlite3_finalize(st);
    sqlite3_finalize(cst);
    if (err)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    else if ((err = pg__sqlite_exec(s, "COMMIT", "committing the decision")) != 0)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return err;
}

static int load_cases(pg_sqlite_store *s, pg_decision *d)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    int rc, err = 0;

    if (sqlite3_prepare_v2(s->db,
                           "SELECT key, verdict, reason, method, ratio, ci_lo, ci_hi, p, p_adj, rounds, confirm, detail"
                           " FROM decision_cases WHERE run_id = ?1 ORDER BY idx",
                           -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "preparing a decided cases query");
    sqlite3_bind_int64(st, 1, d->run_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        pg_decision_case *c;
        if (d->ncases == cap) {
            size_t n = cap ? 2 * cap : 16;
            pg_decision_case *p = realloc(d->cases, n * sizeof(*p));
            if (!p) {
                err = pg_error_set(PG_ENOMEM, "out of memory reading a decision");
                break;
            }
            d->cases = p;
            cap = n;
        }
        c = &d->cases[d->ncases++];
        memset(c, 0, sizeof(*c));
        c->key = pg__sqlite_col_text(st, 0);
        c->verdict = pg__sqlite_col_text(st, 1);
        c->reason = pg__sqlite_col_text(st, 2);
        c->method = pg__sqlite_col_text(st, 3);
        c->ratio = pg__sqlite_col_real(st, 4);
        c->ci_lo = pg__sqlite_col_real(st, 5);
        c->ci_hi = pg__sqlite_col_real(st, 6);
        c->p = pg__sqlite_col_real(st, 7);
        c->p_adj = pg__sqlite_col_real(st, 8);
        c->rounds = sqlite3_column_int64(st, 9);
        c->confirm = pg__sqlite_col_text(st, 10);
        c->detail = pg__sqlite_col_text(st, 11);
        if (!c->key || !c->verdict) {
            err = pg_error_set(PG_ENOMEM, "out of memory reading a decision");
            break;
        }
    }
    if (!err && rc != SQLITE_DONE)
        err = pg__sqlite_error(s, "reading a decision");
    sqlite3_finalize(st);
    return err;
}

int pg__sqlite_load_decision(pg_decision *out, pg_store *store, int64_t run_id)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    int rc, err;

    memset(out, 0, sizeof(*out));
    if (sqlite3_prepare_v2(s->db,
                           "SELECT made_at, outcome, exit_code, reason, method, baseline, base_ids, base_uuids,"
                           " base_described, base_build, base_commit, base_hash, confirmed, suite_shift,"
                           " suite_spread, canary, detail FROM decisions WHERE run_id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "preparing a decision query");
    sqlite3_bind_int64(st, 1, run_id);
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        err = rc == SQLITE_DONE ? pg_error_set(PG_ENOTFOUND, "%s: run %lld has no stored decision", s->base.path,
                                               (long long)run_id)
                                : pg__sqlite_error(s, "reading a decision");
        sqlite3_finalize(st);
        return err;
    }
    out->run_id = run_id;
    out->made_at = sqlite3_column_int64(st, 0);
    out->outcome = pg__sqlite_col_text(st, 1);
    out->exit_code = sqlite3_column_int(st, 2);
    out->reason = pg__sqlite_col_text(st, 3);
    out->method = pg__sqlite_col_text(st, 4);
    out->baseline = pg__sqlite_col_text(st, 5);
    out->base_ids = pg__sqlite_col_text(st, 6);
    out->base_uuids = pg__sqlite_col_text(st, 7);
    out->base_described = pg__sqlite_col_text(st, 8);
    out->base_build = pg__sqlite_col_text(st, 9);
    out->base_commit = pg__sqlite_col_text(st, 10);
    out->base_hash = pg__sqlite_col_text(st, 11);
    out->confirmed = sqlite3_column_int(st, 12);
    out->suite_shift = pg__sqlite_col_real(st, 13);
    out->suite_spread = pg__sqlite_col_real(st, 14);
    out->canary = pg__sqlite_col_text(st, 15);
    out->detail = pg__sqlite_col_text(st, 16);
    sqlite3_finalize(st);
    if (!out->outcome || !out->baseline || !out->detail)
        err = pg_error_set(PG_ENOMEM, "out of memory reading a decision");
    else
        err = load_cases(s, out);
    if (err)
        pg_decision_clear(out);
    return err;
}
