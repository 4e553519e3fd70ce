/* fakegh.c - a fake GitHub REST API on 127.0.0.1 for the post tests (see fakegh.h). */
#include "fakegh.h"

#include "fakegh_internal.h"

#include "base/util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* Bytes the current answer got into the socket: each server answers on its own thread, one at a time. */
static _Thread_local int64_t sent_now;

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
        sent_now += w;
    }
}

static void respond_bytes(int fd, int status, const char *type, const char *headers, const void *body, size_t blen)
{
    char head[1024];

    snprintf(head, sizeof(head),
             "HTTP/1.1 %d Fake\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
             "Connection: close\r\nx-ratelimit-remaining: 999\r\n%s\r\n",
             status, type, blen, headers ? headers : "");
    send_all(fd, head, strlen(head));
    if (blen)
        send_all(fd, body, blen);
}

static void respond(int fd, int status, const char *headers, const char *body)
{
    respond_bytes(fd, status, "application/json; charset=utf-8", headers, body, body ? strlen(body) : 0);
}

static char *header(const char *head, const char *name)
{
    const char *p = head;
    size_t n = strlen(name);

    while ((p = strstr(p, "\r\n")) != NULL) {
        p += 2;
        if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 1, *e = strstr(v, "\r\n");
            while (*v == ' ')
                v++;
            return e ? pg__asprintf("%.*s", (int)(e - v), v) : NULL;
        }
    }
    return NULL;
}

