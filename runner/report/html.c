/*
 * html.c - a self-contained HTML report that reads like a dashboard page.
 *
 * Top to bottom: the title, a summary line and one badge per verdict count;
 * the verdict table; then one small trend plot per case in a grid a
 * reviewer can scan. Each plot shows the median per commit with the IQR
 * band, commit labels (short SHA and date) on the x axis with the PR's base
 * and head marked, and on the y axis the threshold band around the baseline,
 * never scaled tighter than twice the threshold, so noise of a few percent
 * looks like what it is. The page is a sequence of <section class="panel">
 * blocks written by one function each; another section is one more call in
 * pg_report_html().
 */
#include "report/html.h"

#include "perfgate/errors.h"
#include "report/report.h"
#include "base/util.h"
#include "verdict/exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void esc(FILE *f, const char *s)
{
    pg_buf b = PG_BUF_INIT;

    pg__text_xml(&b, s ? s : "");
    if (b.ptr)
        fputs(b.ptr, f);
    pg__buf_clear(&b);
}

/* The first `max` bytes of `s` (a commit, shortened), escaped: a commit is whatever the run was told. */
static void esc_short(FILE *f, const char *s, int max)
{
    char *cut = pg__asprintf("%.*s", max, s ? s : "-");

    esc(f, cut);
    free(cut);
}

/* One small multiple: room for a y label on the left and two lines of commit labels below. */
enum { W = 440, H = 200, ML = 62, MR = 14, MT = 14, MB = 44, MAX_TICKS = 5 };

static double px(size_t i, size_t n)
{
    return ML + (n > 1 ? (double)i * (W - ML - MR) / (double)(n - 1) : (W - ML - MR) / 2.0);
}

static double py(double v, double lo, double hi)
{
    return MT + (hi - v) / (hi - lo) * (H - MT - MB);
}

/* The point of commit `sha` (either may be abbreviated), or -1. */
static long find_commit(const pg_history *h, const char *sha)
{
    size_t i, n = sha ? strlen(sha) : 0;

    if (n < 7)
        return -1;
    for (i = h->npoints; i-- > 0;) {
        const char *c = h->points[i].commit;
        size_t m = c ? strlen(c) : 0;
        if (m >= 7 && strncmp(c, sha, n < m ? n : m) == 0)
            return (long)i;
    }
    return -1;
}

static const pg_case_verdict *verdict_of(const pg_comparison *cmp, const char *key)
{
    size_t i;

    for (i = 0; cmp && key && i < cmp->ncases; i++)
        if (cmp->cases[i].key && strcmp(cmp->cases[i].key, key) == 0)
            return &cmp->cases[i];
    return NULL;
}

static const char *verdict_class(pg_verdict v)
{
    switch (v) {
    case PG_VERDICT_REGRESSED:
    case PG_VERDICT_ERROR:
        return "bad";
    case PG_VERDICT_IMPROVED:
        return "good";
    case PG_VERDICT_UNSURE:
        return "unsure";
    default:
        return "plain";
    }
}

/* A commit's short SHA and date under the axis; the last one ends at its tick so it stays inside the plot. */
static void commit_tick(FILE *f, const pg_history_point *p, double x)
{
    const char *anchor = x > W - MR - 20 ? " style=\"text-anchor:end\"" : "";
    char date[16] = "";
    time_t t = (time_t)p->started_at;
    struct tm tm;

    if (p->started_at > 0 && gmtime_r(&t, &tm))
        strftime(date, sizeof(date), "%m-%d", &tm);
    fprintf(f, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, H - MB, x, H - MB + 4);
    fprintf(f, "<text class=\"xlab\" x=\"%.1f\" y=\"%d\"%s>", x, H - MB + 15, anchor);
    esc_short(f, p->commit, 7);
    fprintf(f, "</text>");
    fprintf(f, "<text class=\"xlab date\" x=\"%.1f\" y=\"%d\"%s>%s</text>\n", x, H - MB + 27, anchor, date);
}

