/*
 * terminal.c - aligned tables for a terminal.
 *
 * Columns are sized from their contents in display columns (µ is one
 * column, two bytes). Colour marks verdicts only, and only when the style
 * asks for it: pg_term_style_auto() turns it on for a TTY unless NO_COLOR or
 * TERM=dumb is set, and --style overrides.
 */
#include "report/report.h"

#include "perfgate/errors.h"
#include "machine/roofline.h"
#include "verdict/exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pg_term_style pg_term_style_auto(FILE *f)
{
    pg_term_style st = {0};
    const char *term = getenv("TERM");
    const char *nc = getenv("NO_COLOR");

    /* no-color.org: any non-empty NO_COLOR disables colour. */
    st.color = isatty(fileno(f)) && !(nc && *nc) && !(term && strcmp(term, "dumb") == 0);
    return st;
}

int pg_term_style_parse(pg_term_style *out, int *out_quiet, const char *style, FILE *f)
{
    *out_quiet = 0;
    if (!style || strcmp(style, "auto") == 0)
        *out = pg_term_style_auto(f);
    else if (strcmp(style, "color") == 0 || strcmp(style, "full") == 0)
        out->color = 1;
    else if (strcmp(style, "nocolor") == 0 || strcmp(style, "basic") == 0)
        out->color = 0;
    else if (strcmp(style, "none") == 0) {
        out->color = 0;
        *out_quiet = 1;
    } else
        return pg_error_set(PG_EUSAGE, "unknown --style '%s' (auto, color, nocolor, none)", style);
    return 0;
}

static const char *verdict_color(pg_verdict v)
{
    switch (v) {
    case PG_VERDICT_REGRESSED:
    case PG_VERDICT_ERROR:
        return "\033[1;31m";
    case PG_VERDICT_IMPROVED:
        return "\033[32m";
    case PG_VERDICT_UNSURE:
    case PG_VERDICT_MISSING:
        return "\033[33m";
    default:
        return "";
    }
}

/* A table of strings; cells are owned. Column 0 is left-aligned, the rest as `right` says. */
typedef struct table {
    size_t ncols, nrows;
    char **cells;          /* nrows * ncols */
    const char **color;    /* per row: escape for the colour column, or "" */
    size_t color_col;
    const int *right;
} table;

static int table_row(table *t, const char *const *vals, const char *color)
{
    char **c = t->cells;
    const char **col = t->color;
    size_t i;

    /* Capacity doubles at powers of two: large runs cost no quadratic copying. */
    if ((t->nrows & (t->nrows - 1)) == 0) {
        size_t cap = t->nrows ? 2 * t->nrows : 1;
        if (!(c = realloc(t->cells, cap * t->ncols * sizeof(*c))))
            return PG_ENOMEM;
        t->cells = c;
        if (!(col = realloc(t->color, cap * sizeof(*col))))
            return PG_ENOMEM;
        t->color = col;
    }
    for (i = 0; i < t->ncols; i++)
        c[t->nrows * t->ncols + i] = pg__text_term_dup(vals[i] ? vals[i] : "");
    col[t->nrows] = color ? color : "";
    t->nrows++;
    return 0;
}

static void pad(pg_buf *b, size_t n)
{
    while (n--)
        pg__buf_put(b, " ", 1);
}

static void table_print(pg_buf *b, const table *t, int color)
{
    size_t *w = calloc(t->ncols, sizeof(*w));
    size_t r, c;

    if (!w)
        return;
    for (r = 0; r < t->nrows; r++)
        for (c = 0; c < t->ncols; c++) {
            size_t cw = pg__utf8_width(t->cells[r * t->ncols + c]);
            if (cw > w[c])
                w[c] = cw;
        }
    for (r = 0; r < t->nrows; r++) {
        size_t last = t->ncols;
        /* Trailing empty cells add no padding, so lines carry no trailing blanks. */
        while (last > 1 && !*t->cells[r * t->ncols + last - 1])
            last--;
        for (c = 0; c < last; c++) {
            const char *s = t->cells[r * t->ncols + c];
            size_t gap = w[c] - pg__utf8_width(s);
            int paint = color && c == t->color_col && *t->color[r];
            if (c)
                pg__buf_puts(b, "  ");
            if (t->right[c])
                pad(b, gap);
            if (paint)
                pg__buf_puts(b, t->color[r]);
            pg__buf_puts(b, s);
            if (paint)
                pg__buf_puts(b, "\033[0m");
            if (!t->right[c] && c + 1 < last)
                pad(b, gap);
        }
        pg__buf_puts(b, "\n");
    }
    free(w);
}

