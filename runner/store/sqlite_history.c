/*
 * sqlite_history.c - the history rows of the SQLite engine: every stored ok
 * result's median, by case key and run.
 *
 * One join ordered by key and run makes SQLite sort every result (or seek
 * the results index once a row), which was most of the time of a history of
 * a year of nightlies. Instead three plain reads: the runs (a few hundred
 * rows), the matching case keys in key order (the key's unique index), and
 * one sequential scan of the results' five needed columns; the rows are
 * then put in key, run order here with a counting sort, in linear time.
 * The gate's stored verdicts (a row per decided case, far fewer) are read
 * apart, sorted alike, and joined to the rows as they are handed out.
 * Runs of interleaved gates are left out: one sample per round is another
 * measurement than the plain runs history follows.
 */
#include "store/sqlite.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct hrun {
    int64_t id;
    char *commit, *branch;
    int64_t started_at;
} hrun;

typedef struct hcase {
    int64_t id;
    size_t pos;       /* place in key order */
} hcase;

typedef struct hrow {
    size_t pos, run; /* case place, run place (runs in id order); the scan order is the row's index */
    double median, q1, q3;
} hrow;

typedef struct hverdict {
    size_t pos, run;  /* as hrow */
    char *verdict;
} hverdict;

typedef struct hist {
    hrun *runs;
    size_t nruns;
    char **keys;      /* in key order */
    hcase *cases;     /* by id */
    size_t ncases;
    size_t *case_at, *run_at; /* by id, when the ids are dense enough: place + 1, 0 for none */
    int64_t ncase_at, nrun_at;
    hrow *rows;
    size_t *sorted;   /* rows' indices in key, run order */
    size_t nrows, caprows;
    hverdict *verdicts; /* in key, run order */
    size_t nverdicts, capverdicts;
} hist;

static int store_error(pg_sqlite_store *s, const char *what)
{
    return pg_error_set(PG_ESTORE, "%s: %s", what, sqlite3_errmsg(s->db));
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 64;
    void *q;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    if (!(q = realloc(*p, n * size)))
        return pg_error_set(PG_ENOMEM, "out of memory reading history");
    *p = q;
    *cap = n;
    return 0;
}

static int read_runs(hist *h, pg_sqlite_store *s, const char *branch)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    int rc, err = 0;

    if (sqlite3_prepare_v2(s->db,
                           "SELECT id, commit_sha, branch, started_at FROM runs"
                           " WHERE (?1 IS NULL OR branch = ?1) AND mode NOT LIKE 'interleaved%' ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return store_error(s, "preparing the history query");
    pg__sqlite_bind_text(st, 1, branch);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        hrun *r;
        if ((err = grow((void **)&h->runs, &cap, h->nruns + 1, sizeof(*h->runs))) != 0)
            break;
        r = &h->runs[h->nruns++];
        r->id = sqlite3_column_int64(st, 0);
        r->commit = pg__sqlite_col_text(st, 1);
        r->branch = pg__sqlite_col_text(st, 2);
        r->started_at = sqlite3_column_int64(st, 3);
    }
    if (!err && rc != SQLITE_DONE)
        err = store_error(s, "reading history");
    sqlite3_finalize(st);
    return err;
}

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const hcase *)a)->id, y = ((const hcase *)b)->id;

    return (x > y) - (x < y);
}

static int read_cases(hist *h, pg_sqlite_store *s, const char *glob)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0, capk = 0;
    int rc, err = 0;

    if (sqlite3_prepare_v2(s->db, "SELECT id, key FROM cases WHERE ?1 IS NULL OR key GLOB ?1 ORDER BY key", -1,
                           &st, NULL) != SQLITE_OK)
        return store_error(s, "preparing the history query");
    pg__sqlite_bind_text(st, 1, glob);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((err = grow((void **)&h->cases, &cap, h->ncases + 1, sizeof(*h->cases))) != 0 ||
            (err = grow((void **)&h->keys, &capk, h->ncases + 1, sizeof(*h->keys))) != 0)
            break;
        h->cases[h->ncases].id = sqlite3_column_int64(st, 0);
        h->cases[h->ncases].pos = h->ncases;
        if (!(h->keys[h->ncases] = pg__sqlite_col_text(st, 1))) {
            err = pg_error_set(PG_ENOMEM, "out of memory reading history");
            break;
        }
        h->ncases++;
    }
    if (!err && rc != SQLITE_DONE)
        err = store_error(s, "reading history");
    sqlite3_finalize(st);
    if (!err && h->ncases)
        qsort(h->cases, h->ncases, sizeof(*h->cases), by_id);
    return err;
}

