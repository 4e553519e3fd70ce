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
    PGconn *conn;   /* NULL once given up after a deadline passed */
    char *url;      /* the URL as given, for reconnecting; never printed */
    int prepared;   /* the run statements are prepared on this connection */
    char sqlstate[6]; /* of the last failed statement, "" when none */
    int64_t timeout_ns; /* the deadline of every wait for the server (postgres_io.c) */
    int timed_out;  /* the last wait passed it */
} pg_pq_store;

/** The deadline of each call to the server when PERFGATE_DB_TIMEOUT does not say (seconds). */
#define PG_PQ_TIMEOUT_S 30

/*
 * Every call to the server with a deadline (postgres_io.c): the connection
 * is non-blocking and each wait is bounded by s->timeout_ns; past it the
 * connection is closed (s->conn NULL, s->timed_out set) and the call fails.
 */
/** PERFGATE_DB_TIMEOUT in nanoseconds, else PG_PQ_TIMEOUT_S. */
int64_t pg__pq_timeout_ns(void);
/** Connects to s->url (or, with `reset`, reconnects s->conn) within the deadline. @return 0 or -1. */
int pg__pq_connect(pg_pq_store *s, int reset);
/** The next result of what was sent (PQgetResult() with the deadline); NULL at the end or past it. */
PGresult *pg__pq_next(pg_pq_store *s);
/** Sends what is queued within the deadline. @return 0 or -1. */
int pg__pq_flush(pg_pq_store *s);
/** PQexec() with the deadline: the last result (an error kept), or NULL past it. */
PGresult *pg__pq_query(pg_pq_store *s, const char *sql, int nparams, const char *const *params);
/** The results of what was just sent, read as pg__pq_query() reads them. */
PGresult *pg__pq_collect(pg_pq_store *s);
/** Runs `sql` and drops its result (ROLLBACK, COMMIT after a failure). */
void pg__pq_run(pg_pq_store *s, const char *sql);

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
