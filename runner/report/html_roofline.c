/*
 * html_roofline.c - the roofline section of the HTML report: one inline SVG
 * on log-log axes with the roofs of each thread count the run measured and
 * every case with FLOPs and bytes as a point coloured by its bound, and a bar
 * per case without FLOPs showing its bandwidth against the memory roof.
 */
#include "report/html.h"

#include "report/report.h"
#include "machine/roofline.h"
#include <math.h>
#include <string.h>

enum { RW = 760, RH = 320, RL = 80, RR = 20, RT = 16, RB = 40, BAR_H = 16 };

/* Case keys into SVG text: the five XML specials as entities, control characters as '?'. */
static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
        }
    }
}

static const char *bound_color(pg_roof_bound b)
{
    return b == PG_ROOF_COMPUTE ? "#2ca02c" : b == PG_ROOF_MEMORY ? "#1f77b4" : "#d62728";
}

typedef struct axes {
    double x0, x1, y0, y1; /* log10 ranges */
} axes;

static double ax(const axes *a, double v)
{
    return RL + (log10(v) - a->x0) / (a->x1 - a->x0) * (RW - RL - RR);
}

static double ay(const axes *a, double v)
{
    return RT + (a->y1 - log10(v)) / (a->y1 - a->y0) * (RH - RT - RB);
}

