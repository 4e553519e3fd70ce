/*
 * pgserver.h - a real PostgreSQL server for the tests that need one: one
 * per test binary, started before its first test and stopped after its
 * last (initdb in a temporary directory, listening only on a Unix socket
 * there, run by an unprivileged user: the server refuses to run as root).
 * Each test takes a fresh database of its own on it.
 */
#ifndef PG_TEST_PGSERVER_H
#define PG_TEST_PGSERVER_H

/**
 * Starts the server (or records why there is none), and stops it: a test
 * binary that needs one calls them from its ReportHook(PRE_ALL) and
 * ReportHook(POST_ALL).
 */
void pg_test_pg_start(void);
void pg_test_pg_stop(void);

/**
 * A fresh, empty database on the server, as a postgresql:// URL (caller
 * frees). Skips the calling test, with the reason, when the server binaries
 * are absent; fails it when they are present and the server did not start.
 */
char *pg_test_pg_database(void);

/** The same database's URL with a user name and the password `password` in it (trust auth ignores it). */
char *pg_test_pg_url_with_password(const char *url, const char *password);

/** Runs one SQL statement on the database of `url` (psql); returns its first output line (caller frees). */
char *pg_test_pg_sql(const char *url, const char *sql);

/** Stops the server now (fast shutdown), or starts it again; 0 when it worked. */
int pg_test_pg_halt(void);
int pg_test_pg_resume(void);

/**
 * Sends `sig` to the server's postmaster and all its processes: SIGSTOP
 * freezes the server (connections stay open, nothing answers), SIGCONT
 * thaws it. 0 when it worked.
 */
int pg_test_pg_signal(int sig);

#endif