static const hcase *find_case(const hist *h, int64_t id)
{
    hcase key = {id, 0};

    return h->ncases ? bsearch(&key, h->cases, h->ncases, sizeof(*h->cases), by_id) : NULL;
}

/* The run's place in id order, or (size_t)-1 when it is not selected. */
static size_t find_run(const hist *h, int64_t id)
{
    size_t lo = 0, hi = h->nruns;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->runs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->nruns && h->runs[lo].id == id ? lo : (size_t)-1;
}

/*
 * Tables from id to place, for ids no sparser than four per row: a lookup
 * per result row instead of two binary searches. Optional (NULL: search).
 */
static void index_ids(hist *h)
{
    int64_t most = 0;
    size_t i;

    for (i = 0; i < h->ncases; i++)
        most = h->cases[i].id > most ? h->cases[i].id : most;
    if (h->ncases && most > 0 && most / 4 <= (int64_t)h->ncases &&
        (h->case_at = calloc((size_t)most + 1, sizeof(*h->case_at))) != NULL) {
        h->ncase_at = most + 1;
        for (i = 0; i < h->ncases; i++)
            if (h->cases[i].id >= 0)
                h->case_at[h->cases[i].id] = i + 1;
    }
    most = h->nruns ? h->runs[h->nruns - 1].id : 0; /* in id order */
    if (h->nruns && most > 0 && most / 4 <= (int64_t)h->nruns &&
        (h->run_at = calloc((size_t)most + 1, sizeof(*h->run_at))) != NULL) {
        h->nrun_at = most + 1;
        for (i = 0; i < h->nruns; i++)
            if (h->runs[i].id >= 0)
                h->run_at[h->runs[i].id] = i + 1;
    }
}

static const hcase *case_of(const hist *h, int64_t id)
{
    if (h->case_at)
        return id >= 0 && id < h->ncase_at && h->case_at[id] ? &h->cases[h->case_at[id] - 1] : NULL;
    return find_case(h, id);
}

static size_t run_of(const hist *h, int64_t id)
{
    if (h->run_at)
        return id >= 0 && id < h->nrun_at && h->run_at[id] ? h->run_at[id] - 1 : (size_t)-1;
    return find_run(h, id);
}

static int read_results(hist *h, pg_sqlite_store *s)
{
    sqlite3_stmt *st = NULL;
    int rc, err = 0;

    index_ids(h);
    if (sqlite3_prepare_v2(s->db,
                           "SELECT case_id, run_id, median, q1, q3 FROM results WHERE status = 'ok' AND median > 0",
                           -1, &st, NULL) != SQLITE_OK)
        return store_error(s, "preparing the history query");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const hcase *c = case_of(h, sqlite3_column_int64(st, 0));
        size_t run = c ? run_of(h, sqlite3_column_int64(st, 1)) : (size_t)-1;
        hrow *r;
        if (run == (size_t)-1)
            continue;
        if ((err = grow((void **)&h->rows, &h->caprows, h->nrows + 1, sizeof(*h->rows))) != 0)
            break;
        r = &h->rows[h->nrows];
        r->pos = c->pos;
        r->run = run;
        h->nrows++;
        r->median = sqlite3_column_double(st, 2);
        r->q1 = sqlite3_column_double(st, 3);
        r->q3 = sqlite3_column_double(st, 4);
    }
    if (!err && rc != SQLITE_DONE)
        err = store_error(s, "reading history");
    sqlite3_finalize(st);
    return err;
}

/* The place of `key` among the cases (keys in key order), or (size_t)-1. */
static size_t key_pos(const hist *h, const char *key)
{
    size_t lo = 0, hi = h->ncases;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(h->keys[mid], key);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (size_t)-1;
}

static int by_place(const void *a, const void *b)
{
    const hverdict *x = a, *y = b;

    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return (x->run > y->run) - (x->run < y->run);
}

