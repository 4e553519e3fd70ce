/*
 * report.c - the format table, reporters (a format plus a destination) and
 * the multiplexer that feeds one result model to all of them.
 */
#include "report/report.h"

#include "perfgate/errors.h"
#include "base/outfile.h"
#include "machine/roofline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static const pg_format formats[] = {
    {"terminal", pg_render_terminal},
    {"markdown", pg_render_markdown},
    {"json", pg_render_json},
    {"junit", pg_render_junit},
    {"annotations", pg_render_annotations},
};

const pg_format *pg_format_find(const char *name)
{
    size_t i;

    if (!name)
        return NULL;
    if (strcmp(name, "md") == 0)
        name = "markdown";
    else if (strcmp(name, "github") == 0)
        name = "annotations";
    for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

void pg_report_origin_clear(pg_report_origin *o)
{
    if (!o)
        return;
    free(o->repository);
    free(o->head_sha);
    free(o->base_sha);
    free(o->base_ref);
    free(o->run_url);
    memset(o, 0, sizeof(*o));
}

static void plural(pg_buf *b, int *first, size_t n, const char *one, const char *many)
{
    pg__buf_printf(b, "%s%zu %s", *first ? "" : ", ", n, n == 1 ? one : many);
    *first = 0;
}

int pg_render_summary_line(pg_buf *out, const pg_comparison *cmp)
{
    const size_t *c = cmp->counts;
    int first = 1;
    size_t before = out->len;

    plural(out, &first, c[PG_VERDICT_REGRESSED], "regression", "regressions");
    plural(out, &first, c[PG_VERDICT_IMPROVED], "improvement", "improvements");
    plural(out, &first, c[PG_VERDICT_SAME], "unchanged", "unchanged");
    plural(out, &first, c[PG_VERDICT_UNSURE], "unsure", "unsure");
    if (c[PG_VERDICT_NEW])
        plural(out, &first, c[PG_VERDICT_NEW], "new", "new");
    if (c[PG_VERDICT_MISSING])
        plural(out, &first, c[PG_VERDICT_MISSING], "missing", "missing");
    if (c[PG_VERDICT_ERROR])
        plural(out, &first, c[PG_VERDICT_ERROR], "error", "errors");
    if (c[PG_VERDICT_SKIPPED])
        plural(out, &first, c[PG_VERDICT_SKIPPED], "skipped", "skipped");
    if (cmp->checks_total)
        pg__buf_printf(out, "; exact checks: %zu passed, %zu failed", cmp->checks_total - cmp->checks_failed,
                       cmp->checks_failed);
    return out->len > before ? 0 : PG_ENOMEM;
}

int pg_render_title(pg_buf *out, const pg_comparison *cmp, void (*reason_text)(pg_buf *out, const char *s))
{
    size_t reg = cmp->counts[PG_VERDICT_REGRESSED], before = out->len;

    if (cmp->outcome == PG_OUTCOME_NOTHING_COMPARED || cmp->outcome == PG_OUTCOME_ERROR) {
        /* Never PASS: nothing was decided, or a case never ran; the reason says why and what to do. */
        const char *reason = cmp->outcome_reason ? cmp->outcome_reason
                             : cmp->outcome == PG_OUTCOME_ERROR ? "a case could not be measured"
                                                                : "no case was decided";
        pg__buf_puts(out, cmp->outcome == PG_OUTCOME_ERROR ? "perfgate: ERROR — " : "perfgate: nothing compared — ");
        if (reason_text)
            reason_text(out, reason);
        else
            pg__text_term(out, reason);
        return out->len > before ? 0 : PG_ENOMEM;
    }
    pg__buf_printf(out, "perfgate: %s", pg_outcome_exit_code(cmp) ? "FAIL" : "PASS");
    if (cmp->outcome == PG_OUTCOME_PASS && cmp->outcome_reason) {
        /* A pass of new cases alone says that it compared nothing yet. */
        pg__buf_puts(out, " — ");
        if (reason_text)
            reason_text(out, cmp->outcome_reason);
        else
            pg__text_term(out, cmp->outcome_reason);
    }
    if (reg || cmp->checks_failed) {
        pg__buf_puts(out, " (");
        if (reg)
            pg__buf_printf(out, "%zu regression%s", reg, reg == 1 ? "" : "s");
        if (cmp->checks_failed)
            pg__buf_printf(out, "%s%zu failed exact check%s", reg ? ", " : "", cmp->checks_failed,
                           cmp->checks_failed == 1 ? "" : "s");
        pg__buf_puts(out, ")");
    }
    return out->len > before ? 0 : PG_ENOMEM;
}

typedef struct order_item {
    double sortkey;
    size_t idx;
} order_item;

static int order_cmp(const void *a, const void *b)
{
    const order_item *x = a, *y = b;

    if (x->sortkey != y->sortkey)
        return x->sortkey < y->sortkey ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t *pg__report_order(const pg_comparison *cmp, pg_verdict only, size_t *out_n)
{
    order_item *items = malloc((cmp->ncases + 1) * sizeof(*items));
    size_t *idx = malloc((cmp->ncases + 1) * sizeof(*idx));
    size_t i, n = 0;

    *out_n = 0;
    if (!items || !idx) {
        free(items);
        free(idx);
        return NULL;
    }
    for (i = 0; i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        double r = isfinite(v->est.ratio) ? v->est.ratio : 1.0;
        if (v->verdict != only)
            continue;
        /* The worst regression and the best improvement come first; the rest keep run order. */
        items[n].sortkey = only == PG_VERDICT_REGRESSED ? -r : only == PG_VERDICT_IMPROVED ? r : 0.0;
        items[n].idx = i;
        n++;
    }
    qsort(items, n, sizeof(*items), order_cmp);
    for (i = 0; i < n; i++)
        idx[i] = items[i].idx;
    free(items);
    *out_n = n;
    return idx;
}

/* Reporters. */

/* A report file goes through the one writer: a failed write never leaves a cut file under its name. */
static int deliver_file(pg_reporter *self, const char *text, size_t len)
{
    char what[64];

    snprintf(what, sizeof(what), "%s report", self->format->name);
    return pg__outfile_write(self->path, text, len, what);
}

static int new_reporter(pg_reporter **out, const pg_format *fmt, const char *path)
{
    pg_reporter *r = calloc(1, sizeof(*r));
    pg_report_options dflt = PG_REPORT_OPTIONS_INIT;

    *out = NULL;
    if (!r || !(r->path = pg__strdup(path))) {
        free(r);
        return pg_error_set(PG_ENOMEM, "out of memory creating a reporter");
    }
    r->format = fmt;
    r->opts = dflt;
    r->deliver = deliver_file;
    *out = r;
    return 0;
}

int pg_reporter_file(pg_reporter **out, const char *format, const char *path)
{
    const pg_format *fmt = pg_format_find(format);

    *out = NULL;
    if (!fmt)
        return pg_error_set(PG_EUSAGE, "unknown report format '%s' (terminal, md, json, junit, annotations)",
                            format ? format : "");
    return new_reporter(out, fmt, path);
}

/* The room left in the job summary, which other steps append to as well. */
static size_t summary_room(const char *path)
{
    struct stat st;
    size_t used = stat(path, &st) == 0 ? (size_t)st.st_size : 0;

    return used < PG_STEP_SUMMARY_LIMIT ? PG_STEP_SUMMARY_LIMIT - used : 0;
}

/* The job summary must stay under 1 MiB: the markdown leaves rows out to fit. */
static int prepare_summary(pg_reporter *self)
{
    size_t room = summary_room(self->path), margin = 1024;

    /* Too little room for rows: rendering fails and the fallback writes title and counts. */
    self->opts.max_bytes = room > margin ? room - margin : 1;
    return 0;
}


/* Nearly full: at least the verdict, its counts and where the rest is. */
static int summary_fallback(pg_reporter *self, pg_buf *out, const pg_report_data *data)
{
    size_t room = summary_room(self->path);

    pg__buf_puts(out, "### ");
    pg_render_title(out, data->cmp, pg__text_md);
    pg__buf_puts(out, "\n\n**");
    pg_render_summary_line(out, data->cmp);
    pg__buf_puts(out, "**\n\nThe job summary is nearly full: the table is in the JSON report "
                      "(`perfgate report --format md`).\n");
    if (!out->ptr)
        return pg_error_set(PG_ENOMEM, "out of memory rendering the job summary");
    if (out->len + 1 > room)
        return pg_error_set(PG_EIO, "%s: the job summary has %zu bytes left, too few even for the verdict",
                            self->path, room);
    return 0;
}

static int deliver_append(pg_reporter *self, const char *text, size_t len)
{
    FILE *f = fopen(self->path, "a");
    int ok;

    if (!f)
        return pg_error_set(PG_EIO, "%s: cannot append to the job summary: %s", self->path, strerror(errno));
    ok = fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : pg_error_set(PG_EIO, "%s: cannot append to the job summary", self->path);
}

int pg_reporter_step_summary(pg_reporter **out, const char *path)
{
    int err = new_reporter(out, pg_format_find("markdown"), path);

    if (err)
        return err;
    (*out)->prepare = prepare_summary;
    (*out)->fallback = summary_fallback;
    (*out)->deliver = deliver_append;
    (*out)->advisory = 1;
    return 0;
}

void pg_reporter_free(pg_reporter *r)
{
    if (!r)
        return;
    free(r->path);
    free(r);
}

int pg_report_mux_add(pg_report_mux *mux, pg_reporter *r)
{
    pg_reporter **p = realloc(mux->items, (mux->count + 1) * sizeof(*p));

    if (!p) {
        pg_reporter_free(r);
        return pg_error_set(PG_ENOMEM, "out of memory adding a reporter");
    }
    mux->items = p;
    p[mux->count++] = r;
    return 0;
}

int pg_report_mux_uses_stdout(const pg_report_mux *mux)
{
    size_t i;

    for (i = 0; i < mux->count; i++)
        if (mux->items[i]->deliver == deliver_file && strcmp(mux->items[i]->path, "-") == 0)
            return 1;
    return 0;
}

int pg_report_mux_emit(pg_report_mux *mux, const pg_report_data *data)
{
    size_t i;
    int first = 0;

    for (i = 0; i < mux->count; i++) {
        pg_reporter *r = mux->items[i];
        pg_buf text = PG_BUF_INIT;
        int err = r->prepare ? r->prepare(r) : 0;

        if (!err)
            err = r->format->render(&text, data, &r->opts);
        if (err && err != PG_ENOMEM && r->fallback) {
            pg__buf_clear(&text);
            err = r->fallback(r, &text, data);
        }
        if (!err)
            err = r->deliver(r, text.ptr ? text.ptr : "", text.len);
        pg__buf_clear(&text);
        if (err && r->advisory) {
            fprintf(stderr, "perfgate: warning: %s (the verdict and exit code are unaffected)\n", pg_error_last());
            continue;
        }
        if (err) {
            /* Say which one failed now: the others still run and may overwrite the message. */
            fprintf(stderr, "perfgate: %s\n", pg_error_last());
            if (!first)
                first = err;
        }
    }
    return first;
}

void pg_report_mux_clear(pg_report_mux *mux)
{
    size_t i;

    for (i = 0; i < mux->count; i++)
        pg_reporter_free(mux->items[i]);
    free(mux->items);
    mux->items = NULL;
    mux->count = 0;
}

int pg__report_roof_cells(pg__roof_cells *out, const pg_result *r, const char *machine_json)
{
    pg_roof_point p;
    const char *unit;

    memset(out, 0, sizeof(*out));
    pg_roofline_classify(&p, r, machine_json);
    if (p.bound == PG_ROOF_UNKNOWN)
        return 1;
    snprintf(out->bound, sizeof(out->bound), "%s", pg_roof_bound_name(p.bound));
    if (p.intensity >= 0)
        snprintf(out->intensity, sizeof(out->intensity), "%.3g FLOP/B", p.intensity);
    else
        snprintf(out->intensity, sizeof(out->intensity), "-");
    unit = r->flops > 0 ? "FLOP/s" : "B/s";
    pg_fmt_rate(out->attainable, sizeof(out->attainable), p.attainable, unit);
    pg_fmt_rate(out->achieved, sizeof(out->achieved), p.achieved, unit);
    if (p.attainable > 0)
        snprintf(out->fraction, sizeof(out->fraction), "%.1f%%", 100 * p.fraction);
    else
        snprintf(out->fraction, sizeof(out->fraction), "-");
    out->why = p.why;
    return 0;
}
