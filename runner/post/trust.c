/*
 * trust.c - which pull request and commit a workflow_run job may post for.
 *
 * In the two-workflow pattern the report is an artifact written by the pull
 * request's own code, so a fork can put any PR number or SHA in it. The
 * workflow_run event is written by GitHub: the head SHA, the conclusion and
 * (for the base repository's own branches) the pull request come from it.
 * For a fork GitHub lists no pull request; it is looked up through the API
 * and accepted only when its head is the run's head SHA. Whatever the
 * artifact or the command line says is then checked against that, never
 * used in its place.
 */
#include "post/post.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <ctype.h>
#include <curl/curl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int pg__gh_status_error(const pg_gh_response *r, const char *what);
int pg__post_check_repo(const char *repo);


static char *jstr(json_t *v)
{
    return json_is_string(v) ? pg__strdup(json_string_value(v)) : NULL;
}

static int is_full_sha(const char *s)
{
    size_t i;

    for (i = 0; s && s[i]; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return s && i == 40;
}

void pg_post_trust_clear(pg_post_trust *t)
{
    free(t->event);
    free(t->conclusion);
    free(t->head_sha);
    free(t->head_branch);
    free(t->head_owner);
    free(t->run_url);
    memset(t, 0, sizeof(*t));
}

/*
 * The pull request of the event's list whose head is the run's head SHA:
 * GitHub matches that list by branch name, so a fork's branch named like a
 * pull request of the repository lists that pull request. 0 when none.
 */
static int64_t listed_pr(json_t *prs, const char *head_sha)
{
    json_t *it;
    size_t i;

    json_array_foreach(prs, i, it)
    {
        json_t *n = json_object_get(it, "number");
        const char *h = json_string_value(json_object_get(json_object_get(it, "head"), "sha"));
        if (json_is_integer(n) && json_integer_value(n) > 0 && h && head_sha && strcasecmp(h, head_sha) == 0)
            return (int64_t)json_integer_value(n);
    }
    return 0;
}

int pg_post_trust_from_env(pg_post_trust *out)
{
    const char *path = getenv("GITHUB_EVENT_PATH"), *name = getenv("GITHUB_EVENT_NAME");
    int named = name && strcmp(name, "workflow_run") == 0;
    json_t *ev, *wr;
    json_error_t je;
    int err = 0;

    memset(out, 0, sizeof(*out));
    /* A workflow_run job without its event must not fall back to the report's claims. */
    if (named && (!path || !*path))
        return pg_error_set(PG_EFORMAT, "GITHUB_EVENT_NAME is workflow_run but GITHUB_EVENT_PATH is not set: "
                                        "nothing to check the report's pull request and SHA against");
    if (!path || !*path)
        return 0;
    if (!(ev = json_load_file(path, 0, &je)))
        return pg_error_set(PG_EFORMAT, "%s:%d:%d: %s (GITHUB_EVENT_PATH)", path, je.line, je.column, je.text);
    wr = json_object_get(ev, "workflow_run");
    if (named && !json_is_object(wr))
        err = pg_error_set(PG_EFORMAT, "%s: GITHUB_EVENT_NAME is workflow_run but the event holds no workflow_run "
                                       "object: nothing to check the report's pull request and SHA against",
                           path);
    if (json_is_object(wr)) {
        out->workflow_run = 1;
        out->event = jstr(json_object_get(wr, "event"));
        out->conclusion = jstr(json_object_get(wr, "conclusion"));
        out->head_sha = jstr(json_object_get(wr, "head_sha"));
        out->head_branch = jstr(json_object_get(wr, "head_branch"));
        out->head_owner = jstr(json_object_get(json_object_get(json_object_get(wr, "head_repository"), "owner"),
                                               "login"));
        out->run_url = jstr(json_object_get(wr, "html_url"));
        out->pr = listed_pr(json_object_get(wr, "pull_requests"), out->head_sha);
        /* The SHA goes into request paths and decides where the status lands: it must be exact. */
        if (!is_full_sha(out->head_sha)) {
            err = pg_error_set(PG_EFORMAT, "%s: the workflow_run event has no valid head_sha (GITHUB_EVENT_PATH)",
                               path);
            pg_post_trust_clear(out);
        }
    }
    json_decref(ev);
    return err;
}

int pg_post_trust_conclusion(const pg_post_trust *t)
{
    const char *c = t->conclusion ? t->conclusion : "(none)";

    /*
     * The gate exits 1 on a regression, which fails the job: "failure" is
     * the run perfgate most needs to report. Anything else (cancelled,
     * skipped, timed_out, action_required, ...) measured nothing whole.
     */
    if (strcmp(c, "success") == 0 || strcmp(c, "failure") == 0)
        return 0;
    return pg_error_set(PG_ESKIP, "the measuring run concluded '%s': nothing posted (perfgate posts for 'success' "
                                  "or 'failure' only)", c);
}

static int is_pr_event(const pg_post_trust *t)
{
    return t->event && (strcmp(t->event, "pull_request") == 0 || strcmp(t->event, "pull_request_target") == 0);
}

/*
 * Scans a list of pull requests for one whose head is the run's SHA.
 * `seen`/`seen_sha` keep the first candidate whose head differs, for the
 * refusal message.
 */
int64_t pg__trust_match_head(const char *body, const char *sha, int64_t *seen, char *seen_sha, size_t seen_len)
{
    json_t *arr = json_loads(body ? body : "", 0, NULL), *it;
    int64_t found = 0;
    size_t i;

    json_array_foreach(arr, i, it)
    {
        json_t *n = json_object_get(it, "number");
        json_t *h = json_object_get(json_object_get(it, "head"), "sha");
        json_t *st = json_object_get(it, "state");
        if (!json_is_integer(n) || !json_is_string(h))
            continue;
        if (json_is_string(st) && strcmp(json_string_value(st), "open") != 0)
            continue;
        if (strcasecmp(json_string_value(h), sha) == 0) {
            found = (int64_t)json_integer_value(n);
            break;
        }
        if (!*seen) {
            *seen = (int64_t)json_integer_value(n);
            snprintf(seen_sha, seen_len, "%s", json_string_value(h));
        }
    }
    json_decref(arr);
    return found;
}

static int owner_ok(const char *s)
{
    for (; s && *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
            return 0;
    return 1;
}

/* GETs one list of pull requests and looks for the run's head in it. `path` NULL: out of memory. */
static int search(int64_t *found, pg_gh *gh, const char *path, const char *what, const char *sha, int64_t *seen,
                  char *seen_sha, size_t seen_len)
{
    pg_gh_response r = {0};
    int err;

    if (!path)
        return pg_error_set(PG_ENOMEM, "out of memory looking up the pull request");
    if ((err = pg_gh_request(&r, gh, "GET", path, NULL)) == 0) {
        if (r.status != 200)
            err = pg__gh_status_error(&r, what);
        else
            *found = pg__trust_match_head(r.body, sha, seen, seen_sha, seen_len);
    }
    pg_gh_response_clear(&r);
    return err;
}

int pg_post_trust_find_pr(pg_post_trust *t, pg_gh *gh, const char *repo)
{
    char *path = NULL, *label = NULL, *esc = NULL, seen_sha[64] = "";
    int64_t seen = 0, found = 0;
    int err;

    if (!t->workflow_run || t->pr > 0 || !is_pr_event(t))
        return 0;
    if ((err = pg__post_check_repo(repo)) != 0)
        return err;
    if (t->head_owner && t->head_branch && *t->head_owner && owner_ok(t->head_owner)) {
        CURL *c = curl_easy_init();
        label = pg__asprintf("%s:%s", t->head_owner, t->head_branch);
        esc = c && label ? curl_easy_escape(c, label, 0) : NULL;
        curl_easy_cleanup(c);
        path = esc ? pg__asprintf("/repos/%s/pulls?state=open&head=%s&per_page=100", repo, esc) : NULL;
        if ((err = search(&found, gh, path, "looking up the fork's pull request", t->head_sha, &seen, seen_sha,
                          sizeof(seen_sha))) != 0)
            goto cleanup;
    }
    if (!found) {
        /* The branch may have been renamed or deleted; the commit still names its pull request. */
        free(path);
        path = pg__asprintf("/repos/%s/commits/%s/pulls", repo, t->head_sha);
        if ((err = search(&found, gh, path, "looking up the pull request of the run's commit", t->head_sha, &seen,
                          seen_sha, sizeof(seen_sha))) != 0)
            goto cleanup;
    }
    if (found) {
        t->pr = found;
        t->pr_from_api = 1;
    } else if (seen) {
        err = pg_error_set(PG_EINVAL, "refusing to post: pull request #%lld has head %.12s, not the measured run's "
                                      "%.12s (pushed again since?); nothing posted",
                           (long long)seen, seen_sha, t->head_sha);
    } else {
        err = pg_error_set(PG_EINVAL, "refusing to post: no open pull request of %s has head %.12s (%s:%s); "
                                      "nothing posted",
                           repo, t->head_sha, t->head_owner ? t->head_owner : "?",
                           t->head_branch ? t->head_branch : "?");
    }

cleanup:
    curl_free(esc);
    free(label);
    free(path);
    return err;
}

int pg_post_trust_check(const pg_post_trust *t, const char *what, const char *repo, const char *claimed_repo,
                        int64_t claimed_pr, const char *claimed_sha)
{
    if (!t->workflow_run)
        return 0;
    if (claimed_repo && repo && strcasecmp(claimed_repo, repo) != 0)
        return pg_error_set(PG_EINVAL, "refusing to post: %s names repository %s, but this is %s; nothing posted",
                            what, claimed_repo, repo);
    if (claimed_sha && strcasecmp(claimed_sha, t->head_sha) != 0)
        return pg_error_set(PG_EINVAL, "refusing to post: %s claims commit %.12s, but the workflow_run event "
                                       "measured %.12s; nothing posted",
                            what, claimed_sha, t->head_sha);
    if (claimed_pr > 0 && claimed_pr != t->pr) {
        if (t->pr > 0)
            return pg_error_set(PG_EINVAL, "refusing to post: %s claims pull request #%lld, but the workflow_run "
                                           "event is for #%lld; nothing posted",
                                what, (long long)claimed_pr, (long long)t->pr);
        return pg_error_set(PG_EINVAL, "refusing to post: %s claims pull request #%lld, but the workflow_run "
                                       "event (%s) is for no pull request; nothing posted",
                            what, (long long)claimed_pr, t->event ? t->event : "?");
    }
    return 0;
}
