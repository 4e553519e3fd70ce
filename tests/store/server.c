/* server.c - one PostgreSQL server for every test of this binary. */
#include "support.h"

#include "pgserver.h"

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    pg_test_pg_start();
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    pg_test_pg_stop();
}
