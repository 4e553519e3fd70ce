/* compile.c - test helpers that run the system C/C++ compiler. */
#include "compile.h"

#include "support.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int pg_test_sh(char **out, const char *cmdline)
{
    char *full = pg__asprintf("%s 2>&1", cmdline);
    pg_buf b = PG_BUF_INIT;
    char chunk[4096];
    size_t n;
    FILE *p;
    int status;

    cr_assert(full != NULL);
    p = popen(full, "r");
    cr_assert(p != NULL, "popen failed: %s", cmdline);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        pg__buf_put(&b, chunk, n);
    status = pclose(p);
    free(full);
    if (out)
        *out = b.ptr ? pg__buf_detach(&b) : pg__strdup("");
    pg__buf_clear(&b);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

char *pg_test_sh_expect(int want, const char *fmt, ...)
{
    char cmd[16384], *out = NULL;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    rc = pg_test_sh(&out, cmd);
    pg_test_assert_no_sanitizer(rc, out, cmd);
    cr_assert_eq(rc, want, "%s: exit %d, not %d\n%s", cmd, rc, want, out);
    return out;
}

char *pg_test_build_plugin(const char *dir, const char *src, const char *name, const char *flags)
{
    char *lib = pg__asprintf("%s/lib%s.so", dir, name);
    char *cmd = pg__asprintf("cc -std=c11 -O1 -shared -fPIC -Wall -Wextra -pedantic -Werror -I'%s/include' %s "
                             "-o '%s' '%s/%s'",
                             PG_TEST_SOURCE_DIR, flags ? flags : "", lib, PG_TEST_DATA_DIR, src);
    char *log = NULL;
    int rc = pg_test_sh(&log, cmd);

    cr_assert_eq(rc, 0, "building %s failed (%d): %s\n%s", src, rc, cmd, log);
    free(cmd);
    free(log);
    return lib;
}

char *pg_test_build_dir(void)
{
    const char *bin = PG_TEST_BINARY;
    const char *slash = strrchr(bin, '/');

    return slash ? pg__asprintf("%.*s", (int)(slash - bin), bin) : pg__strdup(".");
}
