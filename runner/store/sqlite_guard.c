/*
 * sqlite_guard.c - what the SQLite engine trusts of a file it may not have
 * written (a restored artifact, a merge input, a copy): read-only opens that
 * write nothing, the exact schema perfgate's own migrations create, and
 * sample blobs that match their counts.
 */
#include "store/sqlite.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the exact schema ---------------------------------------------------- */

typedef struct schema_row {
    char *type, *name, *tbl, *sql;
} schema_row;

typedef struct schema {
    schema_row *rows;
    size_t n;
} schema;

static void schema_clear(schema *sc)
{
    size_t i;

    for (i = 0; i < sc->n; i++) {
        free(sc->rows[i].type);
        free(sc->rows[i].name);
        free(sc->rows[i].tbl);
        free(sc->rows[i].sql);
    }
    free(sc->rows);
    memset(sc, 0, sizeof(*sc));
}

/*
 * Every object of the main schema, by name. ANALYZE's statistics tables
 * (sqlite_stat1, sqlite_stat4) are SQLite's own and may come and go.
 */
static int schema_read(schema *out, sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    if (sqlite3_prepare_v2(db,
                           "SELECT type, name, tbl_name, sql FROM sqlite_master"
                           " WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\' ORDER BY name, type",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        schema_row *p = realloc(out->rows, (out->n + 1) * sizeof(*p));
        if (!p)
            break;
        out->rows = p;
        p += out->n++;
        p->type = pg__sqlite_col_text(st, 0);
        p->name = pg__sqlite_col_text(st, 1);
        p->tbl = pg__sqlite_col_text(st, 2);
        p->sql = pg__sqlite_col_text(st, 3);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/*
 * The reference is made, not written down: a fresh in-memory database
 * migrated by the same code that creates every file, so a table a later
 * migration adds is covered without a second list to keep in step.
 */
static int reference(schema *out)
{
    pg_sqlite_store ref;
    int err = -1;

    memset(&ref, 0, sizeof(ref));
    ref.base.path = ":memory:";
    if (sqlite3_open_v2(":memory:", &ref.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
        pg__sqlite_migrate(&ref) == 0)
        err = schema_read(out, ref.db);
    sqlite3_close_v2(ref.db);
    return err;
}

static const schema_row *find(const schema *sc, const char *name)
{
    size_t i;

    for (i = 0; i < sc->n; i++)
        if (sc->rows[i].name && strcmp(sc->rows[i].name, name) == 0)
            return &sc->rows[i];
    return NULL;
}

int pg__sqlite_check_schema(pg_sqlite_store *s, char *msg, size_t len)
{
    schema want, have;
    size_t i;
    int ok = 1;

    if (reference(&want) != 0) {
        snprintf(msg, len, "cannot build perfgate's own schema to compare with");
        return 0;
    }
    if (schema_read(&have, s->db) != 0) {
        snprintf(msg, len, "cannot read the schema: %s", sqlite3_errmsg(s->db));
        schema_clear(&want);
        return 0;
    }
    for (i = 0; ok && i < have.n; i++) {
        const schema_row *h = &have.rows[i], *w = find(&want, h->name ? h->name : "");
        if (!w) {
            snprintf(msg, len, "schema: %s '%s'%s%s is not perfgate's (a file perfgate did not write?)", h->type,
                     h->name ? h->name : "", h->tbl && h->name && strcmp(h->tbl, h->name) ? " on " : "",
                     h->tbl && h->name && strcmp(h->tbl, h->name) ? h->tbl : "");
            ok = 0;
        } else if (!same(h->type, w->type)) {
            snprintf(msg, len, "schema: '%s' is a %s where perfgate has a %s", h->name, h->type, w->type);
            ok = 0;
        } else if (!same(h->tbl, w->tbl) || !same(h->sql, w->sql)) {
            snprintf(msg, len, "schema: %s '%s' differs from perfgate's", h->type, h->name);
            ok = 0;
        }
    }
    for (i = 0; ok && i < want.n; i++)
        if (!find(&have, want.rows[i].name)) {
            snprintf(msg, len, "schema: %s '%s' is missing", want.rows[i].type, want.rows[i].name);
            ok = 0;
        }
    schema_clear(&want);
    schema_clear(&have);
    return ok;
}

int pg__sqlite_check_samples(pg_sqlite_store *s, char *msg, size_t len)
{
    sqlite3_stmt *st = NULL;
    int64_t bad = -1, id = 0;

    if (sqlite3_prepare_v2(s->db,
                           "SELECT COUNT(*), MIN(id) FROM results"
                           " WHERE samples IS NOT NULL AND length(samples) <> 8 * n",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        bad = sqlite3_column_int64(st, 0);
        id = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (bad < 0) {
        snprintf(msg, len, "cannot read the results: %s", sqlite3_errmsg(s->db));
        return 0;
    }
    if (bad > 0) {
        snprintf(msg, len, "samples: %lld result%s (first: id %lld) hold a blob whose length is not 8 bytes per "
                           "sample counted in n", (long long)bad, bad == 1 ? "" : "s", (long long)id);
        return 0;
    }
    return 1;
}

/* ---- read-only opens ----------------------------------------------------- */

/* "file:PATH?mode=ro[&immutable=1]" with the characters a URI gives meaning to escaped. */
static char *ro_uri(const char *path, int immutable)
{
    pg_buf b = PG_BUF_INIT;
    const char *p;

    pg__buf_puts(&b, "file:");
    for (p = path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#')
            pg__buf_printf(&b, "%%%02X", (unsigned char)*p);
        else
            pg__buf_put(&b, p, 1);
    }
    pg__buf_puts(&b, immutable ? "?mode=ro&immutable=1" : "?mode=ro");
    return b.ptr ? pg__buf_detach(&b) : NULL;
}

static int user_version(sqlite3 *db, int *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);

    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *out = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

static int writable(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? pg__asprintf("%.*s", (int)(slash - path + (slash == path)), path) : pg__strdup(".");
    int ok = dir && access(path, W_OK) == 0 && access(dir, W_OK) == 0;

    free(dir);
    return ok;
}

static int open_ro(pg_sqlite_store *s, const char *path, int immutable)
{
    char *uri = ro_uri(path, immutable);
    int rc;

    if (!uri)
        return SQLITE_NOMEM;
    rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (rc == SQLITE_OK) {
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
        sqlite3_busy_timeout(s->db, 10000);
        sqlite3_extended_result_codes(s->db, 1);
    }
    return rc;
}

/* A file that does not exist reads as an empty store, and none is created. */
static int open_empty(pg_sqlite_store *s)
{
    if (sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return pg_error_set(PG_ENOMEM, "out of memory opening %s", s->base.path);
    return pg__sqlite_migrate(s);
}

int pg__sqlite_open_read(pg_store **out, const char *path)
{
    pg_sqlite_store *s = calloc(1, sizeof(*s));
    char *wal = pg__asprintf("%s-wal", path);
    int v = -1, rc, err = 0;

    *out = NULL;
    if (!s || !wal || !(s->base.path = pg__strdup(path))) {
        err = pg_error_set(PG_ENOMEM, "out of memory opening %s", path);
        goto fail;
    }
    s->base.ops = &pg__store_sqlite;
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        if ((err = open_empty(s)) != 0)
            goto fail;
        goto done;
    }
    rc = open_ro(s, path, 0);
    if (rc == SQLITE_OK)
        rc = user_version(s->db, &v);
    /*
     * A WAL file in a folder perfgate cannot write has no shared-memory index
     * to read through. With no log beside it no writer can exist there
     * either, and the file alone is the whole database.
     */
    if (((rc & 0xFF) == SQLITE_CANTOPEN || (rc & 0xFF) == SQLITE_READONLY) && access(wal, F_OK) != 0) {
        sqlite3_close_v2(s->db);
        s->db = NULL;
        if ((rc = open_ro(s, path, 1)) == SQLITE_OK)
            rc = user_version(s->db, &v);
    }
    if (rc != SQLITE_OK) {
        err = pg_error_set(PG_ESTORE, "%s: cannot open database: %s", path,
                           s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        goto fail;
    }
    if (v > pg__store_sqlite.schema_latest) {
        err = pg_error_set(PG_ESCHEMA, "%s: schema version %d is newer than this perfgate supports (%d); upgrade "
                                       "perfgate", path, v, pg__store_sqlite.schema_latest);
        goto fail;
    }
    if (v < pg__store_sqlite.schema_latest) {
        /* An older file is read after its migration, which writes it: only where perfgate may. */
        sqlite3_close_v2(s->db);
        s->db = NULL;
        if (writable(path)) {
            free(wal);
            free(s->base.path);
            free(s);
            return pg__store_sqlite.open(out, path);
        }
        err = pg_error_set(PG_ESCHEMA, "%s: schema version %d is older than this perfgate's (%d), and the file is "
                                       "read-only so it cannot be upgraded: copy it somewhere writable first",
                           path, v, pg__store_sqlite.schema_latest);
        goto fail;
    }
    sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
done:
    free(wal);
    *out = &s->base;
    return 0;
fail:
    free(wal);
    if (s) {
        sqlite3_close_v2(s->db);
        free(s->base.path);
        free(s);
    }
    return err;
}
