/*
 * markdown.c - the GitHub-flavoured markdown report: PR comments and the job
 * summary.
 *
 * A title and a summary line come first, then the cases that fail the build
 * (regressions, failed exact checks) in open tables, then everything else in
 * collapsible <details>. With opts->max_bytes set, rows are left out from
 * the least important section upwards and a note says how many and where
 * the full results are, so a PR comment stays under GitHub's 65,536
 * characters and the job summary under 1 MiB.
 */
#include "report/report.h"

#include "perfgate/errors.h"
#include "verdict/exact.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells and lines: the one rule for text that leaves perfgate (base/text.h). */
#define md_text pg__text_md
#define md_code pg__text_md_code

typedef struct section {
    const char *title;
    int open;              /* a heading and an open table; else inside <details> */
    const char *header;    /* the table's header and alignment lines */
    char **rows;
    size_t nrows, shown;
} section;

enum { S_REGRESSED, S_CHECKS_FAILED, S_TRACE, S_UNSURE, S_IMPROVED, S_OTHER, S_SAME, S_CHECKS_PASSED, S_ROOFLINE, S__COUNT };

static int add_row(section *s, pg_buf *row)
{
    char **p = s->rows;

    /* Capacity doubles at powers of two, so 20,000 rows cost no quadratic copying. */
    if ((s->nrows & (s->nrows - 1)) == 0)
        p = realloc(s->rows, (s->nrows ? 2 * s->nrows : 1) * sizeof(*p));
    if (!p || !row->ptr) {
        pg__buf_clear(row);
        return pg_error_set(PG_ENOMEM, "out of memory rendering markdown");
    }
    s->rows = p;
    p[s->nrows++] = pg__buf_detach(row);
    return 0;
}

static void cell_duration(pg_buf *b, double s, const char *unit)
{
    char t[48];

    pg_fmt_value(t, sizeof(t), s > 0 ? s : NAN, unit);
    pg__buf_printf(b, " %s |", t);
}

/*
 * `prev` is the row above in the same section: a reason it already gave (a
 * dozen GPU cases skipped for one missing device) is said once.
 */
static int case_row(section *s, const pg_case_verdict *v, int kind, const pg_case_verdict *prev)
{
    pg_buf row = PG_BUF_INIT;
    char ch[80], p[32], res[16];

    pg_fmt_change_ci(ch, sizeof(ch), v->est.ratio, v->est.ci_lo, v->est.ci_hi);
    pg_fmt_p(p, sizeof(p), v->est.p_adj);
    pg_fmt_resolution(res, sizeof(res), v->est.resolution);
    pg__buf_puts(&row, "| ");
    md_code(&row, v->key);
    pg__buf_puts(&row, " |");
    if (kind == S_OTHER)
        pg__buf_printf(&row, " %s |", pg_verdict_name(v->verdict));
    cell_duration(&row, v->est.base_median, pg_verdict_unit(v));
    cell_duration(&row, v->est.head_median, pg_verdict_unit(v));
    if (kind != S_OTHER)
        pg__buf_printf(&row, " %s |", ch);
    /* The smallest change this case could have detected: users see which cases are too noisy to gate. */
    if (kind == S_UNSURE)
        pg__buf_printf(&row, " %s |", res);
    if (kind == S_UNSURE || kind == S_OTHER) {
        pg__buf_puts(&row, " ");
        if (prev && prev->verdict == v->verdict && prev->reason && v->reason && strcmp(prev->reason, v->reason) == 0)
            pg__buf_puts(&row, "(same as above)");
        else
            md_text(&row, v->reason ? v->reason : "");
        pg__buf_puts(&row, " |\n");
    } else if (kind == S_REGRESSED) {
        /* Why it fails: the test and, after a re-run, its confirmation. */
        pg__buf_printf(&row, " %s | %s | ", p, res);
        md_text(&row, v->reason ? v->reason : "");
        pg__buf_puts(&row, " |\n");
    } else {
        pg__buf_printf(&row, " %s | %s |\n", p, res);
    }
    return add_row(s, &row);
}