/* A vertical line at a commit of the PR; its label sits left of the line, one row per marker, so both fit. */
static void marker(FILE *f, const char *cls, const char *label, double x, int row)
{
    fprintf(f, "<line class=\"mark %s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
               "<text class=\"mlab %s\" x=\"%.1f\" y=\"%d\">%s</text>\n",
            cls, x, MT, x, H - MB, cls, x - 3, MT + 8 + 11 * row, label);
}

void pg_report_html_plot(FILE *f, const pg_history *h, const pg_case_verdict *v, const pg_comparison *cmp)
{
    double lo = INFINITY, hi = -INFINITY, base = NAN, th = v && v->threshold > 0 ? v->threshold : 0.05;
    long ib = cmp && cmp->base ? find_commit(h, cmp->base->commit) : -1;
    long ih = cmp && cmp->head ? find_commit(h, cmp->head->commit) : -1;
    size_t i, n = h->npoints, step;
    char a[32], b[32];

    /* The baseline: the verdict's, else the base commit's median, else the newest point's. */
    if (v && v->est.base_median > 0)
        base = v->est.base_median;
    else if (ib >= 0)
        base = h->points[ib].median;
    else
        base = h->points[n - 1].median;
    for (i = 0; i < n; i++) {
        const pg_history_point *p = &h->points[i];
        lo = fmin(lo, p->q1 > 0 ? fmin(p->q1, p->median) : p->median);
        hi = fmax(hi, p->q3 > 0 ? fmax(p->q3, p->median) : p->median);
    }
    /* Never tighter than twice the threshold around the baseline: +-2% noise must not fill the plot. */
    if (base > 0) {
        lo = fmin(lo, base / (1 + 2 * th));
        hi = fmax(hi, base * (1 + 2 * th));
    }
    if (!(hi > lo)) {
        hi = hi * 1.05 + 1e-12;
        lo = lo * 0.95;
    }
    lo = fmax(0, lo - (hi - lo) * 0.04);
    hi += (hi - lo) * 0.04;

    fprintf(f, "<svg class=\"trend\" role=\"img\" aria-label=\"median over commits\" viewBox=\"0 0 %d %d\" "
               "preserveAspectRatio=\"xMidYMid meet\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H);
    if (base > 0) {
        double y1 = py(fmin(hi, base * (1 + th)), lo, hi), y0 = py(fmax(lo, base / (1 + th)), lo, hi);
        fprintf(f, "<rect class=\"band\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"><title>threshold +-%.3g%% "
                   "around the baseline</title></rect>\n", ML, y1, W - ML - MR, y0 - y1, 100 * th);
        fprintf(f, "<line class=\"baseline\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", ML, py(base, lo, hi),
                W - MR, py(base, lo, hi));
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", ML, H - MB, W - MR, H - MB);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", ML, MT, ML, H - MB);
    /* y labels: the baseline and the threshold on either side of it, where they fit. */
    if (base > 0) {
        double ys[3] = {base / (1 + th), base, base * (1 + th)};
        for (i = 0; i < 3; i++) {
            if (ys[i] < lo || ys[i] > hi)
                continue;
            pg_fmt_duration(a, sizeof(a), ys[i]);
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"ylab\">%s</text>\n", ML - 5, py(ys[i], lo, hi) + 4, a);
        }
    }
    fprintf(f, "<polygon class=\"iqr\" points=\"");
    for (i = 0; i < n; i++)
        fprintf(f, "%.1f,%.1f ", px(i, n), py(h->points[i].q3 > 0 ? h->points[i].q3 : h->points[i].median, lo, hi));
    for (i = n; i-- > 0;)
        fprintf(f, "%.1f,%.1f ", px(i, n), py(h->points[i].q1 > 0 ? h->points[i].q1 : h->points[i].median, lo, hi));
    fprintf(f, "\"/>\n<polyline class=\"median\" points=\"");
    for (i = 0; i < n; i++)
        fprintf(f, "%.1f,%.1f ", px(i, n), py(h->points[i].median, lo, hi));
    fprintf(f, "\"/>\n");
    for (i = 0; i < n; i++) {
        pg_fmt_duration(a, sizeof(a), h->points[i].median);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" class=\"pt\"><title>", px(i, n),
                py(h->points[i].median, lo, hi), n > 60 ? "1.2" : "2.2");
        esc_short(f, h->points[i].commit, 12);
        fprintf(f, ": %s", a);
        if (h->points[i].verdict) { /* what the gate decided at this commit */
            fprintf(f, ", gate: ");
            esc(f, h->points[i].verdict);
        }
        fprintf(f, "</title></circle>\n");
    }
    for (i = 0; i < h->nchanges; i++) {
        const pg_change_point *c = &h->changes[i];
        double x = px(c->index, n) - (n > 1 ? (double)(W - ML - MR) / (double)(n - 1) / 2.0 : 0);
        pg_fmt_change(b, sizeof(b), c->ratio);
        fprintf(f, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"><title>%s @ ", x, MT, x,
                H - MB, b);
        esc_short(f, h->points[c->index].commit, 7);
        fprintf(f, "</title></line><text class=\"clab\" x=\"%.1f\" y=\"%d\">%s</text>\n", x + 3, H - MB - 4, b);
    }
    /* Commit labels: at most MAX_TICKS evenly spaced, always the newest; base and head marked. */
    step = n > MAX_TICKS ? (n + MAX_TICKS - 2) / (MAX_TICKS - 1) : 1;
    for (i = 0; i < n; i += step)
        if (n - 1 - i >= step / 2 || i == n - 1)
            commit_tick(f, &h->points[i], px(i, n));
    if ((n - 1) % step)
        commit_tick(f, &h->points[n - 1], px(n - 1, n));
    if (ib >= 0)
        marker(f, "base", "base", px((size_t)ib, n), 0);
    if (ih >= 0 && ih != ib)
        marker(f, "head", "head", px((size_t)ih, n), 1);
    fprintf(f, "</svg>\n");
}

