/*
 * postgres_roofs.c - the machine's roofs in the PostgreSQL engine: one row
 * per machine, device and thread count (roofline.h), replaced when measured
 * again, so a fleet sharing a server measures each machine once.
 */
#include "store/postgres.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

int pg__pq_roofs_load(pg_roof_table *out, pg_store *store, const char *machine_hash)
{
    pg_pq_store *s = pg__pq(store);
    const char *params[1] = {machine_hash};
    PGresult *res;
    int i, err;

    memset(out, 0, sizeof(*out));
    if ((err = pg__pq_alive(s)) != 0 ||
        (err = pg__pq_exec(s, &res, PGRES_TUPLES_OK,
                           "SELECT device, threads, peak_gflops, triad_gbs, copy_gbs, llc_bytes, blas, measured_at "
                           "FROM roofs WHERE machine_hash = $1 ORDER BY device, threads",
                           1, params, "reading the machine's roofs")) != 0)
        return err;
    for (i = 0; !err && i < PQntuples(res); i++) {
        pg_roof_entry e = {0};
        snprintf(e.device, sizeof(e.device), "%s", PQgetvalue(res, i, 0));
        e.threads = (int)pg__pq_int(res, i, 1, 0);
        e.peak_gflops = pg__pq_double(res, i, 2, 0);
        e.triad_gbs = pg__pq_double(res, i, 3, 0);
        e.copy_gbs = pg__pq_double(res, i, 4, 0);
        e.llc_bytes = pg__pq_double(res, i, 5, 0);
        snprintf(e.blas, sizeof(e.blas), "%s", PQgetvalue(res, i, 6));
        e.measured_at = pg__pq_int(res, i, 7, 0);
        err = pg_roof_table_put(out, &e);
    }
    PQclear(res);
    if (err)
        pg_roof_table_clear(out);
    return err;
}

int pg__pq_roofs_save(pg_store *store, const char *machine_hash, const pg_roof_entry *e)
{
    pg_pq_store *s = pg__pq(store);
    char threads[16], peak[40], triad[40], copy[40], llc[40], at[32];
    const char *params[9] = {machine_hash, e->device, threads, peak, triad, copy, llc, e->blas, at};
    int err;

    snprintf(threads, sizeof(threads), "%d", e->threads);
    snprintf(peak, sizeof(peak), "%.17g", e->peak_gflops);
    snprintf(triad, sizeof(triad), "%.17g", e->triad_gbs);
    snprintf(copy, sizeof(copy), "%.17g", e->copy_gbs);
    snprintf(llc, sizeof(llc), "%.17g", e->llc_bytes);
    snprintf(at, sizeof(at), "%lld", (long long)e->measured_at);
    if ((err = pg__pq_alive(s)) != 0)
        return err;
    return pg__pq_exec(s, NULL, PGRES_COMMAND_OK,
                       "INSERT INTO roofs(machine_hash, device, threads, peak_gflops, triad_gbs, copy_gbs, llc_bytes, "
                       "blas, measured_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9) "
                       "ON CONFLICT(machine_hash, device, threads) DO UPDATE SET peak_gflops = excluded.peak_gflops, "
                       "triad_gbs = excluded.triad_gbs, copy_gbs = excluded.copy_gbs, llc_bytes = excluded.llc_bytes, "
                       "blas = excluded.blas, measured_at = excluded.measured_at",
                       9, params, "storing the machine's roofs");
}
