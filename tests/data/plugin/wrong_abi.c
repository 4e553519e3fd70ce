/*
 * wrong_abi.c - stands for a plugin built against a newer perfgate header:
 * its table says ABI version PG_PLUGIN_ABI_VERSION + 1. perfgate must refuse
 * it before calling anything in it.
 */
#include <perfgate/perfgate.h>

static void never(pg_state *st)
{
    while (pg_keep_running(st))
        ;
}

static const pg_benchmark benchmarks[] = {{"ok", NULL, never, NULL, NULL, NULL}};

static const pg_plugin table = {PG_PLUGIN_ABI_VERSION + 1, (uint32_t)sizeof(pg_plugin), "future", benchmarks, 1};

PG_PLUGIN_EXPORT const pg_plugin *perfgate_plugin_entry(void);

PG_PLUGIN_EXPORT const pg_plugin *perfgate_plugin_entry(void)
{
    return &table;
}
