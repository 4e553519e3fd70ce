/*
 * post.c - what perfgate posts to GitHub: the sticky comment, the commit
 * status and a webhook summary; and where a run sits on GitHub, read from
 * the Actions environment.
 */
#include "post/post.h"

#include "perfgate/errors.h"
#include "base/text.h"
#include "base/util.h"

#include <ctype.h>
#include <curl/curl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int pg__post_check_url(const char *url, const char *what);
int pg__gh_status_error(const pg_gh_response *r, const char *what);
int pg__post_check_repo(const char *repo);
int pg__post_same_login(const char *author, const char *login);

/* owner/name with GitHub's characters only, so it cannot bend the request path. */
int pg__post_check_repo(const char *repo)
{
    const char *p;
    int slashes = 0;

    if (!repo || !*repo)
        return pg_error_set(PG_EUSAGE, "no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY");
    for (p = repo; *p; p++) {
        if (*p == '/')
            slashes++;
        else if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            break;
    }
    if (*p || slashes != 1 || repo[0] == '/' || p[-1] == '/')
        return pg_error_set(PG_EUSAGE, "'%s' is not a repository name (OWNER/NAME)", repo);
    return 0;
}

/* Whether `author` (a comment's or an issue's) is the token's `login`. */
int pg__post_same_login(const char *author, const char *login)
{
    size_t n = strlen(login);

    /* GraphQL names bots without the "[bot]" suffix that REST shows. */
    return strcmp(author, login) == 0 || (strncmp(author, login, n) == 0 && strcmp(author + n, "[bot]") == 0);
}

int64_t pg__post_find_comment(const char *body, const char *marker, const char *login)
{
    json_t *arr = json_loads(body ? body : "", 0, NULL), *it;
    int64_t found = 0;
    size_t i;

    json_array_foreach(arr, i, it)
    {
        json_t *b = json_object_get(it, "body");
        json_t *u = json_object_get(json_object_get(it, "user"), "login");
        json_t *id = json_object_get(it, "id");
        if (json_is_string(b) && strstr(json_string_value(b), marker) && json_is_string(u) &&
            pg__post_same_login(json_string_value(u), login) && json_is_integer(id)) {
            found = (int64_t)json_integer_value(id);
            break;
        }
    }
    json_decref(arr);
    return found;
}

int pg_post_trim(char **out, const char *body, size_t limit, const char *run_url)
{
    pg_buf b = PG_BUF_INIT;
    size_t len = strlen(body), cut, room, open = 0;
    const char *p;
    char note[512];

    *out = NULL;
    if (len <= limit) {
        *out = pg__strdup(body);
        return *out ? 0 : pg_error_set(PG_ENOMEM, "out of memory trimming a comment");
    }
    snprintf(note, sizeof(note),
             "\n\n> [!NOTE]\n> Trimmed to stay under GitHub's %zu-character limit. Full results: %s%s%s\n", limit,
             run_url ? "[the CI run](" : "the job summary or the JSON report", run_url ? run_url : "",
             run_url ? ")" : "");
    room = limit > strlen(note) + 64 ? limit - strlen(note) - 64 : 0;
    cut = room;
    /* Cut at a line end, and never inside a UTF-8 sequence. */
    while (cut > 0 && body[cut - 1] != '\n')
        cut--;
    if (cut == 0) {
        cut = room;
        while (cut > 0 && ((unsigned char)body[cut] & 0xC0) == 0x80)
            cut--;
    }
    pg__buf_put(&b, body, cut);
    for (p = b.ptr; p && (p = strstr(p, "<details")) != NULL; p++)
        open++;
    for (p = b.ptr; p && (p = strstr(p, "</details>")) != NULL; p++)
        open--;
    if (open > 0 && open < 16)
        while (open--)
            pg__buf_puts(&b, "\n</details>\n");
    pg__buf_puts(&b, note);
    if (!b.ptr)
        return pg_error_set(PG_ENOMEM, "out of memory trimming a comment");
    *out = pg__buf_detach(&b);
    return 0;
}

static char *body_json(const char *body)
{
    json_t *o = json_pack("{s:s}", "body", body);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;

    json_decref(o);
    return s;
}