static void table_free(table *t)
{
    size_t i;

    for (i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->color);
}

static void warnings_text(char *out, size_t len, unsigned w)
{
    if (w & PG_WARN_VERY_NOISY)
        snprintf(out, len, "very noisy: IQR >= 25%% of median");
    else if (w & PG_WARN_NOISY)
        snprintf(out, len, "noisy: IQR >= 10%% of median");
    else
        out[0] = '\0';
    if (w & PG_WARN_THROTTLED)
        snprintf(out + strlen(out), len - strlen(out), "%sthrottled clock", *out ? "; " : "");
    if (w & PG_WARN_MAX_TIME)
        snprintf(out + strlen(out), len - strlen(out), "%sstopped by max_run_time", *out ? "; " : "");
    if (w & PG_WARN_FEW_SAMPLES)
        snprintf(out + strlen(out), len - strlen(out), "%sfew samples", *out ? "; " : "");
    if (w & PG_WARN_CONTENDED)
        snprintf(out + strlen(out), len - strlen(out), "%swaited for a CPU (machine busy)", *out ? "; " : "");
    if (w & PG_WARN_NOT_STEADY)
        snprintf(out + strlen(out), len - strlen(out), "%snot steady after warm-up", *out ? "; " : "");
}

/* Where each case sits under the roofs stored with the run; nothing when the run has none. */
static void render_roofline(pg_buf *b, const pg_run *run)
{
    static const int right[] = {0, 0, 1, 1, 1, 1, 0};
    table t = {7, 0, NULL, NULL, 0, right};
    const char *hdr[] = {"case", "bound", "intensity", "attainable", "achieved", "of roof", "why"};
    int seen[1025] = {0};
    size_t i;

    for (i = 0; i < run->nresults; i++) {
        const pg_result *r = &run->results[i];
        pg__roof_cells cells;
        const char *row[7];
        if (pg__report_roof_cells(&cells, r, run->machine_json) != 0)
            continue;
        if (!t.nrows)
            table_row(&t, hdr, NULL);
        if (r->threads >= 1 && r->threads <= 1024)
            seen[r->threads] = 1;
        row[0] = r->key;
        row[1] = cells.bound;
        row[2] = cells.intensity;
        row[3] = cells.attainable;
        row[4] = cells.achieved;
        row[5] = cells.fraction;
        row[6] = cells.why;
        table_row(&t, row, NULL);
    }
    if (!t.nrows)
        return;
    pg__buf_puts(b, "\nroofline (docs/measuring.md):");
    for (i = 1; i <= 1024; i++) {
        pg_roofs roofs;
        char peak[32], bw[32];
        if (!seen[i] || pg_roofline_roofs(&roofs, run->machine_json, "cpu", (int)i) != 0)
            continue;
        pg_fmt_rate(peak, sizeof(peak), roofs.peak_flops, "FLOP/s");
        pg_fmt_rate(bw, sizeof(bw), roofs.bandwidth, "B/s");
        pg__buf_printf(b, " %zu thread%s: peak %s%s, bandwidth %s, ridge %.3g FLOP/B;", i, i == 1 ? "" : "s", peak,
                       roofs.peak_reliable ? "" : " (unreliable: a case beat the sgemm ceiling)", bw,
                       roofs.peak_flops / roofs.bandwidth);
    }
    pg__buf_puts(b, "\n");
    table_print(b, &t, 0);
    table_free(&t);
}

