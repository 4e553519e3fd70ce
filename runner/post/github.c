/*
 * github.c - the GitHub REST client: headers, retries, rate limits and
 * pagination on libcurl. See post.h for the rules it keeps.
 */
#include "post/post.h"

#include "perfgate/config.h"
#include "perfgate/errors.h"
#include "base/sink.h"
#include "base/util.h"

#include <curl/curl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct pg_gh {
    pg_gh_options opts;
    char *api_url;        /* without a trailing slash */
    char *graphql_url;
    char *token;
    char *login;
    int64_t last_mutation_ns;
};

static int curl_ready;

/* libcurl's global init is not thread-safe; perfgate posts from the main thread only. */
static int ensure_curl(void)
{
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return pg_error_set(PG_ENET, "libcurl failed to initialise");
        curl_ready = 1;
    }
    return 0;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);

    return v && *v ? v : NULL;
}

/*
 * Only https, or http to a loopback host (the tests' server), may carry the
 * token. `what` names the URL's role in messages; the URL itself may be a
 * secret (webhooks), so messages show scheme and host only.
 */
int pg__post_check_url(const char *url, const char *what)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL;
    int err = 0;

    if (!u)
        return pg_error_set(PG_ENOMEM, "out of memory parsing a URL");
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK || curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
        curl_url_get(u, CURLUPART_HOST, &host, 0)) {
        err = pg_error_set(PG_EUSAGE, "%s is not a valid URL", what);
    } else if (strcasecmp(scheme, "https") != 0 &&
               !(strcasecmp(scheme, "http") == 0 &&
                 (strcmp(host, "127.0.0.1") == 0 || strcmp(host, "localhost") == 0 || strcmp(host, "[::1]") == 0))) {
        err = pg_error_set(PG_EUSAGE, "%s must be https (plain http only to a loopback host), not %s://%s", what,
                           scheme, host);
    }
    curl_free(scheme);
    curl_free(host);
    curl_url_cleanup(u);
    return err;
}

/*
 * What a message may show of a URL that is a credential (a webhook, a signed
 * download): its scheme, host and port, never a user, password, path or query.
 */
void pg__post_url_origin(char *out, size_t len, const char *url)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;

    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
        curl_url_get(u, CURLUPART_PORT, &port, 0);
        snprintf(out, len, "%s://%s%s%s/...", scheme, host, port ? ":" : "", port ? port : "");
    } else {
        snprintf(out, len, "the URL");
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
}

int pg_gh_new(pg_gh **out, const pg_gh_options *opts)
{
    pg_gh_options dflt = PG_GH_OPTIONS_INIT;
    pg_gh *gh = NULL;
    const char *api, *token;
    size_t n;
    int err;

    *out = NULL;
    if (!opts)
        opts = &dflt;
    if ((err = ensure_curl()) != 0)
        return err;
    api = opts->api_url ? opts->api_url : env("GITHUB_API_URL") ? env("GITHUB_API_URL") : "https://api.github.com";
    token = opts->token ? opts->token : env("GITHUB_TOKEN");
    if (!token || !*token)
        return pg_error_set(PG_EUSAGE, "no GitHub token: set GITHUB_TOKEN (on Actions: env: GITHUB_TOKEN: "
                                       "${{ secrets.GITHUB_TOKEN }})");
    if ((err = pg__post_check_url(api, "the GitHub API URL")) != 0)
        return err;
    gh = calloc(1, sizeof(*gh));
    if (!gh)
        return pg_error_set(PG_ENOMEM, "out of memory creating the GitHub client");
    gh->opts = *opts;
    gh->api_url = pg__strdup(api);
    gh->token = pg__strdup(token);
    gh->login = pg__strdup(opts->login);
    if (opts->graphql_url)
        gh->graphql_url = pg__strdup(opts->graphql_url);
    else if (env("GITHUB_GRAPHQL_URL"))
        gh->graphql_url = pg__strdup(env("GITHUB_GRAPHQL_URL"));
    if (!gh->api_url || !gh->token) {
        pg_gh_free(gh);
        return pg_error_set(PG_ENOMEM, "out of memory creating the GitHub client");
    }
    n = strlen(gh->api_url);
    while (n && gh->api_url[n - 1] == '/')
        gh->api_url[--n] = '\0';
    if (!gh->graphql_url)
        gh->graphql_url = pg__asprintf("%s/graphql", gh->api_url);
    if (!gh->graphql_url || (err = pg__post_check_url(gh->graphql_url, "the GitHub GraphQL URL")) != 0) {
        pg_gh_free(gh);
        return gh ? err : PG_ENOMEM;
    }
    gh->opts.api_url = gh->opts.token = gh->opts.login = gh->opts.graphql_url = NULL;
    *out = gh;
    return 0;
}

