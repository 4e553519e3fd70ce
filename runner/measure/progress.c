/* progress.c - progress of a measurement on a terminal, in a log, on GitHub Actions (progress.h). */
#include "measure/progress.h"

#include "base/fmt.h"
#include "base/text.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pg_progress_mode pg_progress_mode_for(FILE *out)
{
    const char *term = getenv("TERM");

    if (!out)
        return PG_PROGRESS_NONE;
    if (isatty(fileno(out)) && !(term && strcmp(term, "dumb") == 0))
        return PG_PROGRESS_TTY;
    return PG_PROGRESS_LINES;
}

/* Workflow commands are read from stdout and stderr alike; only Actions understands them. */
static int on_actions(void)
{
    const char *v = getenv("GITHUB_ACTIONS");

    return v && strcmp(v, "true") == 0;
}

void pg_progress_begin(pg_progress *p, pg_progress_mode mode, FILE *out, size_t total, const char *title)
{
    memset(p, 0, sizeof(*p));
    p->mode = out ? mode : PG_PROGRESS_NONE;
    p->out = out;
    p->total = total;
    p->t0 = pg__mono_ns();
    p->label = "";
    if (p->mode != PG_PROGRESS_NONE && title && on_actions()) {
        fprintf(out, "::group::%s\n", title);
        fflush(out);
        p->group = 1;
    }
}

static double elapsed(const pg_progress *p)
{
    return (double)(pg__mono_ns() - p->t0) * 1e-9;
}

/* The rest at the pace so far; nothing to go on before the first item. */
static double left(const pg_progress *p, double el)
{
    return p->done ? el / (double)p->done * (double)(p->total - p->done) : 0;
}

void pg_progress_running(pg_progress *p, const char *what)
{
    char *shown;
    double el;

    if (p->mode != PG_PROGRESS_TTY)
        return;
    el = elapsed(p);
    what = shown = pg__text_term_dup(what);
    fprintf(p->out, "\r\033[K[%s%zu/%zu] %s  (%.0fs elapsed, ~%.0fs left)", p->label, p->done + 1, p->total,
            what ? what : "?", el, left(p, el));
    fflush(p->out);
    free(shown);
}

void pg_progress_finished(pg_progress *p, const char *what, const char *detail)
{
    char *shown, *shown_detail;
    double el;

    if (p->done < p->total)
        p->done++;
    if (p->mode != PG_PROGRESS_LINES)
        return;
    el = elapsed(p);
    /* Names and messages come from suites and imported files: shown as plain text (base/text.h). */
    what = shown = pg__text_term_dup(what);
    detail = shown_detail = pg__text_term_dup(detail);
    fprintf(p->out, "[%s%zu/%zu] %s  %s%s%.1fs elapsed, ~%.0fs left\n", p->label, p->done, p->total,
            what ? what : "?", detail ? detail : "", detail ? "  " : "", el, left(p, el));
    fflush(p->out);
    free(shown);
    free(shown_detail);
}

void pg_progress_case(pg_progress *p, const pg_result *r)
{
    char med[32], detail[320];

    if (r->status == PG_STATUS_ERROR) {
        /* One line per case: a multi-line error keeps its first line here, the report has the rest. */
        snprintf(detail, sizeof(detail), "ERROR: %.*s", (int)strcspn(r->message ? r->message : "", "\n"),
                 r->message ? r->message : "failed");
    } else if (r->status == PG_STATUS_SKIPPED) {
        snprintf(detail, sizeof(detail), "skipped: %.*s", (int)strcspn(r->message ? r->message : "", "\n"),
                 r->message ? r->message : "");
    } else {
        pg_fmt_duration(med, sizeof(med), r->summary.median);
        snprintf(detail, sizeof(detail), "median %s  n=%zu", med, r->nsamples);
    }
    pg_progress_finished(p, r->key, detail);
}

void pg_progress_line(pg_progress *p, const char *fmt, ...)
{
    va_list ap;

    if (p->mode != PG_PROGRESS_LINES)
        return;
    va_start(ap, fmt);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
    fputc('\n', p->out);
    fflush(p->out);
}

void pg_progress_end(pg_progress *p)
{
    if (p->mode == PG_PROGRESS_TTY) {
        fprintf(p->out, "\r\033[K");
        fflush(p->out);
    }
    if (p->group) {
        fprintf(p->out, "::endgroup::\n");
        fflush(p->out);
        p->group = 0;
    }
    /* Ending twice (once on the way, once at a cleanup label) prints nothing the second time. */
    p->mode = PG_PROGRESS_NONE;
}
