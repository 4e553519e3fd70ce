/*
 * text.c - a bisection in words: its one-line result and its table of
 * steps, as text for the terminal or as markdown for an issue.
 *
 * Commit subjects are their authors' words: in markdown they go inside a
 * code span with their backticks dropped and pipes escaped, so a subject
 * can neither break the table nor mention anyone.
 */
#include "bisect/bisect.h"

#include "base/text.h"
#include "bisect/internal.h"

#include "perfgate/errors.h"
#include "report/report.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *pg__bisect_short(const pg_bisect_result *r, size_t i, char out[16])
{
    snprintf(out, 16, "%.12s", i < r->ncommits && r->commits[i].sha ? r->commits[i].sha : "-");
    return out;
}

static void change_of(char *out, size_t len, const pg_bisect_step *s)
{
    pg_fmt_change_ci(out, len, s->ratio, s->ci_lo, s->ci_hi);
}

static void threshold_of(char *out, size_t len, const pg_bisect_step *s)
{
    if (s && isfinite(s->threshold) && s->threshold > 0)
        snprintf(out, len, "%.3g%%", 100 * s->threshold);
    else
        snprintf(out, len, "the threshold");
}

static int describe_range(pg_buf *b, const pg_bisect_result *r, const pg_bisect_step *s)
{
    char lo[16], hi[16], a[16], z[16], ch[96], th[32];

    pg__bisect_short(r, r->span_lo + 1, lo);
    pg__bisect_short(r, r->span_hi, hi);
    if (!s)
        return pg__buf_printf(b, "%s..%s", lo, hi);
    change_of(ch, sizeof(ch), s);
    threshold_of(th, sizeof(th), s);
    pg__bisect_short(r, s->base, a);
    pg__bisect_short(r, s->head, z);
    if (r->kind == PG_BISECT_SPREAD)
        return pg__buf_printf(b, "the change is spread over commits %s..%s (%zu commits): %s from %s to %s, and no "
                                 "step inside it was found beyond %s on its own",
                              lo, hi, r->span_hi - r->span_lo, ch, a, z, th);
    return pg__buf_printf(b, "the change is in commits %s..%s: %s from %s to %s, but the %zu commit%s before %s "
                             "do%s not build (their logs say why)",
                          lo, hi, ch, a, z, r->span_hi - r->span_lo - 1, r->span_hi - r->span_lo - 1 == 1 ? "" : "s",
                          hi, r->span_hi - r->span_lo - 1 == 1 ? "es" : "");
}

int pg__bisect_describe(pg_bisect_result *r)
{
    const pg_bisect_step *s = r->result_step < r->nsteps ? &r->steps[r->result_step] : NULL;
    const char *key = s && s->key ? s->key : r->key ? r->key : "the cases";
    char c[16], p[16], ch[96], th[32];
    pg_buf b = PG_BUF_INIT;

    if (s)
        change_of(ch, sizeof(ch), s);
    threshold_of(th, sizeof(th), s);
    switch (r->kind) {
    case PG_BISECT_FOUND:
        pg__buf_printf(&b, "first bad commit %s: %s against its parent %s", pg__bisect_short(r, r->culprit, c),
                       s ? ch : "-", pg__bisect_short(r, r->culprit - 1, p));
        break;
    case PG_BISECT_SPREAD:
    case PG_BISECT_UNBUILDABLE:
        describe_range(&b, r, s);
        break;
    case PG_BISECT_NOT_REPRODUCED:
        pg__buf_printf(&b, "not reproduced between GOOD and BAD: %s %s (%s at %s)", key, s ? ch : "-",
                       s && s->verdict == PG_VERDICT_IMPROVED ? "IMPROVED: BAD is faster" : "SAME", th);
        break;
    case PG_BISECT_UNDECIDED:
        pg__buf_printf(&b, "undecided between GOOD and BAD: %s %s is UNSURE (%s); nothing is bisected on a guess: "
                           "run it again with more --rounds (the ends are measured again), or on a quieter machine",
                       key, s ? ch : "-", s && s->reason ? s->reason : "no reason given");
        break;
    case PG_BISECT_ERROR:
        pg__buf_printf(&b, "could not measure %s: %s", key, s && s->reason ? s->reason : "no reason given");
        break;
    default:
        pg__buf_printf(&b, "stopped by --max-time after %zu step%s: the change lies in ", r->nsteps,
                       r->nsteps == 1 ? "" : "s");
        describe_range(&b, r, NULL);
        pg__buf_printf(&b, "; run the same command again to go on%s%s%s", r->state_path ? " (state: " : "",
                       r->state_path ? r->state_path : "", r->state_path ? ")" : "");
        break;
    }
    if (!b.ptr)
        return pg_error_set(PG_ENOMEM, "out of memory");
    free(r->text);
    r->text = pg__buf_detach(&b);
    return 0;
}

