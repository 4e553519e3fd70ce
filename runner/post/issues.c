/*
 * issues.c - GitHub issues that perfgate keeps (post.h): found by a label
 * and a marker in the body, opened, edited and commented on.
 *
 * An issue is perfgate's only when its body holds the marker AND the
 * token's login opened it: a marker copied into someone else's issue never
 * makes perfgate edit that issue. Pull requests, which the issues list
 * also returns, are passed over.
 */
#include "post/post.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int pg__post_check_repo(const char *repo);
int pg__post_same_login(const char *author, const char *login);

/* GitHub's limit on an issue's title, in characters. */
#define TITLE_LIMIT 256

void pg_issue_clear(pg_issue *i)
{
    free(i->body);
    free(i->title);
    memset(i, 0, sizeof(*i));
}

int pg__issues_take(pg_issue **items, size_t *n, const char *body, const char *marker, const char *login)
{
    json_t *arr = json_loads(body ? body : "", 0, NULL), *it;
    size_t i;
    int err = 0;

    json_array_foreach(arr, i, it)
    {
        json_t *b = json_object_get(it, "body"), *u = json_object_get(json_object_get(it, "user"), "login");
        json_t *num = json_object_get(it, "number");
        pg_issue *grown;
        if (json_object_get(it, "pull_request") || !json_is_string(b) || !strstr(json_string_value(b), marker) ||
            !json_is_string(u) || !pg__post_same_login(json_string_value(u), login) || !json_is_integer(num) ||
            json_integer_value(num) <= 0)
            continue;
        if (!(grown = realloc(*items, (*n + 1) * sizeof(*grown)))) {
            err = pg_error_set(PG_ENOMEM, "out of memory");
            break;
        }
        *items = grown;
        memset(&grown[*n], 0, sizeof(grown[*n]));
        grown[*n].number = (int64_t)json_integer_value(num);
        grown[*n].body = pg__strdup(json_string_value(b));
        grown[*n].title = pg__strdup(json_string_value(json_object_get(it, "title")));
        (*n)++;
    }
    json_decref(arr);
    return err;
}

/* ?labels=L with L percent-encoded (labels are the user's words). */
static char *labels_query(const char *label)
{
    pg_buf b = PG_BUF_INIT;
    const char *p;

    for (p = label; p && *p; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-_.~", c))
            pg__buf_put(&b, p, 1);
        else
            pg__buf_printf(&b, "%%%02X", c);
    }
    return b.ptr ? pg__buf_detach(&b) : pg__strdup("");
}

int pg_issues_list(pg_issue **out, size_t *n, pg_gh *gh, const char *repo, const char *label, const char *marker)
{
    pg_gh_response r = {0};
    const char *login = NULL;
    char *q = NULL, *page = NULL;
    int err;

    *out = NULL;
    *n = 0;
    if ((err = pg__post_check_repo(repo)) != 0 || (err = pg_gh_login(&login, gh)) != 0)
        return err;
    if (!(q = labels_query(label)) ||
        !(page = pg__asprintf("/repos/%s/issues?state=open&labels=%s&per_page=100", repo, q))) {
        free(q);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    /* Every page: an issue may be old. */
    while (page && !err) {
        if ((err = pg_gh_request(&r, gh, "GET", page, NULL)) != 0)
            break;
        if (r.status != 200)
            err = pg__gh_status_error(&r, "listing the repository's issues");
        else
            err = pg__issues_take(out, n, r.body, marker, login);
        free(page);
        page = r.next;
        r.next = NULL;
        pg_gh_response_clear(&r);
    }
    pg_gh_response_clear(&r);
    free(page);
    free(q);
    if (err) {
        pg_issues_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return err;
}

void pg_issues_free(pg_issue *items, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        pg_issue_clear(&items[i]);
    free(items);
}

/* The body as GitHub takes it: trimmed under its limit with a link to the run. */
static char *payload(const char *title, const char *body, const char *label, const char *run_url, int *err)
{
    char *trimmed = NULL;
    json_t *o = json_object();
    char *s = NULL;

    *err = 0;
    if (body && (*err = pg_post_trim(&trimmed, body, PG_GH_COMMENT_LIMIT, run_url)) != 0) {
        json_decref(o);
        return NULL;
    }
    if (o && title) {
        char cut[TITLE_LIMIT * 4 + 1];
        size_t n = strlen(title) < TITLE_LIMIT ? strlen(title) : TITLE_LIMIT;
        while (n && ((unsigned char)title[n] & 0xC0) == 0x80)
            n--;
        snprintf(cut, sizeof(cut), "%.*s", (int)n, title);
        json_object_set_new(o, "title", json_string(cut));
    }
    if (o && trimmed)
        json_object_set_new(o, "body", json_string(trimmed));
    if (o && label)
        json_object_set_new(o, "labels", json_pack("[s]", label));
    s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (!s)
        *err = pg_error_set(PG_ENOMEM, "out of memory preparing an issue");
    json_decref(o);
    free(trimmed);
    return s;
}

/*
 * One write: `json` sent to `path` (both taken, either may be NULL when out
 * of memory) by `method`, GitHub's answer `expect`ed; its body into
 * *answer when asked for.
 */
static int write_json(char **answer, pg_gh *gh, const char *method, char *path, char *json, long expect,
                      const char *what)
{
    pg_gh_response r = {0};
    int err;

    if (answer)
        *answer = NULL;
    if (!path || !json)
        err = pg_error_set(PG_ENOMEM, "out of memory");
    else if ((err = pg_gh_request(&r, gh, method, path, json)) == 0 && r.status != expect)
        err = pg__gh_status_error(&r, what);
    if (!err && answer) {
        *answer = r.body;
        r.body = NULL;
    }
    pg_gh_response_clear(&r);
    free(path);
    free(json);
    return err;
}

int pg_issues_open(int64_t *number, pg_gh *gh, const char *repo, const char *title, const char *body,
                   const char *label, const char *run_url)
{
    char *json, *answer = NULL;
    json_t *o;
    int err;

    *number = 0;
    if ((err = pg__post_check_repo(repo)) != 0 || !(json = payload(title, body, label, run_url, &err)))
        return err;
    if ((err = write_json(&answer, gh, "POST", pg__asprintf("/repos/%s/issues", repo), json, 201, "opening an issue")) ==
            0 &&
        (o = json_loads(answer, 0, NULL)) != NULL) {
        if (json_is_integer(json_object_get(o, "number")))
            *number = (int64_t)json_integer_value(json_object_get(o, "number"));
        json_decref(o);
    }
    free(answer);
    if (!err && *number <= 0)
        err = pg_error_set(PG_ENET, "opening an issue: GitHub's answer names no issue number");
    return err;
}

int pg_issues_edit(pg_gh *gh, const char *repo, int64_t number, const char *title, const char *body,
                   const char *run_url)
{
    char *json;
    int err;

    if ((err = pg__post_check_repo(repo)) != 0 || !(json = payload(title, body, NULL, run_url, &err)))
        return err;
    return write_json(NULL, gh, "PATCH", pg__asprintf("/repos/%s/issues/%lld", repo, (long long)number), json, 200,
                      "updating the issue");
}

int pg_issues_comment(pg_gh *gh, const char *repo, int64_t number, const char *body, const char *run_url)
{
    char *json;
    int err;

    if ((err = pg__post_check_repo(repo)) != 0 || !(json = payload(NULL, body, NULL, run_url, &err)))
        return err;
    return write_json(NULL, gh, "POST", pg__asprintf("/repos/%s/issues/%lld/comments", repo, (long long)number), json,
                      201, "commenting on the issue");
}
