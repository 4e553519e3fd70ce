/* A perfgate plugin whose library aborts as it is loaded (a constructor): perfgate init must survive it. */
#include <perfgate/perfgate.h>

#include <stdlib.h>

__attribute__((constructor)) static void boom(void)
{
    abort();
}

static void nothing(pg_state *st)
{
    while (pg_keep_running(st))
        ;
}

static const pg_benchmark benchmarks[] = {
    {"nothing", "never runs", nothing, NULL, NULL, NULL},
};
PG_PLUGIN_DEFINE("crash", benchmarks)
