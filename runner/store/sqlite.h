/*
 * sqlite.h - what the two halves of the SQLite engine share: the handle and
 * the helpers that turn SQLite's errors into perfgate's. Private to
 * runner/store/sqlite*.c.
 */
#ifndef PG_STORE_SQLITE_H
#define PG_STORE_SQLITE_H

#include <sqlite3.h>
#include <stdint.h>

#include "store/engine.h"
#include "store/select.h"
#include "store/store.h"

typedef struct pg_sqlite_store {
    pg_store base;
    sqlite3 *db;
} pg_sqlite_store;

static inline pg_sqlite_store *pg__sqlite(pg_store *store)
{
    return (pg_sqlite_store *)store;
}

/** PG_ESTORE with "PATH: WHAT: sqlite's message". */
int pg__sqlite_error(pg_sqlite_store *s, const char *what);

/** Runs `sql` (several statements allowed); on failure PG_ESTORE as pg__sqlite_error(). */
int pg__sqlite_exec(pg_sqlite_store *s, const char *sql, const char *what);

/** Binds `v`, or NULL when `v` is NULL. */
void pg__sqlite_bind_text(sqlite3_stmt *st, int i, const char *v);

/** A copy of column `i` (caller frees), or NULL for SQL NULL. */
char *pg__sqlite_col_text(sqlite3_stmt *st, int i);

/** Creates or migrates the schema up to the latest version (sqlite.c). */
int pg__sqlite_migrate(pg_sqlite_store *s);

/*
 * What the engine trusts of a file it may not have written (sqlite_guard.c):
 * each returns 1 when the file passes, else 0 with the first difference in
 * `msg`.
 */
/** Every table, index, trigger and view is exactly one perfgate's migrations create, and nothing else is. */
int pg__sqlite_check_schema(pg_sqlite_store *s, char *msg, size_t len);
/** Every sample blob holds exactly `n` float64 values. */
int pg__sqlite_check_samples(pg_sqlite_store *s, char *msg, size_t len);
/** Opens an existing file read-only, as engine.h's open_read. */
int pg__sqlite_open_read(pg_store **out, const char *path);

/* Saving, loading and listing runs (sqlite_runs.c). */
int pg__sqlite_save_run(int *out_added, pg_store *store, pg_run *run);
int pg__sqlite_load_run(pg_run **out, pg_store *store, int64_t run_id);
int pg__sqlite_list_runs(pg_run_list *out, pg_store *store, const pg_run_filter *filter);

/* The machine's roofs (sqlite_roofs.c). */
int pg__sqlite_roofs_load(pg_roof_table *out, pg_store *store, const char *machine_hash);
int pg__sqlite_roofs_save(pg_store *store, const char *machine_hash, const pg_roof_entry *e);
/* Saving and loading a run's decision (sqlite_decision.c). */
int pg__sqlite_save_decision(int *out_added, pg_store *store, const pg_decision *d);
int pg__sqlite_load_decision(pg_decision *out, pg_store *store, int64_t run_id);

/** Binds `v`, or NULL when it is not finite. */
void pg__sqlite_bind_real(sqlite3_stmt *st, int i, double v);

/** Column `i` as a double, NAN for SQL NULL. */
double pg__sqlite_col_real(sqlite3_stmt *st, int i);

/* The history rows, by case key and run (sqlite_history.c). */
int pg__sqlite_history_rows(pg_store *store, const char *glob, const char *branch, pg_store_history_cb cb,
                            void *payload);

#endif