/* The page's style: the plots' classes, the badges, the tables. `perfgate site` shares it (style.css). */
const char pg_report_html_style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222}\n"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}code{font-size:12px}\n"
    ".summary{font-size:15px;margin:4px 0 8px}.counts{display:flex;flex-wrap:wrap;gap:6px;margin:0}\n"
    ".badge{padding:2px 8px;border-radius:10px;background:#eee;font-size:13px}\n"
    ".badge.bad{background:#fcbba1}.badge.good{background:#c7e9c0}.badge.unsure{background:#fee391}\n"
    ".axis{stroke:#555}.tick{stroke:#555}.ylab{font-size:10px;text-anchor:end;fill:#555}\n"
    ".xlab{font-size:9px;fill:#555;text-anchor:middle}.xlab.date{fill:#888}\n"
    ".band{fill:#74c476;fill-opacity:.15}.baseline{stroke:#31a354;stroke-width:1;stroke-dasharray:2 2}\n"
    ".iqr{fill:#9ecae1;fill-opacity:.45;stroke:none}\n"
    ".median{fill:none;stroke:#08519c;stroke-width:1.4}.pt{fill:#08519c}\n"
    ".change{stroke:#d62728;stroke-dasharray:4 3;stroke-width:1.2}.clab{font-size:9px;fill:#d62728}\n"
    ".mark{stroke-width:1.2}.mark.base{stroke:#31a354}.mark.head{stroke:#6a51a3}\n"
    ".mlab{font-size:9px;text-anchor:end}.mlab.base{fill:#31a354}.mlab.head{fill:#6a51a3}\n"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:12px}\n"
    ".case{border:1px solid #ddd;border-radius:6px;padding:6px 8px;margin:0}\n"
    ".case h3{font-size:12px;font-weight:normal;margin:0 0 2px;overflow-wrap:anywhere}\n"
    ".case.bad{border-color:#de2d26}.case.good{border-color:#31a354}.case.unsure{border-color:#d9b300}\n"
    ".case svg{width:100%;height:auto;display:block}\n"
    "table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 6px;"
    "text-align:left}\n"
    "tr.bad td{background:#fde0dd}tr.good td{background:#e5f5e0}tr.unsure td{background:#fff7bc}\n"
    ".cause{margin:0 0 16px}.cause h3{font-size:13px;font-weight:normal;margin:8px 0 2px}\n"
    ".flame{width:100%;height:auto;display:block;margin-top:6px}.flame text{pointer-events:none}\n";