/* The per-op summary of a trace case's result (backend/trace.c), or NULL. */
static json_t *trace_ops(const pg_result *r)
{
    json_t *doc = r && r->extra_json ? json_loads(r->extra_json, 0, NULL) : NULL;
    json_t *ops = json_object_get(json_object_get(doc, "trace"), "ops");

    if (ops)
        json_incref(ops);
    json_decref(doc);
    return json_is_array(ops) ? ops : (json_decref(ops), NULL);
}

static json_t *find_op(json_t *ops, const char *name)
{
    size_t i;
    json_t *e;

    json_array_foreach(ops, i, e)
        if (json_is_string(json_array_get(e, 0)) && strcmp(json_string_value(json_array_get(e, 0)), name) == 0)
            return e;
    return NULL;
}

static void per_step(pg_buf *b, json_t *e)
{
    if (!e)
        pg__buf_puts(b, " 0 |");
    else
        pg__buf_printf(b, " %s%g |", json_is_true(json_array_get(e, 3)) ? "" : "~",
                       json_number_value(json_array_get(e, 2)));
}

static int trace_row(section *s, const char *key, json_t *e, json_t *other, int head_side)
{
    pg_buf row = PG_BUF_INIT;
    const char *path = json_string_value(json_array_get(e, 1));

    pg__buf_puts(&row, "| ");
    md_code(&row, key);
    pg__buf_puts(&row, " | ");
    md_code(&row, path ? path : json_string_value(json_array_get(e, 0)));
    pg__buf_puts(&row, " |");
    per_step(&row, head_side ? other : e);
    per_step(&row, head_side ? e : other);
    pg__buf_printf(&row, " %s |\n", !other ? (head_side ? "APPEARED" : "DISAPPEARED") : "count");
    return add_row(s, &row);
}

/*
 * Under a trace case: the ops that appeared or disappeared between the base
 * run's steps and the head's, with their paths, and the exact count changes.
 * The per-op times are cases of their own (NAME/self:OP) in the sections above.
 */
static int trace_rows(section *s, const pg_case_verdict *v)
{
    json_t *h = trace_ops(v->head), *b = trace_ops(v->base), *e, *o;
    size_t i;
    int err = 0;

    if (h && b) {
        json_array_foreach(h, i, e) {
            if (err || !json_is_string(json_array_get(e, 0)))
                continue;
            o = find_op(b, json_string_value(json_array_get(e, 0)));
            if (!o || json_number_value(json_array_get(o, 2)) != json_number_value(json_array_get(e, 2)))
                err = trace_row(s, v->key, e, o, 1);
        }
        json_array_foreach(b, i, e)
            if (!err && json_is_string(json_array_get(e, 0)) && !find_op(h, json_string_value(json_array_get(e, 0))))
                err = trace_row(s, v->key, e, NULL, 0);
    }
    json_decref(h);
    json_decref(b);
    return err;
}

static int check_row(section *s, const pg_check_result *c, int failed)
{
    pg_buf row = PG_BUF_INIT;
    char *name = pg__asprintf("%s/%s", c->suite ? c->suite : "", c->name ? c->name : "");

    pg__buf_puts(&row, "| ");
    md_code(&row, name ? name : "");
    pg__buf_puts(&row, " | ");
    md_text(&row, c->kind);
    pg__buf_puts(&row, " | ");
    md_code(&row, c->expected ? c->expected : "");
    pg__buf_puts(&row, " | ");
    if (failed) {
        md_code(&row, c->actual ? c->actual : "");
        pg__buf_puts(&row, " | ");
        md_text(&row, c->message ? c->message : "");
    } else {
        md_text(&row, c->skipped ? (c->message ? c->message : "skipped") : "passed");
    }
    pg__buf_puts(&row, " |\n");
    free(name);
    return add_row(s, &row);
}