/* The sticky comment: found and updated, else created when `create`, else left alone (out->comment_id 0). */
static int sticky(pg_post_outcome *out, pg_gh *gh, const char *repo, int64_t pr, const char *marker,
                  const char *body, const char *run_url, int create)
{
    pg_gh_response r = {0};
    const char *login = NULL;
    char *full = NULL, *trimmed = NULL, *payload = NULL, *path = NULL, *page = NULL;
    int64_t found = 0;
    int err;

    memset(out, 0, sizeof(*out));
    if ((err = pg__post_check_repo(repo)) != 0)
        return err;
    if (pr <= 0)
        return pg_error_set(PG_EUSAGE, "no pull request number: pass --pr N or run on a pull_request event");
    if ((err = pg_gh_login(&login, gh)) != 0)
        return err;
    full = strstr(body, marker) ? pg__strdup(body) : pg__asprintf("%s\n%s", marker, body);
    if (!full || (err = pg_post_trim(&trimmed, full, PG_GH_COMMENT_LIMIT, run_url)) != 0) {
        err = err ? err : pg_error_set(PG_ENOMEM, "out of memory preparing a comment");
        goto cleanup;
    }
    payload = body_json(trimmed);
    page = pg__asprintf("/repos/%s/issues/%lld/comments?per_page=100", repo, (long long)pr);
    if (!payload || !page) {
        err = pg_error_set(PG_ENOMEM, "out of memory preparing a comment");
        goto cleanup;
    }
    out->body_len = strlen(trimmed);

    /* Every page until a match: the comment may be old and far down a long discussion. */
    while (page && !found) {
        if ((err = pg_gh_request(&r, gh, "GET", page, NULL)) != 0)
            goto cleanup;
        out->pages++;
        if (r.status != 200) {
            err = pg__gh_status_error(&r, "listing the pull request's comments");
            goto cleanup;
        }
        found = pg__post_find_comment(r.body, marker, login);
        free(page);
        page = r.next;
        r.next = NULL;
        pg_gh_response_clear(&r);
    }

    free(path);
    path = NULL;
    if (!found && !create)
        goto cleanup;
    if (found)
        path = pg__asprintf("/repos/%s/issues/comments/%lld", repo, (long long)found);
    else
        path = pg__asprintf("/repos/%s/issues/%lld/comments", repo, (long long)pr);
    if (!path) {
        err = pg_error_set(PG_ENOMEM, "out of memory preparing a comment");
        goto cleanup;
    }
    if ((err = pg_gh_request(&r, gh, found ? "PATCH" : "POST", path, payload)) != 0)
        goto cleanup;
    if (r.status != (found ? 200 : 201)) {
        err = pg__gh_status_error(&r, found ? "updating the comment" : "creating the comment");
        goto cleanup;
    }
    out->created = !found;
    out->comment_id = found;
    if (!found) {
        json_t *o = json_loads(r.body, 0, NULL);
        if (json_is_integer(json_object_get(o, "id")))
            out->comment_id = (int64_t)json_integer_value(json_object_get(o, "id"));
        json_decref(o);
    }

cleanup:
    pg_gh_response_clear(&r);
    free(full);
    free(trimmed);
    free(payload);
    free(path);
    free(page);
    return err;
}

int pg_post_sticky_comment(pg_post_outcome *out, pg_gh *gh, const char *repo, int64_t pr, const char *marker,
                           const char *body, const char *run_url)
{
    return sticky(out, gh, repo, pr, marker, body, run_url, 1);
}

int pg_post_sticky_update(pg_post_outcome *out, pg_gh *gh, const char *repo, int64_t pr, const char *marker,
                          const char *body, const char *run_url)
{
    return sticky(out, gh, repo, pr, marker, body, run_url, 0);
}

