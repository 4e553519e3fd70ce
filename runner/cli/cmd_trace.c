/* cmd_trace.c - `perfgate trace`: read a Chrome/Perfetto trace and print key_averages(). */
#include "cli.h"

#include "perfgate/errors.h"
#include "trace/trace.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg_cmd_trace(int argc, char **argv)
{
    const char *sort = "self", *export_to = NULL;
    long limit = 20;
    int by_shape = 0, nargs, rc, err;
    pg_trace *t = NULL;
    pg_trace_stat *rows = NULL;
    size_t nrows = 0;
    pg_trace_sort key;
    int64_t t0;
    const pg_opt opts[] = {
        {"sort", 's', PG_OPT_STR, &sort, "KEY", "order rows by self, total, count or name (default self)"},
        {"limit", 'n', PG_OPT_INT, &limit, "N", "print at most N rows; 0 prints all (default 20)"},
        {"by-shape", 0, PG_OPT_FLAG, &by_shape, NULL, "group rows by name and input shapes"},
        {"export", 'o', PG_OPT_STR, &export_to, "PATH", "also write the events back as a Chrome trace ('-': stdout)"},
        {0},
    };
    const pg_cmd_spec spec = {
        "trace", "[options] TRACE.json",
        "Read a Chrome/Perfetto trace and print count, self and total time per op.",
        "Reads both forms of the Trace Event Format (the JSON array torch.profiler\n"
        "writes without Kineto, and Kineto's {\"traceEvents\": [...]}), streaming, and\n"
        "prints a table like torch.profiler's key_averages(): self time excludes the\n"
        "children on the same thread. GPU events count under the CPU call that\n"
        "launched them (args.correlation).\n\n"
        "examples:\n"
        "  perfgate trace tests/data/traces/lab_step_sched.json\n"
        "  perfgate trace --by-shape --sort total -n 0 trace.json",
        opts, 1, 1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (strcmp(sort, "self") == 0)
        key = PG_TRACE_SORT_SELF;
    else if (strcmp(sort, "total") == 0)
        key = PG_TRACE_SORT_TOTAL;
    else if (strcmp(sort, "count") == 0)
        key = PG_TRACE_SORT_COUNT;
    else if (strcmp(sort, "name") == 0)
        key = PG_TRACE_SORT_NAME;
    else {
        fprintf(stderr, "perfgate trace: --sort must be self, total, count or name, not '%s'\n", sort);
        return 2;
    }
    if (limit < 0) {
        fprintf(stderr, "perfgate trace: --limit must be 0 or more\n");
        return 2;
    }
    t0 = pg__mono_ns();
    if ((err = pg_trace_read_file(&t, argv[1], NULL)) != 0)
        return pg_cli_fail(err);
    if ((err = pg_trace_aggregate(&rows, &nrows, t, by_shape, key)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    printf("%s: %zu events (%zu read), %zu bytes, read in %.1f ms\n\n", argv[1], t->nevents, t->nread,
           t->bytes_read, (double)(pg__mono_ns() - t0) * 1e-6);
    pg_trace_print_table(stdout, rows, nrows, (size_t)limit);
    if (export_to) {
        err = strcmp(export_to, "-") == 0 ? pg_trace_write_chrome(stdout, t, argv[1])
                                          : pg_trace_export_file(export_to, t, argv[1]);
        if (err) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
    }
    rc = 0;

cleanup:
    free(rows);
    pg_trace_free(t);
    return rc;
}