void pg_gh_free(pg_gh *gh)
{
    if (!gh)
        return;
    if (gh->token) {
        /* Wipe the secret before the memory goes back to the allocator. */
        volatile char *p = gh->token;
        while (*p)
            *p++ = '\0';
    }
    free(gh->token);
    free(gh->api_url);
    free(gh->graphql_url);
    free(gh->login);
    free(gh);
}

void pg_gh_response_clear(pg_gh_response *r)
{
    free(r->body);
    free(r->next);
    free(r->location);
    memset(r, 0, sizeof(*r));
}

/* What one attempt saw in the response headers. */
typedef struct hdrs {
    double retry_after;       /* seconds, <0 when absent */
    long rl_remaining;        /* -1 when absent */
    int64_t rl_reset;         /* unix seconds, 0 when absent */
    char *next;
    char *location;
} hdrs;

static char *trim(char *s)
{
    char *e;

    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
        *--e = '\0';
    return s;
}

/* Link: <https://api/...?page=2>; rel="next", <...>; rel="last" */
static char *link_next(const char *v)
{
    const char *p = v;

    while ((p = strchr(p, '<')) != NULL) {
        const char *end = strchr(p, '>');
        const char *sep;
        if (!end)
            return NULL;
        sep = strchr(end, ',');
        if (strstr(end, "rel=\"next\"") && (!sep || strstr(end, "rel=\"next\"") < sep)) {
            char *url = malloc((size_t)(end - p));
            if (url) {
                memcpy(url, p + 1, (size_t)(end - p - 1));
                url[end - p - 1] = '\0';
            }
            return url;
        }
        p = end;
    }
    return NULL;
}

/*
 * Retry-After is delay-seconds or an HTTP-date (RFC 9110 10.2.3); the date
 * is read as libcurl reads dates. @return seconds to wait, or -1 when the
 * value is neither.
 */
static double retry_after(const char *v)
{
    const char *p = v;
    time_t at;

    while (*p >= '0' && *p <= '9')
        p++;
    if (p > v && *p == '\0')
        return p - v > 9 ? 1e9 : atof(v);
    if ((at = curl_getdate(v, NULL)) < 0)
        return -1;
    return at > (time_t)pg__now_unix() ? (double)(at - (time_t)pg__now_unix()) : 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *payload)
{
    hdrs *h = payload;
    size_t len = size * n;
    char line[2048], *colon, *v;

    if (len >= sizeof(line))
        return len;
    memcpy(line, data, len);
    line[len] = '\0';
    if (strncmp(line, "HTTP/", 5) == 0) {
        /* A new response (after 100-continue): forget what came before. */
        free(h->next);
        h->next = NULL;
        free(h->location);
        h->location = NULL;
        h->retry_after = -1;
        h->rl_remaining = -1;
        h->rl_reset = 0;
        return len;
    }
    colon = strchr(line, ':');
    if (!colon)
        return len;
    *colon = '\0';
    v = trim(colon + 1);
    if (strcasecmp(line, "retry-after") == 0)
        h->retry_after = retry_after(v);
    else if (strcasecmp(line, "x-ratelimit-remaining") == 0)
        h->rl_remaining = atol(v);
    else if (strcasecmp(line, "x-ratelimit-reset") == 0)
        h->rl_reset = atoll(v);
    else if (strcasecmp(line, "location") == 0) {
        free(h->location);
        h->location = pg__strdup(v);
    } else if (strcasecmp(line, "link") == 0) {
        free(h->next);
        h->next = link_next(v);
    }
    return len;
}

