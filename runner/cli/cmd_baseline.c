/* cmd_baseline.c - `perfgate baseline pin|unpin|list`: named baseline sets. */
#include "cli/cli.h"

#include "perfgate/errors.h"
#include "store/select.h"
#include "store/store.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

int pg_cmd_baseline(int argc, char **argv)
{
    const char *db = NULL, *action, *name = NULL, *run_sel = NULL;
    pg_store *store = NULL;
    pg_baseline_list list = {0};
    int64_t run_id = 0;
    size_t i, removed = 0;
    int nargs, rc, err, ok;
    const pg_opt opts[] = {
        {"db", 0, PG_OPT_STR, &db, "PATH",
         "database file or postgresql:// URL (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {0},
    };
    const pg_cmd_spec spec = {
        "baseline", "pin NAME [RUN] | unpin NAME [RUN] | list [NAME]",
        "Pin stored runs under a name and compare against them with --base pin:NAME.",
        "pin adds a run (an id, latest, commit:SHA or branch:NAME; default latest) to the\n"
        "set NAME; pin it several times to pool runs, so run-to-run drift is measured.\n"
        "unpin removes one run from the set, or the whole set without RUN.\n\n"
        "examples:\n"
        "  perfgate baseline pin release-1.2\n"
        "  perfgate baseline pin release-1.2 branch:main\n"
        "  perfgate compare --base pin:release-1.2",
        opts, 1, 3};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    action = argv[1];
    name = nargs >= 2 ? argv[2] : NULL;
    run_sel = nargs >= 3 ? argv[3] : NULL;
    if (strcmp(action, "list") == 0)
        ok = nargs <= 2;
    else
        ok = (strcmp(action, "pin") == 0 || strcmp(action, "unpin") == 0) && name;
    if (!ok) {
        fprintf(stderr, "perfgate baseline: usage: perfgate baseline %s\n", spec.usage);
        return 2;
    }
    if ((err = pg_store_open(&store, pg_store_path(db))) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if (strcmp(action, "list") == 0) {
        if ((err = pg_baseline_list_get(&list, store, name)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        if (list.count == 0)
            printf("no pinned baselines%s%s\n", name ? " named " : "", name ? name : "");
        for (i = 0; i < list.count; i++) {
            char when[32];
            pg__iso_time(when, list.items[i].pinned_at);
            printf("%-20s  run %-6lld  %-20s  %.12s  pinned %s\n", list.items[i].name, (long long)list.items[i].run_id,
                   list.items[i].branch ? list.items[i].branch : "?",
                   list.items[i].commit ? list.items[i].commit : "no commit", when);
        }
        rc = 0;
        goto cleanup;
    }
    if ((run_sel || strcmp(action, "pin") == 0) && (err = pg_select_head(&run_id, store, run_sel)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if (strcmp(action, "pin") == 0) {
        if ((err = pg_baseline_pin(store, name, run_id)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        printf("pinned run %lld as baseline '%s'\n", (long long)run_id, name);
    } else {
        if ((err = pg_baseline_unpin(&removed, store, name, run_id)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        if (removed == 0) {
            fprintf(stderr, "perfgate: no baseline pin '%s'%s matches\n", name, run_id ? " with that run" : "");
            rc = 2;
            goto cleanup;
        }
        printf("removed %zu pin%s from baseline '%s'\n", removed, removed == 1 ? "" : "s", name);
    }
    rc = 0;

cleanup:
    pg_baseline_list_clear(&list);
    pg_store_close(store);
    return rc;
}
