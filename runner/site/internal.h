/*
 * internal.h - what the files of runner/site/ share: the site's data
 * (site.c reads it) and the pieces every page writes (a case page in
 * page.c, the index in site.c).
 */
#ifndef PG_SITE_INTERNAL_H
#define PG_SITE_INTERNAL_H

#include <stdio.h>

#include "base/outfile.h"
#include "base/util.h"
#include "history/history.h"

struct pg_site_stats;

/* One stored gate decision on a case. */
typedef struct pg__site_decision {
    int64_t at;               /* the decided run's start */
    char *commit;
    char verdict[16];
    double ratio, lo, hi;
    int64_t rounds;           /* interleaved rounds; 0 when not paired */
    int64_t pr;               /* the pull request the gate decided for; 0: none */
    char *reason;             /* kept for the verdicts that are not SAME */
} pg__site_decision;

typedef struct pg__site_case {
    const pg_history *h;
    char slug[128];           /* the page's file name without .html */
    double current;           /* the newest point's median */
    double recent;            /* the median of the points of the last `days` days; NAN: none */
    size_t nrecent;
    pg__site_decision *dec;   /* newest first */
    size_t ndec, capdec;
} pg__site_case;

typedef struct pg__site {
    const char *dir;
    char *branch, *title;
    char *repo_url;           /* checked: https://HOST/OWNER/NAME, no trailing slash; NULL: no links */
    int days;
    pg_history *hs;
    size_t nh;
    pg__site_case *cases;
    struct pg_site_stats *stats; /* site.h */
} pg__site;

/** Writes `s` escaped for HTML text and attributes. */
void pg__site_esc(FILE *f, const char *s);

/** A date as YYYY-MM-DD (UTC), "-" for none. */
const char *pg__site_date(char out[16], int64_t unix_seconds);

/** A median in the case's unit: a duration for time, a plain number for counts (KEY#METRIC). */
void pg__site_value(char *out, size_t len, const char *key, double v);

/** A commit as a short SHA, linked to the repository when it is known. */
void pg__site_commit(FILE *f, const pg__site *s, const char *sha);

/** The head of a page (title, style sheet at `css`) and its end. */
void pg__site_head(FILE *f, const char *title, const char *css);
int pg__site_tail(pg_outfile *o, pg__site *s);

/**
 * Starts writing dir/`rel` through the one writer (base/outfile.h): a page
 * appears whole under its name at pg__site_tail(), or not at all.
 */
int pg__site_open(const pg__site *s, const char *rel, pg_outfile *o);

/**
 * The regressions of case `only` (every case: SIZE_MAX) as a table, newest
 * first, at most `max` rows: its upward change points and the gate
 * decisions that said REGRESSED. Case pages are linked as PREFIX SLUG.html.
 */
int pg__site_regressions(FILE *f, pg__site *s, size_t only, const char *prefix, size_t max);

/** Writes the page of case `c` (page.c). */
int pg__site_case_page(pg__site *s, const pg__site_case *c);

/** Whether a verdict word is REGRESSED, IMPROVED ...: the CSS class of its row. */
const char *pg__site_class(const char *verdict);

#endif
