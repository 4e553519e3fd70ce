/* cmd_issues.c - `perfgate issues`: the nightly's regression issues (nightly.h), planned or posted. */
#include "cli/cli.h"

#include "base/outfile.h"
#include "nightly/nightly.h"
#include "perfgate/errors.h"
#include "post/post.h"
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char issues_desc[] =
    "Keeps one GitHub issue per case that the nightly found slower.\n\n"
    "A case has a confirmed change point tonight when tonight's nightly gate\n"
    "(perfgate gate --branch nightly against the previous nights, pooled) decided\n"
    "it REGRESSED, which the gate does only after three fresh processes confirmed\n"
    "it, and the night before did not: a case slower on consecutive nights is one\n"
    "change. Each change point gets an issue (labelled, with a marker that finds\n"
    "it again) holding the gate's verdict, the bisection of the night's commits\n"
    "(--bisect DIR: the JSON of 'perfgate bisect' for each case, named as --plan\n"
    "says) and links to the run and the commits; at most --max-issues new ones a\n"
    "night, the largest lower bound first. A case with an open issue is compared\n"
    "each night with the nights before its change: still REGRESSED, its issue's\n"
    "table of nights is updated; SAME or IMPROVED, it is commented on as recovered,\n"
    "once; slower again later, commented on again. No second issue is opened for a\n"
    "case while one is open; perfgate edits only issues its token opened.\n\n"
    "--plan FILE needs no token: it writes the night's commits and the change\n"
    "points to bisect, tab-separated (first line: GOOD BAD, the previous night's\n"
    "commit and tonight's; then per case: an exact --filter glob, the name of its\n"
    "bisection file without .json, and its key), for the job that builds. Posting\n"
    "reads GITHUB_TOKEN (permissions: issues: write) and GITHUB_REPOSITORY, and\n"
    "takes the database and the bisections as data: nothing in them chooses which\n"
    "issue is written.\n\n"
    "exit codes: 0 done; 2 usage, or no nights on the branch; 3 the database or\n"
    "GitHub failed (the token lacks issues: write, a network error).\n\n"
    "examples:\n"
    "  perfgate issues --db nightly.db --plan plan.tsv\n"
    "  perfgate issues --db nightly.db --bisect bisect/ --repo me/lib";

/* key as a glob that matches only itself. */
static void exact_glob(FILE *f, const char *key)
{
    for (; *key; key++) {
        if (strchr("*?[]\\", *key))
            fputc('\\', f);
        fputc(*key == '\t' || *key == '\n' ? ' ' : *key, f);
    }
}

/* The plan, through the one writer (base/outfile.h): whole under its name, or not there. */
static int write_plan(const pg_nightly *n, const char *path)
{
    pg_outfile out = PG_OUTFILE_INIT;
    FILE *f;
    size_t i;
    int err;

    if ((err = pg__outfile_open(&out, path, "plan")) != 0)
        return pg_cli_fail(err);
    f = out.f;
    fprintf(f, "%s\t%s\n", n->previous ? n->previous : "-", n->tonight ? n->tonight : "-");
    for (i = 0; n->previous && i < n->ncases; i++) {
        if (n->cases[i].action != PG_NIGHTLY_OPEN)
            continue;
        exact_glob(f, n->cases[i].key);
        fprintf(f, "\t%s\t", n->cases[i].hash);
        exact_glob(f, n->cases[i].key);
        fputc('\n', f);
    }
    err = pg__outfile_commit(&out, "plan");
    return err ? pg_cli_fail(err) : 0;
}

static int post(pg_nightly *n, pg_store *store, pg_nightly_options *o)
{
    pg_gh *gh = NULL;
    int err;

    if (!o->repo || !*o->repo) {
        fprintf(stderr, "perfgate issues: no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY\n");
        return 2;
    }
    if ((err = pg_gh_new(&gh, NULL)) != 0)
        return pg_cli_fail(err);
    err = pg_nightly_post(n, store, gh, o);
    pg_gh_free(gh);
    if (err == PG_ESKIP) {
        /* A read-only token: for issues that is a job set up without the permission, not a fork. */
        fprintf(stderr, "perfgate issues: %s; the posting job needs 'permissions: issues: write'\n", pg_error_last());
        return 3;
    }
    return err ? pg_cli_fail(err) : 0;
}

int pg_cmd_issues(int argc, char **argv)
{
    pg_nightly_options o = PG_NIGHTLY_OPTIONS_INIT;
    const char *db = NULL, *plan = NULL, *repo_env = getenv("GITHUB_REPOSITORY");
    long max = PG_NIGHTLY_MAX_ISSUES;
    pg_store *store = NULL;
    pg_nightly n;
    pg_buf text = PG_BUF_INIT;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"db", 0, PG_OPT_STR, &db, "PATH", "the nights' database (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"branch", 0, PG_OPT_STR, &o.branch, "NAME", "the branch the nights are stored under (default nightly)"},
        {"plan", 0, PG_OPT_STR, &plan, "FILE", "write the night's commits and the cases to bisect (- for stdout); "
                                               "posts nothing, needs no token"},
        {"bisect", 0, PG_OPT_STR, &o.bisect_dir, "DIR", "the bisections of the cases, DIR/NAME.json as --plan names them"},
        {"repo", 0, PG_OPT_STR, &o.repo, "OWNER/NAME", "the repository (default GITHUB_REPOSITORY)"},
        {"label", 0, PG_OPT_STR, &o.label, "NAME", "the issues' label (default perfgate-regression)"},
        {"max-issues", 0, PG_OPT_INT, &max, "N", "new issues a night at most (default 5)"},
        {"dry-run", 0, PG_OPT_FLAG, &o.dry_run, NULL, "read the issues and say what would be done; write nothing"},
        {0},
    };
    const pg_cmd_spec spec = {"issues", "--db DB [--plan FILE | --bisect DIR --repo OWNER/NAME] [options]",
                              "Open, update and comment on one GitHub issue per case the nightly found slower.",
                              issues_desc, opts, 0, 0};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (max < 1 || max > 100) {
        fprintf(stderr, "perfgate issues: --max-issues is between 1 and 100\n");
        return 2;
    }
    o.max_issues = (size_t)max;
    if (!o.repo && repo_env && *repo_env)
        o.repo = repo_env;
    if ((rc = pg_cli_open_db(&store, db, "issues")) != 0)
        return rc;
    if ((err = pg_nightly_plan(&n, store, &o)) != 0) {
        pg_store_close(store);
        return pg_cli_fail(err);
    }
    rc = plan ? write_plan(&n, plan) : post(&n, store, &o);
    if (rc == 0 && pg_nightly_describe(&text, &n) == 0)
        fputs(text.ptr, plan && strcmp(plan, "-") == 0 ? stderr : stdout);
    pg__buf_clear(&text);
    pg_nightly_clear(&n);
    pg_store_close(store);
    return rc;
}
