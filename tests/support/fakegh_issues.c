/*
 * fakegh_issues.c - the fake GitHub API's issues (fakegh.h): listed open
 * by label (paged with Link rel="next", pull requests among them as GitHub
 * lists them), opened, read and edited; their comments are the comments of
 * fakegh.c, which share the numbers as GitHub's do.
 */
#include "fakegh_internal.h"

#include "base/util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *issue_json(const issue *i)
{
    return json_pack("{s:I, s:s, s:s, s:s, s:{s:s}, s:[{s:s}]}", "number", (json_int_t)i->number, "title", i->title,
                     "body", i->body, "state", i->open ? "open" : "closed", "user", "login", i->login, "labels",
                     "name", i->label ? i->label : "");
}

static char *dump(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);

    json_decref(o);
    return s;
}

static issue *find(fakegh *s, int64_t number)
{
    size_t i;

    for (i = 0; i < s->nissues; i++)
        if (s->issues[i].number == number)
            return &s->issues[i];
    return NULL;
}

static issue *add(fakegh *s, int64_t number, const char *login, const char *title, const char *body, const char *label)
{
    issue *i;

    s->issues = realloc(s->issues, (s->nissues + 1) * sizeof(*i));
    i = &s->issues[s->nissues++];
    i->number = number > 0 ? number : s->next_issue++;
    i->login = pg__strdup(login);
    i->title = pg__strdup(title);
    i->body = pg__strdup(body);
    i->label = pg__strdup(label);
    i->open = 1;
    return i;
}

/* GET /repos/O/R/issues?state=open&labels=L: open issues with label L, oldest first, paged; one pull request too. */
static char *list(fakegh *s, const char *owner, const char *repo, const char *path, char *hdrs, size_t hlen)
{
    char *label = fakegh__query_str(path, "labels");
    long per = fakegh__query_num(path, "per_page", 30), page = fakegh__query_num(path, "page", 1), k = 0;
    json_t *arr = json_array();
    size_t i;

    for (i = 0; i < s->nissues; i++) {
        const issue *is = &s->issues[i];
        if (!is->open || (label && (!is->label || strcmp(label, is->label) != 0)))
            continue;
        if (k >= (page - 1) * per && k < page * per)
            json_array_append_new(arr, issue_json(is));
        k++;
    }
    /* GitHub lists pull requests among issues; a client must pass them over. */
    if (page == 1)
        json_array_append_new(arr, json_pack("{s:I, s:s, s:s, s:{s:s}, s:{}}", "number", (json_int_t)99999, "title",
                                             "a pull request", "body", "<!-- perfgate-regression", "user", "login",
                                             s->login, "pull_request"));
    if (page * per < k) {
        /* The label as the request sent it, percent-encoded. */
        const char *raw = strstr(path, "labels="), *end = raw ? strchr(raw, '&') : NULL;
        int len = raw ? (int)(end ? end - raw - 7 : (long)strlen(raw + 7)) : 0;
        snprintf(hdrs, hlen, "Link: <%s/repos/%s/%s/issues?state=open&labels=%.*s&per_page=%ld&page=%ld>; rel=\"next\"\r\n",
                 s->url, owner, repo, len, raw ? raw + 7 : "", per, page + 1);
    }
    free(label);
    return dump(arr);
}

/* POST /repos/O/R/issues and PATCH /repos/O/R/issues/N: the fields given, checked as GitHub does. */
static char *write_issue(fakegh *s, issue *is, const char *who, const char *body, long *status)
{
    json_t *in = json_loads(body ? body : "", 0, NULL), *t = json_object_get(in, "title"),
           *b = json_object_get(in, "body"), *l = json_array_get(json_object_get(in, "labels"), 0);
    char *out;

    if ((!is && !json_is_string(t)) || (b && !json_is_string(b)) ||
        (json_is_string(b) && fakegh__utf8_chars(json_string_value(b)) > 65536) ||
        (json_is_string(t) && fakegh__utf8_chars(json_string_value(t)) > 256)) {
        json_decref(in);
        *status = 422;
        return pg__strdup("{\"message\":\"Validation Failed\"}");
    }
    if (!is) {
        is = add(s, 0, who, json_string_value(t), json_is_string(b) ? json_string_value(b) : "",
                 json_is_string(l) ? json_string_value(l) : NULL);
        *status = 201;
    } else {
        if (json_is_string(t)) {
            free(is->title);
            is->title = pg__strdup(json_string_value(t));
        }
        if (json_is_string(b)) {
            free(is->body);
            is->body = pg__strdup(json_string_value(b));
        }
        *status = 200;
    }
    out = dump(issue_json(is));
    json_decref(in);
    return out;
}

char *fakegh__route_issues(fakegh *s, const char *method, const char *path, const char *who, const char *body,
                           long *status, char *hdrs, size_t hlen)
{
    char owner[64], repo[64];
    long number = 0;
    int n = 0, m = 0;
    issue *is;

    if (sscanf(path, "/repos/%63[^/]/%63[^/]/issues%n", owner, repo, &n) != 2 || n == 0)
        return NULL;
    if (path[n] == '?' && strcmp(method, "GET") == 0)
        return list(s, owner, repo, path, hdrs, hlen);
    if (path[n] == '\0' && strcmp(method, "POST") == 0)
        return write_issue(s, NULL, who, body, status);
    /* Only /issues/N itself: /issues/N/comments and /issues/comments/ID are fakegh.c's. */
    if (sscanf(path + n, "/%ld%n", &number, &m) != 1 || m == 0 || path[n + m] != '\0')
        return NULL;
    if (!(is = find(s, number))) {
        *status = 404;
        return pg__strdup("{\"message\":\"Not Found\"}");
    }
    if (strcmp(method, "GET") == 0)
        return dump(issue_json(is));
    if (strcmp(method, "PATCH") == 0)
        return write_issue(s, is, who, body, status);
    return NULL;
}

void fakegh__issues_free(fakegh *s)
{
    size_t i;

    for (i = 0; i < s->nissues; i++) {
        free(s->issues[i].title);
        free(s->issues[i].body);
        free(s->issues[i].login);
        free(s->issues[i].label);
    }
    free(s->issues);
}

int64_t fakegh_add_issue(fakegh *s, const char *login, const char *title, const char *body, const char *label)
{
    int64_t n;

    pthread_mutex_lock(&s->mu);
    n = add(s, 0, login, title, body, label)->number;
    pthread_mutex_unlock(&s->mu);
    return n;
}

static char *field(fakegh *s, int64_t number, int which)
{
    char *out = NULL;
    issue *is;

    pthread_mutex_lock(&s->mu);
    if ((is = find(s, number)) != NULL)
        out = pg__strdup(which == 0 ? is->title : which == 1 ? is->body : is->label);
    pthread_mutex_unlock(&s->mu);
    return out;
}

char *fakegh_issue_title(fakegh *s, int64_t number)
{
    return field(s, number, 0);
}

char *fakegh_issue_body(fakegh *s, int64_t number)
{
    return field(s, number, 1);
}

char *fakegh_issue_label(fakegh *s, int64_t number)
{
    return field(s, number, 2);
}

size_t fakegh_issue_count(fakegh *s)
{
    size_t n;

    pthread_mutex_lock(&s->mu);
    n = s->nissues;
    pthread_mutex_unlock(&s->mu);
    return n;
}

int64_t fakegh_issue_number(fakegh *s, size_t i)
{
    int64_t n;

    pthread_mutex_lock(&s->mu);
    n = i < s->nissues ? s->issues[i].number : 0;
    pthread_mutex_unlock(&s->mu);
    return n;
}