void pg__gh_read_headers(pg_gh_response *out, pg__gh_hints *hints, const char *block, size_t len)
{
    hdrs h = {-1, -1, 0, NULL, NULL};
    size_t at = 0;

    while (at < len) {
        const char *nl = memchr(block + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (block + at)) + 1 : len - at;
        on_header((char *)block + at, 1, n, &h);
        at += n;
    }
    out->next = h.next;
    out->location = h.location;
    hints->retry_after = h.retry_after;
    hints->rl_remaining = h.rl_remaining;
    hints->rl_reset = h.rl_reset;
}

/* A body is kept through the one bounded reader: past its cap the transfer stops (base/sink.h). */
static size_t on_body(char *data, size_t size, size_t n, void *payload)
{
    return pg__sink_put(payload, data, size * n, "GitHub's answer") == 0 ? size * n : 0;
}

static void sleep_s(double s)
{
    struct timespec ts;

    if (s <= 0)
        return;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/*
 * How long to wait before retrying, or <0 for no retry. GitHub's guidance:
 * retry-after first; else a spent primary limit waits for its reset; else a
 * secondary limit waits a minute; 5xx back off exponentially.
 */
static double retry_wait(const pg_gh *gh, long status, const hdrs *h, int attempt)
{
    double backoff = gh->opts.backoff_s * pow(2.0, attempt);

    if (status == 429 || (status == 403 && (h->retry_after >= 0 || h->rl_remaining == 0))) {
        if (h->retry_after >= 0)
            return h->retry_after;
        if (h->rl_remaining == 0 && h->rl_reset > 0) {
            double w = (double)(h->rl_reset - pg__now_unix()) + 1;
            return w > 0 ? w : 1;
        }
        return status == 429 ? fmax(60.0, backoff) : -1;
    }
    if (status >= 500 && status <= 599)
        return backoff;
    return -1;
}

static int is_mutation(const char *method)
{
    return strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
}

/*
 * 1 when `url` starts with `base`: the scheme and host compared as DNS does
 * (case-insensitively: GitHub may spell its host in capitals in a Link), the
 * path exactly.
 */
static int link_under_base(const char *url, const char *base)
{
    const char *sep = strstr(base, "://"), *path;
    size_t host_end, len = strlen(base);

    if (!sep)
        return strncmp(url, base, len) == 0;
    path = strchr(sep + 3, '/');
    host_end = path ? (size_t)(path - base) : len;
    return strlen(url) >= len && strncasecmp(url, base, host_end) == 0 &&
           strncmp(url + host_end, base + host_end, len - host_end) == 0;
}

static int request(pg_gh_response *out, pg_gh *gh, const char *method, const char *path, const char *json,
                   size_t max_bytes);

int pg_gh_request(pg_gh_response *out, pg_gh *gh, const char *method, const char *path, const char *json)
{
    return request(out, gh, method, path, json, PG_GH_ANSWER_MAX_BYTES);
}

/* One request with retries; its body is refused past `max_bytes`, before more is kept. */
static int request(pg_gh_response *out, pg_gh *gh, const char *method, const char *path, const char *json,
                   size_t max_bytes)
{
    char *url = NULL, *auth = NULL, ua[64], errbuf[CURL_ERROR_SIZE];
    struct curl_slist *headers = NULL;
    CURL *c = NULL;
    int attempt, err = 0;
    size_t base = strlen(gh->api_url);

    memset(out, 0, sizeof(out[0]));
    if (strncasecmp(path, "http://", 7) == 0 || strncasecmp(path, "https://", 8) == 0) {
        /* A full URL (a Link page) must stay under the API base: the token goes with it. */
        int under = link_under_base(path, gh->api_url) && (path[base] == '/' || path[base] == '?' || path[base] == '\0');
        /* Such a URL comes from an answer (a Link page, an archive's URL): the server's fault, exit 3. */
        if (!under && strcmp(path, gh->graphql_url) != 0)
            return pg_error_set(PG_ENET, "GitHub returned a link outside %s; not following it", gh->api_url);
        url = pg__strdup(path);
    } else {
        url = pg__asprintf("%s%s%s", gh->api_url, path[0] == '/' ? "" : "/", path);
    }
    auth = pg__asprintf("Authorization: Bearer %s", gh->token);
    snprintf(ua, sizeof(ua), "User-Agent: perfgate/%s", PG_VERSION_STRING);
    headers = curl_slist_append(headers, "Accept: application/vnd.github+json");
    headers = curl_slist_append(headers, "X-GitHub-Api-Version: 2022-11-28");
    headers = headers ? curl_slist_append(headers, ua) : NULL;
    headers = headers && json ? curl_slist_append(headers, "Content-Type: application/json") : headers;
    /* No "Expect: 100-continue" round trip before a comment body. */
    headers = headers && json ? curl_slist_append(headers, "Expect:") : headers;
    headers = headers && auth ? curl_slist_append(headers, auth) : NULL;
    c = curl_easy_init();
    if (!url || !auth || !headers || !c) {
        err = pg_error_set(PG_ENOMEM, "out of memory preparing a GitHub request");
        goto cleanup;
    }

    for (attempt = 0;; attempt++) {
        pg_sink body = PG_SINK_INIT(-1, max_bytes);
        hdrs h = {-1, -1, 0, NULL, NULL};
        CURLcode cc;
        double wait;

        if (is_mutation(method) && gh->last_mutation_ns) {
            double since = (double)(pg__mono_ns() - gh->last_mutation_ns) / 1e9;
            if (since < gh->opts.mutation_gap_s)
                sleep_s(gh->opts.mutation_gap_s - since);
        }
        curl_easy_reset(c);
        errbuf[0] = '\0';
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, gh->opts.connect_timeout_s);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, gh->opts.timeout_s);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
        /* A declared length past the cap is refused before any of the body is read. */
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
        if (json) {
            curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
            curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(json));
        }
        if (gh->opts.debug)
            fprintf(gh->opts.debug, "> %s %s\n> Authorization: Bearer ***\n", method, url);
        cc = curl_easy_perform(c);
        if (is_mutation(method))
            gh->last_mutation_ns = pg__mono_ns();
        out->attempts++;
        if (body.over || cc == CURLE_FILESIZE_EXCEEDED) {
            pg__sink_clear(&body);
            free(h.next);
            free(h.location);
            err = pg_error_set(PG_EIO, "%s %s: the answer is larger than %zu bytes; refusing", method, url, max_bytes);
            goto cleanup;
        }
        if (cc != CURLE_OK) {
            pg__sink_clear(&body);
            free(h.next);
            free(h.location);
            if (attempt < gh->opts.max_retries && (cc == CURLE_COULDNT_CONNECT || cc == CURLE_OPERATION_TIMEDOUT)) {
                sleep_s(gh->opts.backoff_s * pow(2.0, attempt));
                continue;
            }
            err = pg_error_set(cc == CURLE_OPERATION_TIMEDOUT ? PG_ETIMEOUT : PG_ENET, "%s %s: %s", method, url,
                               *errbuf ? errbuf : curl_easy_strerror(cc));
            goto cleanup;
        }
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
        if (gh->opts.debug)
            fprintf(gh->opts.debug, "< %ld (retry-after %g, x-ratelimit-remaining %ld)\n", out->status,
                    h.retry_after, h.rl_remaining);
        wait = retry_wait(gh, out->status, &h, attempt);
        if (wait >= 0 && attempt < gh->opts.max_retries) {
            pg__sink_clear(&body);
            free(h.next);
            free(h.location);
            if (wait > gh->opts.max_wait_s) {
                err = pg_error_set(PG_ETIMEOUT, "%s %s: GitHub asks to wait %.0f s (rate limit); giving up", method,
                                   url, wait);
                goto cleanup;
            }
            if (gh->opts.debug)
                fprintf(gh->opts.debug, "  retrying in %.1f s\n", wait);
            sleep_s(wait);
            continue;
        }
        /* Bodies may be binary (an archive): the length is the bytes received. */
        out->len = body.buf.ptr ? body.buf.len : 0;
        out->body = body.buf.ptr ? pg__buf_detach(&body.buf) : pg__strdup("");
        out->next = h.next;
        out->location = h.location;
        break;
    }