/* A commit as a short code span; "unknown" without one. */
static int roof_row(section *s, const pg_result *r, const char *machine_json)
{
    pg__roof_cells c;
    pg_buf row = PG_BUF_INIT;

    if (pg__report_roof_cells(&c, r, machine_json) != 0)
        return 0;
    pg__buf_puts(&row, "| ");
    md_code(&row, r->key);
    pg__buf_printf(&row, " | %s | %s | %s | %s | %s |\n", c.bound, c.intensity, c.attainable, c.achieved, c.fraction);
    return add_row(s, &row);
}

static void short_sha(pg_buf *b, const char *sha)
{
    char s[13];

    snprintf(s, sizeof(s), "%s", sha ? sha : "unknown");
    md_code(b, s);
}

static void head_lines(pg_buf *b, const pg_report_data *d, const pg_report_options *o)
{
    const pg_comparison *cmp = d->cmp;
    const pg_run *run = d->run;

    if (o && o->marker)
        pg__buf_printf(b, "%s\n", o->marker);
    pg__buf_puts(b, "### ");
    pg_render_title(b, cmp, md_text);
    pg__buf_puts(b, "\n\n**");
    pg_render_summary_line(b, cmp);
    pg__buf_puts(b, "**\n\n");
    if (cmp->canary.summary) {
        md_text(b, cmp->canary.summary);
        pg__buf_puts(b, "\n\n");
    }

    pg__buf_puts(b, "Head ");
    if (d->origin && d->origin->pr > 0 && d->origin->head_sha && run->commit &&
        strcmp(d->origin->head_sha, run->commit) != 0) {
        /* A pull_request job tests a merge commit no one pushed; reviewers know the PR's head. */
        short_sha(b, d->origin->head_sha);
        pg__buf_printf(b, " (PR #%lld, measured as merge commit ", (long long)d->origin->pr);
        short_sha(b, run->commit);
        pg__buf_puts(b, ")");
    } else {
        short_sha(b, run->commit);
    }
    if (run->branch) {
        pg__buf_puts(b, " on ");
        md_code(b, run->branch);
    }
    if (cmp->base && (cmp->base->mode == PG_MODE_INTERLEAVED_BASE ||
                      (cmp->base->source && strcmp(cmp->base->source, "ab-base") == 0))) {
        /* An interleaved gate: the baseline is a build measured in the same job. */
        pg__buf_puts(b, " vs base build ");
        md_code(b, cmp->base->ref ? cmp->base->ref : "?");
        if (cmp->build.commit) {
            pg__buf_puts(b, " at ");
            short_sha(b, cmp->build.commit);
        }
        pg__buf_puts(b, " (interleaved rounds, paired)");
    } else if (cmp->base) {
        pg__buf_puts(b, " vs baseline ");
        short_sha(b, cmp->base->commit);
        if (cmp->base->branch) {
            pg__buf_puts(b, " on ");
            md_code(b, cmp->base->branch);
        }
        if (cmp->base->id || cmp->nbases > 1) {
            pg__buf_puts(b, " (");
            if (cmp->base->id)
                pg__buf_printf(b, "run %lld", (long long)cmp->base->id);
            if (cmp->nbases > 1)
                pg__buf_printf(b, "%s%zu runs pooled", cmp->base->id ? ", " : "", cmp->nbases);
            pg__buf_puts(b, ")");
        }
    } else {
        pg__buf_puts(b, "; no baseline run");
    }
    if (run->suite_set) {
        pg__buf_puts(b, " · suites ");
        md_code(b, run->suite_set);
    }
    if (run->machine_hash) {
        char m[13];
        snprintf(m, sizeof(m), "%s", run->machine_hash);
        pg__buf_puts(b, " · machine ");
        md_code(b, m);
    }
    pg__buf_puts(b, "\n\n");
}

/* [TEXT](URL) for an http(s) URL; nothing else is a link. @return 0, or -1 with nothing appended. */
static int link_to(pg_buf *b, const char *text, const char *url)
{
    pg_buf u = PG_BUF_INIT;
    int err = url ? pg__text_md_url(&u, url) : -1;

    if (err == 0 && u.ptr)
        pg__buf_printf(b, "[%s](%s)", text, u.ptr);
    else
        err = -1;
    pg__buf_clear(&u);
    return err;
}

