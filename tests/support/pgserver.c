/* pgserver.c - one real PostgreSQL server per test binary (pgserver.h). */
#include "support.h"

#include "perfgate/config.h"
#include "pgserver.h"
#include "base/proc.h"
#include "base/util.h"

#include <glob.h>
#include <signal.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Criterion runs each test in a child of the runner that started the
 * server, so what the tests need travels in the environment.
 */
#define ENV_HOST "PG_TEST_PG_HOST" /* the socket directory: the server runs */
#define ENV_WHY "PG_TEST_PG_WHY"   /* why there is no server */
#define ENV_BIN "PG_TEST_PG_BIN"   /* the folder of initdb, pg_ctl and psql */
#define ENV_AS "PG_TEST_PG_AS"     /* "runuser -u USER -- " when the tests run as root, else "" */

/* The folder holding initdb: on PATH, else Debian's versioned folder. */
static char *server_bin(void)
{
    const char *path = getenv("PATH");
    char *copy = pg__strdup(path ? path : ""), *save = NULL, *dir, *found = NULL;
    glob_t g;

    for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *p = pg__asprintf("%s/initdb", dir);
        char *ctl = pg__asprintf("%s/pg_ctl", dir);
        if (access(p, X_OK) == 0 && access(ctl, X_OK) == 0)
            found = pg__strdup(dir);
        free(p);
        free(ctl);
    }
    free(copy);
    if (found) {
        /* psql sits beside the real binaries, not always beside a symlink on PATH. */
        char *real = NULL, *p = pg__asprintf("%s/initdb", found), *slash;
        if (p && (real = realpath(p, NULL)) != NULL && (slash = strrchr(real, '/')) != NULL) {
            *slash = '\0';
            free(found);
            found = pg__strdup(real);
        }
        free(p);
        free(real);
        return found;
    }
    if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) == 0 && g.gl_pathc > 0) {
        found = pg__strdup(g.gl_pathv[g.gl_pathc - 1]);
        *strrchr(found, '/') = '\0';
    }
    globfree(&g);
    return found;
}

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return rc == 0 ? 0 : -1;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v ? v : dflt;
}

static int ctl_start(void)
{
    char *cmd = pg__asprintf("%s%s/pg_ctl -D %s/data -l %s/server.log -w -s "
                             "-o \"-k %s -c listen_addresses='' -F -c max_connections=60\" start >/dev/null",
                             env_or(ENV_AS, ""), env_or(ENV_BIN, ""), env_or(ENV_HOST, ""), env_or(ENV_HOST, ""),
                             env_or(ENV_HOST, ""));
    int rc = sh(cmd);

    free(cmd);
    return rc;
}

void pg_test_pg_start(void)
{
    char *bin, *dir = NULL, *cmd = NULL;
    const char *as = "";
    struct passwd *pw = NULL;
    const char *user = "postgres";

    if (!PG_HAS_POSTGRES)
        return;
    bin = server_bin();
    if (!bin) {
        setenv(ENV_WHY, "the PostgreSQL server binaries (initdb, pg_ctl) are not installed: ci/install-deps.sh --test "
                        "installs them (Debian: postgresql)", 1);
        return;
    }
    setenv(ENV_BIN, bin, 1);
    dir = pg_test_tmpdir();
    setenv(ENV_HOST, dir, 1);
    /* The server refuses to run as root: as root, it runs as an unprivileged user. */
    if (geteuid() == 0) {
        pw = getpwnam(user);
        if (!pw)
            pw = getpwnam(user = "nobody");
        if (!pw || chown(dir, pw->pw_uid, pw->pw_gid) != 0) {
            setenv(ENV_WHY, "running as root and no unprivileged user (postgres, nobody) to run the server as", 1);
            goto out;
        }
        as = strcmp(user, "postgres") == 0 ? "runuser -u postgres -- " : "runuser -u nobody -- ";
    }
    setenv(ENV_AS, as, 1);
    cmd = pg__asprintf("%s%s/initdb -D %s/data -U perfgate -A trust -E UTF8 --locale=C --no-sync >%s/initdb.log 2>&1",
                       as, bin, dir, dir);
    if (sh(cmd) != 0 || ctl_start() != 0) {
        char *why = pg__asprintf("the test PostgreSQL server did not start (see %s/initdb.log, %s/server.log)", dir, dir);
        setenv(ENV_WHY, why, 1);
        free(why);
        setenv("PG_TEST_PG_FAILED", "1", 1);
        goto out;
    }
    unsetenv(ENV_WHY);
out:
    free(cmd);
    free(bin);
    free(dir);
}