int pg_post_commit_status(pg_gh *gh, const char *repo, const char *sha, const char *state, const char *description,
                          const char *target_url, const char *context)
{
    pg_gh_response r = {0};
    char desc[141 * 4], *path = NULL, *payload = NULL;
    json_t *o = NULL;
    size_t i, chars = 0, n = 0;
    int err;

    if ((err = pg__post_check_repo(repo)) != 0)
        return err;
    for (i = 0; sha && sha[i]; i++)
        if (!isxdigit((unsigned char)sha[i]))
            break;
    if (!sha || i < 7 || sha[i])
        return pg_error_set(PG_EUSAGE, "'%s' is not a commit SHA", sha ? sha : "");
    /* GitHub takes at most 140 characters; count code points, cut on one. */
    for (i = 0; description && description[i] && n + 4 < sizeof(desc); i++) {
        if (((unsigned char)description[i] & 0xC0) != 0x80 && ++chars > 140)
            break;
        desc[n++] = description[i];
    }
    desc[n] = '\0';
    o = json_pack("{s:s, s:s, s:s}", "state", state, "description", desc, "context", context);
    if (o && target_url)
        json_object_set_new(o, "target_url", json_string(target_url));
    payload = o ? json_dumps(o, JSON_COMPACT) : NULL;
    path = pg__asprintf("/repos/%s/statuses/%s", repo, sha);
    if (!payload || !path) {
        err = pg_error_set(PG_ENOMEM, "out of memory preparing a commit status");
        goto cleanup;
    }
    if ((err = pg_gh_request(&r, gh, "POST", path, payload)) != 0)
        goto cleanup;
    if (r.status != 201)
        err = pg__gh_status_error(&r, "setting the commit status");

cleanup:
    pg_gh_response_clear(&r);
    json_decref(o);
    free(payload);
    free(path);
    return err;
}

static size_t discard(char *data, size_t size, size_t n, void *payload)
{
    (void)data;
    (void)payload;
    return size * n;
}

int pg_post_webhook(const char *url, const char *text, const pg_gh_options *opts)
{
    pg_gh_options dflt = PG_GH_OPTIONS_INIT;
    struct curl_slist *headers = NULL;
    char where[256], errbuf[CURL_ERROR_SIZE];
    json_t *o = json_pack("{s:s}", "text", text);
    char *payload = o ? json_dumps(o, JSON_COMPACT) : NULL;
    CURL *c = NULL;
    CURLcode cc;
    long status = 0;
    int err;

    if (!opts)
        opts = &dflt;
    pg__post_url_origin(where, sizeof(where), url);
    if ((err = pg__post_check_url(url, "the webhook URL")) != 0)
        goto cleanup;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !payload || !(c = curl_easy_init()) ||
        !(headers = curl_slist_append(NULL, "Content-Type: application/json"))) {
        err = pg_error_set(PG_ENOMEM, "cannot prepare the webhook request");
        goto cleanup;
    }
    errbuf[0] = '\0';
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, opts->connect_timeout_s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, opts->timeout_s);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "perfgate");
    if ((cc = curl_easy_perform(c)) != CURLE_OK) {
        err = pg_error_set(PG_ENET, "webhook %s: %s", where, *errbuf ? errbuf : curl_easy_strerror(cc));
        goto cleanup;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299)
        err = pg_error_set(PG_ENET, "webhook %s answered %ld", where, status);

cleanup:
    curl_easy_cleanup(c);
    curl_slist_free_all(headers);
    json_decref(o);
    free(payload);
    return err;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);

    return v && *v ? v : NULL;
}

static char *jstr(json_t *o, const char *a, const char *b, const char *c)
{
    json_t *v = json_object_get(o, a);

    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    return json_is_string(v) ? pg__strdup(json_string_value(v)) : NULL;
}

