/*
 * report_cli.c - reporting and posting for the commands: which reporters a
 * command's flags ask for, the GitHub job summary and annotations on
 * Actions, and posting the comment, the status and the webhook summary.
 */
#include "cli/report_cli.h"

#include "perfgate/errors.h"
#include "post/post.h"
#include "gate/gate.h"
#include "base/text.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <stdlib.h>
#include <string.h>

static const char *env(const char *name)
{
    const char *v = getenv(name);

    return v && *v ? v : NULL;
}

void pg_cli_report_opts(pg_opt *opts, int *n, pg_cli_report_flags *rf, int gate)
{
    const pg_opt common[] = {
        {"md", 0, PG_OPT_STR, &rf->md, "FILE", "write the markdown report to FILE ('-': stdout)"},
        {"json", 0, PG_OPT_STR, &rf->json, "FILE", "write the JSON report (schema_version 1) to FILE ('-': stdout)"},
        {"junit", 0, PG_OPT_STR, &rf->junit, "FILE", "write JUnit XML to FILE ('-': stdout)"},
        {"style", 0, PG_OPT_STR, &rf->style, "STYLE", "terminal table: auto, color, nocolor, none (default auto)"},
        {"post", 0, PG_OPT_FLAG, &rf->post, NULL, "post the sticky PR comment and commit status (GITHUB_TOKEN)"},
        {"webhook", 0, PG_OPT_STR, &rf->webhook, "URL", "post a short JSON summary ({\"text\": ...}) to URL"},
    };
    int i, count = gate ? 6 : 4;

    for (i = 0; i < count; i++)
        opts[(*n)++] = common[i];
}

static int add(pg_cli_outputs *o, const char *format, const char *path)
{
    pg_reporter *r = NULL;
    int err;

    if (!path)
        return 0;
    if ((err = pg_reporter_file(&r, format, path)) != 0 || (err = pg_report_mux_add(&o->mux, r)) != 0)
        return err;
    return 0;
}

int pg_cli_outputs_init(pg_cli_outputs *o, const pg_cli_report_flags *rf, int step_summary)
{
    pg_reporter *r = NULL;
    int err;

    memset(o, 0, sizeof(*o));
    o->human = stdout;
    if ((err = add(o, "markdown", rf->md)) != 0 || (err = add(o, "json", rf->json)) != 0 ||
        (err = add(o, "junit", rf->junit)) != 0)
        return pg_cli_fail(err);
    /* Tables and exports would mix on stdout: people get theirs on stderr then. */
    if (pg_report_mux_uses_stdout(&o->mux))
        o->human = stderr;
    if ((err = pg_term_style_parse(&o->style, &o->quiet, rf->style, o->human)) != 0) {
        fprintf(stderr, "perfgate: %s\n", pg_error_last());
        return 2;
    }
    if (step_summary && env("GITHUB_STEP_SUMMARY")) {
        if ((err = pg_reporter_step_summary(&r, env("GITHUB_STEP_SUMMARY"))) != 0 ||
            (err = pg_report_mux_add(&o->mux, r)) != 0)
            return pg_cli_fail(err);
    }
    /* Annotations are workflow commands on stdout; only where nothing else is written there. */
    if (step_summary && env("GITHUB_ACTIONS") && strcmp(env("GITHUB_ACTIONS"), "true") == 0 && o->human == stdout &&
        (err = add(o, "annotations", "-")) != 0)
        return pg_cli_fail(err);
    if ((err = pg_post_origin_from_env(&o->origin)) != 0) {
        /* A broken event file costs the PR link, not the measurement. */
        fprintf(stderr, "perfgate: warning: %s\n", pg_error_last());
        pg_report_origin_clear(&o->origin);
        o->origin.repository = pg__strdup(env("GITHUB_REPOSITORY"));
    }
    return 0;
}

void pg_cli_outputs_clear(pg_cli_outputs *o)
{
    pg_report_mux_clear(&o->mux);
    pg_report_origin_clear(&o->origin);
}

int pg_cli_outputs_emit(pg_cli_outputs *o, const pg_run *run, const pg_comparison *cmp)
{
    pg_report_data d = {run, cmp, &o->origin};

    if (!o->mux.count)
        return 0;
    fflush(o->human);
    return pg_report_mux_emit(&o->mux, &d) ? 3 : 0;
}

