/* terminal.c - aligned tables for a terminal. */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pg_term_style pg_term_style_auto(FILE *f)
{
    pg_term_style st = {0};
    const char *term = getenv("TERM");

    st.color = isatty(fileno(f)) && !getenv("NO_COLOR") && !(term && strcmp(term, "dumb") == 0);
    return st;
}

static const char *verdict_color(pg_verdict v)
{
    switch (v) {
    case PG_VERDICT_REGRESSED:
    case PG_VERDICT_ERROR:
        return "\033[31m";
    case PG_VERDICT_IMPROVED:
        return "\033[32m";
    case PG_VERDICT_UNSURE:
        return "\033[33m";
    default:
        return "";
    }
}

static size_t key_width(const char *const *keys, size_t n)
{
    size_t w = 4, i;

    for (i = 0; i < n; i++)
        if (strlen(keys[i]) > w)
            w = strlen(keys[i]);
    return w > 70 ? 70 : w;
}

void pg_report_run_terminal(FILE *f, const pg_run *run, const pg_term_style *style)
{
    const char **keys = malloc((run->nresults + 1) * sizeof(*keys));
    size_t i, w;

    if (!keys)
        return;
    for (i = 0; i < run->nresults; i++)
        keys[i] = run->results[i].key;
    w = key_width(keys, run->nresults);
    if (run->nresults) {
        fprintf(f, "%-*s  %10s  %8s  %5s  %3s  %14s  %6s\n", (int)w, "case", "median", "IQR", "n", "thr",
                "throughput", "MFU");
        for (i = 0; i < run->nresults; i++) {
            const pg_result *r = &run->results[i];
            char med[32], iqr[32], thr[32], mfu[16];
            if (r->status != PG_STATUS_OK) {
                fprintf(f, "%-*s  %s: %s\n", (int)w, r->key, r->status == PG_STATUS_SKIPPED ? "skipped" : "ERROR",
                        r->message ? r->message : "");
                continue;
            }
            pg_fmt_duration(med, sizeof(med), r->summary.median);
            snprintf(iqr, sizeof(iqr), "%.1f%%", r->summary.median > 0 ? 100 * r->summary.iqr / r->summary.median : 0);
            if (r->flops > 0)
                pg_fmt_rate(thr, sizeof(thr), r->flops / r->summary.median, "FLOP/s");
            else if (r->bytes > 0)
                pg_fmt_rate(thr, sizeof(thr), r->bytes / r->summary.median, "B/s");
            else
                snprintf(thr, sizeof(thr), "-");
            if (r->mfu >= 0)
                snprintf(mfu, sizeof(mfu), "%.1f%%", 100 * r->mfu);
            else
                snprintf(mfu, sizeof(mfu), "-");
            fprintf(f, "%-*s  %10s  %8s  %5zu  %3d  %14s  %6s%s\n", (int)w, r->key, med, iqr, r->nsamples,
                    r->threads, thr, mfu,
                    r->warnings & PG_WARN_VERY_NOISY ? "  (very noisy: IQR >= 25% of median)"
                    : r->warnings & PG_WARN_NOISY    ? "  (noisy: IQR >= 10% of median)"
                                                     : "");
        }
    }
    for (i = 0; i < run->nchecks; i++) {
        const pg_check_result *c = &run->checks[i];
        fprintf(f, "%scheck %s/%s (%s): %s%s%s%s\n", style && style->color ? (c->passed ? "\033[32m" : "\033[31m") : "",
                c->suite, c->name, c->kind, c->passed ? "passed" : "FAILED", style && style->color ? "\033[0m" : "",
                c->message ? " - " : "", c->message ? c->message : "");
        if (c->detail) /* e.g. the per-module FLOP table, already indented */
            fprintf(f, "%s%s", c->detail, c->detail[0] && c->detail[strlen(c->detail) - 1] != '\n' ? "\n" : "");
    }
    free(keys);
}

void pg_report_compare_terminal(FILE *f, const pg_comparison *cmp, const pg_term_style *style)
{
    const char **keys = malloc((cmp->ncases + 1) * sizeof(*keys));
    size_t i, w;

    if (!keys)
        return;
    for (i = 0; i < cmp->ncases; i++)
        keys[i] = cmp->cases[i].key;
    w = key_width(keys, cmp->ncases);
    fprintf(f, "%-*s  %10s  %10s  %-24s  %s\n", (int)w, "case", "base", "head", "change [interval]", "verdict");
    for (i = 0; i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        char base[32], head[32], ch[64], lo[16], hi[16];
        int color = style && style->color && *verdict_color(v->verdict);

        pg_fmt_duration(base, sizeof(base), v->base ? v->base_median : NAN);
        pg_fmt_duration(head, sizeof(head), v->head ? v->head_median : NAN);
        if (isfinite(v->ratio) && isfinite(v->ci_lo) && (v->ci_lo != v->ratio || v->ci_hi != v->ratio)) {
            pg_fmt_change(ch, sizeof(ch), v->ratio);
            pg_fmt_change(lo, sizeof(lo), v->ci_lo);
            pg_fmt_change(hi, sizeof(hi), v->ci_hi);
            snprintf(ch + strlen(ch), sizeof(ch) - strlen(ch), " [%s, %s]", lo, hi);
        } else {
            pg_fmt_change(ch, sizeof(ch), v->ratio);
        }
        fprintf(f, "%-*s  %10s  %10s  %-24s  %s%s%s%s%s\n", (int)w, v->key, base, head, ch,
                color ? verdict_color(v->verdict) : "", pg_verdict_name(v->verdict), color ? "\033[0m" : "",
                v->reason ? "  " : "", v->reason ? v->reason : "");
    }
    fprintf(f, "\n%zu regressed, %zu improved, %zu same, %zu unsure, %zu new, %zu missing, %zu error, %zu skipped",
            cmp->counts[PG_VERDICT_REGRESSED], cmp->counts[PG_VERDICT_IMPROVED], cmp->counts[PG_VERDICT_SAME],
            cmp->counts[PG_VERDICT_UNSURE], cmp->counts[PG_VERDICT_NEW], cmp->counts[PG_VERDICT_MISSING],
            cmp->counts[PG_VERDICT_ERROR], cmp->counts[PG_VERDICT_SKIPPED]);
    if (cmp->checks_total)
        fprintf(f, "; exact checks: %zu passed, %zu failed", cmp->checks_total - cmp->checks_failed,
                cmp->checks_failed);
    fprintf(f, "\nmethod: %s\n", cmp->method);
    free(keys);
}
