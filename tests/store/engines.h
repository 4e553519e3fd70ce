/*
 * engines.h - what the store's test files share: a fresh database per test
 * on each engine (a SQLite file in a temporary directory, or a database of
 * its own on the test binary's PostgreSQL server), and tests written once
 * for both.
 */
#ifndef PG_TEST_STORE_ENGINES_H
#define PG_TEST_STORE_ENGINES_H

#include "support.h"

extern char *tmp;    /* the test's temporary directory */
extern char *dbpath; /* its database: a file path or a postgresql:// URL */
extern int on_server;

void store_setup(void);
void store_setup_server(void);
void store_teardown(void);

/* A test of the store's contract: the same body in SUITE (SQLite) and SUITE_PG (the server). */
#define ENGINE_TEST_IN(suite, suite_pg, name) \
    static void name(void);                   \
    Test(suite, name)                         \
    {                                         \
        name();                               \
    }                                         \
    Test(suite_pg, name)                      \
    {                                         \
        name();                               \
    }                                         \
    static void name(void)

#endif
