/*
 * junit.c - JUnit XML: one testsuite per perfgate suite, one testcase per
 * case and per exact check. Regressions and failed checks are failures,
 * cases that could not run are errors; skipped and missing cases, and cases
 * nothing decided (UNSURE, NEW), are skipped, so that a run that compared
 * nothing never reads as all green; the verdict and its numbers travel in
 * the message.
 */
#include "report/report.h"

#include "perfgate/errors.h"
#include "verdict/exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A case the comparison did not pass: not measured on both sides, or not decided. */
static int undecided(pg_verdict v)
{
    return v == PG_VERDICT_SKIPPED || v == PG_VERDICT_MISSING || v == PG_VERDICT_UNSURE || v == PG_VERDICT_NEW;
}

/* Seconds the case spent measuring: samples are per iteration, number_per_run iterations each. */
static double measured_seconds(const pg_result *r)
{
    double t = 0;
    size_t i;

    if (!r)
        return 0;
    for (i = 0; i < r->nsamples; i++)
        if (isfinite(r->samples[i]))
            t += r->samples[i] * (double)(r->number_per_run > 0 ? r->number_per_run : 1);
    return t;
}

static void verdict_message(pg_buf *b, const pg_case_verdict *v)
{
    char ch[80], base[32], head[32], p[32];

    pg_fmt_change_ci(ch, sizeof(ch), v->est.ratio, v->est.ci_lo, v->est.ci_hi);
    pg_fmt_value(base, sizeof(base), v->est.base_median > 0 ? v->est.base_median : NAN, pg_verdict_unit(v));
    pg_fmt_value(head, sizeof(head), v->est.head_median > 0 ? v->est.head_median : NAN, pg_verdict_unit(v));
    pg_fmt_p(p, sizeof(p), v->est.p_adj);
    if (isfinite(v->est.ratio))
        pg__buf_printf(b, "%s %s (base %s, head %s, p adj. %s)", pg_verdict_name(v->verdict), ch, base, head, p);
    else if (v->est.head_median > 0 || v->est.base_median > 0)
        pg__buf_printf(b, "%s (%s %s)", pg_verdict_name(v->verdict), v->est.head_median > 0 ? "head" : "base",
                       v->est.head_median > 0 ? head : base);
    else
        pg__buf_puts(b, pg_verdict_name(v->verdict));
    if (v->reason) {
        pg__buf_puts(b, ": ");
        pg__buf_puts(b, v->reason);
    }
}

/* The distinct suite names in order of first appearance (cases, then checks). */
static const char **suite_names(const pg_report_data *d, size_t *out_n)
{
    const char **names = malloc((d->cmp->ncases + d->run->nchecks + 1) * sizeof(*names));
    size_t n = 0, i, j;

    *out_n = 0;
    if (!names)
        return NULL;
    for (i = 0; i < d->cmp->ncases + d->run->nchecks; i++) {
        const char *s = i < d->cmp->ncases ? d->cmp->cases[i].suite : d->run->checks[i - d->cmp->ncases].suite;
        if (!s)
            s = "";
        for (j = 0; j < n && strcmp(names[j], s) != 0; j++)
            ;
        if (j == n)
            names[n++] = s;
    }
    *out_n = n;
    return names;
}

static int same(const char *a, const char *suite)
{
    return strcmp(a ? a : "", suite) == 0;
}

