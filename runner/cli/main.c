/* main.c - perfgate's entry point: the table of subcommands. */
#include "cli/cli.h"

#include "perfgate/commit.h"
#include "perfgate/config.h"

#include <stdio.h>
#include <errno.h>
#include <string.h>

typedef struct pg_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} pg_command;

static const pg_command commands[] = {
    {"init", pg_cmd_init, "a starter suite for a build directory, and the CI workflows"},
    {"run", pg_cmd_run, "run suites, store the run, print results"},
    {"gate", pg_cmd_gate, "run + compare with the baseline + report; the CI entry point"},
    {"compare", pg_cmd_compare, "verdicts between stored runs"},
    {"ab", pg_cmd_ab, "interleaved A/B of two builds in one job"},
    {"history", pg_cmd_history, "a case's medians over commits, with change points"},
    {"bisect", pg_cmd_bisect, "the commit that made a case slower, with interleaved gates"},
    {"issues", pg_cmd_issues, "one GitHub issue per case the nightly found slower"},
    {"site", pg_cmd_site, "a static site of a branch's history and gate decisions"},
    {"report", pg_cmd_report, "write a stored run as markdown, JSON, JUnit or HTML"},
    {"post", pg_cmd_post, "post a sticky PR comment and a commit status"},
    {"import", pg_cmd_import, "store results of other harnesses (Google Benchmark, hyperfine, ...)"},
    {"validate", pg_cmd_validate, "check suites and report every error"},
    {"list", pg_cmd_list, "list suites' expanded cases with their keys"},
    {"db", pg_cmd_db, "database maintenance: merge, prune, check"},
    {"baseline", pg_cmd_baseline, "named baselines: pin, unpin, list"},
    {"doctor", pg_cmd_doctor, "machine fingerprint and noise hazards"},
    {"count", pg_cmd_count, "FLOPs of any program's BLAS calls, by function, op and range"},
    {"trace", pg_cmd_trace, "read a Chrome/Perfetto trace: ops by count, self and total time"},
};

static void usage(FILE *f)
{
    size_t i;

    fprintf(f,
            "usage: perfgate <command> [options] [args]\n\n"
            "perfgate measures benchmarks and exact checks declared in YAML suites, stores\n"
            "raw samples in SQLite (baselines/perfgate.db by default) and fails a build only\n"
            "on a significant regression larger than the configured minimum effect.\n\n"
            "commands:\n");
    for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\nstart with:\n"
            "  perfgate validate suites/        check the shipped suites\n"
            "  perfgate gate suites/            measure, store, compare with the last runs\n"
            "  perfgate <command> --help        options of one command\n\n"
            "environment: PERFGATE_DB (database path), NO_COLOR, GITHUB_* on Actions\n"
            "exit codes: 0 pass, 1 regression or failed exact check, 2 usage or invalid input,\n"
            "            3 infrastructure error (database, kernel or device), 4 nothing compared\n"
            "            (no baseline on this machine, or no case decided)\n");
}

/*
 * A report that could not be written is no pass, and no "nothing compared"
 * either: stdout is flushed and checked at the end (a full disk, /dev/full,
 * a closed pipe), exit 3. A regression (1) or a usage error (2) keeps its code.
 */
static int finish_stdout(int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    fprintf(stderr, "perfgate: cannot write to standard output: %s\n", strerror(errno ? errno : EIO));
    return rc == 0 || rc == 4 ? 3 : rc;
}

int main(int argc, char **argv)
{
    size_t i;

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return finish_stdout(0);
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        /* The commit: from git when built in a checkout, from cmake/commit.txt in a source archive. */
        printf("perfgate %s (CUDA backend: %s)\ncommit: %s\nlicence: Apache-2.0 (SPDX-License-Identifier: "
               "Apache-2.0)\n",
               PG_VERSION_STRING, PG_HAS_CUDA ? "built" : "not built", PG_COMMIT_STRING);
        return finish_stdout(0);
    }
    for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return finish_stdout(commands[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "perfgate: unknown command '%s'; see 'perfgate --help'\n", argv[1]);
    return 2;
}