static void render_run(pg_buf *b, const pg_run *run, int color)
{
    static const int right[] = {0, 1, 1, 1, 1, 1, 1, 0};
    table t = {8, 0, NULL, NULL, 0, right};
    const char *hdr[] = {"case", "median", "IQR", "n", "thr", "throughput", "MFU", ""};
    size_t i;

    if (run->nresults) {
        table_row(&t, hdr, NULL);
        for (i = 0; i < run->nresults; i++) {
            const pg_result *r = &run->results[i];
            char med[32], iqr[32], n[32], thr[32], rate[32], mfu[16], note[256];
            const char *row[8];
            if (r->status != PG_STATUS_OK) {
                const pg_result *above = i ? &run->results[i - 1] : NULL;
                /* A dozen GPU cases skipped for one missing device: the reason once, then "as above". */
                if (above && above->status == r->status && above->message && r->message &&
                    strcmp(above->message, r->message) == 0)
                    snprintf(note, sizeof(note), "%s (same as above)",
                             r->status == PG_STATUS_SKIPPED ? "skipped" : "ERROR");
                else
                    snprintf(note, sizeof(note), "%s: %s", r->status == PG_STATUS_SKIPPED ? "skipped" : "ERROR",
                             r->message ? r->message : "");
                row[0] = r->key;
                row[1] = row[2] = row[3] = row[4] = row[5] = row[6] = "-";
                row[7] = note;
                table_row(&t, row, NULL);
                continue;
            }
            pg_fmt_value(med, sizeof(med), r->summary.median, r->unit);
            snprintf(iqr, sizeof(iqr), "%.1f%%", r->summary.median > 0 ? 100 * r->summary.iqr / r->summary.median : 0);
            snprintf(n, sizeof(n), "%zu", r->nsamples);
            snprintf(thr, sizeof(thr), "%d", r->threads);
            if (r->flops > 0 && r->summary.median > 0)
                pg_fmt_rate(rate, sizeof(rate), r->flops / r->summary.median, "FLOP/s");
            else if (r->bytes > 0 && r->summary.median > 0)
                pg_fmt_rate(rate, sizeof(rate), r->bytes / r->summary.median, "B/s");
            else
                snprintf(rate, sizeof(rate), "-");
            /* Above 100% the ceiling it was measured against is wrong, not the case fast: never a plain number. */
            if (r->mfu > 1.0)
                snprintf(mfu, sizeof(mfu), "?");
            else if (r->mfu >= 0)
                snprintf(mfu, sizeof(mfu), "%.1f%%", 100 * r->mfu);
            else
                snprintf(mfu, sizeof(mfu), "-");
            warnings_text(note, sizeof(note), r->warnings);
            if (r->mfu > 1.0)
                snprintf(note + strlen(note), sizeof(note) - strlen(note),
                         "%sMFU unreliable (%.0f%% of a peak measured too low; set --peak-%s)", *note ? "; " : "",
                         100 * r->mfu, r->device && strcmp(r->device, "cuda") == 0 ? "tflops" : "gflops");
            row[0] = r->key;
            row[1] = med;
            row[2] = iqr;
            row[3] = n;
            row[4] = thr;
            row[5] = rate;
            row[6] = mfu;
            row[7] = note;
            table_row(&t, row, NULL);
        }
        table_print(b, &t, color);
        table_free(&t);
        render_roofline(b, run);
    }
    for (i = 0; i < run->nchecks; i++) {
        const pg_check_result *c = &run->checks[i];
        const char *state = c->skipped ? "skipped" : c->passed ? "passed" : "FAILED";
        const char *esc = !color ? "" : c->skipped ? "\033[33m" : c->passed ? "\033[32m" : "\033[1;31m";
        pg__buf_puts(b, "check ");
        pg__text_term(b, c->suite);
        pg__buf_puts(b, "/");
        pg__text_term(b, c->name);
        pg__buf_puts(b, " (");
        pg__text_term(b, c->kind);
        pg__buf_printf(b, "): %s%s%s%s", esc, state, *esc ? "\033[0m" : "", c->message ? " - " : "");
        pg__text_term(b, c->message);
        pg__buf_puts(b, "\n");
        if (c->detail) { /* e.g. the per-module FLOP table, already indented */
            char *d = pg__strdup(c->detail);
            if (d) {
                pg__text_plain_inplace(d, 1);
                pg__buf_printf(b, "%s%s", d, d[0] && d[strlen(d) - 1] != '\n' ? "\n" : "");
            }
            free(d);
        }
    }
}