cleanup:
    curl_easy_cleanup(c);
    curl_slist_free_all(headers);
    if (auth) {
        volatile char *p = auth;
        while (*p)
            *p++ = '\0';
    }
    free(auth);
    free(url);
    return err;
}

/* The message GitHub sent with an error status, for one-line diagnostics. */
static const char *gh_message(const pg_gh_response *r, char *buf, size_t len)
{
    json_t *root = r->body ? json_loads(r->body, 0, NULL) : NULL;
    json_t *m = json_object_get(root, "message");

    snprintf(buf, len, "%s", json_is_string(m) ? json_string_value(m) : "no message");
    json_decref(root);
    return buf;
}

int pg__gh_status_error(const pg_gh_response *r, const char *what)
{
    char msg[256];

    gh_message(r, msg, sizeof(msg));
    if (r->status == 403 || r->status == 404)
        return pg_error_set(PG_ESKIP,
                            "%s: GitHub answered %ld (%s); a pull request from a fork gets a read-only token: "
                            "post from a workflow_run job instead (docs/reporting.md)",
                            what, r->status, msg);
    if (r->status == 401)
        return pg_error_set(PG_ENET, "%s: GitHub rejected the token (401 %s)", what, msg);
    return pg_error_set(PG_ENET, "%s: GitHub answered %ld (%s)", what, r->status, msg);
}

