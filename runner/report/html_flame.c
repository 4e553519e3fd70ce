/*
 * html_flame.c - the "What changed" section of the HTML report: per
 * REGRESSED or IMPROVED case with a diagnosis, its line, the functions
 * whose instructions moved most, and a differential flame graph of the two
 * Callgrind profiles (Brendan Gregg's differential flame graphs): frames
 * stacked from the region's root upwards, as wide as the head's inclusive
 * instructions, red where they grew against the base, blue where they
 * shrank, the deeper the colour the larger the change.
 *
 * Callgrind keeps calls between functions, not whole stacks, so a frame's
 * children share its cost as its calls do over the whole region (what
 * gprof and KCachegrind's call graphs assume). Frames under 0.2 % of the
 * region are left out, a function is not drawn inside itself, and the
 * graph stops at FLAME_MAX_DEPTH frames or FLAME_MAX_NODES in all.
 */
#include "report/html.h"

#include "base/fmt.h"
#include "base/util.h"
#include "cause/cause.h"
#include "meter/profile.h"
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { FW = 1200, FRAME_H = 17, FLAME_MAX_DEPTH = 40, FLAME_MAX_NODES = 3000 };
#define FLAME_MIN_SHARE 0.002

typedef struct frame {
    const char *name;
    double head, base;        /* inclusive Ir per iteration in this stack */
    double x;                 /* left edge, in head instructions from the root's left edge */
    int depth;
} frame;

/* A profile's calls grouped by caller: calls[order[first[f]] .. order[first[f + 1] - 1]] are f's. */
typedef struct callers {
    size_t *first, *order;
} callers;

typedef struct flame {
    const pg_profile *h, *b;
    callers ch, cb;
    frame *frames;
    size_t n, cap;
    const char *stack[FLAME_MAX_DEPTH];
    double floor;             /* the smallest frame drawn */
    double maxdelta;
    int depth;
} flame;

static int callers_init(callers *c, const pg_profile *p)
{
    size_t i, *fill;

    c->first = calloc(p->nfns + 1, sizeof(*c->first));
    c->order = calloc(p->ncalls + 1, sizeof(*c->order));
    fill = calloc(p->nfns + 1, sizeof(*fill));
    if (!c->first || !c->order || !fill) {
        free(fill);
        return -1;
    }
    for (i = 0; i < p->ncalls; i++)
        c->first[p->calls[i].from + 1]++;
    for (i = 0; i < p->nfns; i++)
        c->first[i + 1] += c->first[i];
    for (i = 0; i < p->ncalls; i++)
        c->order[c->first[p->calls[i].from] + fill[p->calls[i].from]++] = i;
    free(fill);
    return 0;
}

static void callers_clear(callers *c)
{
    free(c->first);
    free(c->order);
}

/* The cost of the calls from `from` (an index of p) to the function called `to`; 0 when none. */
static double call_cost(const pg_profile *p, const callers *c, long from, const char *to)
{
    size_t k;

    for (k = from >= 0 ? c->first[from] : 0; from >= 0 && k < c->first[from + 1]; k++)
        if (strcmp(p->fns[p->calls[c->order[k]].to].name, to) == 0)
            return p->calls[c->order[k]].cost;
    return 0;
}

static int on_stack(const flame *fl, int depth, const char *name)
{
    int i;

    for (i = 0; i < depth; i++)
        if (strcmp(fl->stack[i], name) == 0)
            return 1;
    return 0;
}

static int push(flame *fl, const char *name, double head, double base, double x, int depth)
{
    if (fl->n == fl->cap) {
        size_t cap = fl->cap ? 2 * fl->cap : 64;
        frame *p = realloc(fl->frames, cap * sizeof(*p));
        if (!p)
            return -1;
        fl->frames = p;
        fl->cap = cap;
    }
    fl->frames[fl->n++] = (frame){name, head, base, x, depth};
    if (fabs(head - base) > fl->maxdelta)
        fl->maxdelta = fabs(head - base);
    if (depth + 1 > fl->depth)
        fl->depth = depth + 1;
    return 0;
}

/*
 * The frame of `name` with `wh`/`wb` of the head's and base's cost at `x`,
 * then its callees from both profiles, each a share of this frame as its
 * calls are of the function's inclusive cost.
 */