static void render_compare(pg_buf *b, const pg_comparison *cmp, int color)
{
    static const int right[] = {0, 1, 1, 1, 1, 1, 0, 0};
    table t = {8, 0, NULL, NULL, 6, right};
    const char *hdr[] = {"case", "base", "head", "change [interval]", "p (adj.)", "resolves", "verdict", ""};
    size_t i;

    table_row(&t, hdr, NULL);
    for (i = 0; i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        char base[32], head[32], ch[80], p[32], res[16];
        const char *row[8];

        pg_fmt_value(base, sizeof(base), v->est.base_median > 0 ? v->est.base_median : NAN, pg_verdict_unit(v));
        pg_fmt_value(head, sizeof(head), v->est.head_median > 0 ? v->est.head_median : NAN, pg_verdict_unit(v));
        pg_fmt_change_ci(ch, sizeof(ch), v->est.ratio, v->est.ci_lo, v->est.ci_hi);
        pg_fmt_p(p, sizeof(p), v->est.p_adj);
        row[0] = v->key;
        row[1] = base;
        row[2] = head;
        row[3] = ch;
        row[4] = p;
        /* The smallest change this case could have detected at its noise. */
        pg_fmt_resolution(res, sizeof(res), v->est.resolution);
        row[5] = res;
        row[6] = pg_verdict_name(v->verdict);
        row[7] = v->reason ? v->reason : "";
        if (i && v->reason && cmp->cases[i - 1].verdict == v->verdict && cmp->cases[i - 1].reason &&
            strcmp(cmp->cases[i - 1].reason, v->reason) == 0 && v->verdict != PG_VERDICT_SAME)
            row[7] = "(same as above)";
        table_row(&t, row, verdict_color(v->verdict));
    }
    table_print(b, &t, color);
    table_free(&t);
    pg__buf_puts(b, "\n");
    pg_render_summary_line(b, cmp);
    pg__buf_puts(b, "\n");
    if (cmp->canary.summary) {
        pg__text_term(b, cmp->canary.summary);
        pg__buf_puts(b, "\n");
    }
    pg__buf_puts(b, "method: ");
    pg__text_term(b, cmp->method ? cmp->method : "-");
    pg__buf_puts(b, "\n");
}

/*
 * A fail is read from the table; "nothing compared", an ERROR and a pass of
 * new cases alone have no verdict in it that says so, so they get a line.
 */
static void outcome_line(pg_buf *b, const pg_comparison *cmp)
{
    if (cmp->outcome == PG_OUTCOME_FAIL || (cmp->outcome == PG_OUTCOME_PASS && !cmp->outcome_reason))
        return;
    pg__buf_puts(b, "\n");
    pg_render_title(b, cmp, NULL);
    pg__buf_puts(b, "\n");
}

int pg_render_terminal(pg_buf *out, const pg_report_data *data, const pg_report_options *opts)
{
    int color = opts && opts->color;

    render_run(out, data->run, color);
    if (data->cmp && data->cmp->nbases) {
        pg__buf_puts(out, "\n");
        render_compare(out, data->cmp, color);
    }
    if (data->cmp)
        outcome_line(out, data->cmp);
    return out->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory rendering the terminal table");
}

void pg_report_run_terminal(FILE *f, const pg_run *run, const pg_term_style *style)
{
    pg_buf b = PG_BUF_INIT;

    render_run(&b, run, style && style->color);
    if (b.ptr)
        fputs(b.ptr, f);
    pg__buf_clear(&b);
}

void pg_report_compare_terminal(FILE *f, const pg_comparison *cmp, const pg_term_style *style)
{
    pg_buf b = PG_BUF_INIT;

    render_compare(&b, cmp, style && style->color);
    if (b.ptr)
        fputs(b.ptr, f);
    pg__buf_clear(&b);
}

void pg_report_outcome_terminal(FILE *f, const pg_comparison *cmp)
{
    pg_buf b = PG_BUF_INIT;

    outcome_line(&b, cmp);
    if (b.ptr)
        fputs(b.ptr, f);
    pg__buf_clear(&b);
}