size_t fakegh__utf8_chars(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static const char *login_for(fakegh *s, const char *auth)
{
    if (!auth || strncmp(auth, "Bearer ", 7) != 0 || strcmp(auth + 7, s->token) != 0)
        return NULL;
    return s->login;
}

static json_t *comment_json(const comment *c)
{
    return json_pack("{s:I, s:s, s:{s:s}}", "id", (json_int_t)c->id, "body", c->body, "user", "login", c->login);
}

static char *comment_text(const comment *c)
{
    json_t *o = comment_json(c);
    char *s = json_dumps(o, JSON_COMPACT);

    json_decref(o);
    return s;
}

/* Query parameter `name` as a number, or `dflt`. */
long fakegh__query_num(const char *path, const char *name, long dflt)
{
    char key[32];
    const char *q = strchr(path, '?'), *p;

    if (!q)
        return dflt;
    snprintf(key, sizeof(key), "%s=", name);
    for (p = q + 1; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL)
        if (strncmp(p, key, strlen(key)) == 0)
            return atol(p + strlen(key));
    return dflt;
}

/* Query parameter `name`, percent-decoded (caller frees), or NULL. */
char *fakegh__query_str(const char *path, const char *name)
{
    char key[32];
    const char *q = strchr(path, '?'), *p;
    size_t n;

    if (!q)
        return NULL;
    snprintf(key, sizeof(key), "%s=", name);
    n = strlen(key);
    for (p = q + 1; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
        if (strncmp(p, key, n) == 0) {
            const char *v = p + n, *e = strchr(v, '&');
            size_t len = e ? (size_t)(e - v) : strlen(v), i, o = 0;
            char *out = malloc(len + 1);
            for (i = 0; out && i < len; i++) {
                unsigned x;
                if (v[i] == '%' && i + 2 < len && sscanf(v + i + 1, "%2x", &x) == 1) {
                    out[o++] = (char)x;
                    i += 2;
                } else {
                    out[o++] = v[i] == '+' ? ' ' : v[i];
                }
            }
            if (out)
                out[o] = '\0';
            return out;
        }
    }
    return NULL;
}

static json_t *pull_json(const pull *p)
{
    return json_pack("{s:I, s:s, s:{s:s, s:s, s:s}}", "number", (json_int_t)p->number, "state", "open", "head", "sha",
                     p->sha, "ref", p->ref, "label", p->owner);
}

/* Whether issue `pr` carries `label` now: its last event for the label added it. */
static int labelled(const fakegh *s, int64_t pr, const char *label)
{
    size_t i;
    int on = 0;

    for (i = 0; i < s->nevents; i++)
        if (s->events[i].pr == pr && strcasecmp(s->events[i].label, label) == 0)
            on = s->events[i].added;
    return on;
}

/* GET .../issues/N/labels and .../issues/N/events, as GitHub answers them (events oldest first, 2 a page). */
static char *route_labels(fakegh *s, const char *owner, const char *repo, const char *rest, const char *path,
                          char *hdrs, size_t hlen)
{
    long pr = 0;
    int n = 0;
    size_t i, j;
    json_t *arr;
    char *out;

    if (sscanf(rest, "/issues/%ld/labels%n", &pr, &n) == 1 && (rest[n] == '\0' || rest[n] == '?')) {
        arr = json_array();
        for (i = 0; i < s->nevents; i++) {
            int first = 1;
            for (j = 0; j < i; j++)
                first &= !(s->events[j].pr == pr && strcasecmp(s->events[j].label, s->events[i].label) == 0);
            if (s->events[i].pr == pr && first && labelled(s, pr, s->events[i].label))
                json_array_append_new(arr, json_pack("{s:I, s:s}", "id", (json_int_t)(7000 + i), "name",
                                                     s->events[i].label));
        }
    } else if (sscanf(rest, "/issues/%ld/events%n", &pr, &n) == 1 && (rest[n] == '\0' || rest[n] == '?')) {
        long per = 2, page = fakegh__query_num(path, "page", 1), k = 0;
        arr = json_array();
        for (i = 0; i < s->nevents; i++) {
            if (s->events[i].pr != pr)
                continue;
            if (k >= (page - 1) * per && k < page * per)
                json_array_append_new(arr, json_pack("{s:I, s:s, s:{s:s}, s:{s:s}}", "id", (json_int_t)(8000 + i),
                                                     "event", s->events[i].added ? "labeled" : "unlabeled", "actor",
                                                     "login", s->events[i].actor, "label", "name",
                                                     s->events[i].label));
            k++;
        }
        if (page * per < k)
            snprintf(hdrs, hlen, "Link: <%s/repos/%s/%s/issues/%ld/events?per_page=100&page=%ld>; rel=\"next\"\r\n",
                     s->url, owner, repo, pr, page + 1);
    } else {
        return NULL;
    }
    out = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return out;
}

/* Routes what the trusted poster and `db fetch` ask: pull requests and artifacts. NULL: not such a request. */
static char *route_more(fakegh *s, int fd, const char *method, const char *path, char *hdrs, size_t hlen,
                        long *status, int *sent)
{
    char owner[64], repo[64], sha[64];
    const char *rest;
    long id = 0;
    int n = 0;
    size_t i;

    if (strcmp(method, "GET") != 0 || sscanf(path, "/repos/%63[^/]/%63[^/?]%n", owner, repo, &n) != 2)
        return NULL;
    rest = path + n;
    if (strncmp(rest, "/issues/", 8) == 0)
        return route_labels(s, owner, repo, rest, path, hdrs, hlen);
    if (strncmp(rest, "/pulls?", 7) == 0) {
        char *head = fakegh__query_str(path, "head"), *out;
        json_t *arr = json_array();
        for (i = 0; head && i < s->npulls; i++) {
            char *label = pg__asprintf("%s:%s", s->pulls[i].owner, s->pulls[i].ref);
            if (strcmp(label, head) == 0)
                json_array_append_new(arr, pull_json(&s->pulls[i]));
            free(label);
        }
        out = json_dumps(arr, JSON_COMPACT);
        json_decref(arr);
        free(head);
        return out;
    }
    if (sscanf(rest, "/commits/%63[0-9a-fA-F]/pulls%n", sha, &n) == 1 && rest[n] == '\0') {
        json_t *arr = json_array();
        char *out;
        for (i = 0; i < s->npulls; i++)
            if (strcmp(s->pulls[i].sha, sha) == 0)
                json_array_append_new(arr, pull_json(&s->pulls[i]));
        out = json_dumps(arr, JSON_COMPACT);
        json_decref(arr);
        return out;
    }
    if (strncmp(rest, "/actions/artifacts?", 19) == 0) {
        char *name = fakegh__query_str(path, "name"), *out;
        long per = fakegh__query_num(path, "per_page", 30), page = fakegh__query_num(path, "page", 1), k = 0, total = 0;
        json_t *arr = json_array(), *root;
        /* Newest first, as GitHub lists them. */
        for (i = s->nartifacts; i-- > 0;) {
            artifact *a = &s->artifacts[i];
            char *url;
            if (name && strcmp(name, a->name) != 0)
                continue;
            if (k >= (page - 1) * per && k < page * per) {
                url = pg__asprintf("%s/repos/%s/%s/actions/artifacts/%lld/zip", s->url, owner, repo, (long long)a->id);
                json_array_append_new(
                    arr, json_pack("{s:I, s:s, s:I, s:s, s:b, s:s, s:{s:I, s:I, s:I, s:s, s:s}}", "id",
                                   (json_int_t)a->id, "name", a->name, "size_in_bytes", (json_int_t)a->len,
                                   "archive_download_url", url, "expired", a->expired, "created_at", a->created_at,
                                   "workflow_run", "id", (json_int_t)(9000 + a->id), "repository_id", (json_int_t)1,
                                   "head_repository_id", (json_int_t)a->head_repo_id, "head_branch", a->branch,
                                   "head_sha", "abcdef0123456789abcdef0123456789abcdef01"));
                free(url);
            }
            k++;
        }
        total = k;
        if (page * per < total)
            snprintf(hdrs, hlen, "Link: <%s/repos/%s/%s/actions/artifacts?name=%s&per_page=%ld&page=%ld>; rel=\"next\"\r\n",
                     s->url, owner, repo, name ? name : "", per, page + 1);
        root = json_pack("{s:I, s:o}", "total_count", (json_int_t)total, "artifacts", arr);
        out = json_dumps(root, JSON_COMPACT);
        json_decref(root);
        free(name);
        return out;
    }
    if (sscanf(rest, "/actions/artifacts/%ld/zip%n", &id, &n) == 1 && rest[n] == '\0') {
        char loc[256];
        for (i = 0; i < s->nartifacts; i++)
            if (s->artifacts[i].id == id) {
                snprintf(loc, sizeof(loc), "Location: %s/blobs/%ld?sig=signed\r\n", s->url, id);
                respond(fd, 302, loc, "");
                *status = 302;
                *sent = 1;
                return pg__strdup("");
            }
        *status = 404;
        return pg__strdup("{\"message\":\"Not Found\"}");
    }
    return NULL;
}

/* Routes one request; called with the lock held. Returns the status sent. */
static int route(fakegh *s, int fd, const char *method, const char *path, const char *auth, const char *body)
{
    const char *who = login_for(s, auth);
    char owner[64], repo[64], *out = NULL, hdrs[512] = "";
    long pr = 0, id = 0, status = 200;
    int n = 0;
    size_t i;

    for (i = 0; i < s->nfaults; i++) {
        fault *f = &s->faults[i];
        if (f->times > 0 && (!f->method || strcmp(f->method, method) == 0) &&
            (!f->prefix || strncmp(path, f->prefix, strlen(f->prefix)) == 0)) {
            f->times--;
            respond(fd, f->status, f->headers,
                    f->body ? f->body
                            : "{\"message\":\"Resource not accessible by integration\","
                              "\"documentation_url\":\"https://docs.github.com/rest\"}");
            return f->status;
        }
    }
    if (strncmp(path, "/blobs/", 7) == 0 && strcmp(method, "GET") == 0) {
        /* Storage behind a signed URL: no token needed, and none should come. */
        id = atol(path + 7);
        for (i = 0; i < s->nartifacts; i++)
            if (s->artifacts[i].id == id) {
                respond_bytes(fd, 200, "application/zip", NULL, s->artifacts[i].zip, s->artifacts[i].len);
                return 200;
            }
        respond(fd, 404, NULL, "{\"message\":\"Not Found\"}");
        return 404;
    }
    if (strncmp(path, "/hooks/", 7) == 0 && strcmp(method, "POST") == 0) {
        /* A webhook: authorised by its secret URL, not by a token. */
        respond(fd, 200, NULL, "ok");
        return 200;
    }
    if (!who) {
        respond(fd, 401, NULL, "{\"message\":\"Bad credentials\"}");
        return 401;
    }
    if (strcmp(method, "GET") == 0 && strcmp(path, "/user") == 0) {
        if (s->user_status != 200) {
            respond(fd, s->user_status, NULL, "{\"message\":\"Resource not accessible by integration\"}");
            return s->user_status;
        }
        out = pg__asprintf("{\"login\":\"%s\",\"id\":1}", who);
    } else if ((out = fakegh__route_issues(s, method, path, who, body, &status, hdrs, sizeof(hdrs))) != NULL) {
        /* An issue: listed, opened, read or edited (fakegh_issues.c). */
    } else if ((out = route_more(s, fd, method, path, hdrs, sizeof(hdrs), &status, &n)) != NULL) {
        if (n == 1) {
            free(out);
            return (int)status;
        }
    } else if (strcmp(method, "POST") == 0 && strcmp(path, "/graphql") == 0) {
        /* GraphQL names a bot without "[bot]". */
        size_t l = strlen(who);
        int bot = l > 5 && strcmp(who + l - 5, "[bot]") == 0;
        out = pg__asprintf("{\"data\":{\"viewer\":{\"login\":\"%.*s\"}}}", (int)(bot ? l - 5 : l), who);
    } else if (((sscanf(path, "/repos/%63[^/]/%63[^/]/issues/%ld/comments%n", owner, repo, &pr, &n) == 3 && n > 0) ||
                (sscanf(path, "/repositories/%63[^/]/issues/%ld/comments%n", owner, &pr, &n) == 2 && n > 0)) &&
               (path[n] == '\0' || path[n] == '?')) {
        if (strcmp(method, "GET") == 0) {
            long per = fakegh__query_num(path, "per_page", 30), page = fakegh__query_num(path, "page", 1), k = 0, total = 0;
            json_t *arr = json_array();
            for (i = 0; i < s->ncomments; i++) {
                if (s->comments[i].pr != pr)
                    continue;
                if (k >= (page - 1) * per && k < page * per)
                    json_array_append_new(arr, comment_json(&s->comments[i]));
                k++;
            }
            total = k;
            if (page * per < total)
                snprintf(hdrs, sizeof(hdrs),
                         "Link: <%s/repositories/1/issues/%ld/comments?per_page=%ld&page=%ld>; rel=\"next\", "
                         "<%s/repositories/1/issues/%ld/comments?per_page=%ld&page=%ld>; rel=\"last\"\r\n",
                         s->link_base ? s->link_base : s->url, pr, per, page + 1, s->url, pr, per,
                         (total + per - 1) / per);
            out = json_dumps(arr, JSON_COMPACT);
            json_decref(arr);
        } else if (strcmp(method, "POST") == 0) {
            json_t *in = json_loads(body ? body : "", 0, NULL);
            json_t *b = json_object_get(in, "body");
            if (!json_is_string(b)) {
                status = 422;
                out = pg__strdup("{\"message\":\"Invalid request: body is missing\"}");
            } else if (fakegh__utf8_chars(json_string_value(b)) > 65536) {
                status = 422;
                out = pg__strdup("{\"message\":\"Validation Failed\",\"errors\":[{\"message\":\"body is too long "
                                 "(maximum is 65536 characters)\"}]}");
            } else {
                comment *c;
                s->comments = realloc(s->comments, (s->ncomments + 1) * sizeof(*c));
                c = &s->comments[s->ncomments++];
                c->id = s->next_id++;
                c->pr = pr;
                c->login = pg__strdup(who);
                c->body = pg__strdup(json_string_value(b));
                status = 201;
                out = comment_text(c);
            }
            json_decref(in);
        }
    } else if (sscanf(path, "/repos/%63[^/]/%63[^/]/issues/comments/%ld%n", owner, repo, &id, &n) == 3 &&
               path[n] == '\0' && strcmp(method, "PATCH") == 0) {
        json_t *in = json_loads(body ? body : "", 0, NULL);
        json_t *b = json_object_get(in, "body");
        status = 404;
        for (i = 0; i < s->ncomments; i++) {
            comment *c = &s->comments[i];
            if (c->id != id)
                continue;
            if (strcmp(c->login, who) != 0) {
                status = 403;
            } else if (!json_is_string(b) || fakegh__utf8_chars(json_string_value(b)) > 65536) {
                status = 422;
            } else {
                free(c->body);
                c->body = pg__strdup(json_string_value(b));
                status = 200;
                out = comment_text(c);
            }
        }
        json_decref(in);
        if (!out)
            out = pg__asprintf("{\"message\":\"%s\"}", status == 403 ? "Forbidden" : "Not Found");
    } else if (sscanf(path, "/repos/%63[^/]/%63[^/]/statuses/%n", owner, repo, &n) == 2 && n > 0 &&
               strcmp(method, "POST") == 0) {
        status = 201;
        out = pg__strdup("{\"id\":1,\"state\":\"success\"}");
    } else {
        status = 404;
        out = pg__strdup("{\"message\":\"Not Found\"}");
    }
    respond(fd, (int)status, hdrs, out);
    free(out);
    return (int)status;
}

static void serve(fakegh *s, int fd)
{
    pg_buf in = PG_BUF_INIT;
    char chunk[8192], method[8] = "", path[2048] = "";
    char *end = NULL, *cl, *expect, *auth = NULL, *bodycopy;
    size_t need = 0, hlen;
    ssize_t n;
    int sent_continue = 0;
    fakegh_request *r;

    for (;;) {
        if (end) {
            if (in.len >= hlen + need)
                break;
        }
        n = recv(fd, chunk, sizeof(chunk), 0);
        if (n <= 0)
            goto done;
        pg__buf_put(&in, chunk, (size_t)n);
        if (!end && (end = strstr(in.ptr, "\r\n\r\n")) != NULL) {
            hlen = (size_t)(end - in.ptr) + 4;
            cl = header(in.ptr, "Content-Length");
            need = cl ? (size_t)atol(cl) : 0;
            free(cl);
            expect = header(in.ptr, "Expect");
            if (expect && strcasecmp(expect, "100-continue") == 0 && !sent_continue && in.len < hlen + need) {
                send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
                sent_continue = 1;
            }
            free(expect);
        }
    }
    if (sscanf(in.ptr, "%7s %2047s", method, path) != 2)
        goto done;
    auth = header(in.ptr, "Authorization");
    bodycopy = pg__asprintf("%.*s", (int)need, in.ptr + hlen);
    pthread_mutex_lock(&s->mu);
    s->reqs = realloc(s->reqs, (s->nreqs + 1) * sizeof(*s->reqs));
    r = &s->reqs[s->nreqs++];
    memset(r, 0, sizeof(*r));
    snprintf(r->method, sizeof(r->method), "%s", method);
    r->path = pg__strdup(path);
    r->auth = auth;
    r->accept = header(in.ptr, "Accept");
    r->api_version = header(in.ptr, "X-GitHub-Api-Version");
    r->user_agent = header(in.ptr, "User-Agent");
    r->body = bodycopy;
    r->at_ns = pg__mono_ns();
    sent_now = 0;
    r->status = route(s, fd, method, path, auth, bodycopy);
    r->sent = sent_now;
    pthread_mutex_unlock(&s->mu);
done:
    pg__buf_clear(&in);
}

static void *loop(void *arg)
{
    fakegh *s = arg;
    struct pollfd p[2];

    for (;;) {
        p[0].fd = s->fd;
        p[0].events = POLLIN;
        p[1].fd = s->stop_pipe[0];
        p[1].events = POLLIN;
        if (poll(p, 2, -1) < 0)
            continue;
        if (p[1].revents)
            break;
        if (p[0].revents & POLLIN) {
            int c = accept(s->fd, NULL, NULL);
            if (c >= 0) {
                serve(s, c);
                shutdown(c, SHUT_WR);
                close(c);
            }
        }
    }
    return NULL;
}

fakegh *fakegh_start(const char *token, const char *login)
{
    fakegh *s = calloc(1, sizeof(*s));
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int one = 1;

    if (!s)
        return NULL;
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s->fd, 16) != 0 ||
        getsockname(s->fd, (struct sockaddr *)&a, &len) != 0 || pipe(s->stop_pipe) != 0) {
        free(s);
        return NULL;
    }
    snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d", ntohs(a.sin_port));
    s->token = pg__strdup(token);
    s->login = pg__strdup(login);
    s->user_status = 200;
    s->next_id = 1001;
    s->next_issue = 100;
    pthread_mutex_init(&s->mu, NULL);
    pthread_create(&s->thread, NULL, loop, s);
    return s;
}

