/*
 * actions_uses.c - the actions perfgate's workflows use, as the Actions
 * emulator runs them (actions.h): actions/checkout, actions/cache/restore
 * and /save, actions/upload-artifact and actions/download-artifact. Each
 * must be pinned to a full commit SHA; the inputs each takes are checked,
 * so a typo in a workflow fails here as it would there.
 */
#include "actions_internal.h"

#include "compile.h"
#include "support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The `with:` value of `key`, expanded; `dflt` when absent. NULL after an expression error. */
static char *with_value(gha_job *j, const pg_node *with, const char *key, const char *dflt)
{
    const pg_node *n = pg_node_get(with, key);
    char *out = NULL;

    if (!n || !n->scalar)
        return dflt ? pg__strdup(dflt) : NULL;
    if (gha_expand(&out, j, n->scalar) != 0)
        return NULL;
    return out;
}

/* Every `with:` key is one the action takes. */
static int check_keys(gha_job *j, const char *action, const pg_node *with, const char *const *known)
{
    size_t i, k;

    for (i = 0; with && with->type == PG_NODE_MAP && i < with->count; i++) {
        const char *key = with->keys[i]->scalar;
        for (k = 0; known[k] && strcmp(known[k], key) != 0; k++)
            ;
        if (!known[k])
            return gha_fail(j, "%s takes no input '%s'", action, key);
    }
    return 0;
}

/* `path` inside the workspace when relative. */
static char *in_workspace(gha_job *j, const char *path)
{
    return path[0] == '/' ? pg__strdup(path) : pg__asprintf("%s/%s", j->workspace, path);
}

static int sh(gha_job *j, const char *cmd)
{
    char *out = NULL;
    int rc = pg_test_sh(&out, cmd);

    if (rc != 0)
        pg__buf_printf(j->log, "%s\n", out);
    free(out);
    return rc;
}

/* ---- actions/checkout ----------------------------------------------------- */

static int checkout(gha_job *j, const pg_node *with)
{
    static const char *const keys[] = {"repository", "ref", "path", "persist-credentials", "fetch-depth", NULL};
    char *repo = NULL, *ref = NULL, *path = NULL, *persist = NULL, *dst = NULL, *cmd = NULL;
    const gha_repo *r = NULL;
    size_t i;
    int rc = 1;

    if (check_keys(j, "actions/checkout", with, keys) != 0 || !(repo = with_value(j, with, "repository", j->ev->repository)) ||
        !(ref = with_value(j, with, "ref", j->ev->checkout)) || !(path = with_value(j, with, "path", ".")) ||
        !(persist = with_value(j, with, "persist-credentials", "true")))
        goto out;
    /* perfgate's workflows never leave the token in .git/config. */
    if (strcmp(persist, "false") != 0) {
        gha_fail(j, "actions/checkout of %s without persist-credentials: false", repo);
        goto out;
    }
    for (i = 0; i < j->g->nrepos && !r; i++) {
        const gha_repo *c = &j->g->repos[i];
        if (strcmp(c->name, repo) == 0 && (c->git || strcmp(c->ref, ref) == 0))
            r = c;
    }
    if (!r) {
        gha_fail(j, "actions/checkout: no repository %s at %s", repo, ref);
        goto out;
    }
    dst = in_workspace(j, path);
    if (r->git)
        cmd = pg__asprintf("rm -rf '%s' && git clone -q --shared --no-checkout '%s' '%s' && "
                           "git -C '%s' -c advice.detachedHead=false checkout -q '%s'",
                           dst, r->git, dst, dst, ref);
    else
        cmd = pg__asprintf("rm -rf '%s' && mkdir -p '%s' && cp -a '%s'/. '%s'/", dst, dst, r->tree, dst);
    pg__buf_printf(j->log, "checkout %s at %s into %s\n", repo, ref, path);
    rc = sh(j, cmd) == 0 ? 0 : 1;
out:
    free(repo);
    free(ref);
    free(path);
    free(persist);
    free(dst);
    free(cmd);
    return j->error ? -1 : rc;
}

/* ---- actions/cache -------------------------------------------------------- */