int pg_gh_login(const char **out, pg_gh *gh)
{
    pg_gh_response r;
    json_t *root = NULL;
    int err;

    *out = NULL;
    if (gh->login) {
        *out = gh->login;
        return 0;
    }
    if ((err = pg_gh_request(&r, gh, "GET", "/user", NULL)) != 0)
        return err;
    if (r.status == 200 && (root = json_loads(r.body, 0, NULL)) != NULL &&
        json_is_string(json_object_get(root, "login")))
        gh->login = pg__strdup(json_string_value(json_object_get(root, "login")));
    json_decref(root);
    root = NULL;
    if (!gh->login && (r.status == 403 || r.status == 404)) {
        /* An installation token (Actions' GITHUB_TOKEN) cannot read /user; GraphQL's viewer can. */
        pg_gh_response g;
        if (pg_gh_request(&g, gh, "POST", gh->graphql_url, "{\"query\":\"query { viewer { login } }\"}") == 0 &&
            g.status == 200 && (root = json_loads(g.body, 0, NULL)) != NULL) {
            json_t *l = json_object_get(json_object_get(json_object_get(root, "data"), "viewer"), "login");
            if (json_is_string(l))
                gh->login = pg__strdup(json_string_value(l));
        }
        json_decref(root);
        pg_gh_response_clear(&g);
        if (!gh->login && env("GITHUB_ACTIONS"))
            gh->login = pg__strdup("github-actions[bot]");
    }
    if (!gh->login)
        err = r.status == 200 ? pg_error_set(PG_ENET, "GET /user: no login in GitHub's answer")
                              : pg__gh_status_error(&r, "finding the token's login (GET /user)");
    pg_gh_response_clear(&r);
    *out = gh->login;
    return err;
}