void fakegh_stop(fakegh *s)
{
    size_t i;

    if (!s)
        return;
    if (write(s->stop_pipe[1], "x", 1) != 1)
        return;
    pthread_join(s->thread, NULL);
    close(s->fd);
    close(s->stop_pipe[0]);
    close(s->stop_pipe[1]);
    for (i = 0; i < s->ncomments; i++) {
        free(s->comments[i].login);
        free(s->comments[i].body);
    }
    free(s->comments);
    for (i = 0; i < s->nfaults; i++) {
        free(s->faults[i].method);
        free(s->faults[i].prefix);
        free(s->faults[i].headers);
        free(s->faults[i].body);
    }
    for (i = 0; i < s->nreqs; i++) {
        free(s->reqs[i].path);
        free(s->reqs[i].auth);
        free(s->reqs[i].accept);
        free(s->reqs[i].api_version);
        free(s->reqs[i].user_agent);
        free(s->reqs[i].body);
    }
    free(s->reqs);
    for (i = 0; i < s->npulls; i++) {
        free(s->pulls[i].owner);
        free(s->pulls[i].ref);
        free(s->pulls[i].sha);
    }
    free(s->pulls);
    for (i = 0; i < s->nartifacts; i++) {
        free(s->artifacts[i].name);
        free(s->artifacts[i].branch);
        free(s->artifacts[i].created_at);
        free(s->artifacts[i].zip);
    }
    free(s->artifacts);
    for (i = 0; i < s->nevents; i++) {
        free(s->events[i].label);
        free(s->events[i].actor);
    }
    free(s->events);
    fakegh__issues_free(s);
    free(s->token);
    free(s->login);
    free(s->link_base);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

const char *fakegh_url(const fakegh *s)
{
    return s->url;
}

int64_t fakegh_add_comment(fakegh *s, int64_t pr, const char *login, const char *body)
{
    comment *c;
    int64_t id;

    pthread_mutex_lock(&s->mu);
    s->comments = realloc(s->comments, (s->ncomments + 1) * sizeof(*c));
    c = &s->comments[s->ncomments++];
    c->id = id = s->next_id++;
    c->pr = pr;
    c->login = pg__strdup(login);
    c->body = pg__strdup(body);
    pthread_mutex_unlock(&s->mu);
    return id;
}

static char *comment_field(fakegh *s, int64_t id, int author)
{
    char *out = NULL;
    size_t i;

    pthread_mutex_lock(&s->mu);
    for (i = 0; i < s->ncomments; i++)
        if (s->comments[i].id == id)
            out = pg__strdup(author ? s->comments[i].login : s->comments[i].body);
    pthread_mutex_unlock(&s->mu);
    return out;
}

char *fakegh_comment_body(fakegh *s, int64_t id)
{
    return comment_field(s, id, 0);
}

char *fakegh_comment_author(fakegh *s, int64_t id)
{
    return comment_field(s, id, 1);
}

size_t fakegh_comment_count(fakegh *s, int64_t pr)
{
    size_t i, n = 0;

    pthread_mutex_lock(&s->mu);
    for (i = 0; i < s->ncomments; i++)
        n += s->comments[i].pr == pr;
    pthread_mutex_unlock(&s->mu);
    return n;
}

void fakegh_fail_next(fakegh *s, const char *method, const char *prefix, int status, const char *headers,
                      const char *body, int times)
{
    fault *f;

    pthread_mutex_lock(&s->mu);
    if (s->nfaults < sizeof(s->faults) / sizeof(s->faults[0])) {
        f = &s->faults[s->nfaults++];
        f->method = pg__strdup(method);
        f->prefix = pg__strdup(prefix);
        f->headers = pg__strdup(headers);
        f->body = pg__strdup(body);
        f->status = status;
        f->times = times;
    }
    pthread_mutex_unlock(&s->mu);
}

void fakegh_add_pull(fakegh *s, int64_t number, const char *head_owner, const char *head_ref, const char *head_sha)
{
    pull *p;

    pthread_mutex_lock(&s->mu);
    s->pulls = realloc(s->pulls, (s->npulls + 1) * sizeof(*p));
    p = &s->pulls[s->npulls++];
    p->number = number;
    p->owner = pg__strdup(head_owner);
    p->ref = pg__strdup(head_ref);
    p->sha = pg__strdup(head_sha);
    pthread_mutex_unlock(&s->mu);
}

int64_t fakegh_add_artifact(fakegh *s, const char *name, const char *head_branch, int64_t head_repository_id,
                            int expired, const char *created_at, const void *zip, size_t len)
{
    artifact *a;
    int64_t id;

    pthread_mutex_lock(&s->mu);
    s->artifacts = realloc(s->artifacts, (s->nartifacts + 1) * sizeof(*a));
    a = &s->artifacts[s->nartifacts++];
    a->id = id = 500 + (int64_t)s->nartifacts;
    a->head_repo_id = head_repository_id;
    a->expired = expired;
    a->name = pg__strdup(name);
    a->branch = pg__strdup(head_branch);
    a->created_at = pg__strdup(created_at);
    a->zip = malloc(len ? len : 1);
    if (a->zip && len)
        memcpy(a->zip, zip, len);
    a->len = len;
    pthread_mutex_unlock(&s->mu);
    return id;
}

void fakegh_label(fakegh *s, int64_t pr, const char *label, const char *actor, int add)
{
    label_event *e;

    pthread_mutex_lock(&s->mu);
    s->events = realloc(s->events, (s->nevents + 1) * sizeof(*e));
    e = &s->events[s->nevents++];
    e->pr = pr;
    e->label = pg__strdup(label);
    e->actor = pg__strdup(actor);
    e->added = add;
    pthread_mutex_unlock(&s->mu);
}

void fakegh_set_user_status(fakegh *s, int status)
{
    pthread_mutex_lock(&s->mu);
    s->user_status = status;
    pthread_mutex_unlock(&s->mu);
}

void fakegh_set_link_base(fakegh *s, const char *base)
{
    pthread_mutex_lock(&s->mu);
    free(s->link_base);
    s->link_base = pg__strdup(base);
    pthread_mutex_unlock(&s->mu);
}

size_t fakegh_request_count(fakegh *s)
{
    size_t n;

    pthread_mutex_lock(&s->mu);
    n = s->nreqs;
    pthread_mutex_unlock(&s->mu);
    return n;
}

const fakegh_request *fakegh_request_at(fakegh *s, size_t i)
{
    const fakegh_request *r;

    pthread_mutex_lock(&s->mu);
    r = i < s->nreqs ? &s->reqs[i] : NULL;
    pthread_mutex_unlock(&s->mu);
    return r;
}

size_t fakegh_count(fakegh *s, const char *method, const char *prefix)
{
    size_t i, n = 0;

    pthread_mutex_lock(&s->mu);
    for (i = 0; i < s->nreqs; i++)
        n += strcmp(s->reqs[i].method, method) == 0 && strncmp(s->reqs[i].path, prefix, strlen(prefix)) == 0;
    pthread_mutex_unlock(&s->mu);
    return n;
}
