/*
 * build_id.c - what names a build a gate measured (build_id.h): its path,
 * the commit it records, and a SHA-256 over the files it gave the cases.
 */
#include "ab/build_id.h"

#include "base/sha256.h"
#include "base/util.h"
#include "perfgate/errors.h"
#include "plugin/plugin.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The stamp ci/gh/build.sh leaves in a finished build: the checkout's commit. */
#define STAMP ".perfgate-build-sha"

/* The commit in `dir`/STAMP: 7 to 64 hex digits on its first line; NULL when there is none. */
static char *stamped_commit(const char *dir)
{
    char *path = pg__asprintf("%s/" STAMP, dir), *text = NULL, *sha = NULL;
    size_t len = 0, n = 0;

    if (path && pg__read_file(&text, &len, path) == 0) {
        while (n < len && isxdigit((unsigned char)text[n]))
            n++;
        if (n >= 7 && n <= 64 && (n == len || text[n] == '\n' || text[n] == '\r'))
            sha = pg__asprintf("%.*s", (int)n, text);
    }
    free(path);
    free(text);
    return sha;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds `path` (taken) to the list when it is a regular file inside `dir` and not listed yet. */
static int add_file(char ***files, size_t *n, char *path, const char *dir)
{
    size_t i, dlen = strlen(dir);
    char *real = path ? realpath(path, NULL) : NULL, **p;
    struct stat st;

    free(path);
    if (!real || stat(real, &st) != 0 || !S_ISREG(st.st_mode) || strncmp(real, dir, dlen) != 0 || real[dlen] != '/') {
        free(real);
        return 0;
    }
    for (i = 0; i < *n; i++)
        if (strcmp((*files)[i], real) == 0) {
            free(real);
            return 0;
        }
    if (!(p = realloc(*files, (*n + 1) * sizeof(*p)))) {
        free(real);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    *files = p;
    p[(*n)++] = real;
    return 0;
}

/* The files under `dir` that the cases of `set` (matching `filter`) load or run. */
static int build_files(char ***files, size_t *n, const pg_suite_set *set, const char *dir, const char *filter)
{
    size_t i, j;
    int err = 0;

    for (i = 0; i < set->count && !err; i++)
        for (j = 0; j < set->suites[i]->ncases && !err; j++) {
            const pg_case *c = &set->suites[i]->cases[j];
            char *path = NULL;
            if (filter && !pg__glob(filter, c->key))
                continue;
            if (c->plugin && (err = pg_plugin_path(&path, c, dir)) == 0)
                err = add_file(files, n, path, dir);
            if (!err && c->command && c->command[0] && (err = pg_plugin_subst(&path, c->command[0], c, dir)) == 0)
                err = add_file(files, n, path, dir);
        }
    return err;
}

/* The digest `sha256sum` prints for the listing `cd DIR && sha256sum FILES` (relative paths, in order). */
static int listing_digest(char out[65], char **files, size_t n, const char *dir)
{
    pg_sha256 all;
    size_t i, dlen = strlen(dir);
    char one[65];
    int err;

    qsort(files, n, sizeof(*files), by_string);
    pg_sha256_init(&all);
    for (i = 0; i < n; i++) {
        if ((err = pg_sha256_file(one, files[i])) != 0)
            return err;
        pg_sha256_update(&all, one, 64);
        pg_sha256_update(&all, "  ", 2);
        pg_sha256_update(&all, files[i] + dlen + 1, strlen(files[i] + dlen + 1));
        pg_sha256_update(&all, "\n", 1);
    }
    pg_sha256_hex(&all, out);
    return 0;
}

int pg_ab_build_identity(pg_base_build *out, const pg_suite_set *set, const char *build, const char *filter)
{
    char **files = NULL, digest[65] = "", *dir = NULL;
    size_t n = 0, i;
    struct stat st;
    int err = 0;

    memset(out, 0, sizeof(*out));
    if (!build || stat(build, &st) != 0 || !(out->path = realpath(build, NULL)))
        return pg_error_set(PG_ENOTFOUND, "%s: no such file or directory", build ? build : "(no build)");
    if (S_ISDIR(st.st_mode)) {
        dir = pg__strdup(out->path);
        if (dir && (err = build_files(&files, &n, set, dir, filter)) == 0 && n > 0)
            err = listing_digest(digest, files, n, dir);
    } else {
        /* A plugin library standing for every plugin case: its own digest, as sha256sum prints it. */
        dir = pg__asprintf("%.*s", (int)(strrchr(out->path, '/') - out->path), out->path);
        err = pg_sha256_file(digest, out->path);
    }
    if (!err && !dir)
        err = pg_error_set(PG_ENOMEM, "out of memory");
    if (!err) {
        out->commit = stamped_commit(dir);
        out->sha256 = digest[0] ? pg__strdup(digest) : NULL;
    }
    for (i = 0; i < n; i++)
        free(files[i]);
    free(files);
    free(dir);
    return err;
}