static const char *run_link(const pg_report_data *d)
{
    if (d->origin && d->origin->run_url)
        return d->origin->run_url;
    return d->run->ci_url;
}

static void foot_lines(pg_buf *b, const pg_report_data *d)
{
    const char *url = run_link(d);

    pg__buf_puts(b, "<sub>Change: head median vs base median, with its interval in percent; p adjusted for "
                    "multiple cases. Method: ");
    md_text(b, d->cmp->method ? d->cmp->method : "-");
    pg__buf_puts(b, ".");
    if (url) {
        pg__buf_puts(b, " ");
        link_to(b, "CI run", url);
    }
    pg__buf_puts(b, "</sub>\n");
}

static size_t section_overhead(const section *s)
{
    /* Title or <details> lines, the table header, the closing lines and a possible "more" line. */
    return strlen(s->title) + strlen(s->header) + 96;
}

static void render_section(pg_buf *b, const section *s)
{
    size_t i;

    if (!s->nrows)
        return;
    if (s->open)
        pg__buf_printf(b, "#### %s (%zu)\n\n", s->title, s->nrows);
    else
        pg__buf_printf(b, "<details><summary>%s (%zu)</summary>\n\n", s->title, s->nrows);
    if (s->shown) {
        pg__buf_puts(b, s->header);
        for (i = 0; i < s->shown; i++)
            pg__buf_puts(b, s->rows[i]);
        pg__buf_puts(b, "\n");
    }
    if (s->shown < s->nrows)
        pg__buf_printf(b, "_%zu %snot shown (trimmed)._\n\n", s->nrows - s->shown, s->shown ? "more " : "");
    if (!s->open)
        pg__buf_puts(b, "</details>\n\n");
}

static const char case_hdr[] = "| case | base | head | change [interval] | p (adj.) | resolves |\n"
                               "| --- | ---: | ---: | ---: | ---: | ---: |\n";

