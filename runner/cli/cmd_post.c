/* cmd_post.c - `perfgate post`: the sticky PR comment, the commit status and a webhook summary. */
#include "cli/cli.h"

#include "cli/report_cli.h"

#include "perfgate/errors.h"
#include "post/post.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

int pg_cmd_post(int argc, char **argv)
{
    const char *db = NULL, *base_sel = NULL, *from = NULL;
    pg_cli_post_flags pf = {0};
    pg_cli_compared c = {0};
    pg_report_doc *doc = NULL;
    pg_report_origin env_origin = {0}, origin = {0};
    pg_post_trust trust = {0};
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"from", 0, PG_OPT_STR, &from, "FILE", "post from a saved JSON report (perfgate gate --json FILE)"},
        {"db", 0, PG_OPT_STR, &db, "PATH", "database file, when posting a stored run"},
        {"base", 'b', PG_OPT_STR, &base_sel, "SEL",
         "when posting a stored run: compare now with this baseline instead of its stored decision"},
        {"repo", 0, PG_OPT_STR, &pf.repo, "OWNER/NAME", "repository (default GITHUB_REPOSITORY, else the report's)"},
        {"pr", 0, PG_OPT_INT, &pf.pr, "N", "pull request (default from GITHUB_EVENT_PATH, else the report's)"},
        {"sha", 0, PG_OPT_STR, &pf.sha, "SHA", "commit for the status (default the PR head, else the run's commit)"},
        {"context", 0, PG_OPT_STR, &pf.context, "NAME", "commit status context (default perfgate/<suites>)"},
        {"marker", 0, PG_OPT_STR, &pf.marker, "ID", "sticky comment id: <!-- perfgate:ID --> (default the suites)"},
        {"no-comment", 0, PG_OPT_FLAG, &pf.no_comment, NULL, "do not post the PR comment"},
        {"no-status", 0, PG_OPT_FLAG, &pf.no_status, NULL, "do not set the commit status"},
        {"webhook", 0, PG_OPT_STR, &pf.webhook, "URL", "also post a short JSON summary ({\"text\": ...}) to URL"},
        {"dry-run", 'n', PG_OPT_FLAG, &pf.dry_run, NULL, "print what would be posted; no network, no token"},
        {0},
    };
    const pg_cmd_spec spec = {
        "post", "[options] [RUN]", "Post a sticky PR comment and a commit status for a run.",
        "The comment is found by its hidden marker AND its author (the token's login)\n"
        "and updated in place; otherwise it is created. The token comes from\n"
        "GITHUB_TOKEN and is never printed; the API from GITHUB_API_URL (GitHub\n"
        "Enterprise works). A 403 (a fork's read-only token) or 404 is a warning\n"
        "and exits 0. For fork pull requests, save the report with\n"
        "'perfgate gate --json perfgate.json' in the pull_request workflow and post it\n"
        "from a workflow_run workflow with 'perfgate post --from perfgate.json'.\n"
        "Without --from, RUN (default latest) is read from the database with the\n"
        "decision the gate stored for it (a run without one, or with --base, is\n"
        "compared with its baseline now).\n\n"
        "On a workflow_run event the pull request and SHA come from the event\n"
        "(a fork's pull request is looked up by the run's head and must have\n"
        "head.sha = workflow_run.head_sha); --pr, --sha and the report's own PR,\n"
        "SHA and repository are claims: any disagreement exits 2 and posts\n"
        "nothing. A run that concluded other than success or failure posts\n"
        "nothing and exits 0.\n\n"
        "examples:\n"
        "  perfgate post                         (on a pull_request event)\n"
        "  perfgate post --from perfgate.json    (on a workflow_run event)\n"
        "  perfgate post --from perfgate.json --pr 42   (elsewhere)\n"
        "  perfgate post --dry-run --from perfgate.json",
        opts, 0, 1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (from && nargs) {
        fprintf(stderr, "perfgate post: give either RUN or --from FILE; see 'perfgate post --help'\n");
        return 2;
    }
    if ((err = pg_post_origin_from_env(&env_origin)) != 0 || (err = pg_post_trust_from_env(&trust)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if (trust.workflow_run && (err = pg_post_trust_conclusion(&trust)) != 0) {
        /* Before reading the report: a cancelled run may have left none. */
        fprintf(stderr, "perfgate: %s\n", pg_error_last());
        rc = 0;
        goto cleanup;
    }
    if (from) {
        if ((err = pg_report_doc_load(&doc, from)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        if (trust.workflow_run) {
            pg_report_origin claim = doc->origin;
            /* The run's own PR field is the same claim in another place. */
            claim.pr = claim.pr ? claim.pr : doc->run->pr;
            if ((rc = pg_cli_trusted_target(&origin, &pf, &trust, &claim, env_origin.repository, env_origin.run_url)) >= 0)
                goto cleanup;
            {
                pg_report_data d = {doc->run, doc->cmp, &origin};
                rc = pg_cli_post(&d, &pf);
            }
            goto cleanup;
        }
        /*
         * The trusted environment wins over the report: a fork's report is
         * attacker-controlled, so it only fills what the event does not say.
         */
        origin.repository = pg__strdup(env_origin.repository ? env_origin.repository : doc->origin.repository);
        origin.pr = env_origin.pr ? env_origin.pr : doc->origin.pr;
        origin.head_sha = pg__strdup(env_origin.head_sha ? env_origin.head_sha : doc->origin.head_sha);
        origin.run_url = pg__strdup(doc->origin.run_url ? doc->origin.run_url : env_origin.run_url);
        {
            pg_report_data d = {doc->run, doc->cmp, &origin};
            rc = pg_cli_post(&d, &pf);
        }
    } else {
        if ((rc = pg_cli_compare_stored(&c, db, nargs ? argv[1] : NULL, base_sel)) != 0)
            goto cleanup;
        if (trust.workflow_run) {
            pg_report_origin claim = {0};
            claim.pr = c.head->pr;
            if ((rc = pg_cli_trusted_target(&origin, &pf, &trust, &claim, env_origin.repository, env_origin.run_url)) >= 0)
                goto cleanup;
            {
                pg_report_data d = {c.head, c.cmp, &origin};
                rc = pg_cli_post(&d, &pf);
            }
            goto cleanup;
        }
        {
            pg_report_data d = {c.head, c.cmp, &env_origin};
            rc = pg_cli_post(&d, &pf);
        }
    }

cleanup:
    pg_cli_compared_clear(&c);
    pg_report_doc_free(doc);
    pg_report_origin_clear(&env_origin);
    pg_report_origin_clear(&origin);
    pg_post_trust_clear(&trust);
    return rc;
}