int pg_render_junit(pg_buf *out, const pg_report_data *d, const pg_report_options *opts)
{
    const pg_comparison *cmp = d->cmp;
    size_t ns, s, i, start = out->len;
    const char **names = suite_names(d, &ns);
    size_t tot = cmp->ncases + d->run->nchecks;
    size_t fails = cmp->counts[PG_VERDICT_REGRESSED] + cmp->checks_failed;
    size_t errors = cmp->counts[PG_VERDICT_ERROR];
    size_t skipped = cmp->counts[PG_VERDICT_SKIPPED] + cmp->counts[PG_VERDICT_MISSING] +
                     cmp->counts[PG_VERDICT_UNSURE] + cmp->counts[PG_VERDICT_NEW];
    double all_time = 0;

    (void)opts;
    if (!names)
        return pg_error_set(PG_ENOMEM, "out of memory rendering JUnit");
    for (i = 0; i < cmp->ncases; i++)
        all_time += measured_seconds(cmp->cases[i].head);
    for (i = 0; i < d->run->nchecks; i++)
        skipped += d->run->checks[i].skipped;
    pg__buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<testsuites name=\"perfgate\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                        "time=\"%.3f\">\n",
                   tot, fails, errors, skipped, all_time);
    for (s = 0; s < ns; s++) {
        pg_buf body = PG_BUF_INIT;
        size_t t = 0, f = 0, e = 0, sk = 0;
        double st = 0;

        for (i = 0; i < cmp->ncases; i++) {
            const pg_case_verdict *v = &cmp->cases[i];
            double secs = measured_seconds(v->head);
            if (!same(v->suite, names[s]))
                continue;
            t++;
            st += secs;
            pg__buf_puts(&body, "    <testcase classname=\"perfgate.");
            pg__text_xml(&body, names[s]);
            pg__buf_puts(&body, "\" name=\"");
            pg__text_xml(&body, v->key);
            pg__buf_printf(&body, "\" time=\"%.3f\"", secs);
            if (v->verdict == PG_VERDICT_REGRESSED || v->verdict == PG_VERDICT_ERROR || undecided(v->verdict)) {
                pg_buf msg = PG_BUF_INIT;
                const char *tag = v->verdict == PG_VERDICT_REGRESSED ? "failure"
                                  : v->verdict == PG_VERDICT_ERROR   ? "error"
                                                                     : "skipped";
                f += v->verdict == PG_VERDICT_REGRESSED;
                e += v->verdict == PG_VERDICT_ERROR;
                sk += undecided(v->verdict);
                verdict_message(&msg, v);
                pg__buf_printf(&body, ">\n      <%s message=\"", tag);
                pg__text_xml(&body, msg.ptr);
                if (v->verdict == PG_VERDICT_REGRESSED)
                    pg__buf_puts(&body, "\" type=\"regression");
                else if (v->verdict == PG_VERDICT_ERROR)
                    pg__buf_puts(&body, "\" type=\"error");
                pg__buf_printf(&body, "\"/>\n    </testcase>\n");
                pg__buf_clear(&msg);
            } else {
                /* Passing cases keep their verdict and numbers for people reading the XML. */
                pg_buf msg = PG_BUF_INIT;
                verdict_message(&msg, v);
                pg__buf_puts(&body, ">\n      <system-out>");
                pg__text_xml(&body, msg.ptr);
                pg__buf_puts(&body, "</system-out>\n    </testcase>\n");
                pg__buf_clear(&msg);
            }
        }
        for (i = 0; i < d->run->nchecks; i++) {
            const pg_check_result *c = &d->run->checks[i];
            if (!same(c->suite, names[s]))
                continue;
            t++;
            pg__buf_puts(&body, "    <testcase classname=\"perfgate.");
            pg__text_xml(&body, names[s]);
            pg__buf_puts(&body, ".checks\" name=\"");
            pg__text_xml(&body, c->name);
            pg__buf_puts(&body, "\" time=\"0.000\"");
            if (c->skipped) {
                sk++;
                pg__buf_puts(&body, ">\n      <skipped message=\"");
                pg__text_xml(&body, c->message ? c->message : "skipped");
                pg__buf_puts(&body, "\"/>\n    </testcase>\n");
            } else if (!c->passed) {
                f++;
                pg__buf_puts(&body, ">\n      <failure message=\"");
                pg__text_xml(&body, c->message ? c->message : "exact check failed");
                pg__buf_puts(&body, "\" type=\"exact-check\">");
                pg__buf_printf(&body, "kind: ");
                pg__text_xml(&body, c->kind);
                pg__buf_puts(&body, "\nexpected: ");
                pg__text_xml(&body, c->expected);
                pg__buf_puts(&body, "\nactual: ");
                pg__text_xml(&body, c->actual);
                pg__buf_puts(&body, "</failure>\n    </testcase>\n");
            } else {
                pg__buf_puts(&body, "/>\n");
            }
        }
        pg__buf_puts(out, "  <testsuite name=\"");
        pg__text_xml(out, names[s]);
        pg__buf_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", t, f,
                       e, sk, st);
        if (body.ptr)
            pg__buf_put(out, body.ptr, body.len);
        pg__buf_puts(out, "  </testsuite>\n");
        pg__buf_clear(&body);
    }
    pg__buf_puts(out, "</testsuites>\n");
    free(names);
    return out->len > start && out->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory rendering JUnit");
}
