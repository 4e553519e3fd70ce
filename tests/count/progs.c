/* progs.c - the count tests' program builder and JSON row sums (progs.h). */
#include "progs.h"

#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *compile(const char *dir, const char *out, const char *src, const char *how, const char *flags)
{
    char *c = pg_test_write(dir, "src.c", src), *path = pg__asprintf("%s/%s", dir, out), *log = NULL;
    char *cmd = pg__asprintf("cc -O1 -g %s -o %s %s %s 2>&1", how, path, c, flags ? flags : "");
    int rc = pg_test_sh(&log, cmd);

    cr_assert_eq(rc, 0, "compiling %s failed: %s", out, log ? log : "");
    free(log);
    free(cmd);
    free(c);
    return path;
}

char *pg_test_cc(const char *dir, const char *name, const char *src, const char *flags)
{
    return compile(dir, name, src, "", flags);
}

char *pg_test_cc_shared(const char *dir, const char *name, const char *src, const char *flags)
{
    char *file = pg__asprintf("lib%s.so", name), *path = compile(dir, file, src, "-shared -fPIC", flags);

    free(file);
    return path;
}

static int64_t row_sum(json_t *rows, const char *field, const char *value, const char *what)
{
    size_t i;
    json_t *r;
    int64_t sum = 0;

    json_array_foreach(rows, i, r)
        if (strcmp(json_string_value(json_object_get(r, field)), value) == 0)
            sum += json_integer_value(json_object_get(r, what));
    return sum;
}

int64_t pg_test_row_flops(json_t *rows, const char *field, const char *value)
{
    return row_sum(rows, field, value, "flops");
}

int64_t pg_test_row_calls(json_t *rows, const char *field, const char *value)
{
    return row_sum(rows, field, value, "calls");
}