static int grow(flame *fl, const char *name, double wh, double wb, double x, int depth)
{
    long ih = pg_profile_find(fl->h, name), ib = pg_profile_find(fl->b, name);
    double sh = ih >= 0 && fl->h->fns[ih].incl > 0 ? wh / fl->h->fns[ih].incl : 0;
    double sb = ib >= 0 && fl->b->fns[ib].incl > 0 ? wb / fl->b->fns[ib].incl : 0;
    size_t i, k;

    if (fl->n >= FLAME_MAX_NODES || depth >= FLAME_MAX_DEPTH || push(fl, name, wh, wb, x, depth) != 0)
        return 0;
    fl->stack[depth] = name;
    /* The head's callees in its order, then those only the base calls (they are as wide as the head says: 0). */
    for (k = 0; k < 2; k++) {
        const pg_profile *p = k ? fl->b : fl->h;
        const callers *c = k ? &fl->cb : &fl->ch;
        long from = k ? ib : ih;
        for (i = from >= 0 ? c->first[from] : 0; from >= 0 && i < c->first[from + 1]; i++) {
            const char *callee = p->fns[p->calls[c->order[i]].to].name;
            double ch, cb;
            if (on_stack(fl, depth + 1, callee) || (k && call_cost(fl->h, &fl->ch, ih, callee) > 0))
                continue;
            ch = sh * call_cost(fl->h, &fl->ch, ih, callee);
            cb = sb * call_cost(fl->b, &fl->cb, ib, callee);
            if (fmax(ch, cb) < fl->floor)
                continue;
            grow(fl, callee, ch, cb, x, depth + 1);
            x += ch;
        }
    }
    return 0;
}

/*
 * The function the graph starts from: of those holding (nearly) the whole
 * region, the deepest, which holds the least. The harness's frames around
 * the benchmark (main, the plugin host) hold it all and say nothing.
 */
static long root_of(const pg_profile *p)
{
    double most = 0;
    long best = -1;
    size_t i;

    for (i = 0; i < p->nfns; i++)
        most = fmax(most, p->fns[i].incl);
    for (i = 0; i < p->nfns; i++)
        if (p->fns[i].incl >= 0.995 * most && (best < 0 || p->fns[i].incl < p->fns[best].incl))
            best = (long)i;
    return best;
}

/* White at no change, deeper red as the frame grew, blue as it shrank. */
static void colour(char *out, size_t len, double delta, double maxdelta)
{
    double a = maxdelta > 0 ? fmin(1.0, fabs(delta) / maxdelta) : 0;
    int fade = (int)lround(235 - 200 * a);

    if (a < 0.01)
        snprintf(out, len, "rgb(235,235,235)");
    else if (delta > 0)
        snprintf(out, len, "rgb(250,%d,%d)", fade, fade);
    else
        snprintf(out, len, "rgb(%d,%d,250)", fade, fade);
}

static void draw(FILE *f, const flame *fl, double scale)
{
    size_t i;
    int height = fl->depth * FRAME_H;

    fprintf(f, "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
               "height=\"%d\" font-family=\"monospace\" font-size=\"11\">\n",
            FW, height, FW, height);
    for (i = 0; i < fl->n; i++) {
        const frame *fr = &fl->frames[i];
        double w = fr->head * scale, x = fr->x * scale, delta = fr->head - fr->base;
        int y = height - (fr->depth + 1) * FRAME_H;
        char fill[32], base[48], head[48];
        if (w < 0.5)
            continue;
        colour(fill, sizeof(fill), delta, fl->maxdelta);
        pg_fmt_count(base, sizeof(base), fr->base);
        pg_fmt_count(head, sizeof(head), fr->head);
        fprintf(f, "<g class=\"frame %s\" data-fn=\"", delta > 0 ? "grew" : delta < 0 ? "shrank" : "same");
        pg__html_esc(f, fr->name);
        fprintf(f, "\"><title>");
        pg__html_esc(f, fr->name);
        fprintf(f, ": %s → %s Ir (%s%.0f)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
                   "stroke=\"#fff\" stroke-width=\"0.5\"/>",
                base, head, delta >= 0 ? "+" : "", delta, x, y, w, FRAME_H - 1, fill);
        if (w > 30) {
            /* As much of the name as the frame holds, at about 7 px a character. */
            size_t fit = (size_t)((w - 6) / 7), len = strlen(fr->name);
            char *shown = pg__asprintf("%.*s%s", (int)(len > fit ? (fit > 2 ? fit - 2 : 0) : len), fr->name,
                                       len > fit ? ".." : "");
            fprintf(f, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + FRAME_H - 5);
            pg__html_esc(f, shown ? shown : "");
            fprintf(f, "</text>");
            free(shown);
        }
        fprintf(f, "</g>\n");
    }
    fprintf(f, "</svg>\n");
}