/* Whether a cache entry of `scope` is visible to this run: its own branch's, or the default branch's. */
static int visible(const gha_job *j, const char *scope)
{
    char *dflt = pg__asprintf("refs/heads/%s", j->ev->default_branch);
    int v = strcmp(scope, j->ev->ref) == 0 || strcmp(scope, dflt) == 0;

    free(dflt);
    return v;
}

static const gha_cache_entry *find_entry(const gha_job *j, const char *key, const char *paths, int prefix)
{
    const gha_cache_entry *best = NULL;
    size_t i;

    for (i = 0; i < j->g->ncache; i++) {
        const gha_cache_entry *e = &j->g->cache[i];
        int match = prefix ? strncmp(e->key, key, strlen(key)) == 0 : strcmp(e->key, key) == 0;
        /* An entry is restored only to the paths it was saved from (the cache's version). */
        if (match && strcmp(e->paths, paths) == 0 && visible(j, e->scope) && (!best || e->seq > best->seq))
            best = e;
    }
    return best;
}

static int cache_restore(gha_job *j, const pg_node *with, gha_map *outputs)
{
    static const char *const keys[] = {"path", "key", "restore-keys", "fail-on-cache-miss", NULL};
    char *path = NULL, *key = NULL, *restore = NULL, *dst = NULL, *cmd = NULL;
    const gha_cache_entry *e = NULL;

    if (check_keys(j, "actions/cache/restore", with, keys) != 0 || !(path = with_value(j, with, "path", NULL)) ||
        !(key = with_value(j, with, "key", NULL)) || !(restore = with_value(j, with, "restore-keys", "")))
        goto out;
    if (!(e = find_entry(j, key, path, 0))) {
        char *save = NULL, *line = strtok_r(restore, "\n", &save);
        for (; line && !e; line = strtok_r(NULL, "\n", &save))
            e = *line ? find_entry(j, line, path, 1) : NULL;
    }
    gha_map_set(outputs, "cache-hit", e && strcmp(e->key, key) == 0 ? "true" : "false");
    gha_map_set(outputs, "cache-matched-key", e ? e->key : "");
    pg__buf_printf(j->log, "cache restore %s: %s\n", key, e ? e->key : "miss");
    if (e) {
        dst = in_workspace(j, path);
        cmd = pg__asprintf("rm -rf '%s' && mkdir -p \"$(dirname '%s')\" && cp -a '%s/content' '%s'", dst, dst, e->dir,
                           dst);
        sh(j, cmd);
    }
out:
    free(path);
    free(key);
    free(restore);
    free(dst);
    free(cmd);
    return j->error ? -1 : 0;
}

static void add_entry(gha *g, const char *key, const char *paths, const char *scope, const char *from)
{
    gha_cache_entry *grown = realloc(g->cache, (g->ncache + 1) * sizeof(*grown)), *e;
    char *cmd;

    cr_assert(grown != NULL);
    g->cache = grown;
    e = &g->cache[g->ncache++];
    e->key = pg__strdup(key);
    e->paths = pg__strdup(paths);
    e->scope = pg__strdup(scope);
    e->seq = ++g->seq;
    e->dir = pg__asprintf("%s/cache/%ld", g->dir, e->seq);
    cmd = pg__asprintf("mkdir -p '%s' && cp -a '%s' '%s/content'", e->dir, from, e->dir);
    free(lc_sh_ok("%s", cmd));
    free(cmd);
}

void gha_seed_cache(gha *g, const char *key, const char *path, const char *content)
{
    add_entry(g, key, path, "refs/heads/main", content);
}

