/*
 * postgres_decision.c - the PostgreSQL engine's decisions: the gate's
 * outcome of a run and its per-case verdicts in one transaction, kept once
 * per run however many runners merge it at once.
 */
#include "store/postgres.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text parameters with room for the numbers of one row. */
typedef struct row {
    const char *v[18];
    char num[18][40];
} row;

static void r_int(row *r, int i, int64_t v)
{
    snprintf(r->num[i], sizeof(r->num[i]), "%lld", (long long)v);
    r->v[i] = r->num[i];
}

/* %.17g reads back to the same double (the session sets extra_float_digits); NULL when not finite. */
static void r_real(row *r, int i, double v)
{
    if (!isfinite(v)) {
        r->v[i] = NULL;
        return;
    }
    snprintf(r->num[i], sizeof(r->num[i]), "%.17g", v);
    r->v[i] = r->num[i];
}

static int insert_case(pg_pq_store *s, int64_t run_id, size_t idx, const pg_decision_case *c)
{
    row r;

    memset(&r, 0, sizeof(r));
    r_int(&r, 0, run_id);
    r_int(&r, 1, (int64_t)idx);
    r.v[2] = c->key;
    r.v[3] = c->verdict;
    r.v[4] = c->reason;
    r.v[5] = c->method;
    r_real(&r, 6, c->ratio);
    r_real(&r, 7, c->ci_lo);
    r_real(&r, 8, c->ci_hi);
    r_real(&r, 9, c->p);
    r_real(&r, 10, c->p_adj);
    if (c->rounds > 0)
        r_int(&r, 11, c->rounds);
    r.v[12] = c->confirm;
    r.v[13] = c->detail ? c->detail : "{}";
    return pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                       "INSERT INTO decision_cases(run_id, idx, key, verdict, reason, method, ratio, ci_lo, ci_hi, p,"
                       " p_adj, rounds, confirm, detail)"
                       " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
                       14, r.v, "writing a decided case");
}

/* One attempt; *out_added is set when this transaction wrote the decision. */
static int save_once(int *out_added, pg_pq_store *s, const pg_decision *d)
{
    PGresult *res = NULL;
    size_t i;
    row r;
    int err;

    memset(&r, 0, sizeof(r));
    r_int(&r, 0, d->run_id);
    r_int(&r, 1, d->made_at);
    r.v[2] = d->outcome;
    r_int(&r, 3, d->exit_code);
    r.v[4] = d->reason;
    r.v[5] = d->method;
    r.v[6] = d->baseline ? d->baseline : "none";
    r.v[7] = d->base_ids;
    r.v[8] = d->base_uuids;
    r.v[9] = d->base_described;
    r.v[10] = d->base_build;
    r.v[11] = d->base_commit;
    r.v[12] = d->base_hash;
    r_int(&r, 13, d->confirmed ? 1 : 0);
    r_real(&r, 14, d->suite_shift);
    r_real(&r, 15, d->suite_spread);
    r.v[16] = d->canary;
    r.v[17] = d->detail ? d->detail : "{}";
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "BEGIN", 0, NULL, "starting a transaction")) != 0)
        return err;
    /* A run is decided once: a decision another runner merged in first is the same one, and is kept. */
    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "INSERT INTO decisions(run_id, made_at, outcome, exit_code, reason, method, baseline,"
                           " base_ids, base_uuids, base_described, base_build, base_commit, base_hash, confirmed,"
                           " suite_shift, suite_spread, canary, detail)"
                           " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
                           " ON CONFLICT (run_id) DO NOTHING RETURNING run_id",
                           18, r.v, "writing a decision")) != 0)
        goto rollback;
    if (PQntuples(res) == 0) {
        PQclear(res);
        return pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "COMMIT", 0, NULL, "ending a transaction");
    }
    PQclear(res);
    res = NULL;
    for (i = 0; i < d->ncases; i++)
        if ((err = insert_case(s, d->run_id, i, &d->cases[i])) != 0)
            goto rollback;
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "COMMIT", 0, NULL, "committing the decision")) != 0)
        goto rollback;
    if (out_added)
        *out_added = 1;
    return 0;

rollback:
    PQclear(res);
    if (PQstatus(s->conn) == CONNECTION_OK)
        PQclear(PQexec(s->conn, "ROLLBACK"));
    return err;
}