void pg_test_pg_stop(void)
{
    const char *host = getenv(ENV_HOST);
    char *cmd;

    if (!host)
        return;
    cmd = pg__asprintf("%s%s/pg_ctl -D %s/data -m immediate -w -s stop >/dev/null 2>&1", env_or(ENV_AS, ""),
                       env_or(ENV_BIN, ""), host);
    sh(cmd);
    free(cmd);
    pg_test_rmtree(host);
}

int pg_test_pg_halt(void)
{
    char *cmd = pg__asprintf("%s%s/pg_ctl -D %s/data -m fast -w -s stop >/dev/null", env_or(ENV_AS, ""),
                             env_or(ENV_BIN, ""), env_or(ENV_HOST, ""));
    int rc = sh(cmd);

    free(cmd);
    return rc;
}

int pg_test_pg_resume(void)
{
    return ctl_start();
}

/* Signals the postmaster (its pid heads data/postmaster.pid) and every process whose parent it is. */
int pg_test_pg_signal(int sig)
{
    const char *host = getenv(ENV_HOST);
    char *pidfile = host ? pg__asprintf("%s/data/postmaster.pid", host) : NULL, *text = NULL;
    size_t len = 0;
    long master = 0;
    pid_t kids[256];
    int n, i;

    if (!pidfile || pg__read_file(&text, &len, pidfile) != 0 || (master = atol(text)) <= 0) {
        free(pidfile);
        free(text);
        return -1;
    }
    free(pidfile);
    free(text);
    /* Backends first, so none is left running against a stopped postmaster or the other way round. */
    n = pg__proc_children_of(kids, 256, (pid_t)master);
    for (i = 0; i < n; i++)
        kill(kids[i], sig);
    return kill((pid_t)master, sig) == 0 ? 0 : -1;
}

/* `s` in single quotes for the shell. */
static char *quoted(const char *s)
{
    pg_buf b = PG_BUF_INIT;

    pg__buf_puts(&b, "'");
    for (; *s; s++) {
        if (*s == '\'')
            pg__buf_puts(&b, "'\\''");
        else
            pg__buf_put(&b, s, 1);
    }
    pg__buf_puts(&b, "'");
    return pg__buf_detach(&b);
}

char *pg_test_pg_sql(const char *url, const char *sql)
{
    char *qurl = quoted(url), *qsql = quoted(sql);
    char *cmd = pg__asprintf("%s/psql -X -A -t -q -v ON_ERROR_STOP=1 -d %s -c %s", env_or(ENV_BIN, ""), qurl, qsql);
    char line[4096] = "";
    FILE *p = popen(cmd, "r");
    int rc;

    cr_assert(p != NULL, "cannot run psql");
    if (!fgets(line, sizeof(line), p))
        line[0] = '\0';
    while (fgetc(p) != EOF)
        ;
    rc = pclose(p);
    cr_assert_eq(rc, 0, "psql failed on: %s", sql);
    line[strcspn(line, "\n")] = '\0';
    free(qurl);
    free(qsql);
    free(cmd);
    return pg__strdup(line);
}

char *pg_test_pg_database(void)
{
    static int serial;
    const char *why = getenv(ENV_WHY);
    char *admin, *name, *sql, *url;

    if (!PG_HAS_POSTGRES)
        cr_skip_test("this perfgate was built without PostgreSQL support (libpq was not found)");
    if (why) {
        cr_assert(!getenv("PG_TEST_PG_FAILED"), "%s", why);
        cr_skip_test("%s", why);
    }
    name = pg__asprintf("t_%d_%d", (int)getpid(), serial++);
    admin = pg__asprintf("postgresql:///postgres?host=%s&user=perfgate", getenv(ENV_HOST));
    sql = pg__asprintf("CREATE DATABASE %s TEMPLATE template0", name);
    free(pg_test_pg_sql(admin, sql));
    url = pg__asprintf("postgresql:///%s?host=%s&user=perfgate", name, getenv(ENV_HOST));
    free(admin);
    free(sql);
    free(name);
    return url;
}

char *pg_test_pg_url_with_password(const char *url, const char *password)
{
    const char *db = url + strlen("postgresql:///");
    size_t n = strcspn(db, "?");

    return pg__asprintf("postgresql://perfgate:%s@/%.*s?host=%s", password, (int)n, db, getenv(ENV_HOST));
}
