/*
 * env.c - every test process starts from one known environment, whatever the
 * machine's holds.
 *
 * CI machines preset variables that perfgate, OpenBLAS, libpq, git and the
 * C library read: a forced OpenBLAS core type changes the machine
 * fingerprint, GITHUB_ACTIONS turns progress into log groups, PERFGATE_DB
 * moves the default store, TZ and the locale change printed times. A test
 * that passed on one machine and failed on another because of them would
 * test the machine. So before any test runs (a constructor: Criterion runs
 * every test in a fresh instance of its executable, and children inherit the
 * result), every variable of that kind is removed and a few are set to fixed
 * values; a test that needs one sets it and restores it, or passes it to the
 * one process it starts (pg_test_run()'s `env`).
 *
 * TMPDIR and HOME stay: perfgate must work in any temporary folder, one
 * whose name holds a space included (ci/checks.d/hostile-env.sh runs the
 * tests in one), and git's user configuration is switched off instead.
 */
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Whole families: what perfgate, the BLAS and OpenMP runtimes, CI services and git read. */
static const char *const dropped_prefixes[] = {
    "PERFGATE_", "OPENBLAS_", "GOTO_", "GOTOBLAS_", "OMP_", "MKL_", "BLIS_", "GITHUB_", "RUNNER_", "ACTIONS_",
    "GIT_", "LC_", "VALGRIND_", NULL,
};

/* Single names: the CI flag, time zone, locale, colour and terminal. */
static const char *const dropped_names[] = {
    "CI", "TZ", "LANG", "LANGUAGE", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "COLUMNS",
    "LINES", "PYTHONPATH", "PYTHONHOME", "PYTHONWARNINGS", NULL,
};

/* What every test runs with. */
static const char *const fixed[][2] = {
    {"TZ", "UTC"},
    {"LC_ALL", "C.UTF-8"},
    {"NO_COLOR", "1"},
    /* Roofs take seconds to measure; the tests that want them ask for them. */
    {"PERFGATE_ROOFLINE", "off"},
    /* git reads neither the machine's nor the user's configuration. */
    {"GIT_CONFIG_NOSYSTEM", "1"},
    {"GIT_CONFIG_GLOBAL", "/dev/null"},
};

/* libpq's own variables (PGHOST, PGPASSWORD, ...): PG followed by a capital; PG_TEST_* are the tests' own. */
static int is_libpq(const char *name)
{
    return name[0] == 'P' && name[1] == 'G' && name[2] >= 'A' && name[2] <= 'Z';
}

static int dropped(const char *entry, size_t len)
{
    size_t i;

    for (i = 0; dropped_prefixes[i]; i++)
        if (strncmp(entry, dropped_prefixes[i], strlen(dropped_prefixes[i])) == 0)
            return 1;
    for (i = 0; dropped_names[i]; i++)
        if (strlen(dropped_names[i]) == len && strncmp(entry, dropped_names[i], len) == 0)
            return 1;
    return is_libpq(entry);
}

__attribute__((constructor)) static void pg_test_env_normalise(void)
{
    size_t i;

    /* unsetenv() shifts environ down, so the same index is looked at again after a removal. */
    for (i = 0; environ && environ[i];) {
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);

        if (dropped(environ[i], len)) {
            char name[256];

            if (len >= sizeof(name)) {
                i++;
                continue;
            }
            memcpy(name, environ[i], len);
            name[len] = '\0';
            unsetenv(name);
            continue;
        }
        i++;
    }
    for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        setenv(fixed[i][0], fixed[i][1], 1);
}