int pg__pq_save_decision(int *out_added, pg_store *store, const pg_decision *d)
{
    pg_pq_store *s = pg__pq(store);
    int err, tries;

    if (out_added)
        *out_added = 0;
    if ((err = pg__pq_alive(s)) != 0)
        return err;
    /* Two runners merging the same decision at once: the loser's retry finds it there. */
    for (tries = 0; tries < 3; tries++)
        if ((err = save_once(out_added, s, d)) == 0 || strcmp(s->sqlstate, "23505") != 0)
            break;
    return err;
}

static int load_cases(pg_pq_store *s, pg_decision *d, const char *const *p)
{
    PGresult *res;
    int i, n, err;

    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "SELECT key, verdict, reason, method, ratio, ci_lo, ci_hi, p, p_adj, rounds, confirm, detail"
                           " FROM decision_cases WHERE run_id = $1 ORDER BY idx",
                           1, p, "reading a decision")) != 0)
        return err;
    n = PQntuples(res);
    if (n > 0 && !(d->cases = calloc((size_t)n, sizeof(*d->cases)))) {
        PQclear(res);
        return pg_error_set(PG_ENOMEM, "out of memory reading a decision");
    }
    for (i = 0; i < n; i++) {
        pg_decision_case *c = &d->cases[d->ncases++];
        c->key = pg__pq_text(res, i, 0);
        c->verdict = pg__pq_text(res, i, 1);
        c->reason = pg__pq_text(res, i, 2);
        c->method = pg__pq_text(res, i, 3);
        c->ratio = pg__pq_double(res, i, 4, NAN);
        c->ci_lo = pg__pq_double(res, i, 5, NAN);
        c->ci_hi = pg__pq_double(res, i, 6, NAN);
        c->p = pg__pq_double(res, i, 7, NAN);
        c->p_adj = pg__pq_double(res, i, 8, NAN);
        c->rounds = pg__pq_int(res, i, 9, 0);
        c->confirm = pg__pq_text(res, i, 10);
        c->detail = pg__pq_text(res, i, 11);
        if (!c->key || !c->verdict || !c->detail) {
            err = pg_error_set(PG_ENOMEM, "out of memory reading a decision");
            break;
        }
    }
    PQclear(res);
    return err;
}

int pg__pq_load_decision(pg_decision *out, pg_store *store, int64_t run_id)
{
    pg_pq_store *s = pg__pq(store);
    PGresult *res = NULL;
    char id[32];
    const char *p[1] = {id};
    int err;

    memset(out, 0, sizeof(*out));
    snprintf(id, sizeof(id), "%lld", (long long)run_id);
    if ((err = pg__pq_exec(s, NULL, PGRES_COMMAND_OK, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", 0, NULL,
                           "starting a read")) != 0)
        return err;
    if ((err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "SELECT made_at, outcome, exit_code, reason, method, baseline, base_ids, base_uuids,"
                           " base_described, base_build, base_commit, base_hash, confirmed, suite_shift,"
                           " suite_spread, canary, detail FROM decisions WHERE run_id = $1",
                           1, p, "reading a decision")) != 0)
        goto cleanup;
    if (PQntuples(res) == 0) {
        err = pg_error_set(PG_ENOTFOUND, "%s: run %lld has no stored decision", s->base.path, (long long)run_id);
        goto cleanup;
    }
    out->run_id = run_id;
    out->made_at = pg__pq_int(res, 0, 0, 0);
    out->outcome = pg__pq_text(res, 0, 1);
    out->exit_code = (int)pg__pq_int(res, 0, 2, 0);
    out->reason = pg__pq_text(res, 0, 3);
    out->method = pg__pq_text(res, 0, 4);
    out->baseline = pg__pq_text(res, 0, 5);
    out->base_ids = pg__pq_text(res, 0, 6);
    out->base_uuids = pg__pq_text(res, 0, 7);
    out->base_described = pg__pq_text(res, 0, 8);
    out->base_build = pg__pq_text(res, 0, 9);
    out->base_commit = pg__pq_text(res, 0, 10);
    out->base_hash = pg__pq_text(res, 0, 11);
    out->confirmed = (int)pg__pq_int(res, 0, 12, 0);
    out->suite_shift = pg__pq_double(res, 0, 13, NAN);
    out->suite_spread = pg__pq_double(res, 0, 14, NAN);
    out->canary = pg__pq_text(res, 0, 15);
    out->detail = pg__pq_text(res, 0, 16);
    if (!out->outcome || !out->baseline || !out->detail)
        err = pg_error_set(PG_ENOMEM, "out of memory reading a decision");
    else
        err = load_cases(s, out, p);

cleanup:
    PQclear(res);
    PQclear(PQexec(s->conn, err ? "ROLLBACK" : "COMMIT"));
    if (err)
        pg_decision_clear(out);
    return err;
}
