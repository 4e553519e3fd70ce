/*
 * page.c - one case's page of `perfgate site` (site.h): its summary, the
 * full plot (report/html.h draws it as the HTML report does), its change
 * points with the commits of each step, the pull requests whose gates
 * moved it, its regressions and every stored gate decision on it.
 */
#include "site/site.h"

#include "site/internal.h"

#include "perfgate/errors.h"
#include "report/html.h"
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void summary(FILE *f, const pg__site *s, const pg__site_case *c)
{
    const pg_history *h = c->h;
    const pg_history_point *last = &h->points[h->npoints - 1];
    char cur[32], rec[32], ch[32], date[16];

    pg__site_value(cur, sizeof(cur), h->key, c->current);
    pg__site_value(rec, sizeof(rec), h->key, c->recent);
    pg_fmt_change(ch, sizeof(ch), c->current / c->recent);
    fprintf(f, "<p class=\"summary\">newest %s at ", cur);
    pg__site_commit(f, s, last->commit);
    fprintf(f, " (%s); the median of the last %d days %s over %zu point%s: newest %s.</p>\n",
            pg__site_date(date, last->started_at), s->days, rec, c->nrecent, c->nrecent == 1 ? "" : "s", ch);
}

static void change_points(FILE *f, const pg__site *s, const pg_history *h)
{
    size_t i;

    fputs("<section class=\"panel\" id=\"changes\">\n<h2>Change points and the commits that moved it</h2>\n", f);
    if (h->nchanges == 0) {
        fputs("<p>None: the medians held (docs/history.md says how steps are found).</p>\n</section>\n", f);
        return;
    }
    fputs("<table><thead><tr><th>first commit after</th><th>date</th><th class=\"num\">before</th>"
          "<th class=\"num\">after</th><th class=\"num\">change</th><th class=\"num\">p</th>"
          "<th>commits of the step</th></tr></thead><tbody>\n",
          f);
    for (i = h->nchanges; i-- > 0;) {
        const pg_change_point *cp = &h->changes[i];
        const pg_history_point *at = &h->points[cp->index], *prev = cp->index ? &h->points[cp->index - 1] : NULL;
        char before[32], after[32], ch[32], p[32], date[16];
        pg__site_value(before, sizeof(before), h->key, cp->before);
        pg__site_value(after, sizeof(after), h->key, cp->after);
        pg_fmt_change(ch, sizeof(ch), cp->ratio);
        pg_fmt_p(p, sizeof(p), cp->p);
        fprintf(f, "<tr class=\"%s\"><td>", cp->ratio > 1 ? "bad" : "good");
        pg__site_commit(f, s, at->commit);
        fprintf(f, "</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
                   "<td class=\"num\">%s</td><td>",
                pg__site_date(date, at->started_at), before, after, ch, p);
        if (prev && prev->commit && at->commit && s->repo_url)
            fprintf(f, "<a href=\"%s/compare/%.40s...%.40s\">%.7s...%.7s</a>", s->repo_url, prev->commit, at->commit,
                    prev->commit, at->commit);
        else if (prev && prev->commit && at->commit) {
            fputs("<code>git log ", f);
            pg__site_esc(f, prev->commit);
            fputs("..", f);
            pg__site_esc(f, at->commit);
            fputs("</code>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n</section>\n", f);
}

/* The pull requests whose gates decided the case moved (REGRESSED or IMPROVED). */
static void pulls(FILE *f, const pg__site *s, const pg__site_case *c)
{
    size_t i, n = 0;

    fputs("<section class=\"panel\" id=\"pulls\">\n<h2>Pull requests whose gates moved it</h2>\n", f);
    for (i = 0; i < c->ndec; i++) {
        const pg__site_decision *d = &c->dec[i];
        char ch[64], date[16];
        if (!d->pr || (strcmp(d->verdict, "REGRESSED") != 0 && strcmp(d->verdict, "IMPROVED") != 0))
            continue;
        if (n++ == 0)
            fputs("<ul>\n", f);
        pg_fmt_change_ci(ch, sizeof(ch), d->ratio, d->lo, d->hi);
        if (s->repo_url)
            fprintf(f, "<li><a href=\"%s/pull/%lld\">#%lld</a> ", s->repo_url, (long long)d->pr, (long long)d->pr);
        else
            fprintf(f, "<li>#%lld ", (long long)d->pr);
        fprintf(f, "%s %s (%s, at ", d->verdict, ch, pg__site_date(date, d->at));
        pg__site_commit(f, s, d->commit);
        fputs(")</li>\n", f);
    }
    fputs(n ? "</ul>\n</section>\n" : "<p>None stored: no pull request's gate decided this case moved.</p>\n</section>\n",
          f);
}

static void decisions(FILE *f, const pg__site *s, const pg__site_case *c)
{
    size_t i;

    fprintf(f, "<section class=\"panel\" id=\"decisions\">\n<h2>Stored gate decisions (%zu)</h2>\n", c->ndec);
    if (c->ndec == 0) {
        fputs("<p>None: the runs of this branch were recorded (perfgate run), not gated.</p>\n</section>\n", f);
        return;
    }
    fputs("<table><thead><tr><th>date</th><th>commit</th><th>verdict</th><th>change [interval]</th>"
          "<th class=\"num\">rounds</th><th>pull request</th><th>reason</th></tr></thead><tbody>\n",
          f);
    for (i = 0; i < c->ndec; i++) {
        const pg__site_decision *d = &c->dec[i];
        char ch[64], date[16];
        pg_fmt_change_ci(ch, sizeof(ch), d->ratio, d->lo, d->hi);
        fprintf(f, "<tr class=\"%s\"><td>%s</td><td>", pg__site_class(d->verdict), pg__site_date(date, d->at));
        pg__site_commit(f, s, d->commit);
        fprintf(f, "</td><td>%s</td><td>%s</td><td class=\"num\">", d->verdict, ch);
        if (d->rounds > 0)
            fprintf(f, "%lld", (long long)d->rounds);
        fputs("</td><td>", f);
        if (d->pr && s->repo_url)
            fprintf(f, "<a href=\"%s/pull/%lld\">#%lld</a>", s->repo_url, (long long)d->pr, (long long)d->pr);
        else if (d->pr)
            fprintf(f, "#%lld", (long long)d->pr);
        fputs("</td><td>", f);
        pg__site_esc(f, d->reason ? d->reason : "");
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n</section>\n", f);
}

int pg__site_case_page(pg__site *s, const pg__site_case *c)
{
    char *rel = pg__asprintf("cases/%s.html", c->slug);
    pg_outfile out = PG_OUTFILE_INIT;
    FILE *f;
    int err = rel ? pg__site_open(s, rel, &out) : pg_error_set(PG_ENOMEM, "out of memory");

    free(rel);
    if (err)
        return err;
    f = out.f;
    pg__site_head(f, c->h->key, "../style.css");
    fputs("<nav><a href=\"../index.html\">all cases</a><a href=\"#changes\">change points</a><a href=\"#pulls\">pull "
          "requests</a><a href=\"#regressions\">regressions</a><a href=\"#decisions\">gate decisions</a></nav>\n<h1><code>",
          f);
    pg__site_esc(f, c->h->key);
    fputs("</code></h1>\n", f);
    summary(f, s, c);
    fputs("<section class=\"panel full\" id=\"plot\">\n", f);
    pg_report_html_plot(f, c->h, NULL, NULL);
    fputs("<p class=\"note\">The median per commit (line) with the IQR of its newest run (band) and the change points "
          "(red, dashed); hover a point for its commit and the gate's verdict.</p>\n</section>\n",
          f);
    change_points(f, s, c->h);
    pulls(f, s, c);
    fputs("<section class=\"panel\" id=\"regressions\">\n<h2>Regressions</h2>\n", f);
    if ((err = pg__site_regressions(f, s, (size_t)(c - s->cases), "", (size_t)-1)) != 0) {
        pg__outfile_abort(&out);
        return err;
    }
    fputs("</section>\n", f);
    decisions(f, s, c);
    return pg__site_tail(&out, s);
}
