/*
 * site.h - `perfgate site`: a static site of one branch's history.
 *
 * index.html lists every case with its trend (a sparkline of its newest
 * points), its last change point, and its newest median against the
 * median of the last 30 days, under the list of regressions (upward change
 * points and REGRESSED gate decisions, newest first). cases/SLUG.html is
 * one case: the full plot, its change points, the commits that moved it
 * (the range of each step, linked to the repository when it is known) and
 * the pull requests whose gates decided on it, every stored gate decision
 * on it, and its own regressions. style.css serves both.
 *
 * Plain HTML and inline SVG, no script, no font or file from elsewhere,
 * relative links only: the directory works from file:// and from any web
 * server, GitHub Pages included. Every string from the database is
 * escaped; a link is made only from a commit of hex digits, a pull request
 * number and a repository URL of the expected shape.
 */
#ifndef PG_SITE_H
#define PG_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct pg_site_options {
    unsigned version;
    const char *branch;       /* NULL: the branch with the most runs (the newest on a tie) */
    const char *title;        /* NULL: "perfgate: BRANCH" */
    const char *repo_url;     /* https://HOST/OWNER/NAME for commit and pull request links; NULL: from the gate
                                 decisions' repository under GITHUB_SERVER_URL (else https://github.com), else none */
    int days;                 /* the window of the recent median, in days; <= 0: 30 */
} pg_site_options;

#define PG_SITE_OPTIONS_VERSION 1
#define PG_SITE_OPTIONS_INIT {PG_SITE_OPTIONS_VERSION, NULL, NULL, NULL, 30}

/** What a site holds. */
typedef struct pg_site_stats {
    char branch[256];
    size_t cases;             /* pages written */
    size_t points;            /* points over all cases */
    size_t decisions;         /* stored gate decisions read */
    size_t regressions;       /* entries of the index's regressions list */
    int64_t bytes;            /* written */
} pg_site_stats;

/**
 * Writes the site of `store`'s branch into `dir` (created when absent;
 * pages of an earlier site in dir/cases are replaced, never mixed in).
 * @return 0; PG_ENOTFOUND when the branch has no runs (the message names
 *         the branches that have some); PG_EIO when a file cannot be written;
 *         a store error.
 */
int pg_site_write(pg_site_stats *out, pg_store *store, const char *dir, const pg_site_options *opts);

#endif