/*
 * GET of a signed storage URL: no Authorization header, no redirects, and
 * a stall (under 1 KiB/s for the request timeout) rather than a total time
 * limit, since a database can take a while to arrive.
 */
static int get_unauthenticated(pg_gh_response *out, pg_gh *gh, const char *url, size_t max_bytes)
{
    char ua[64], errbuf[CURL_ERROR_SIZE], where[256];
    struct curl_slist *headers = NULL;
    CURL *c = NULL;
    CURLcode cc = CURLE_OK;
    int attempt, err = 0;

    /* The signed URL is a credential for a while: messages name its host only. */
    pg__post_url_origin(where, sizeof(where), url);
    snprintf(ua, sizeof(ua), "User-Agent: perfgate/%s", PG_VERSION_STRING);
    headers = curl_slist_append(NULL, ua);
    if (!headers || !(c = curl_easy_init())) {
        err = pg_error_set(PG_ENOMEM, "out of memory preparing a download");
        goto cleanup;
    }
    for (attempt = 0;; attempt++) {
        pg_sink body = PG_SINK_INIT(-1, max_bytes);
        curl_easy_reset(c);
        errbuf[0] = '\0';
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, gh->opts.connect_timeout_s);
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, gh->opts.timeout_s);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
        if (gh->opts.debug)
            fprintf(gh->opts.debug, "> GET %s (signed URL, no token)\n", where);
        cc = curl_easy_perform(c);
        out->attempts++;
        if (body.over || cc == CURLE_FILESIZE_EXCEEDED) {
            pg__sink_clear(&body);
            err = pg_error_set(PG_EIO, "download from %s: larger than %zu bytes; refusing", where, max_bytes);
            goto cleanup;
        }
        if (cc == CURLE_OK)
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
        if (attempt < gh->opts.max_retries &&
            (cc == CURLE_COULDNT_CONNECT || cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_PARTIAL_FILE ||
             (cc == CURLE_OK && out->status >= 500))) {
            pg__sink_clear(&body);
            sleep_s(gh->opts.backoff_s * pow(2.0, attempt));
            continue;
        }
        if (cc != CURLE_OK) {
            pg__sink_clear(&body);
            err = pg_error_set(cc == CURLE_OPERATION_TIMEDOUT ? PG_ETIMEOUT : PG_ENET, "download from %s: %s", where,
                               *errbuf ? errbuf : curl_easy_strerror(cc));
            goto cleanup;
        }
        out->len = body.buf.len;
        out->body = pg__buf_detach(&body.buf);
        break;
    }

cleanup:
    curl_easy_cleanup(c);
    curl_slist_free_all(headers);
    return err;
}

int pg_gh_download(pg_gh_response *out, pg_gh *gh, const char *path, size_t max_bytes)
{
    pg_gh_response first = {0};
    char *location = NULL;
    int err;

    memset(out, 0, sizeof(*out));
    /* The API may answer with the archive itself rather than a redirect: capped as the storage host's. */
    if ((err = request(&first, gh, "GET", path, NULL, max_bytes)) != 0)
        return err;
    if (first.status < 300 || first.status > 399 || !first.location) {
        *out = first;
        return 0;
    }
    location = first.location;
    first.location = NULL;
    out->attempts = first.attempts;
    pg_gh_response_clear(&first);
    if ((err = pg__post_check_url(location, "the download's redirect")) == 0)
        err = get_unauthenticated(out, gh, location, max_bytes);
    else
        err = PG_ENET; /* GitHub's answer, not the caller's usage: exit 3, with the message as set */
    free(location);
    return err;
}
