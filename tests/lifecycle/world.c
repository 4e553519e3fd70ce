/* world.c - what the lifecycle tests share (world.h). */
#include "world.h"

#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void lc_env_set(lc_env *e, const char *key, const char *fmt, ...)
{
    char val[8192];
    size_t klen = strlen(key);
    va_list ap;
    int i;

    va_start(ap, fmt);
    vsnprintf(val, sizeof(val), fmt, ap);
    va_end(ap);
    for (i = 0; i < e->n; i++)
        if (strncmp(e->v[i], key, klen) == 0 && e->v[i][klen] == '=') {
            free(e->v[i]);
            e->v[i] = pg__asprintf("%s=%s", key, val);
            return;
        }
    cr_assert(e->n + 1 < (int)(sizeof(e->v) / sizeof(e->v[0])), "too many environment variables");
    e->v[e->n++] = pg__asprintf("%s=%s", key, val);
    e->v[e->n] = NULL;
}

const char *lc_env_get(const lc_env *e, const char *key)
{
    size_t klen = strlen(key);
    int i;

    for (i = 0; i < e->n; i++)
        if (strncmp(e->v[i], key, klen) == 0 && e->v[i][klen] == '=')
            return e->v[i] + klen + 1;
    return NULL;
}

void lc_env_free(lc_env *e)
{
    int i;

    for (i = 0; i < e->n; i++)
        free(e->v[i]);
    e->n = 0;
    e->v[0] = NULL;
}

void lc_env_base(lc_env *e, const char *home)
{
    int i;

    lc_env_set(e, "PATH", "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    for (i = 0; pg_test_sanitizer_env[i]; i++) {
        const char *kv = pg_test_sanitizer_env[i], *eq = strchr(kv, '=');
        char key[32];
        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
        lc_env_set(e, key, "%s", eq + 1);
    }
    lc_env_set(e, "HOME", "%s", home);
    lc_env_set(e, "NO_COLOR", "1");
    if (getenv("TMPDIR"))
        lc_env_set(e, "TMPDIR", "%s", getenv("TMPDIR"));
}

char *lc_sh_ok(const char *fmt, ...)
{
    char cmd[16384];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    return pg_test_sh_expect(0, "%s", cmd);
}

char *lc_slurp(const char *dir, const char *rel)
{
    char *path = pg__asprintf("%s/%s", dir, rel), *text = NULL;
    size_t len = 0;

    pg_assert_ok(pg__read_file(&text, &len, path));
    free(path);
    return text;
}

int lc_exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

void lc_commit(const char *repo, char sha[41], const char *msg)
{
    char *out;

    free(lc_sh_ok("cd '%s' && git add -A && git -c user.name=Dev -c user.email=dev@example.com commit -qm '%s'", repo,
                  msg));
    out = lc_sh_ok("git -C '%s' rev-parse HEAD", repo);
    cr_assert(strlen(out) >= 40, "%s", out);
    memcpy(sha, out, 40);
    sha[40] = '\0';
    free(out);
}

void lc_zip(char **bytes, size_t *len, const char *file, const char *name)
{
    char *dir = pg_test_tmpdir(), *zip = pg__asprintf("%s/a.zip", dir);

    free(lc_sh_ok("python3 -c 'import sys, zipfile\n"
                  "with zipfile.ZipFile(sys.argv[1], \"w\", zipfile.ZIP_DEFLATED) as z: "
                  "z.write(sys.argv[2], sys.argv[3])' '%s' '%s' '%s'",
                  zip, file, name));
    pg_assert_ok(pg__read_file(bytes, len, zip));
    pg_test_rmtree(dir);
    free(zip);
    free(dir);
}

char *lc_sql(const char *db, const char *query)
{
    return lc_sh_ok("sqlite3 '%s' \"%s\"", db, query);
}

json_t *lc_report(const char *path)
{
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);

    cr_assert(r != NULL, "%s: %s", path, je.text);
    return r;
}

const char *lc_tail(const char *text, size_t n)
{
    size_t len = text ? strlen(text) : 0;

    return !text ? "" : len > n ? text + len - n : text;
}

json_t *lc_find_case(json_t *report, const char *name)
{
    json_t *v;
    size_t i;

    json_array_foreach(json_object_get(report, "verdicts"), i, v)
    {
        const char *n = json_string_value(json_object_get(v, "name"));
        if (n && strcmp(n, name) == 0)
            return v;
    }
    return NULL;
}

const char *lc_verdict_of(json_t *report, const char *name)
{
    json_t *v = lc_find_case(report, name);

    cr_assert(v != NULL, "the report has no verdict for %s", name);
    return json_string_value(json_object_get(v, "verdict"));
}

size_t lc_writes_since(fakegh *gh, size_t from)
{
    size_t i, n = 0;

    for (i = from; i < fakegh_request_count(gh); i++)
        n += strcmp(fakegh_request_at(gh, i)->method, "GET") != 0;
    return n;
}

size_t lc_statuses(fakegh *gh, const char *repo, const char *sha, const char *state)
{
    char *path = pg__asprintf("/repos/%s/statuses/%s", repo, sha);
    char *want = state ? pg__asprintf("\"state\":\"%s\"", state) : NULL;
    size_t i, n = 0;

    for (i = 0; i < fakegh_request_count(gh); i++) {
        const fakegh_request *r = fakegh_request_at(gh, i);
        if (strcmp(r->method, "POST") == 0 && strcmp(r->path, path) == 0 && (!want || strstr(r->body, want)))
            n++;
    }
    free(path);
    free(want);
    return n;
}