static void page_head(FILE *f, const char *title)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    esc(f, title);
    fprintf(f, "</title>\n<style>\n");
    fputs(pg_report_html_style, f);
    fprintf(f, "</style></head><body>\n<h1>");
    esc(f, title);
    fprintf(f, "</h1>\n");
}

/* What the run was compared with: the base build an interleaved gate measured, or the stored runs. */
static void baseline_line(FILE *f, const pg_comparison *cmp)
{
    const pg_run *b = cmp->base;

    if (!b)
        return;
    fprintf(f, "<p class=\"baseline\">baseline: ");
    if (cmp->build.path) {
        fprintf(f, "base build <code>");
        esc(f, cmp->build.path);
        fprintf(f, "</code>");
        if (cmp->build.commit) {
            fprintf(f, " at <code>");
            esc_short(f, cmp->build.commit, 12);
            fprintf(f, "</code>");
        }
        if (cmp->build.sha256) {
            fprintf(f, ", sha256 <code>");
            esc(f, cmp->build.sha256);
            fprintf(f, "</code>");
        }
        fprintf(f, ", measured in interleaved rounds with the head");
    } else {
        fprintf(f, "run %lld (<code>", (long long)b->id);
        esc_short(f, b->commit ? b->commit : "no commit", 12);
        fprintf(f, "</code>");
        if (b->branch) {
            fprintf(f, " on <code>");
            esc(f, b->branch);
            fprintf(f, "</code>");
        }
        fprintf(f, ")");
        if (cmp->nbases > 1)
            fprintf(f, " and %zu earlier runs, pooled", cmp->nbases - 1);
    }
    fprintf(f, "</p>\n");
}

/* The summary line and a badge per verdict that occurred, or what the page holds when nothing was compared. */
static void summary_panel(FILE *f, const pg_history *hs, size_t nh, const pg_comparison *cmp)
{
    size_t i, commits = 0;

    fprintf(f, "<section class=\"panel\" id=\"summary\">\n<p class=\"summary\">");
    if (cmp) {
        pg_buf b = PG_BUF_INIT;
        pg_render_title(&b, cmp, NULL);
        esc(f, b.ptr);
        fprintf(f, "<br>");
        b.len = 0;
        pg_render_summary_line(&b, cmp);
        esc(f, b.ptr);
        pg__buf_clear(&b);
    } else {
        for (i = 0; i < nh; i++)
            commits = hs[i].npoints > commits ? hs[i].npoints : commits;
        fprintf(f, "%zu case%s over up to %zu commits", nh, nh == 1 ? "" : "s", commits);
    }
    fprintf(f, "</p>\n");
    if (cmp)
        baseline_line(f, cmp);
    if (cmp) {
        fprintf(f, "<p class=\"counts\">");
        for (i = 0; i < PG_VERDICT__COUNT; i++)
            if (cmp->counts[i])
                fprintf(f, "<span class=\"badge %s\">%s %zu</span>", verdict_class((pg_verdict)i),
                        pg_verdict_name((pg_verdict)i), cmp->counts[i]);
        fprintf(f, "</p>\n");
    }
    fprintf(f, "</section>\n");
}