int pg_post_origin_from_env(pg_report_origin *out)
{
    const char *path = env("GITHUB_EVENT_PATH");
    json_t *ev = NULL, *pr, *wr;
    json_error_t je;

    memset(out, 0, sizeof(*out));
    out->repository = pg__strdup(env("GITHUB_REPOSITORY"));
    if (env("GITHUB_SERVER_URL") && env("GITHUB_REPOSITORY") && env("GITHUB_RUN_ID"))
        out->run_url = pg__asprintf("%s/%s/actions/runs/%s", env("GITHUB_SERVER_URL"), env("GITHUB_REPOSITORY"),
                                    env("GITHUB_RUN_ID"));
    if (path) {
        ev = json_load_file(path, 0, &je);
        if (!ev) {
            int err = pg_error_set(PG_EFORMAT, "%s:%d:%d: %s (GITHUB_EVENT_PATH)", path, je.line, je.column, je.text);
            pg_report_origin_clear(out);
            return err;
        }
        pr = json_object_get(ev, "pull_request");
        wr = json_object_get(ev, "workflow_run");
        if (json_is_object(pr)) {
            /* For pull_request events GITHUB_SHA is the test merge commit; the status belongs on the head. */
            json_t *n = json_object_get(pr, "number");
            out->pr = json_is_integer(n) ? (int64_t)json_integer_value(n) : 0;
            out->head_sha = jstr(pr, "head", "sha", NULL);
            out->base_sha = jstr(pr, "base", "sha", NULL);
            out->base_ref = jstr(pr, "base", "ref", NULL);
            out->fork = json_is_true(json_object_get(json_object_get(json_object_get(pr, "head"), "repo"), "fork"));
        } else if (json_is_object(wr)) {
            /*
             * The trusted half of the fork-safe pattern: the run that produced
             * the report. Its pull request is decided by trust.c alone (the
             * listed one must have this head; a fork's is looked up).
             */
            out->head_sha = jstr(wr, "head_sha", NULL, NULL);
        }
        json_decref(ev);
    }
    return 0;
}

char *pg_post_summary_text(const pg_report_data *d)
{
    pg_buf b = PG_BUF_INIT;
    const char *url = d->origin && d->origin->run_url ? d->origin->run_url : d->run->ci_url;

    char sha[13];

    /* Names from the run (a report may be a fork's) are plain text here as everywhere (base/text.h). */
    pg__buf_puts(&b, "perfgate ");
    pg__text_term(&b, d->run->suite_set ? d->run->suite_set : "");
    pg__buf_printf(&b, ": %s: ", d->cmp->outcome == PG_OUTCOME_NOTHING_COMPARED ? "nothing compared"
                                 : d->cmp->outcome == PG_OUTCOME_ERROR        ? "ERROR"
                                 : d->cmp->outcome == PG_OUTCOME_ACCEPTED     ? "ACCEPTED"
                                 : d->cmp->exit_code                          ? "FAIL"
                                                                              : "pass");
    pg_render_summary_line(&b, d->cmp);
    snprintf(sha, sizeof(sha), "%s", d->run->commit ? d->run->commit : "?");
    pg__buf_puts(&b, " (");
    pg__text_term(&b, d->run->branch ? d->run->branch : "?");
    pg__buf_puts(&b, " @ ");
    pg__text_term(&b, sha);
    pg__buf_puts(&b, ")");
    if (url) {
        pg__buf_puts(&b, " ");
        pg__text_term(&b, url);
    }
    return pg__buf_detach(&b);
}

int pg_post_status_for(const char **out_state, pg_buf *desc, const pg_comparison *cmp)
{
    size_t before = desc->len;

    if (cmp->outcome == PG_OUTCOME_NOTHING_COMPARED || cmp->outcome == PG_OUTCOME_ERROR) {
        /* "error", not "success": a green check would vouch for changes nobody measured, or a case that never ran. */
        *out_state = "error";
        pg__buf_puts(desc, cmp->outcome == PG_OUTCOME_ERROR ? "ERROR: " : "nothing compared: ");
        pg__text_term(desc, cmp->outcome_reason ? cmp->outcome_reason
                            : cmp->outcome == PG_OUTCOME_ERROR ? "a case could not be measured"
                                                               : "no case was decided");
        return desc->len > before ? 0 : pg_error_set(PG_ENOMEM, "out of memory describing the status");
    }
    *out_state = pg_outcome_exit_code(cmp) ? "failure" : "success";
    if (cmp->outcome == PG_OUTCOME_ACCEPTED) {
        /* Green on purpose: the description says which regressions and who accepted them. */
        pg__text_term(desc, cmp->outcome_reason ? cmp->outcome_reason : "regressions accepted");
        return desc->len > before ? 0 : pg_error_set(PG_ENOMEM, "out of memory describing the status");
    }
    return pg_render_summary_line(desc, cmp) == 0 ? 0 : pg_error_set(PG_ENOMEM, "out of memory describing the status");
}
