/*
 * doc.c - one suite file into a validated model with expanded cases.
 *
 * Validation collects every error of a file, each as "FILE:LINE:COL:
 * message", and sorts them by position, so one `perfgate validate` shows
 * everything there is to fix.
 */
#include "suite/internal.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static const char *const suite_keys[] = {"suite", "description", "defaults", "checks", "benchmarks", "accept", NULL};
static const pg__hint top_hints[] = {
    {"name", "the suite's name is set with 'suite: NAME'"},
    {"kernel", "kernels are named inside entries of 'benchmarks:'"},
    {NULL, NULL}};

/* ---- repeated keys, names and cases ---- */

static void report_dup_key(pg_diags *d, size_t later, size_t first, void *payload)
{
    pg_node *const *keys = payload;

    pg__diag_add(d, keys[later], "duplicate key '%s' (first at %d:%d)", keys[later]->scalar, keys[first]->line,
                 keys[first]->col);
}

/* YAML keeps the first of two equal keys: a silent override is a mistake, so report it. */
static void check_dup_keys(pg__loader *L, pg_doc *doc)
{
    size_t n, i, j;
    pg_node *const *all = pg_doc_nodes(doc, &n);

    for (i = 0; i < n; i++) {
        const pg_node *m = all[i];
        const char **texts;
        pg_node **keys;
        size_t k = 0;
        if (m->type != PG_NODE_MAP || m->count < 2)
            continue;
        texts = malloc(m->count * sizeof(*texts));
        keys = malloc(m->count * sizeof(*keys));
        if (texts && keys) {
            for (j = 0; j < m->count; j++)
                if (m->keys[j]->type == PG_NODE_SCALAR) {
                    texts[k] = m->keys[j]->scalar;
                    keys[k++] = m->keys[j];
                }
            pg__each_dup(L->d, texts, k, report_dup_key, keys);
        }
        free(texts);
        free(keys);
    }
}

static void report_dup_name(pg_diags *d, size_t later, size_t first, void *payload)
{
    const pg_node **names = payload;

    pg__diag_add(d, names[later], "duplicate name '%s' (first at %d:%d); names are unique in a suite",
                 names[later]->scalar, names[first]->line, names[first]->col);
}

typedef struct case_dups {
    const pg_suite *s;
    const pg_node *last;      /* the benchmark last reported */
} case_dups;

static void report_dup_case(pg_diags *d, size_t later, size_t first, void *payload)
{
    case_dups *c = payload;
    const pg_case *a = &c->s->cases[first], *b = &c->s->cases[later];

    /* Different entries with one name were reported as duplicate names; report a benchmark once. */
    if (a->node != b->node || c->last == b->node)
        return;
    c->last = b->node;
    pg__diag_add(d, b->node, "benchmark '%s' expands to the case %s twice (zipped values repeat)", b->name,
                 b->key);
}

static void check_unique(pg__loader *L)
{
    const char **texts;
    size_t i, n = L->nnames > L->s->ncases ? L->nnames : L->s->ncases;
    case_dups dups = {L->s, NULL};

    if (!(texts = malloc((n ? n : 1) * sizeof(*texts))))
        return;
    for (i = 0; i < L->nnames; i++)
        texts[i] = L->names[i]->scalar;
    pg__each_dup(L->d, texts, L->nnames, report_dup_name, L->names);
    for (i = 0; i < L->s->ncases; i++)
        texts[i] = L->s->cases[i].key;
    pg__each_dup(L->d, texts, L->s->ncases, report_dup_case, &dups);
    free(texts);
}

/* ---- the whole file ---- */

static const pg_node *entry_list(pg__loader *L, const pg_node *root, const char *key)
{
    const pg_node *list = pg_node_get(root, key);

    if (!list)
        return NULL;
    if (list->type != PG_NODE_SEQ) {
        pg__diag_add(L->d, list, "%s must be a list of entries (each starting with '- name: ...'), not %s", key,
                     pg_node_kind(list));
        return NULL;
    }
    if (list->count == 0) {
        pg__diag_add(L->d, list, "%s is an empty list; leave it out or add an entry", key);
        return NULL;
    }
    return list;
}

static void loader_free(pg__loader *L)
{
    size_t i;

    free(L->defs.threads);
    for (i = 0; i < L->defs.nparams; i++)
        pg__dim_clear(&L->defs.params[i]);
    free(L->defs.params);
    free(L->names);
    free(L->dir);
}

