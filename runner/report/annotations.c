/*
 * annotations.c - GitHub Actions workflow commands (::error / ::warning).
 *
 * GitHub shows at most 10 error and 10 warning annotations per step, so
 * when a level has more than opts->max_annotations, the last one shown says
 * how many more there are. Regressions, failed checks and cases that failed to run are
 * errors; UNSURE and MISSING cases are warnings. Data is escaped as the
 * runner expects (%, CR, LF; in properties also ':' and ',').
 */
#include "report/report.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Workflow-command escaping on plain text: the one rule for text that leaves perfgate (base/text.h). */
#define esc pg__text_workflow

typedef struct level {
    const char *cmd;       /* "error" or "warning" */
    pg_buf lines;          /* the first `max` annotations of this level */
    size_t total, kept, last_start;
} level;

static void emit(level *lv, int max, const char *title, const char *msg)
{
    lv->total++;
    if (lv->kept >= (size_t)max)
        return;
    lv->kept++;
    lv->last_start = lv->lines.len;
    pg__buf_printf(&lv->lines, "::%s title=", lv->cmd);
    esc(&lv->lines, title, 1);
    pg__buf_puts(&lv->lines, "::");
    esc(&lv->lines, msg, 0);
    pg__buf_puts(&lv->lines, "\n");
}

/* All of them when they fit; else max - 1 and a last one saying how many more there are. */
static void finish(pg_buf *out, level *lv, int max)
{
    if (lv->total > (size_t)max) {
        lv->lines.len = lv->last_start;
        pg__buf_put(out, lv->lines.ptr, lv->lines.len);
        pg__buf_printf(out, "::%s title=perfgate::%zu more %ss not shown; see the job summary\n", lv->cmd,
                       lv->total - (size_t)max + 1, lv->cmd);
    } else if (lv->lines.len) {
        pg__buf_put(out, lv->lines.ptr, lv->lines.len);
    }
    pg__buf_clear(&lv->lines);
}

int pg_render_annotations(pg_buf *out, const pg_report_data *d, const pg_report_options *opts)
{
    int max = opts && opts->max_annotations > 0 ? opts->max_annotations : 10;
    level err = {"error", PG_BUF_INIT, 0, 0, 0}, warn = {"warning", PG_BUF_INIT, 0, 0, 0};
    pg_buf msg = PG_BUF_INIT, title = PG_BUF_INIT;
    size_t i, n, k;
    static const pg_verdict order[] = {PG_VERDICT_REGRESSED, PG_VERDICT_ERROR, PG_VERDICT_UNSURE, PG_VERDICT_MISSING};

    for (k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        size_t *idx = pg__report_order(d->cmp, order[k], &n);
        if (!idx) {
            pg__buf_clear(&err.lines);
            pg__buf_clear(&warn.lines);
            pg__buf_clear(&msg);
            pg__buf_clear(&title);
            return pg_error_set(PG_ENOMEM, "out of memory rendering annotations");
        }
        for (i = 0; i < n; i++) {
            const pg_case_verdict *v = &d->cmp->cases[idx[i]];
            char ch[80], p[32];
            msg.len = title.len = 0;
            pg_fmt_change_ci(ch, sizeof(ch), v->est.ratio, v->est.ci_lo, v->est.ci_hi);
            pg_fmt_p(p, sizeof(p), v->est.p_adj);
            pg__buf_printf(&title, "perfgate %s", pg_verdict_name(v->verdict));
            pg__buf_puts(&msg, v->key);
            if (isfinite(v->est.ratio))
                pg__buf_printf(&msg, ": %s", ch);
            if (v->verdict == PG_VERDICT_REGRESSED)
                pg__buf_printf(&msg, " (p adj. %s, threshold %.1f%%)", p, 100 * v->threshold);
            if (v->reason)
                pg__buf_printf(&msg, " - %s", v->reason);
            emit((v->verdict == PG_VERDICT_REGRESSED || v->verdict == PG_VERDICT_ERROR) ? &err : &warn, max,
                 title.ptr, msg.ptr);
        }
        free(idx);
        /* Failed checks rank with regressions: both fail the build. */
        if (order[k] == PG_VERDICT_REGRESSED) {
            for (i = 0; i < d->run->nchecks; i++) {
                const pg_check_result *c = &d->run->checks[i];
                if (c->passed || c->skipped)
                    continue;
                msg.len = 0;
                pg__buf_printf(&msg, "%s/%s (%s): expected %s, got %s%s%s", c->suite, c->name, c->kind,
                               c->expected ? c->expected : "?", c->actual ? c->actual : "?",
                               c->message ? " - " : "", c->message ? c->message : "");
                emit(&err, max, "perfgate exact check failed", msg.ptr);
            }
        }
    }
    finish(out, &err, max);
    finish(out, &warn, max);
    pg__buf_clear(&msg);
    pg__buf_clear(&title);
    return 0;
}