static int cache_save(gha_job *j, const pg_node *with)
{
    static const char *const keys[] = {"path", "key", NULL};
    char *path = NULL, *key = NULL, *src = NULL;
    size_t i;

    if (check_keys(j, "actions/cache/save", with, keys) != 0 || !(path = with_value(j, with, "path", NULL)) ||
        !(key = with_value(j, with, "key", NULL)))
        goto out;
    src = in_workspace(j, path);
    for (i = 0; i < j->g->ncache; i++)
        if (strcmp(j->g->cache[i].key, key) == 0 && strcmp(j->g->cache[i].scope, j->ev->ref) == 0)
            break;
    /* Keys are immutable, and a path that does not exist saves nothing: warnings, as there. */
    if (i < j->g->ncache)
        pg__buf_printf(j->log, "cache save %s: warning: a cache with this key already exists\n", key);
    else if (!lc_exists(src))
        pg__buf_printf(j->log, "cache save %s: warning: %s does not exist; nothing saved\n", key, path);
    else {
        add_entry(j->g, key, path, j->ev->ref, src);
        pg__buf_printf(j->log, "cache save %s (%s)\n", key, j->ev->ref);
    }
out:
    free(path);
    free(key);
    free(src);
    return j->error ? -1 : 0;
}

/* ---- artifacts ------------------------------------------------------------ */

/* Lists the artifact with the fake API too (perfgate db fetch reads it there), zipped as Actions zips it. */
static void list_with_api(gha_job *j, const char *name, const char *file)
{
    const char *branch = j->ev->head_ref && *j->ev->head_ref ? j->ev->head_ref : j->ev->ref;
    json_t *fork = json_object_get(json_object_get(json_object_get(json_object_get(j->event, "pull_request"), "head"),
                                                   "repo"),
                                   "fork");
    char when[32], *bytes = NULL, *base;
    size_t len = 0;

    if (strncmp(branch, "refs/heads/", 11) == 0)
        branch += 11;
    base = strrchr(file, '/') ? strrchr(file, '/') + 1 : (char *)file;
    lc_zip(&bytes, &len, file, base);
    snprintf(when, sizeof(when), "2025-06-%02ldT%02ld:00:00Z", 1 + (j->g->seq / 24) % 28, j->g->seq % 24);
    j->g->seq++;
    fakegh_add_artifact(j->g->api, name, branch, json_is_true(fork) ? 2 : 1, 0, when, bytes, len);
    free(bytes);
}

static int upload(gha_job *j, const pg_node *with)
{
    static const char *const keys[] = {"name", "path", "if-no-files-found", "retention-days", NULL};
    char *name = NULL, *path = NULL, *missing = NULL, *src = NULL, *cmd = NULL;
    gha_artifact *grown, *a;
    size_t i;
    int rc = 0;

    if (check_keys(j, "actions/upload-artifact", with, keys) != 0 || !(name = with_value(j, with, "name", "artifact")) ||
        !(path = with_value(j, with, "path", NULL)) || !(missing = with_value(j, with, "if-no-files-found", "warn")))
        goto out;
    src = in_workspace(j, path);
    for (i = 0; i < j->g->nartifacts; i++)
        if (j->g->artifacts[i].run == j->run_id && strcmp(j->g->artifacts[i].name, name) == 0) {
            pg__buf_printf(j->log, "upload %s: an artifact of this name exists in the run\n", name);
            rc = 1;
            goto out;
        }
    if (!lc_exists(src)) {
        pg__buf_printf(j->log, "upload %s: %s: no files found (%s)\n", name, path, missing);
        rc = strcmp(missing, "error") == 0;
        goto out;
    }
    grown = realloc(j->g->artifacts, (j->g->nartifacts + 1) * sizeof(*grown));
    cr_assert(grown != NULL);
    j->g->artifacts = grown;
    a = &j->g->artifacts[j->g->nartifacts++];
    a->run = j->run_id;
    a->name = pg__strdup(name);
    a->dir = pg__asprintf("%s/artifacts/%ld/%s", j->g->dir, j->run_id, name);
    /* A directory uploads its contents; a file, itself. */
    cmd = pg__asprintf("mkdir -p '%s' && if [ -d '%s' ]; then cp -a '%s'/. '%s'/; else cp -a '%s' '%s'/; fi", a->dir, src,
                       src, a->dir, src, a->dir);
    free(lc_sh_ok("%s", cmd));
    if (path[strlen(path) - 1] != '/' && !strchr(path, '\n'))
        list_with_api(j, name, src);
    pg__buf_printf(j->log, "upload %s: %s\n", name, path);
out:
    free(name);
    free(path);
    free(missing);
    free(src);
    free(cmd);
    return j->error ? -1 : rc;
}

