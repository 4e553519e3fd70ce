/*
 * cli.h - the command-line front end: option specs and the subcommands.
 *
 * The CLI only parses arguments and calls the library. Each subcommand has
 * one option-spec array that both parses and prints its --help.
 */
#ifndef PG_CLI_H
#define PG_CLI_H

#include <stdio.h>

typedef enum pg_opt_type {
    PG_OPT_END = 0,
    PG_OPT_FLAG,     /* int, set to 1 */
    PG_OPT_STR,      /* const char * */
    PG_OPT_INT,      /* long */
    PG_OPT_DOUBLE,   /* double */
    PG_OPT_LIST      /* repeatable string: pg_opt_list */
} pg_opt_type;

typedef struct pg_opt_list {
    const char *items[64];
    int count;
} pg_opt_list;

typedef struct pg_opt {
    const char *name;    /* long name without dashes */
    char shrt;           /* short letter or 0 */
    pg_opt_type type;
    void *dest;
    const char *arg;     /* placeholder shown in help ("PATH") */
    const char *help;
} pg_opt;

typedef struct pg_cmd_spec {
    const char *name;
    const char *usage;       /* "[options] SUITE|DIR..." */
    const char *summary;     /* one line */
    const char *description; /* paragraph(s) printed by --help, may be NULL */
    const pg_opt *opts;      /* terminated by {0} */
    int min_args, max_args;  /* positional arguments; max -1 = unlimited */
} pg_cmd_spec;

/**
 * Parses argv (argv[0] is the subcommand) against `spec`.
 * Positional arguments are compacted into argv[1..*out_nargs].
 * @return 0 to go on; otherwise the process exit code to return now
 *         (0 after --help, 2 after a usage error, already printed).
 */
int pg_cli_parse(const pg_cmd_spec *spec, int argc, char **argv, int *out_nargs);

void pg_cli_help(FILE *f, const pg_cmd_spec *spec);

/** Loads suite files and directories, printing every diagnostic on stderr. */
struct pg_suite_set;
int pg_cli_load_suites(struct pg_suite_set *set, char **paths, int n);

/**
 * Parses --instrument's comma-separated list into PG_INSTRUMENT_* bits
 * (`out` may be NULL to validate). @return 0, or 2 with the message printed.
 */
int pg_cli_instruments(unsigned *out, const char *list);

/**
 * The database file at `path` when it already exists, opened to read the
 * machine's roofs; NULL for a server URL, a file that is not there or one
 * that cannot be opened (never an error: the caller measures instead).
 */
struct pg_store;
struct pg_store *pg_cli_open_existing(const char *path);

/**
 * Opens the database `flag` names (else PERFGATE_DB, else the default) for
 * a command that reads an existing history. @return 0; 2 when the file is
 * not there, or the open's exit code (printed).
 */
int pg_cli_open_db(struct pg_store **out, const char *flag, const char *command);

/** Prints "perfgate: <message>" for the last error; returns its exit code. */
int pg_cli_fail(int err);

/**
 * `perfgate doctor --sensitivity SUITE`: gates every case of SUITE against
 * itself with `change_pct` percent more of its own work on the head side (<= 0:
 * twice the largest threshold), prints caught / missed / UNSURE per case.
 * @return the exit code: 0 every injectable case caught, 1 some not, 2 or 3 errors.
 */
int pg_cli_sensitivity(const char *suite, double change_pct, long rounds, const char *filter);

/* Subcommands: each takes argv with argv[0] = its own name. */
int pg_cmd_run(int argc, char **argv);
int pg_cmd_gate(int argc, char **argv);
int pg_cmd_compare(int argc, char **argv);
int pg_cmd_validate(int argc, char **argv);
int pg_cmd_list(int argc, char **argv);
int pg_cmd_doctor(int argc, char **argv);
int pg_cmd_ab(int argc, char **argv);
int pg_cmd_history(int argc, char **argv);
int pg_cmd_report(int argc, char **argv);
int pg_cmd_post(int argc, char **argv);
int pg_cmd_import(int argc, char **argv);
int pg_cmd_db(int argc, char **argv);
int pg_cmd_baseline(int argc, char **argv);
int pg_cmd_trace(int argc, char **argv);
int pg_cmd_count(int argc, char **argv);
int pg_cmd_bisect(int argc, char **argv);
int pg_cmd_site(int argc, char **argv);
int pg_cmd_issues(int argc, char **argv);
int pg_cmd_init(int argc, char **argv);

#endif
