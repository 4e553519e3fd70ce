/*
 * cmd_trace.c - `perfgate trace`: read a Chrome/Perfetto trace and print
 * key_averages(), or its steps (--steps), as a table or JSON; and
 * `perfgate trace diff BASE HEAD`: what changed per step between two traces.
 */
#include "cli/cli.h"

#include "perfgate/errors.h"
#include "trace/steps.h"
#include "trace/trace.h"
#include "tracediff/tracediff.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_trace_diff(int argc, char **argv)
{
    const char *step = NULL, *format = "text";
    long limit = 15;
    double threshold = 0.05, alpha = 0.05;
    int nargs, rc, err, paired = 0;
    pg_trace_steps_options so = PG_TRACE_STEPS_OPTIONS_INIT;
    pg_trace_diff_options dopt = PG_TRACE_DIFF_OPTIONS_INIT;
    pg_trace_steps *base = NULL, *head = NULL;
    pg_trace_diff *d = NULL;
    const pg_opt opts[] = {
        {"step", 0, PG_OPT_STR, &step, "GLOB", "the range that is one step (default ProfilerStep#*)"},
        {"threshold", 't', PG_OPT_DOUBLE, &threshold, "F", "smallest change that counts, as a fraction (default 0.05)"},
        {"alpha", 0, PG_OPT_DOUBLE, &alpha, "P", "significance level before Holm over the ops (default 0.05)"},
        {"paired", 0, PG_OPT_FLAG, &paired, NULL, "the i-th files of BASE and HEAD were captured in one round: pair them"},
        {"limit", 'n', PG_OPT_INT, &limit, "N", "top movers to print; 0 prints all (default 15)"},
        {"format", 'f', PG_OPT_STR, &format, "FMT", "text, markdown or json (default text)"},
        {0},
    };
    const pg_cmd_spec spec = {
        "trace diff", "[options] BASE HEAD",
        "Compare two traces of the same training step, op by op, per step.",
        "BASE and HEAD are trace files or directories of *.json traces (their steps\n"
        "pooled). Each is split into steps; then it lists the ops that appeared or\n"
        "disappeared with their path below the step (exact), the ops whose count\n"
        "per step changed (exact), and each op's self time per step compared as a\n"
        "benchmark case whose samples are the steps: the verdict rule of every\n"
        "perfgate comparison, with Holm over the ops. The movers are ranked by the\n"
        "change of their median self time per step.\n\n"
        "With --paired, BASE and HEAD are directories captured in interleaved rounds\n"
        "(one file of each side per round, in name order): each op's median per\n"
        "round pairs up and the paired verdict of `perfgate ab` decides, which a\n"
        "machine phase cannot move. Without it, a loaded machine leaves small\n"
        "changes UNSURE.\n\n"
        "exit: 0 nothing regressed, 1 the step time or an op REGRESSED, 2 bad input,\n"
        "4 nothing decided (every time UNSURE and no op appeared, disappeared or\n"
        "changed count).\n\n"
        "examples:\n"
        "  perfgate trace diff base/ head/\n"
        "  perfgate trace diff --step train_step -f json base.json head.json",
        opts, 2, 2};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (strcmp(format, "text") != 0 && strcmp(format, "markdown") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "perfgate trace diff: --format must be text, markdown or json, not '%s'\n", format);
        return 2;
    }
    if (!(threshold > 0 && threshold < 10) || !(alpha > 0 && alpha < 1) || limit < 0) {
        fprintf(stderr, "perfgate trace diff: --threshold must be in (0, 10), --alpha in (0, 1), --limit >= 0\n");
        return 2;
    }
    so.step = step;
    dopt.threshold = threshold;
    dopt.alpha = alpha;
    dopt.paired = paired;
    if ((err = pg_trace_steps_load(&base, argv[1], &so)) != 0 || (err = pg_trace_steps_load(&head, argv[2], &so)) != 0 ||
        (err = pg_trace_diff_new(&d, base, head, &dopt)) != 0) {
        rc = pg_cli_fail(err == PG_EIO ? PG_EINVAL : err);
        goto cleanup;
    }
    if (strcmp(format, "json") == 0) {
        pg_trace_diff_json(stdout, d);
    } else if (strcmp(format, "markdown") == 0) {
        pg_buf b = PG_BUF_INIT;
        pg_trace_diff_markdown(&b, d, (size_t)(limit ? limit : 1000000));
        fputs(b.ptr ? b.ptr : "", stdout);
        pg__buf_clear(&b);
    } else {
        pg_trace_diff_print(stdout, d, (size_t)limit);
    }
    rc = pg_trace_diff_regressed(d) ? 1 : 0;
    if (rc == 0 && pg_trace_diff_undecided(d)) {
        fprintf(stderr, "perfgate trace diff: nothing decided: the step time and every op are UNSURE (reasons above) "
                        "and no op appeared, disappeared or changed count; record more steps per side, or "
                        "interleaved rounds compared with --paired\n");
        rc = 4;
    }

cleanup:
    pg_trace_diff_free(d);
    pg_trace_steps_free(base);
    pg_trace_steps_free(head);
    return rc;
}

static int cmd_trace_steps(const char *path, const char *step, const char *format, long limit)
{
    pg_trace_steps_options so = PG_TRACE_STEPS_OPTIONS_INIT;
    pg_trace_steps *s = NULL;
    int err;

    so.step = step;
    if ((err = pg_trace_steps_load(&s, path, &so)) != 0)
        return pg_cli_fail(err == PG_EIO ? PG_EINVAL : err);
    if (strcmp(format, "json") == 0)
        err = pg_trace_steps_json(stdout, s);
    else
        pg_trace_steps_print(stdout, s, (size_t)limit);
    pg_trace_steps_free(s);
    return err ? pg_cli_fail(err) : 0;
}

int pg_cmd_trace(int argc, char **argv)
{
    const char *sort = "self", *export_to = NULL, *format = "text", *step = NULL;
    long limit = 20;
    int by_shape = 0, steps = 0, nargs, rc, err;
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
        {"steps", 0, PG_OPT_FLAG, &steps, NULL, "split into steps: per-step time, GPU idle, and ops per step"},
        {"step", 0, PG_OPT_STR, &step, "GLOB", "with --steps: the range that is one step (default ProfilerStep#*)"},
        {"format", 'f', PG_OPT_STR, &format, "FMT", "with --steps: text or json (default text)"},
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
        "With --steps it splits the trace (a file, or a directory of *.json traces)\n"
        "into steps and prints each step's time, on GPU traces the streams' busy\n"
        "and idle time (host wait, kernel wait), kernels, DtoH copies and syncs,\n"
        "and the ops by median self time per step (docs/traces.md). Self times\n"
        "below 0 from microsecond rounding count as 0 and are marked '*'.\n"
        "`perfgate trace diff BASE HEAD` compares two traces (see its --help).\n\n"
        "examples:\n"
        "  perfgate trace tests/data/traces/lab_step_sched.json\n"
        "  perfgate trace --by-shape --sort total -n 0 trace.json\n"
        "  perfgate trace --steps -f json traces/",
        opts, 1, 1};

    if (argc >= 2 && strcmp(argv[1], "diff") == 0)
        return cmd_trace_diff(argc - 1, argv + 1);
    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "perfgate trace: --format must be text or json, not '%s'\n", format);
        return 2;
    }
    if (!steps && (step || strcmp(format, "text") != 0)) {
        fprintf(stderr, "perfgate trace: --step and --format go with --steps\n");
        return 2;
    }
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
    if (steps)
        return cmd_trace_steps(argv[1], step, format, limit);
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