static int download(gha_job *j, const pg_node *with)
{
    static const char *const keys[] = {"name", "path", "run-id", "github-token", NULL};
    char *name = NULL, *path = NULL, *run = NULL, *dst = NULL, *cmd = NULL;
    const gha_artifact *a = NULL;
    long run_id;
    size_t i;
    int rc = 1;

    if (check_keys(j, "actions/download-artifact", with, keys) != 0 || !(name = with_value(j, with, "name", NULL)) ||
        !(path = with_value(j, with, "path", ".")) || !(run = with_value(j, with, "run-id", "")))
        goto out;
    run_id = *run ? strtol(run, NULL, 10) : j->run_id;
    for (i = 0; i < j->g->nartifacts; i++)
        if (j->g->artifacts[i].run == run_id && strcmp(j->g->artifacts[i].name, name) == 0)
            a = &j->g->artifacts[i];
    if (!a) {
        pg__buf_printf(j->log, "download %s of run %ld: no such artifact\n", name, run_id);
        goto out;
    }
    dst = in_workspace(j, path);
    cmd = pg__asprintf("mkdir -p '%s' && cp -a '%s'/. '%s'/", dst, a->dir, dst);
    rc = sh(j, cmd) == 0 ? 0 : 1;
    pg__buf_printf(j->log, "download %s of run %ld into %s\n", name, run_id, path);
out:
    free(name);
    free(path);
    free(run);
    free(dst);
    free(cmd);
    return j->error ? -1 : rc;
}

char *gha_composite_dir(gha_job *j, const char *uses)
{
    const char *at = strrchr(uses, '@');
    char *dir = NULL, *file;
    size_t i;

    if (strncmp(uses, "./", 2) == 0) {
        dir = pg__asprintf("%s/%s", j->workspace, uses + 2);
    } else if (at) {
        for (i = 0; i < j->g->nrepos && !dir; i++) {
            const gha_repo *r = &j->g->repos[i];
            size_t n = strlen(r->name);
            if (r->tree && strcmp(r->ref, at + 1) == 0 && strncmp(uses, r->name, n) == 0 && uses[n] == '/')
                dir = pg__asprintf("%s/%.*s", r->tree, (int)(at - uses - n - 1), uses + n + 1);
        }
    }
    file = dir ? pg__asprintf("%s/action.yml", dir) : NULL;
    if (file && !lc_exists(file)) {
        free(dir);
        dir = NULL;
    }
    free(file);
    return dir;
}

int gha_use(gha_job *j, const char *uses, const pg_node *with, gha_map *outputs)
{
    const char *at = strrchr(uses, '@');
    size_t len = at ? (size_t)(at - uses) : strlen(uses), i;
    char *composite;

    if (strncmp(uses, "./", 2) == 0) {
        if (!(composite = gha_composite_dir(j, uses)))
            return gha_fail(j, "%s holds no action.yml", uses);
        i = (size_t)gha_composite(j, composite, with, outputs);
        free(composite);
        return (int)i;
    }
    /* Pinned by commit, or it does not run (as zizmor would have it). */
    for (i = 1; at && at[i] && isxdigit((unsigned char)at[i]); i++)
        ;
    if (!at || i != 41 || at[i])
        return gha_fail(j, "%s is not pinned to a full commit SHA", uses);
    /* A composite action of a repository registered at that commit. */
    if ((composite = gha_composite_dir(j, uses)) != NULL) {
        int rc = gha_composite(j, composite, with, outputs);
        free(composite);
        return rc;
    }
    if (len == 16 && strncmp(uses, "actions/checkout", len) == 0)
        return checkout(j, with);
    if (len == 21 && strncmp(uses, "actions/cache/restore", len) == 0)
        return cache_restore(j, with, outputs);
    if (len == 18 && strncmp(uses, "actions/cache/save", len) == 0)
        return cache_save(j, with);
    if (len == 23 && strncmp(uses, "actions/upload-artifact", len) == 0)
        return upload(j, with);
    if (len == 25 && strncmp(uses, "actions/download-artifact", len) == 0)
        return download(j, with);
    return gha_fail(j, "the action %.*s is not known here", (int)len, uses);
}
