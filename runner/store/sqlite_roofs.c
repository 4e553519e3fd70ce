/*
 * sqlite_roofs.c - the machine's roofs in the SQLite engine: one row per
 * machine, device and thread count (roofline.h), replaced when measured
 * again.
 */
#include "store/sqlite.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

int pg__sqlite_roofs_load(pg_roof_table *out, pg_store *store, const char *machine_hash)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    int rc, err = 0;

    memset(out, 0, sizeof(*out));
    if (sqlite3_prepare_v2(s->db,
                           "SELECT device, threads, peak_gflops, triad_gbs, copy_gbs, llc_bytes, blas, measured_at "
                           "FROM roofs WHERE machine_hash = ? ORDER BY device, threads",
                           -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "reading the machine's roofs");
    sqlite3_bind_text(st, 1, machine_hash, -1, SQLITE_TRANSIENT);
    while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        pg_roof_entry e = {0};
        const unsigned char *device = sqlite3_column_text(st, 0), *blas = sqlite3_column_text(st, 6);
        snprintf(e.device, sizeof(e.device), "%s", device ? (const char *)device : "");
        e.threads = sqlite3_column_int(st, 1);
        e.peak_gflops = sqlite3_column_double(st, 2);
        e.triad_gbs = sqlite3_column_double(st, 3);
        e.copy_gbs = sqlite3_column_double(st, 4);
        e.llc_bytes = sqlite3_column_double(st, 5);
        snprintf(e.blas, sizeof(e.blas), "%s", blas ? (const char *)blas : "");
        e.measured_at = sqlite3_column_int64(st, 7);
        err = pg_roof_table_put(out, &e);
    }
    if (!err && rc != SQLITE_DONE)
        err = pg__sqlite_error(s, "reading the machine's roofs");
    sqlite3_finalize(st);
    if (err)
        pg_roof_table_clear(out);
    return err;
}

int pg__sqlite_roofs_save(pg_store *store, const char *machine_hash, const pg_roof_entry *e)
{
    pg_sqlite_store *s = pg__sqlite(store);
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO roofs(machine_hash, device, threads, peak_gflops, triad_gbs, copy_gbs, "
                           "llc_bytes, blas, measured_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?) "
                           "ON CONFLICT(machine_hash, device, threads) DO UPDATE SET peak_gflops = excluded.peak_gflops, "
                           "triad_gbs = excluded.triad_gbs, copy_gbs = excluded.copy_gbs, "
                           "llc_bytes = excluded.llc_bytes, blas = excluded.blas, measured_at = excluded.measured_at",
                           -1, &st, NULL) != SQLITE_OK)
        return pg__sqlite_error(s, "storing the machine's roofs");
    sqlite3_bind_text(st, 1, machine_hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, e->device, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, e->threads);
    sqlite3_bind_double(st, 4, e->peak_gflops);
    sqlite3_bind_double(st, 5, e->triad_gbs);
    sqlite3_bind_double(st, 6, e->copy_gbs);
    sqlite3_bind_double(st, 7, e->llc_bytes);
    sqlite3_bind_text(st, 8, e->blas, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 9, e->measured_at);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : pg__sqlite_error(s, "storing the machine's roofs");
}