/* Text from elsewhere (a subject, a key) in a code span, so it neither formats nor mentions anyone; cut at `max`. */
static void md_code(pg_buf *b, const char *s, size_t max)
{
    char cut[4100];
    size_t n = 0;

    if (!s || !*s)
        return;
    while (s[n] && n < max && n < sizeof(cut) - 4)
        n++;
    /* Never end inside a UTF-8 sequence. */
    while (s[n] && n && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    snprintf(cut, sizeof(cut), "%.*s%s", (int)n, s, s[n] ? "…" : "");
    pg__text_md_code(b, cut);
}

static void md_subject(pg_buf *b, const char *s)
{
    if (s && *s) {
        pg__buf_puts(b, " ");
        md_code(b, s, 72);
    }
}

static void md_commit(pg_buf *b, const pg_bisect_result *r, size_t i, const char *url, int subject)
{
    char c[16];

    pg__bisect_short(r, i, c);
    if (url)
        pg__buf_printf(b, "[`%.7s`](%s%s) (%zu)", c, url, r->commits[i].sha, i);
    else
        pg__buf_printf(b, "`%.7s` (%zu)", c, i);
    if (subject)
        md_subject(b, r->commits[i].subject);
}

static void header(pg_buf *b, const pg_bisect_result *r, int markdown)
{
    char g[16], z[16];
    double each = pg_bisect_step_alpha(r->alpha, r->ncommits - 1, 1);

    pg__bisect_short(r, 0, g);
    pg__bisect_short(r, r->ncommits - 1, z);
    if (markdown) {
        pg__buf_puts(b, "**bisect** ");
        md_code(b, r->key ? r->key : "the cases", 200);
        pg__buf_printf(b, " between `%.12s` and `%.12s`", g, z);
    } else {
        pg__buf_printf(b, "bisect %s between %s (%s) and %s (%s)", r->key ? r->key : "the cases",
                       r->good_rev ? r->good_rev : "GOOD", g, r->bad_rev ? r->bad_rev : "BAD", z);
    }
    pg__buf_printf(b, ": %zu commit%s, %zu step%s planned; family error %.3g split over the steps (%.2g each planned, "
                      "less for any beyond)%s\n",
                   r->ncommits - 1, r->ncommits == 2 ? "" : "s", r->planned, r->planned == 1 ? "" : "s", r->alpha, each,
                   markdown ? "\n" : "");
}

static void text_table(pg_buf *b, const pg_bisect_result *r)
{
    size_t i;

    pg__buf_printf(b, "%4s  %-7s  %-19s  %-19s  %-10s  %-26s  %6s  %8s  %7s\n", "step", "purpose", "head (commit)",
                   "base (commit)", "verdict", "change [interval]", "rounds", "alpha", "time");
    for (i = 0; i < r->nsteps; i++) {
        const pg_bisect_step *s = &r->steps[i];
        char h[16], a[16], hc[32], ac[32], ch[96];
        pg__bisect_short(r, s->head, h);
        pg__bisect_short(r, s->base, a);
        snprintf(hc, sizeof(hc), "%.7s (%zu)", h, s->head);
        snprintf(ac, sizeof(ac), "%.7s (%zu)", a, s->base);
        change_of(ch, sizeof(ch), s);
        pg__buf_printf(b, "%4zu  %-7s  %-19s  %-19s  %-10s  %-26s  %6d  %8.2g  %6.1fs%s\n", i + 1,
                       pg_bisect_purpose_name(s->purpose), hc, ac, pg_verdict_name(s->verdict), ch, s->rounds, s->alpha,
                       isfinite(s->seconds) ? s->seconds : 0.0, i < r->resumed ? "  (resumed)" : "");
    }
    for (i = 0; i < r->nunbuilt; i++) {
        char c[16];
        pg__buf_printf(b, "      did not build: %.7s (%zu): %s\n", pg__bisect_short(r, r->unbuilt[i].commit, c),
                       r->unbuilt[i].commit, r->unbuilt[i].why ? r->unbuilt[i].why : "");
    }
}

static void md_table(pg_buf *b, const pg_bisect_result *r, const char *url)
{
    size_t i;

    pg__buf_puts(b, "| step | purpose | commit | against | verdict | change [interval] | rounds | alpha |\n"
                    "|---:|---|---|---|---|---|---:|---:|\n");
    for (i = 0; i < r->nsteps; i++) {
        const pg_bisect_step *s = &r->steps[i];
        char ch[96];
        change_of(ch, sizeof(ch), s);
        pg__buf_printf(b, "| %zu | %s | ", i + 1, pg_bisect_purpose_name(s->purpose));
        md_commit(b, r, s->head, url, 1);
        pg__buf_puts(b, " | ");
        md_commit(b, r, s->base, url, 0);
        pg__buf_printf(b, " | %s | %s | %d | %.2g |\n", pg_verdict_name(s->verdict), ch, s->rounds, s->alpha);
    }
    for (i = 0; i < r->nunbuilt; i++) {
        pg__buf_puts(b, "\nDid not build: ");
        md_commit(b, r, r->unbuilt[i].commit, url, 1);
        pg__buf_puts(b, "\n");
    }
}

int pg_bisect_format(pg_buf *out, const pg_bisect_result *r, int markdown, const char *commit_url)
{
    size_t start = out->len;

    if (r->ncommits < 2)
        return pg_error_set(PG_EINVAL, "no bisection to show");
    header(out, r, markdown);
    if (markdown)
        md_table(out, r, commit_url);
    else
        text_table(out, r);
    if (markdown) {
        pg__buf_puts(out, "\n**Result:** ");
        md_code(out, r->text ? r->text : "", 4000);
        pg__buf_puts(out, "\n");
    } else {
        pg__buf_printf(out, "\n%s\n", r->text ? r->text : "");
    }
    if (r->nalso) {
        size_t i;
        pg__buf_puts(out, markdown ? "\nAlso slower between GOOD and BAD (bisect each with `--filter`):" :
                                     "also slower between GOOD and BAD (bisect each with --filter):");
        for (i = 0; i < r->nalso; i++) {
            pg__buf_puts(out, " ");
            if (markdown)
                md_code(out, r->also[i], 200);
            else
                pg__buf_puts(out, r->also[i]);
        }
        pg__buf_puts(out, "\n");
    }
    if (!out->ptr)
        return pg_error_set(PG_ENOMEM, "out of memory");
    /* Keys, revisions, reasons and build errors as plain text for the terminal (base/text.h). */
    if (!markdown)
        pg__text_plain_inplace(out->ptr + start, 1);
    return 0;
}
