/*
 * postgres_io.c - every call to the server with a deadline.
 *
 * libpq's blocking calls wait for the server as long as the socket stays
 * open, and a stopped server (SIGSTOP, a hung host, a full disk) keeps it
 * open: a gate would wait forever with its measurements in memory. So the
 * connection is non-blocking, and every wait (connecting, sending, each
 * result) is a poll() bounded by the store's timeout (PERFGATE_DB_TIMEOUT
 * seconds, default PG_PQ_TIMEOUT_S). Past it the connection is closed: the
 * call fails with a message that says so, and a run being saved goes to its
 * spool file (postgres_runs.c).
 */
#include "store/postgres.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

int64_t pg__pq_timeout_ns(void)
{
    const char *v = getenv("PERFGATE_DB_TIMEOUT");
    char *end = NULL;
    double s = v && *v ? strtod(v, &end) : 0;

    if (!v || !*v || !end || *end || !(s > 0) || s > 86400)
        s = PG_PQ_TIMEOUT_S;
    return (int64_t)(s * 1e9);
}

/* The server let the deadline pass: the connection is given up (nothing more can be read from it in time). */
static void give_up(pg_pq_store *s)
{
    s->timed_out = 1;
    PQfinish(s->conn);
    s->conn = NULL;
}

/*
 * Waits for the socket to be ready for `events` until `deadline`.
 * @return 1 ready, 0 past the deadline.
 */
static int wait_socket(pg_pq_store *s, short events, int64_t deadline)
{
    for (;;) {
        struct pollfd p = {PQsocket(s->conn), events, 0};
        int64_t left = deadline - pg__mono_ns();
        int rc;

        if (left <= 0)
            return 0;
        rc = poll(&p, 1, (int)(left / 1000000 + 1));
        if (rc > 0 || (rc < 0 && errno != EINTR))
            return 1;
    }
}

int pg__pq_connect(pg_pq_store *s, int reset)
{
    int64_t deadline = pg__mono_ns() + s->timeout_ns;
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;

    s->timed_out = 0;
    if (reset && s->conn) {
        if (!PQresetStart(s->conn))
            return -1;
    } else {
        PQfinish(s->conn);
        if (!(s->conn = PQconnectStart(s->url)) || PQstatus(s->conn) == CONNECTION_BAD)
            return -1;
    }
    while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
        if (!wait_socket(s, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline)) {
            give_up(s);
            return -1;
        }
        st = reset ? PQresetPoll(s->conn) : PQconnectPoll(s->conn);
    }
    if (st == PGRES_POLLING_FAILED || PQsetnonblocking(s->conn, 1) != 0)
        return -1;
    return 0;
}

/* Sends what libpq has queued and reads until a whole result is there. @return 0, or -1 past the deadline. */
static int ready(pg_pq_store *s, int64_t deadline)
{
    for (;;) {
        int f = PQflush(s->conn);
        if (f < 0)
            return 0; /* a broken connection: PQgetResult() reports it */
        if (f == 0 && !PQisBusy(s->conn))
            return 0;
        if (!wait_socket(s, (short)(POLLIN | (f == 1 ? POLLOUT : 0)), deadline))
            return -1;
        if (!PQconsumeInput(s->conn))
            return 0;
    }
}

PGresult *pg__pq_next(pg_pq_store *s)
{
    if (!s->conn)
        return NULL;
    if (ready(s, pg__mono_ns() + s->timeout_ns) != 0) {
        give_up(s);
        return NULL;
    }
    return PQgetResult(s->conn);
}

int pg__pq_flush(pg_pq_store *s)
{
    int64_t deadline = pg__mono_ns() + s->timeout_ns;
    int f;

    while (s->conn && (f = PQflush(s->conn)) == 1)
        if (!wait_socket(s, POLLOUT | POLLIN, deadline)) {
            give_up(s);
            return -1;
        } else if (!PQconsumeInput(s->conn)) {
            return -1;
        }
    return s->conn ? 0 : -1;
}

PGresult *pg__pq_query(pg_pq_store *s, const char *sql, int nparams, const char *const *params)
{
    int sent;

    if (!s->conn)
        return NULL;
    sent = nparams ? PQsendQueryParams(s->conn, sql, nparams, NULL, params, NULL, NULL, 0) : PQsendQuery(s->conn, sql);
    return sent ? pg__pq_collect(s) : NULL;
}

PGresult *pg__pq_collect(pg_pq_store *s)
{
    PGresult *last = NULL, *r;

    /* As PQexec(): every result read, the last one kept, an error kept over what follows it. */
    while ((r = pg__pq_next(s)) != NULL) {
        if (last && PQresultStatus(last) == PGRES_FATAL_ERROR) {
            PQclear(r);
            continue;
        }
        PQclear(last);
        last = r;
    }
    if (s->timed_out) {
        PQclear(last);
        return NULL;
    }
    return last;
}

void pg__pq_run(pg_pq_store *s, const char *sql)
{
    PQclear(pg__pq_query(s, sql, 0, NULL));
}