void pg__html_roofline(FILE *f, const pg_run *run)
{
    axes a = {-2, 3, 7, 12};
    size_t i, npts = 0, nbars = 0;
    int t, nroofs = 0;
    double lo_y = INFINITY, hi_y = 0;

    for (i = 0; i < run->nresults; i++) {
        pg_roof_point p;
        pg_roofline_classify(&p, &run->results[i], run->machine_json);
        if (p.bound == PG_ROOF_UNKNOWN)
            continue;
        if (run->results[i].flops > 0 && run->results[i].bytes > 0) {
            npts++;
            lo_y = fmin(lo_y, p.achieved);
            hi_y = fmax(hi_y, p.roofs.peak_flops);
        } else if (run->results[i].bytes > 0) {
            nbars++;
        }
    }
    if (npts + nbars == 0)
        return;
    if (npts) {
        a.y0 = floor(log10(lo_y)) - 0.2;
        a.y1 = ceil(log10(hi_y)) + 0.1;
    }
    fprintf(f, "<section class=\"panel\" id=\"roofline\">\n<h2>Roofline</h2>\n<p>Each timed case against the roofs measured with this run: peak FLOP/s "
               "(sgemm 1024<sup>3</sup>) and memory bandwidth (STREAM-like triad beyond the last-level cache). "
               "<span style=\"color:#2ca02c\">compute-bound</span>, <span style=\"color:#1f77b4\">memory-bound</span>, "
               "<span style=\"color:#d62728\">overhead-bound</span> (docs/measuring.md).</p>\n");
    if (npts) {
        fprintf(f, "<svg class=\"roofline\" role=\"img\" aria-label=\"roofline\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                   "height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" style=\"font:11px sans-serif\">\n",
                RW, RH, RW, RH);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", RL, RH - RB, RW - RR, RH - RB);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", RL, RT, RL, RH - RB);
        for (t = (int)ceil(a.x0); t <= (int)floor(a.x1); t++)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">1e%d</text>\n",
                    ax(&a, pow(10, t)), RH - RB + 14, t);
        for (t = (int)ceil(a.y0); t <= (int)floor(a.y1); t++) {
            char lab[32];
            pg_fmt_rate(lab, sizeof(lab), pow(10, t), "FLOP/s");
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                       "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%s</text>\n",
                    RL, ay(&a, pow(10, t)), RW - RR, ay(&a, pow(10, t)), RL - 6, ay(&a, pow(10, t)) + 4, lab);
        }
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">arithmetic intensity, FLOP/byte (log)</text>\n", RL,
                RH - 6);
        /* One roof per thread count: the bandwidth slope up to the ridge, then flat at the peak. */
        for (t = 1; t <= 1024; t++) {
            pg_roofs r;
            double ridge, xl = pow(10, a.x0), xr = pow(10, a.x1);
            int used = 0;
            for (i = 0; i < run->nresults; i++)
                used |= run->results[i].threads == t;
            if (!used || pg_roofline_roofs(&r, run->machine_json, "cpu", t) != 0)
                continue;
            ridge = r.peak_flops / r.bandwidth;
            fprintf(f, "<polyline class=\"roof\" fill=\"none\" stroke=\"#333\" stroke-width=\"%s\" points=\"",
                    nroofs ? "1" : "2");
            fprintf(f, "%.1f,%.1f ", ax(&a, xl), ay(&a, fmax(xl * r.bandwidth, pow(10, a.y0))));
            if (ridge > xl && ridge < xr)
                fprintf(f, "%.1f,%.1f ", ax(&a, ridge), ay(&a, r.peak_flops));
            fprintf(f, "%.1f,%.1f\"><title>%d thread%s: peak %.3g GFLOP/s, bandwidth %.3g GB/s</title></polyline>\n",
                    ax(&a, xr), ay(&a, fmin(r.peak_flops, xr * r.bandwidth)), t, t == 1 ? "" : "s",
                    r.peak_flops * 1e-9, r.bandwidth * 1e-9);
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%d thr</text>\n", RW - RR,
                    ay(&a, r.peak_flops) - 3, t);
            nroofs++;
        }
        for (i = 0; i < run->nresults; i++) {
            const pg_result *r = &run->results[i];
            pg_roof_point p;
            double x;
            if (!(r->flops > 0 && r->bytes > 0))
                continue;
            pg_roofline_classify(&p, r, run->machine_json);
            if (p.bound == PG_ROOF_UNKNOWN)
                continue;
            x = fmin(fmax(p.intensity, pow(10, a.x0)), pow(10, a.x1));
            fprintf(f, "<circle class=\"case-pt\" data-bound=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">"
                       "<title>",
                    pg_roof_bound_name(p.bound), ax(&a, x), ay(&a, p.achieved), bound_color(p.bound));
            esc(f, r->key);
            fprintf(f, ": %s, %.3g FLOP/B, %.1f%% of the roof</title></circle>\n", pg_roof_bound_name(p.bound),
                    p.intensity, 100 * p.fraction);
        }
        fprintf(f, "</svg>\n");
    }
    if (nbars) {
        size_t k = 0;
        int h = RT + (int)nbars * (BAR_H + 6) + 24;
        double x100 = RL + 0.6 * (RW - RL - RR);
        fprintf(f, "<p>Cases without FLOPs: achieved bandwidth against the memory roof (a working set that fits in "
                   "cache can pass it).</p>\n");
        fprintf(f, "<svg class=\"bandwidth\" role=\"img\" aria-label=\"bandwidth against the memory roof\" "
                   "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "style=\"font:11px sans-serif\">\n",
                   RW, h, RW, h);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>"
                   "<text x=\"%.1f\" y=\"%d\" fill=\"#333\">100%% of the memory roof</text>\n",
                x100, RT - 4, x100, h - 18, x100 + 4, h - 6);
        for (i = 0; i < run->nresults; i++) {
            const pg_result *r = &run->results[i];
            pg_roof_point p;
            double y = RT + (double)k * (BAR_H + 6), w;
            if (r->flops > 0 || !(r->bytes > 0))
                continue;
            pg_roofline_classify(&p, r, run->machine_json);
            if (p.bound == PG_ROOF_UNKNOWN)
                continue;
            w = fmin(p.fraction, 1.6) / 1.0 * (x100 - RL);
            fprintf(f, "<rect class=\"bw-bar\" data-bound=\"%s\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
                       "fill=\"%s\"><title>",
                    pg_roof_bound_name(p.bound), RL, y, w, BAR_H, bound_color(p.bound));
            esc(f, r->key);
            fprintf(f, ": %s, %.1f%% of the memory roof</title></rect>\n<text x=\"%d\" y=\"%.1f\" "
                       "text-anchor=\"end\" fill=\"#555\">",
                    pg_roof_bound_name(p.bound), 100 * p.fraction, RL - 4, y + BAR_H - 4);
            esc(f, r->name);
            fprintf(f, "</text>\n");
            k++;
        }
        fprintf(f, "</svg>\n");
    }
    fprintf(f, "</section>\n");
}