/* The differential flame graph of one case's profiles; nothing when either is missing or unreadable. */
static void flame_graph(FILE *f, const pg_diagnosis *d)
{
    pg_profile h, b;
    flame fl;
    long root;

    if (pg_profile_from_json(&h, d->head_profile) != 0)
        return;
    if (pg_profile_from_json(&b, d->base_profile) != 0) {
        pg_profile_clear(&h);
        return;
    }
    memset(&fl, 0, sizeof(fl));
    fl.h = &h;
    fl.b = &b;
    if (callers_init(&fl.ch, &h) == 0 && callers_init(&fl.cb, &b) == 0 && (root = root_of(&h)) >= 0) {
        long rb = pg_profile_find(&b, h.fns[root].name);
        fl.floor = FLAME_MIN_SHARE * fmax(h.fns[root].incl, rb >= 0 ? b.fns[rb].incl : 0);
        grow(&fl, h.fns[root].name, h.fns[root].incl, rb >= 0 ? b.fns[rb].incl : 0, 0, 0);
    }
    if (fl.n && fl.frames[0].head > 0) {
        fprintf(f, "<p class=\"flame-legend\">Differential flame graph from <code>");
        pg__html_esc(f, fl.frames[0].name);
        fprintf(f, "</code> up: widths are the head's instructions, <span style=\"color:#c00\">red grew</span>, "
                   "<span style=\"color:#00c\">blue shrank</span> against the base (inclusive).</p>\n");
        draw(f, &fl, FW / fl.frames[0].head);
    }
    free(fl.frames);
    callers_clear(&fl.ch);
    callers_clear(&fl.cb);
    pg_profile_clear(&h);
    pg_profile_clear(&b);
}

static void fn_rows(FILE *f, const char *which, const pg_fn_delta *fn, size_t n)
{
    size_t i;

    for (i = 0; i < n && i < 5; i++) {
        char base[48], head[48];
        pg_fmt_count(base, sizeof(base), fn[i].base);
        pg_fmt_count(head, sizeof(head), fn[i].head);
        fprintf(f, "<tr><td>%s</td><td><code>", which);
        pg__html_esc(f, fn[i].name);
        fprintf(f, "</code></td><td>");
        if (fn[i].file) {
            pg__html_esc(f, pg_cause_file_name(fn[i].file));
            if (fn[i].line > 0)
                fprintf(f, ":%d", fn[i].line);
        }
        fprintf(f, "</td><td>%s</td><td>%s</td><td>", base, head);
        if (isfinite(fn[i].share))
            fprintf(f, "%.0f %%", 100 * fn[i].share);
        fprintf(f, "</td></tr>\n");
    }
}

/* A "what changed" line: its backticks delimit the names (cause.h), shown as code. */
static void line_html(FILE *f, const char *s)
{
    int in_code = 0;

    while (*s) {
        const char *tick = strchr(s, '`');
        size_t n = tick ? (size_t)(tick - s) : strlen(s);
        char *part = pg__asprintf("%.*s", (int)n, s);
        pg__html_esc(f, part ? part : "");
        free(part);
        s += n;
        if (*s == '`') {
            fputs(in_code ? "</code>" : "<code>", f);
            in_code = !in_code;
            s++;
        }
    }
    if (in_code)
        fputs("</code>", f);
}

void pg__html_cause(FILE *f, const pg_comparison *cmp)
{
    size_t i, n = 0;

    for (i = 0; i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        const pg_diagnosis *d = v->diag;
        if (!d || (v->verdict != PG_VERDICT_REGRESSED && v->verdict != PG_VERDICT_IMPROVED) ||
            pg__report_told_beside(cmp, v))
            continue;
        if (!n++)
            fprintf(f, "<section class=\"panel\" id=\"cause\">\n<h2>What changed</h2>\n");
        fprintf(f, "<figure class=\"cause\"><h3><code>");
        pg__html_esc(f, v->key);
        fprintf(f, "</code> · %s</h3>\n<p class=\"what-changed\">", pg_verdict_name(v->verdict));
        line_html(f, d->line ? d->line : "nothing counted");
        if (d->note) {
            fprintf(f, " <em>(");
            pg__html_esc(f, d->note);
            fprintf(f, ")</em>");
        }
        fprintf(f, "</p>\n");
        if (d->nself || d->nincl) {
            fprintf(f, "<table><thead><tr><th></th><th>function</th><th>where</th><th>base Ir</th><th>head Ir</th>"
                       "<th>share of the change</th></tr></thead><tbody>\n");
            fn_rows(f, "self", d->self, d->nself);
            fn_rows(f, "inclusive", d->incl, d->nincl);
            fprintf(f, "</tbody></table>\n");
        }
        if (d->base_profile && d->head_profile)
            flame_graph(f, d);
        fprintf(f, "</figure>\n");
    }
    if (n)
        fprintf(f, "</section>\n");
}