static int read_verdicts(hist *h, pg_sqlite_store *s, const char *glob)
{
    sqlite3_stmt *st = NULL;
    int rc, err = 0;

    if (sqlite3_prepare_v2(s->db, "SELECT run_id, key, verdict FROM decision_cases WHERE ?1 IS NULL OR key GLOB ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return store_error(s, "preparing the history query");
    pg__sqlite_bind_text(st, 1, glob);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t run = run_of(h, sqlite3_column_int64(st, 0)), pos;
        hverdict *v;
        if (run == (size_t)-1 || (pos = key_pos(h, (const char *)sqlite3_column_text(st, 1))) == (size_t)-1)
            continue;
        if ((err = grow((void **)&h->verdicts, &h->capverdicts, h->nverdicts + 1, sizeof(*h->verdicts))) != 0)
            break;
        v = &h->verdicts[h->nverdicts];
        v->pos = pos;
        v->run = run;
        if (!(v->verdict = pg__sqlite_col_text(st, 2))) {
            err = pg_error_set(PG_ENOMEM, "out of memory reading history");
            break;
        }
        h->nverdicts++;
    }
    if (!err && rc != SQLITE_DONE)
        err = store_error(s, "reading history");
    sqlite3_finalize(st);
    if (!err && h->nverdicts)
        qsort(h->verdicts, h->nverdicts, sizeof(*h->verdicts), by_place);
    return err;
}

static int by_run(const void *a, const void *b, void *rows)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const hrow *x = (const hrow *)rows + i, *y = (const hrow *)rows + j;

    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return (i > j) - (i < j);
}

/* Rows in key order (a stable counting sort of their indices), each case's rows by run id. */
static int order_rows(hist *h)
{
    size_t *start = calloc(h->ncases + 1, sizeof(*start)), i;

    if (!start || (h->nrows && !(h->sorted = malloc(h->nrows * sizeof(*h->sorted))))) {
        free(start);
        return pg_error_set(PG_ENOMEM, "out of memory reading history");
    }
    for (i = 0; i < h->nrows; i++)
        start[h->rows[i].pos + 1]++;
    for (i = 0; i < h->ncases; i++)
        start[i + 1] += start[i];
    for (i = 0; i < h->nrows; i++)
        h->sorted[start[h->rows[i].pos]++] = i;
    /* start[c] is now the end of case c's rows. */
    for (i = 0; i < h->ncases; i++) {
        size_t b = i ? start[i - 1] : 0, e = start[i], k;
        for (k = b + 1; k < e && h->rows[h->sorted[k - 1]].run <= h->rows[h->sorted[k]].run; k++)
            ;
        if (k < e)
            qsort_r(h->sorted + b, e - b, sizeof(*h->sorted), by_run, h->rows);
    }
    free(start);
    return 0;
}

static void hist_free(hist *h)
{
    size_t i;

    for (i = 0; i < h->nruns; i++) {
        free(h->runs[i].commit);
        free(h->runs[i].branch);
    }
    for (i = 0; i < h->ncases; i++)
        free(h->keys[i]);
    for (i = 0; i < h->nverdicts; i++)
        free(h->verdicts[i].verdict);
    free(h->verdicts);
    free(h->runs);
    free(h->keys);
    free(h->cases);
    free(h->rows);
    free(h->sorted);
    free(h->case_at);
    free(h->run_at);
}

int pg__sqlite_history_rows(pg_store *store, const char *glob, const char *branch, pg_store_history_cb cb,
                            void *payload)
{
    pg_sqlite_store *s = pg__sqlite(store);
    hist h = {0};
    size_t i, k = 0;
    int err;

    if ((err = read_runs(&h, s, branch)) == 0 && (err = read_cases(&h, s, glob)) == 0 &&
        (err = read_results(&h, s)) == 0 && (err = order_rows(&h)) == 0 &&
        (err = read_verdicts(&h, s, glob)) == 0) {
        for (i = 0; i < h.nrows && !err; i++) {
            const hrow *r = &h.rows[h.sorted[i]];
            const hrun *run = &h.runs[r->run];
            pg_store_history_row row;
            /* Both in key, run order: the verdicts are walked alongside. */
            while (k < h.nverdicts && (h.verdicts[k].pos < r->pos ||
                                       (h.verdicts[k].pos == r->pos && h.verdicts[k].run < r->run)))
                k++;
            row.verdict = k < h.nverdicts && h.verdicts[k].pos == r->pos && h.verdicts[k].run == r->run
                              ? h.verdicts[k].verdict
                              : NULL;
            row.key = h.keys[r->pos];
            row.run_id = run->id;
            row.commit = run->commit;
            row.branch = run->branch;
            row.started_at = run->started_at;
            row.median = r->median;
            row.q1 = r->q1;
            row.q3 = r->q3;
            err = cb(&row, payload);
        }
    }
    hist_free(&h);
    return err;
}
