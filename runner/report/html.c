/* html.c - a self-contained HTML report with inline SVG trend plots. */
#include "report/html.h"

#include "perfgate/errors.h"
#include "report/report.h"
#include "util.h"
#include "verdict_exact.h"

#include <math.h>
#include <string.h>

static void esc(FILE *f, const char *s)
{
    pg_buf b = PG_BUF_INIT;

    pg__buf_xml_escape(&b, s);
    if (b.ptr)
        fputs(b.ptr, f);
    pg__buf_free(&b);
}

enum { W = 760, H = 220, ML = 70, MR = 20, MT = 16, MB = 34 };

static double px(size_t i, size_t n)
{
    return ML + (n > 1 ? (double)i * (W - ML - MR) / (double)(n - 1) : (W - ML - MR) / 2.0);
}

static double py(double v, double lo, double hi)
{
    return MT + (hi - v) / (hi - lo) * (H - MT - MB);
}

static void plot(FILE *f, const pg_history *h)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t i, n = h->npoints;
    char a[32], b[32];

    for (i = 0; i < n; i++) {
        const pg_history_point *p = &h->points[i];
        double l = p->q1 > 0 ? fmin(p->q1, p->median) : p->median;
        double u = p->q3 > 0 ? fmax(p->q3, p->median) : p->median;
        lo = fmin(lo, l);
        hi = fmax(hi, u);
    }
    if (!(hi > lo)) {
        hi = hi * 1.05 + 1e-12;
        lo = lo * 0.95;
    }
    {
        double pad = (hi - lo) * 0.08;
        hi += pad;
        lo = fmax(0, lo - pad);
    }
    fprintf(f, "<svg class=\"trend\" role=\"img\" aria-label=\"median over commits\" viewBox=\"0 0 %d %d\" "
               "width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H, W, H);
    /* Axes and three labelled gridlines. */
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", ML, H - MB, W - MR, H - MB);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", ML, MT, ML, H - MB);
    for (i = 0; i < 3; i++) {
        double v = lo + (hi - lo) * (double)i / 2.0, y = py(v, lo, hi);
        pg_fmt_duration(a, sizeof(a), v);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
                   "<text x=\"%d\" y=\"%.1f\" class=\"ylab\">%s</text>\n",
                ML, y, W - MR, y, ML - 6, y + 4, a);
    }
    /* IQR band: q3 left to right, then q1 right to left. */
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
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" class=\"pt\"><title>#%zu %.12s: %s</title></circle>\n",
                px(i, n), py(h->points[i].median, lo, hi), i, h->points[i].commit ? h->points[i].commit : "-", a);
    }
    for (i = 0; i < h->nchanges; i++) {
        const pg_change_point *c = &h->changes[i];
        double x = px(c->index, n) - (n > 1 ? (double)(W - ML - MR) / (double)(n - 1) / 2.0 : 0);
        pg_fmt_change(b, sizeof(b), c->ratio);
        fprintf(f, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                   "<text class=\"clab\" x=\"%.1f\" y=\"%d\">%s @ %.7s</text>\n",
                x, MT, x, H - MB, x + 3, MT + 10, b,
                h->points[c->index].commit ? h->points[c->index].commit : "-");
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"xlab\">commits, oldest to newest (%zu)</text>\n", ML, H - 8, n);
    fprintf(f, "</svg>\n");
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

static void table(FILE *f, const pg_comparison *cmp)
{
    size_t i;

    fprintf(f, "<h2>Verdicts of this run</h2>\n<p>method: ");
    esc(f, cmp->method);
    fprintf(f, "</p>\n<table><thead><tr><th>case</th><th>base</th><th>head</th><th>change [interval]</th>"
               "<th>verdict</th><th>reason</th></tr></thead><tbody>\n");
    for (i = 0; i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        char base[32], head[32], ch[32], lo[32], hi[32];
        pg_fmt_value(base, sizeof(base), v->base ? v->est.base_median : NAN, pg_verdict_unit(v));
        pg_fmt_value(head, sizeof(head), v->head ? v->est.head_median : NAN, pg_verdict_unit(v));
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
    fprintf(f, "</tbody></table>\n");
}

int pg_report_html(FILE *f, const char *title, const pg_history *hs, size_t nh, const pg_comparison *cmp)
{
    size_t i;

    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
    esc(f, title);
    fprintf(f, "</title>\n<style>\n"
               "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:900px}\n"
               "h1{font-size:20px}h2{font-size:16px;margin-top:28px}code{font-size:13px}\n"
               ".axis{stroke:#555}.grid{stroke:#ddd}.ylab{font-size:11px;text-anchor:end;fill:#555}\n"
               ".xlab{font-size:11px;fill:#555}.iqr{fill:#9ecae1;fill-opacity:.45;stroke:none}\n"
               ".median{fill:none;stroke:#08519c;stroke-width:1.6}.pt{fill:#08519c}\n"
               ".change{stroke:#d62728;stroke-dasharray:4 3;stroke-width:1.4}.clab{font-size:11px;fill:#d62728}\n"
               "table{border-collapse:collapse;width:100%%}td,th{border-bottom:1px solid #ddd;padding:4px 6px;"
               "text-align:left}\n"
               "tr.bad td{background:#fde0dd}tr.good td{background:#e5f5e0}tr.unsure td{background:#fff7bc}\n"
               "</style></head><body>\n<h1>");
    esc(f, title);
    fprintf(f, "</h1>\n");
    if (cmp)
        table(f, cmp);
    fprintf(f, "<h2>History</h2>\n<p>Median per commit (line), IQR of the commit's newest run (band), "
               "change points (dashed, with the step and the commit).</p>\n");
    for (i = 0; i < nh; i++) {
        fprintf(f, "<section class=\"case\"><h3><code>");
        esc(f, hs[i].key);
        fprintf(f, "</code></h3>\n");
        if (hs[i].npoints == 0)
            fprintf(f, "<p>no stored results</p>\n");
        else
            plot(f, &hs[i]);
        fprintf(f, "</section>\n");
    }
    fprintf(f, "</body></html>\n");
    return ferror(f) ? pg_error_set(PG_EIO, "writing the HTML report failed") : 0;
}