static void verdict_panel(FILE *f, const pg_comparison *cmp)
{
    size_t i;

    fprintf(f, "<section class=\"panel\" id=\"verdicts\">\n<h2>Verdicts of this run</h2>\n<p>method: ");
    esc(f, cmp->method);
    fprintf(f, "</p>\n<table><thead><tr><th>case</th><th>base</th><th>head</th><th>change [interval]</th>"
               "<th>verdict</th><th>reason</th></tr></thead><tbody>\n");
    for (i = 0; i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        char base[32], head[32], ch[32], lo[32], hi[32];
        pg_fmt_value(base, sizeof(base), v->est.base_median > 0 ? v->est.base_median : NAN, pg_verdict_unit(v));
        pg_fmt_value(head, sizeof(head), v->est.head_median > 0 ? v->est.head_median : NAN, pg_verdict_unit(v));
        pg_fmt_change(ch, sizeof(ch), v->est.ratio);
        pg_fmt_change(lo, sizeof(lo), v->est.ci_lo);
        pg_fmt_change(hi, sizeof(hi), v->est.ci_hi);
        fprintf(f, "<tr class=\"%s\"><td><code>", verdict_class(v->verdict));
        esc(f, v->key);
        fprintf(f, "</code></td><td>%s</td><td>%s</td><td>%s", base, head, ch);
        if (isfinite(v->est.ci_lo) && isfinite(v->est.ci_hi))
            fprintf(f, " [%s, %s]", lo, hi);
        fprintf(f, "</td><td>%s</td><td>", pg_verdict_name(v->verdict));
        esc(f, v->reason ? v->reason : "");
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</tbody></table>\n</section>\n");
}

static void trends_panel(FILE *f, const pg_history *hs, size_t nh, const pg_comparison *cmp)
{
    size_t i;

    fprintf(f, "<section class=\"panel\" id=\"trends\">\n<h2>History</h2>\n<p>Per case: the median per commit "
               "(line) with the IQR of the commit's newest run (blue band), the threshold around the baseline "
               "(green band), change points (red, dashed), and the PR's base and head commits.</p>\n"
               "<div class=\"grid\">\n");
    for (i = 0; i < nh; i++) {
        const pg_case_verdict *v = verdict_of(cmp, hs[i].key);
        char ch[32];
        fprintf(f, "<figure class=\"case %s\"><h3><code>", v ? verdict_class(v->verdict) : "plain");
        esc(f, hs[i].key);
        fprintf(f, "</code>");
        if (v) {
            pg_fmt_change(ch, sizeof(ch), v->est.ratio);
            fprintf(f, " · %s%s%s", pg_verdict_name(v->verdict), isfinite(v->est.ratio) ? " " : "",
                    isfinite(v->est.ratio) ? ch : "");
        }
        fprintf(f, "</h3>\n");
        if (hs[i].npoints == 0)
            fprintf(f, "<p>no stored results</p>\n");
        else
            pg_report_html_plot(f, &hs[i], v, cmp);
        fprintf(f, "</figure>\n");
    }
    fprintf(f, "</div>\n</section>\n");
}

void pg__html_esc(FILE *f, const char *s)
{
    esc(f, s);
}

int pg_report_html(FILE *f, const char *title, const pg_history *hs, size_t nh, const pg_comparison *cmp)
{
    page_head(f, title);
    summary_panel(f, hs, nh, cmp);
    if (cmp)
        verdict_panel(f, cmp);
    if (cmp)
        pg__html_cause(f, cmp);
    if (cmp && cmp->head)
        pg__html_roofline(f, cmp->head);
    /* A page of a saved report has no history to draw. */
    if (hs || !cmp)
        trends_panel(f, hs, nh, cmp);
    fprintf(f, "</body></html>\n");
    return ferror(f) ? pg_error_set(PG_EIO, "writing the HTML report failed") : 0;
}