int pg_render_markdown(pg_buf *out, const pg_report_data *d, const pg_report_options *o)
{
    section secs[S__COUNT] = {
        {"Regressions", 1,
         "| case | base | head | change [interval] | p (adj.) | resolves | why |\n"
         "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n", NULL, 0, 0},
        {"Failed exact checks", 1,
         "| check | kind | expected | actual | what differed |\n| --- | --- | --- | --- | --- |\n", NULL, 0, 0},
        {"Trace: ops that appeared, disappeared or changed count per step", 1,
         "| case | op (path below the step) | base | head | change |\n| --- | --- | ---: | ---: | --- |\n", NULL, 0, 0},
        {"Unsure", 0,
         "| case | base | head | change [interval] | resolves | why |\n| --- | ---: | ---: | ---: | ---: | --- |\n", NULL, 0, 0},
        {"Improvements", 0, case_hdr, NULL, 0, 0},
        {"New, missing, failed to run or skipped", 0,
         "| case | verdict | base | head | reason |\n| --- | --- | ---: | ---: | --- |\n", NULL, 0, 0},
        {"Unchanged", 0, case_hdr, NULL, 0, 0},
        {"Exact checks passed or skipped", 0, "| check | kind | expected | result |\n| --- | --- | --- | --- |\n",
         NULL, 0, 0},
        {"Roofline: compute-, memory- or overhead-bound", 0,
         "| case | bound | intensity | attainable | achieved | of roof |\n| --- | --- | ---: | ---: | ---: | ---: |\n",
         NULL, 0, 0},
    };
    static const struct {
        pg_verdict v;
        int sec;
    } map[] = {
        {PG_VERDICT_REGRESSED, S_REGRESSED}, {PG_VERDICT_UNSURE, S_UNSURE},   {PG_VERDICT_IMPROVED, S_IMPROVED},
        {PG_VERDICT_ERROR, S_OTHER},         {PG_VERDICT_MISSING, S_OTHER},   {PG_VERDICT_NEW, S_OTHER},
        {PG_VERDICT_SKIPPED, S_OTHER},       {PG_VERDICT_SAME, S_SAME},
    };
    const pg_comparison *cmp = d->cmp;
    pg_buf head = PG_BUF_INIT, foot = PG_BUF_INIT, note = PG_BUF_INIT;
    size_t i, j, total, fixed, omitted = 0, all = 0, start = out->len;
    int err = 0;

    for (i = 0; i < sizeof(map) / sizeof(map[0]) && !err; i++) {
        size_t n, *idx = pg__report_order(cmp, map[i].v, &n);
        if (!idx) {
            err = pg_error_set(PG_ENOMEM, "out of memory rendering markdown");
            break;
        }
        for (j = 0; j < n && !err; j++)
            err = case_row(&secs[map[i].sec], &cmp->cases[idx[j]], map[i].sec, j ? &cmp->cases[idx[j - 1]] : NULL);
        free(idx);
    }
    for (i = 0; i < cmp->ncases && !err; i++)
        err = trace_rows(&secs[S_TRACE], &cmp->cases[i]);
    for (i = 0; i < d->run->nchecks && !err; i++) {
        const pg_check_result *c = &d->run->checks[i];
        int failed = !c->passed && !c->skipped;
        err = check_row(&secs[failed ? S_CHECKS_FAILED : S_CHECKS_PASSED], c, failed);
    }
    for (i = 0; i < d->run->nresults && !err; i++)
        err = roof_row(&secs[S_ROOFLINE], &d->run->results[i], d->run->machine_json);
    if (err)
        goto cleanup;

    head_lines(&head, d, o);
    foot_lines(&foot, d);
    fixed = head.len + foot.len;
    total = fixed;
    for (i = 0; i < S__COUNT; i++) {
        secs[i].shown = secs[i].nrows;
        all += secs[i].nrows;
        if (secs[i].nrows)
            total += section_overhead(&secs[i]);
        for (j = 0; j < secs[i].nrows; j++)
            total += strlen(secs[i].rows[j]);
    }
    if (o && o->max_bytes && total > o->max_bytes) {
        /* Keep rows in order of importance until the budget (less room for the note) is spent. */
        size_t budget, used = fixed + 512;
        int full = 0;
        for (i = 0; i < S__COUNT; i++)
            if (secs[i].nrows)
                used += section_overhead(&secs[i]);
        budget = used < o->max_bytes ? o->max_bytes - used : 0;
        for (i = 0; i < S__COUNT; i++) {
            secs[i].shown = 0;
            for (j = 0; j < secs[i].nrows && !full; j++) {
                size_t len = strlen(secs[i].rows[j]);
                if (len > budget) {
                    full = 1;
                    break;
                }
                budget -= len;
                secs[i].shown++;
            }
            omitted += secs[i].nrows - secs[i].shown;
        }
        pg__buf_printf(&note, "> [!NOTE]\n> Trimmed to stay under %zu bytes: %zu of %zu rows are not shown.", o->max_bytes,
                       omitted, all);
        pg__buf_puts(&note, " Full results: ");
        if (link_to(&note, "the CI run", run_link(d)) == 0)
            pg__buf_puts(&note, " (job summary, JSON report).\n\n");
        else
            pg__buf_puts(&note, "`perfgate report --format md` or the JSON report.\n\n");
    }

    pg__buf_put(out, head.ptr, head.len);
    if (note.len)
        pg__buf_put(out, note.ptr, note.len);
    for (i = 0; i < S__COUNT; i++)
        render_section(out, &secs[i]);
    pg__buf_put(out, foot.ptr, foot.len);
    if (!out->ptr)
        err = pg_error_set(PG_ENOMEM, "out of memory rendering markdown");
    else if (o && o->max_bytes && out->len - start > o->max_bytes)
        err = pg_error_set(PG_EINVAL, "the markdown report does not fit in %zu bytes even without rows",
                           o->max_bytes);

cleanup:
    for (i = 0; i < S__COUNT; i++) {
        for (j = 0; j < secs[i].nrows; j++)
            free(secs[i].rows[j]);
        free(secs[i].rows);
    }
    pg__buf_clear(&head);
    pg__buf_clear(&foot);
    pg__buf_clear(&note);
    return err;
}