/* Prints a failed post: 403/404 (PG_ESKIP) as a warning. @return 0 or 3. */
static int warn_or_fail(int err, const char *what)
{
    if (err == PG_ESKIP) {
        fprintf(stderr, "perfgate: warning: %s\n", pg_error_last());
        if (env("GITHUB_ACTIONS"))
            printf("::warning title=perfgate %s skipped::%s\n", what, pg_error_last());
        return 0;
    }
    fprintf(stderr, "perfgate: %s failed: %s\n", what, pg_error_last());
    return 3;
}

int pg_cli_post(const pg_report_data *d, const pg_cli_post_flags *pf)
{
    pg_report_options ro = PG_REPORT_OPTIONS_INIT;
    pg_gh_options go = PG_GH_OPTIONS_INIT;
    const pg_report_origin *og = d->origin;
    const char *id_text = pf->marker ? pf->marker : d->run->suite_set ? d->run->suite_set : "default";
    const char *repo = pf->repo ? pf->repo : og ? og->repository : NULL;
    const char *sha = pf->sha ? pf->sha : og && og->head_sha ? og->head_sha : d->run->commit;
    const char *url = og && og->run_url ? og->run_url : d->run->ci_url;
    int64_t pr = pf->pr > 0 ? pf->pr : og ? og->pr : 0;
    const char *state = NULL;
    pg_buf body = PG_BUF_INIT, desc = PG_BUF_INIT, id = PG_BUF_INIT;
    char *marker = NULL, *context = NULL;
    pg_post_outcome po;
    pg_gh *gh = NULL;
    int err, rc = 0;

    /*
     * The marker and the context are markup and names GitHub keeps: a report's
     * suite set (a fork writes it) only ever adds an identifier to them.
     */
    pg__text_ident(&id, id_text, 100);
    marker = id.ptr ? pg__asprintf("<!-- perfgate:%s -->", id.ptr) : NULL;
    context = pf->context ? pg__text_term_dup(pf->context) : id.ptr ? pg__asprintf("perfgate/%s", id.ptr) : NULL;
    if (!marker || !context) {
        rc = pg_cli_fail(pg_error_set(PG_ENOMEM, "out of memory preparing a post"));
        goto cleanup;
    }
    ro.marker = marker;
    ro.max_bytes = PG_GH_COMMENT_LIMIT;
    if ((err = pg_render_markdown(&body, d, &ro)) != 0 || (err = pg_post_status_for(&state, &desc, d->cmp)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if (pf->dry_run) {
        if (!pf->no_comment)
            printf("comment on %s#%lld:\n%s\n", repo ? repo : "?", (long long)pr, body.ptr);
        if (!pf->no_status)
            printf("status on %s@%s: %s %s: %s\n", repo ? repo : "?", sha ? sha : "?", context, state, desc.ptr);
        goto cleanup;
    }
    if (!pf->no_comment || !pf->no_status) {
        go.debug = env("PERFGATE_DEBUG") ? stderr : NULL;
        if ((err = pg_gh_new(&gh, &go)) != 0) {
            rc = warn_or_fail(err, "posting to GitHub");
            goto webhook;
        }
    }
    if (!pf->no_comment) {
        if (pr <= 0) {
            fprintf(stderr, "perfgate: no pull request (not a pull_request event and no --pr): no comment posted\n");
        } else if ((err = pg_post_sticky_comment(&po, gh, repo, pr, marker, body.ptr, url)) != 0) {
            rc |= warn_or_fail(err, "the PR comment");
        } else {
            fprintf(stderr, "perfgate: %s comment %lld on %s#%lld\n", po.created ? "created" : "updated",
                    (long long)po.comment_id, repo, (long long)pr);
        }
    }
    if (!pf->no_status) {
        if ((err = pg_post_commit_status(gh, repo, sha, state, desc.ptr, url, context)) != 0)
            rc |= warn_or_fail(err, "the commit status");
        else
            fprintf(stderr, "perfgate: status %s (%s) on %.12s\n", state, context, sha);
    }
webhook:
    if (pf->webhook) {
        char *text = pg_post_summary_text(d);
        if (!text || (err = pg_post_webhook(pf->webhook, text, NULL)) != 0)
            rc |= warn_or_fail(text ? err : PG_ENOMEM, "the webhook");
        free(text);
    }

cleanup:
    pg_gh_free(gh);
    pg__buf_clear(&body);
    pg__buf_clear(&desc);
    pg__buf_clear(&id);
    free(marker);
    free(context);
    return rc;
}

/*
 * In a workflow_run job, decides the pull request and SHA from the trusted
 * event alone (see post/trust.c); the flags and the report are claims that
 * must agree with it. Fills `origin` and clears the flags it checked.
 * @return -1 to go on posting; else the exit code (0: nothing to post).
 */
int pg_cli_trusted_target(pg_report_origin *origin, pg_cli_post_flags *pf, pg_post_trust *t,
                          const pg_report_origin *claim, const char *env_repo, const char *run_url)
{
    pg_gh_options go = PG_GH_OPTIONS_INIT;
    const char *repo = pf->repo ? pf->repo : env_repo;
    pg_gh *gh = NULL;
    int err, resolved = t->pr > 0;

    if (!repo) {
        fprintf(stderr, "perfgate: no repository: set GITHUB_REPOSITORY or pass --repo OWNER/NAME\n");
        return 2;
    }
    /* Local checks first, so that a forged report costs no request. */
    if ((err = pg_post_trust_check(t, "--sha", repo, NULL, 0, pf->sha)) != 0 ||
        (err = pg_post_trust_check(t, "the report", repo, claim ? claim->repository : NULL, 0,
                                   claim ? claim->head_sha : NULL)) != 0)
        return pg_cli_fail(err);
    if (!resolved && !pf->dry_run && !pf->no_comment) {
        /* Only the comment needs the pull request; the status goes on the trusted SHA. */
        go.debug = getenv("PERFGATE_DEBUG") && *getenv("PERFGATE_DEBUG") ? stderr : NULL;
        if ((err = pg_gh_new(&gh, &go)) != 0 || (err = pg_post_trust_find_pr(t, gh, repo)) != 0) {
            pg_gh_free(gh);
            return pg_cli_fail(err);
        }
        pg_gh_free(gh);
        resolved = 1;
        if (t->pr_from_api)
            fprintf(stderr, "perfgate: pull request #%lld found through the API (head %.12s)\n", (long long)t->pr,
                    t->head_sha);
    } else if (!resolved) {
        /* A run that is not a pull request's has none to look up: a claimed one is checked against that. */
        resolved = !t->event || (strcmp(t->event, "pull_request") != 0 && strcmp(t->event, "pull_request_target"));
        if (!resolved && pf->dry_run)
            fprintf(stderr, "perfgate: dry run: the event lists no pull request; a real post looks it up by head "
                            "%.12s\n", t->head_sha);
    }
    if (resolved) {
        if ((err = pg_post_trust_check(t, "--pr", repo, NULL, pf->pr, NULL)) != 0 ||
            (err = pg_post_trust_check(t, "the report", repo, NULL, claim ? claim->pr : 0, NULL)) != 0)
            return pg_cli_fail(err);
    }
    origin->repository = pg__strdup(repo);
    origin->pr = t->pr;
    origin->head_sha = pg__strdup(t->head_sha);
    /* The report's run link is the PR's claim too: link the run GitHub says measured it. */
    origin->run_url = pg__strdup(t->run_url ? t->run_url : run_url);
    pf->pr = 0;
    pf->sha = NULL;
    pf->repo = NULL;
    return -1;
}

int pg_cli_compare_stored(pg_cli_compared *c, const char *db, const char *head_sel, const char *base_sel)
{
    int err;

    memset(c, 0, sizeof(*c));
    /* The gate's own decision, unless another baseline is asked for: a report shows what the gate decided. */
    if ((err = pg_store_open_read(&c->store, pg_store_path(db))) != 0 ||
        (err = base_sel ? pg_stored_compare_head(&c->stored, c->store, head_sel, base_sel, NULL, NULL)
                        : pg_stored_decision_head(&c->stored, c->store, head_sel)) != 0)
        return pg_cli_fail(err);
    c->head = c->stored.head;
    c->cmp = c->stored.cmp;
    c->nbases = c->stored.nbases;
    return 0;
}

void pg_cli_compared_clear(pg_cli_compared *c)
{
    pg_stored_clear(&c->stored);
    pg_store_close(c->store);
    memset(c, 0, sizeof(*c));
}
