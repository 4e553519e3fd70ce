/*
 * set.c - suites from files and directories, in stable order, with suite
 * names unique across the set.
 */
#include "suite/suite.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_yaml_ext(const char *name)
{
    size_t n = strlen(name);

    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static int set_push(pg_suite_set *set, pg_suite *s)
{
    pg_suite **p = realloc(set->suites, (set->count + 1) * sizeof(*p));

    if (!p)
        return PG_ENOMEM;
    set->suites = p;
    p[set->count++] = s;
    return 0;
}

/* The suite files of a directory, sorted by name (byte order, locale-free). */
static int list_dir(char ***out, size_t *nout, const char *dirpath)
{
    DIR *dir = opendir(dirpath);
    struct dirent *de;
    char **files = NULL;
    size_t n = 0, plen = strlen(dirpath);
    int slash = plen > 0 && dirpath[plen - 1] == '/';

    *out = NULL;
    *nout = 0;
    if (!dir)
        return pg_error_set(PG_ESUITE, "%s: cannot read directory: %s", dirpath, strerror(errno));
    while ((de = readdir(dir)) != NULL) {
        char **p;
        if (de->d_name[0] == '.' || !has_yaml_ext(de->d_name))
            continue;
        if (!(p = realloc(files, (n + 1) * sizeof(*p))))
            break;
        files = p;
        if ((files[n] = pg__asprintf("%s%s%s", dirpath, slash ? "" : "/", de->d_name)) != NULL)
            n++;
    }
    closedir(dir);
    if (n)
        qsort(files, n, sizeof(*files), name_cmp);
    *out = files;
    *nout = n;
    if (!n)
        return pg_error_set(PG_ESUITE, "%s: no suite files (*.yaml, *.yml) in this directory", dirpath);
    return 0;
}

int pg_suite_set_load(pg_suite_set *out, const char *const *paths, size_t npaths,
                      const pg_suite_options *opts, pg_diags *diags)
{
    size_t i, j, k;
    int first_err = 0;
    char first_msg[1024] = "";

    memset(out, 0, sizeof(*out));
    for (i = 0; i < npaths; i++) {
        struct stat st;
        char **files = NULL;
        size_t nfiles = 0;
        int err = 0;

        if (stat(paths[i], &st) != 0) {
            err = pg_error_set(PG_ESUITE, "%s: no such suite file or directory", paths[i]);
        } else if (S_ISDIR(st.st_mode)) {
            err = list_dir(&files, &nfiles, paths[i]);
        } else if ((files = malloc(sizeof(*files))) != NULL && (files[0] = pg__strdup(paths[i])) != NULL) {
            nfiles = 1;
        }
        if (err) {
            pg__diag_add(diags, NULL, "%s", pg_error_last());
            if (!first_err) {
                first_err = err;
                snprintf(first_msg, sizeof(first_msg), "%s", pg_error_last());
            }
        }
        for (j = 0; j < nfiles; j++) {
            pg_suite *s = NULL;
            int e = pg_suite_load(&s, files[j], opts, diags);
            for (k = 0; e == 0 && k < out->count; k++)
                if (strcmp(out->suites[k]->name, s->name) == 0) {
                    const pg_node *at = pg_node_get(pg_doc_root(s->doc), "suite");
                    e = pg_error_set(PG_ESUITE, "%s:%d:%d: suite name '%s' is already used by %s", files[j],
                                     at->line, at->col, s->name, out->suites[k]->path);
                    pg__diag_add(diags, NULL, "%s", pg_error_last());
                    pg_suite_free(s);
                    s = NULL;
                }
            if (s && set_push(out, s) != 0) {
                pg_suite_free(s);
                e = pg_error_set(PG_ENOMEM, "out of memory loading suites");
            }
            if (e && !first_err) {
                first_err = e;
                snprintf(first_msg, sizeof(first_msg), "%s", pg_error_last());
            }
            free(files[j]);
        }
        free(files);
    }
    if (first_err) {
        pg_suite_set_clear(out);
        return pg_error_set(first_err, "%s", first_msg);
    }
    return 0;
}

void pg_suite_set_clear(pg_suite_set *set)
{
    size_t i;

    if (!set)
        return;
    for (i = 0; i < set->count; i++)
        pg_suite_free(set->suites[i]);
    free(set->suites);
    set->suites = NULL;
    set->count = 0;
}