static int load_doc(pg_suite **out, pg_doc *doc, const pg_suite_options *opts, pg_diags *diags)
{
    pg__loader L;
    pg_diags mine = {0};
    pg_suite *s;
    const pg_node *root = pg_doc_root(doc), *n, *list;
    const char *file = pg_doc_file(doc), *slash;
    size_t i;
    int err = 0, unknown_top = 0;

    *out = NULL;
    memset(&L, 0, sizeof(L));
    if (!(s = calloc(1, sizeof(*s))))
        return pg_error_set(PG_ENOMEM, "out of memory loading a suite");
    s->doc = doc;
    s->path = pg__strdup(file);
    L.s = s;
    L.d = &mine;
    L.opts = opts;
    L.default_threads = 1;
    L.defs.device = "cpu";
    L.defs.min_run_time = 0.5;
    L.defs.max_run_time = 30.0;
    L.defs.warmup = 0.1;
    L.defs.min_samples = 10;
    L.defs.threshold = 0.05;
    L.defs.alpha = 0.05;
    slash = strrchr(file, '/');
    L.dir = slash ? pg__asprintf("%.*s", (int)(slash - file), file) : pg__strdup(".");
    if (slash == file) {
        free(L.dir);
        L.dir = pg__strdup("/");
    }

    check_dup_keys(&L, doc);
    if (root->type != PG_NODE_MAP) {
        pg__diag_add(L.d, root, "a suite must be a mapping with 'suite' and 'benchmarks' or 'checks', not %s",
                     pg_node_kind(root));
        goto done;
    }
    unknown_top = pg__keys_known(L.d, root, suite_keys, "a suite", top_hints, 1);
    n = pg_node_get(root, "suite");
    if (!n)
        pg__diag_add(L.d, root, "missing required key 'suite' (the suite's name)");
    else if (pg__check_name(L.d, n, "suite") == 0)
        s->name = pg__strdup(n->scalar);
    if ((n = pg_node_get(root, "description")) != NULL && pg__scalar_of(L.d, n, "description") == 0)
        s->description = pg__strdup(n->scalar);
    if ((n = pg_node_get(root, "defaults")) != NULL)
        pg__load_defaults(&L, n);
    /* A misspelt 'benchmarks' was just reported: do not also say it is missing. */
    if (!pg_node_get(root, "benchmarks") && !pg_node_get(root, "checks") && !unknown_top)
        pg__diag_add(L.d, root, "a suite needs 'benchmarks', 'checks' or both");
    if ((list = entry_list(&L, root, "checks")) != NULL)
        for (i = 0; i < list->count; i++)
            pg__load_check(&L, list->items[i]);
    /* Past the case cap the suite is refused anyway: stop there, so a huge list costs no more than the cap. */
    if ((list = entry_list(&L, root, "benchmarks")) != NULL)
        for (i = 0; i < list->count && !L.over_cap; i++)
            pg__load_benchmark(&L, list->items[i]);
    check_unique(&L);
    if ((n = pg_node_get(root, "accept")) != NULL)
        pg__load_accepts(&L, n);

done:
    pg__diags_sort(&mine, file);
    if (mine.count) {
        err = pg_error_set(PG_ESUITE, "%s", mine.lines[0]);
        s->doc = NULL;
        pg_suite_free(s);
        s = NULL;
    }
    if (diags) {
        for (i = 0; i < mine.count; i++) {
            pg__diag_push(diags, mine.lines[i]);
            mine.lines[i] = NULL;
        }
    }
    pg_diags_clear(&mine);
    loader_free(&L);
    *out = s;
    return err;
}

int pg_suite_load_buffer(pg_suite **out, const char *name, const char *data, size_t len,
                         const pg_suite_options *opts, pg_diags *diags)
{
    pg_suite_options dflt = PG_SUITE_OPTIONS_INIT;
    pg_doc *doc = NULL;
    int err;

    *out = NULL;
    if (!opts)
        opts = &dflt;
    if ((err = pg_doc_load(&doc, name, data, len)) != 0) {
        if (diags)
            pg__diag_push(diags, pg__strdup(pg_error_last()));
        return err;
    }
    err = load_doc(out, doc, opts, diags);
    if (err)
        pg_doc_free(doc);
    return err;
}

int pg_suite_load(pg_suite **out, const char *path, const pg_suite_options *opts, pg_diags *diags)
{
    return pg_suite_load_buffer(out, path, NULL, 0, opts, diags);
}

void pg_suite_free(pg_suite *s)
{
    size_t i;

    if (!s)
        return;
    for (i = 0; i < s->ncases; i++)
        pg_case_clear(&s->cases[i]);
    free(s->cases);
    for (i = 0; i < s->nchecks; i++) {
        free(s->checks[i].name);
        free(s->checks[i].kind);
    }
    free(s->checks);
    for (i = 0; i < s->naccepts; i++)
        pg_accept_clear(&s->accepts[i]);
    free(s->accepts);
    free(s->name);
    free(s->path);
    free(s->description);
    pg_doc_free(s->doc);
    free(s);
}
