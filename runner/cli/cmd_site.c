/* cmd_site.c - `perfgate site --db DB -o DIR`: a branch's history as a static site (site.h). */
#include "cli/cli.h"

#include "base/text.h"
#include "perfgate/errors.h"
#include "site/site.h"
#include "store/store.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char site_desc[] =
    "Writes a static site of one branch's history into DIR: index.html lists every\n"
    "case with a sparkline of its newest points, its last change point and its\n"
    "newest median against the median of the last --days days, under the list of\n"
    "regressions (upward change points and gate decisions that said REGRESSED,\n"
    "newest first); cases/*.html has one page per case with the full plot, its\n"
    "change points and the commits of each step, the pull requests whose gates\n"
    "moved it, its regressions and every stored gate decision on it.\n\n"
    "Plain HTML and SVG with one style sheet: no script, nothing fetched from\n"
    "elsewhere, relative links, so the directory opens from file:// and serves\n"
    "from GitHub Pages as it is. Commits and pull requests link to --repo-url,\n"
    "else to the repository the stored gate decisions name (on GitHub Actions,\n"
    "under GITHUB_SERVER_URL). Pages of an earlier site in DIR/cases are replaced.\n"
    "Change points are found as 'perfgate history' finds them (docs/history.md).\n\n"
    "exit codes: 0 written; 2 usage, or no runs on the branch (the message names\n"
    "the branches that have some); 3 the database or DIR cannot be read or written.\n\n"
    "examples:\n"
    "  perfgate site --db baselines/perfgate.db -o site\n"
    "  perfgate site --db nightly.db --branch nightly -o public --repo-url https://github.com/me/lib";

int pg_cmd_site(int argc, char **argv)
{
    pg_site_options o = PG_SITE_OPTIONS_INIT;
    const char *db = NULL, *dir = NULL;
    char *branch;
    long days = 30;
    pg_store *store = NULL;
    pg_site_stats st;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"db", 0, PG_OPT_STR, &db, "PATH", "database file or postgresql:// URL (default $PERFGATE_DB, else "
                                            "baselines/perfgate.db)"},
        {"output", 'o', PG_OPT_STR, &dir, "DIR", "where the site goes (required; created when absent)"},
        {"branch", 0, PG_OPT_STR, &o.branch, "NAME", "the branch whose history it shows (default: the one with the most runs)"},
        {"title", 0, PG_OPT_STR, &o.title, "TEXT", "the title of the pages (default perfgate: BRANCH)"},
        {"repo-url", 0, PG_OPT_STR, &o.repo_url, "URL", "https://HOST/OWNER/NAME for links to commits and pull requests"},
        {"days", 0, PG_OPT_INT, &days, "N", "the window of the recent median (default 30)"},
        {0},
    };
    const pg_cmd_spec spec = {"site", "-o DIR [options]", "Write a static site of a branch's history and gate decisions.",
                              site_desc, opts, 0, 0};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (!dir || !*dir) {
        fprintf(stderr, "perfgate site: -o DIR is required; see 'perfgate site --help'\n");
        return 2;
    }
    if (days < 1 || days > 36500) {
        fprintf(stderr, "perfgate site: --days is between 1 and 36500\n");
        return 2;
    }
    o.days = (int)days;
    if ((rc = pg_cli_open_db(&store, db, "site")) != 0)
        return rc;
    err = pg_site_write(&st, store, dir, &o);
    pg_store_close(store);
    if (err)
        return pg_cli_fail(err);
    branch = pg__text_term_dup(st.branch);
    printf("site: %zu cases of branch %s (%zu points, %zu gate decisions, %zu regressions listed), %.1f MB in %s; "
           "open %s/index.html\n",
           st.cases, branch ? branch : "?", st.points, st.decisions, st.regressions, (double)st.bytes / 1e6, dir, dir);
    free(branch);
    return 0;
}
