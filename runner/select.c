/* select.c - choosing the runs to compare. */
#include "select.h"

#include "perfgate/errors.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pg_selection_free(pg_selection *sel)
{
    if (!sel)
        return;
    free(sel->ids);
    free(sel->described);
    sel->ids = NULL;
    sel->count = 0;
    sel->described = NULL;
}

static int parse_id(int64_t *out, const char *s)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v <= 0)
        return -1;
    *out = v;
    return 0;
}

int pg_select_head(int64_t *out_id, pg_store *store, const char *selector)
{
    pg_run_list list = {0};
    pg_run_filter f = {0};
    int err;

    *out_id = 0;
    if (selector && strcmp(selector, "latest") != 0) {
        if (parse_id(out_id, selector) == 0)
            return 0;
        if (strncmp(selector, "commit:", 7) == 0)
            f.commit = selector + 7;
        else if (strncmp(selector, "branch:", 7) == 0)
            f.branch = selector + 7;
        else
            return pg_error_set(PG_EUSAGE, "unknown run selector '%s' (use an id, latest, commit:SHA or branch:NAME)",
                                selector);
    }
    f.limit = 1;
    if ((err = pg_store_list_runs(&list, store, &f)) != 0)
        return err;
    if (list.count == 0) {
        pg_run_list_free(&list);
        return pg_error_set(PG_ENOTFOUND, "no stored run matches '%s'", selector ? selector : "latest");
    }
    *out_id = list.items[0].id;
    pg_run_list_free(&list);
    return 0;
}

int pg_select_base(pg_selection *out, pg_store *store, const char *selector, int64_t head_id)
{
    pg_run_list head = {0}, list = {0};
    pg_run_filter hf = {0}, f = {0};
    char *branch_copy = NULL;
    size_t i, want = 1;
    int64_t id = 0;
    int err;

    memset(out, 0, sizeof(*out));
    /* The head's own branch and machine anchor the default selection. */
    hf.before_id = head_id + 1;
    hf.limit = 1;
    if ((err = pg_store_list_runs(&head, store, &hf)) != 0)
        return err;
    if (head.count == 0 || head.items[0].id != head_id) {
        pg_run_list_free(&head);
        return pg_error_set(PG_ENOTFOUND, "no stored run with id %lld", (long long)head_id);
    }
    f.before_id = head_id;
    if (!selector) {
        f.branch = head.items[0].branch;
        f.machine_hash = head.items[0].machine_hash;
    } else if (parse_id(&id, selector) == 0) {
        f.before_id = id + 1;
        if ((err = pg_store_list_runs(&list, store, &f)) != 0)
            goto cleanup;
        if (list.count == 0 || list.items[0].id != id) {
            err = pg_error_set(PG_ENOTFOUND, "no stored run with id %lld", (long long)id);
            goto cleanup;
        }
        pg_run_list_free(&list);
    } else if (strncmp(selector, "commit:", 7) == 0) {
        f.commit = selector + 7;
        f.before_id = 0;
    } else if (strncmp(selector, "branch:", 7) == 0) {
        f.branch = selector + 7;
    } else if (strncmp(selector, "last:", 5) == 0) {
        char *end;
        long k = strtol(selector + 5, &end, 10);
        if (end == selector + 5 || k < 1 || k > 1000 || (*end && *end != ':')) {
            err = pg_error_set(PG_EUSAGE, "bad selector '%s': use last:K or last:K:BRANCH with 1 <= K <= 1000",
                               selector);
            goto cleanup;
        }
        want = (size_t)k;
        if (*end == ':')
            f.branch = branch_copy = pg__strdup(end + 1);
        else
            f.branch = head.items[0].branch;
        f.machine_hash = head.items[0].machine_hash;
    } else {
        err = pg_error_set(PG_EUSAGE,
                           "unknown baseline selector '%s' (use an id, commit:SHA, branch:NAME or last:K)",
                           selector);
        goto cleanup;
    }
    f.limit = want + 1;
    if ((err = pg_store_list_runs(&list, store, &f)) != 0)
        goto cleanup;
    out->ids = calloc(want, sizeof(*out->ids));
    if (!out->ids) {
        err = pg_error_set(PG_ENOMEM, "out of memory selecting runs");
        goto cleanup;
    }
    for (i = 0; i < list.count && out->count < want; i++)
        if (list.items[i].id != head_id)
            out->ids[out->count++] = list.items[i].id;
    if (out->count) {
        const pg_run_info *b = NULL;
        for (i = 0; i < list.count; i++)
            if (list.items[i].id == out->ids[0])
                b = &list.items[i];
        if (b) {
            int64_t age = pg__now_unix() - b->started_at;
            out->described = pg__asprintf("run %lld (%s @ %.12s, %lld min old)%s", (long long)b->id,
                                          b->branch ? b->branch : "?", b->commit ? b->commit : "no commit",
                                          (long long)(age / 60), out->count > 1 ? " and earlier runs" : "");
        }
    }
    err = 0;

cleanup:
    pg_run_list_free(&head);
    pg_run_list_free(&list);
    free(branch_copy);
    if (err)
        pg_selection_free(out);
    return err;
}
