/*
 * postgres.h - what the two halves of the PostgreSQL engine share: the
 * handle, the query helpers and the error messages. Private to
 * runner/store/postgres*.c, the only files that include <libpq-fe.h>.
 */
#ifndef PG_STORE_POSTGRES_H
#define PG_STORE_POSTGRES_H

#include <libpq-fe.h>
#include <stdint.h>

#include "store/engine.h"
#include "store/select.h"
#include "store/store.h"

typedef struct pg_pq_store {
    pg_store base;  /* base.path: the URL with its password masked */
    PGconn *conn;
    char *url;      /* the URL as given, for reconnecting; never printed */
    int prepared;   /* the run statements are prepared on this connection */
    char sqlstate[6]; /* of the last failed statement, "" when none */
} pg_pq_store;

static inline pg_pq_store *pg__pq(pg_store *store)
{
    return (pg_pq_store *)store;
}

/**
 * PG_ESTORE with "URL: WHAT: the server's message" on one line. `res` (may
 * be NULL) supplies the message when it has one.
 */
int pg__pq_error(pg_pq_store *s, const PGresult *res, const char *what);

/**
 * Runs `sql` with text parameters (NULL entries are SQL NULL) and checks
 * that it returned `want` (PGRES_COMMAND_OK or PGRES_TUPLES_OK). On success
 * *out (may be NULL) holds the result for the caller to PQclear().
 */
int pg__pq_exec(pg_pq_store *s, PGresult **out, ExecStatusType want, const char *sql, int nparams,
                const char *const *params, const char *what);

/** A copy of a field (caller frees), or NULL for SQL NULL. */
char *pg__pq_text(const PGresult *res, int row, int col);

/** A field as an integer or a double; `dflt` for SQL NULL. */
int64_t pg__pq_int(const PGresult *res, int row, int col, int64_t dflt);
double pg__pq_double(const PGresult *res, int row, int col, double dflt);

/** Reconnects when the connection was lost (a restarted server); PG_ESTORE when it cannot. */
int pg__pq_alive(pg_pq_store *s);

/* Saving, loading and listing runs (postgres_runs.c). */
int pg__pq_save_run(int *out_added, pg_store *store, pg_run *run);
int pg__pq_load_run(pg_run **out, pg_store *store, int64_t run_id);
int pg__pq_list_runs(pg_run_list *out, pg_store *store, const pg_run_filter *filter);

/* The machine's roofs (postgres_roofs.c). */
int pg__pq_roofs_load(pg_roof_table *out, pg_store *store, const char *machine_hash);
int pg__pq_roofs_save(pg_store *store, const char *machine_hash, const pg_roof_entry *e);
/* Saving and loading a run's decision (postgres_decision.c). */
int pg__pq_save_decision(int *out_added, pg_store *store, const pg_decision *d);
int pg__pq_load_decision(pg_decision *out, pg_store *store, int64_t run_id);

#endif
