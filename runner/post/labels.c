/*
 * labels.c - whether a pull request carries a label, and who applied it:
 * how a maintainer accepts a regression on purpose (docs/ci.md, "Accepting
 * a regression"). Read from GitHub's API by the trusted posting step, never
 * from a report: adding a label needs triage rights on the repository, so
 * the author of a fork cannot, and a report can claim anything.
 */
#include "post/post.h"

#include "base/util.h"
#include "perfgate/errors.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int pg__post_check_repo(const char *repo);

int pg_post_label_check(const char *label)
{
    const unsigned char *p;

    if (!label || !*label)
        return pg_error_set(PG_EUSAGE, "the acceptance label is empty");
    for (p = (const unsigned char *)label; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return pg_error_set(PG_EUSAGE, "the acceptance label holds a control character");
    /* GitHub's own limit on a label's name. */
    if (strlen(label) > 100)
        return pg_error_set(PG_EUSAGE, "the acceptance label '%.20s...' is longer than a GitHub label can be", label);
    return 0;
}

/* GitHub compares label names without regard to case. */
static int same_label(json_t *name, const char *label)
{
    return json_is_string(name) && strcasecmp(json_string_value(name), label) == 0;
}

int pg__post_label_listed(const char *body, const char *label)
{
    json_t *arr = json_loads(body ? body : "", 0, NULL), *it;
    size_t i;
    int found = 0;

    json_array_foreach(arr, i, it) if (same_label(json_object_get(it, "name"), label)) found = 1;
    json_decref(arr);
    return found;
}

int pg__post_label_actor(char **actor, const char *body, const char *label)
{
    json_t *arr = json_loads(body ? body : "", 0, NULL), *it;
    size_t i;

    json_array_foreach(arr, i, it) {
        const char *event = json_string_value(json_object_get(it, "event"));
        json_t *login = json_object_get(json_object_get(it, "actor"), "login");
        if (!event || !same_label(json_object_get(json_object_get(it, "label"), "name"), label))
            continue;
        /* Events come oldest first: the last one that applied the label is who applied it now. */
        if (strcmp(event, "labeled") == 0 && json_is_string(login)) {
            free(*actor);
            if (!(*actor = pg__strdup(json_string_value(login)))) {
                json_decref(arr);
                return pg_error_set(PG_ENOMEM, "out of memory reading labels");
            }
        } else if (strcmp(event, "unlabeled") == 0) {
            free(*actor);
            *actor = NULL;
        }
    }
    json_decref(arr);
    return 0;
}

/* Every page of `path`, each handed to `page`; stops at the first error. */
static int each_page(pg_gh *gh, const char *path, const char *what, int (*page)(const char *body, void *payload),
                     void *payload)
{
    pg_gh_response r = {0};
    char *next = pg__strdup(path);
    int err = next ? 0 : pg_error_set(PG_ENOMEM, "out of memory reading labels");

    while (next && !err) {
        if ((err = pg_gh_request(&r, gh, "GET", next, NULL)) == 0 && r.status != 200)
            err = pg__gh_status_error(&r, what);
        if (!err)
            err = page(r.body, payload);
        free(next);
        next = err ? NULL : r.next;
        r.next = NULL;
        pg_gh_response_clear(&r);
    }
    free(next);
    return err;
}

typedef struct label_scan {
    const char *label;
    int present;
    char *actor;
} label_scan;

static int labels_page(const char *body, void *payload)
{
    label_scan *s = payload;

    s->present |= pg__post_label_listed(body, s->label);
    return 0;
}

static int events_page(const char *body, void *payload)
{
    label_scan *s = payload;

    return pg__post_label_actor(&s->actor, body, s->label);
}

int pg_post_label_read(pg_post_label *out, pg_gh *gh, const char *repo, int64_t pr, const char *label)
{
    label_scan s = {label, 0, NULL};
    char *path = NULL;
    int err;

    memset(out, 0, sizeof(*out));
    if ((err = pg__post_check_repo(repo)) != 0 || (err = pg_post_label_check(label)) != 0)
        return err;
    if (pr <= 0)
        return pg_error_set(PG_EUSAGE, "no pull request to read the labels of");
    if (!(path = pg__asprintf("/repos/%s/issues/%lld/labels?per_page=100", repo, (long long)pr)))
        return pg_error_set(PG_ENOMEM, "out of memory reading labels");
    err = each_page(gh, path, "reading the pull request's labels", labels_page, &s);
    free(path);
    if (!err && s.present) {
        if (!(path = pg__asprintf("/repos/%s/issues/%lld/events?per_page=100", repo, (long long)pr)))
            return pg_error_set(PG_ENOMEM, "out of memory reading labels");
        err = each_page(gh, path, "reading who applied the label", events_page, &s);
        free(path);
    }
    if (err) {
        free(s.actor);
        return err;
    }
    out->present = s.present;
    out->applied_by = s.actor;
    return 0;
}

void pg_post_label_clear(pg_post_label *l)
{
    free(l->applied_by);
    memset(l, 0, sizeof(*l));
}
