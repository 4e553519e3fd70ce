/*
 * site.c - `perfgate site` (site.h): the branch's history and its stored
 * gate decisions read once, each case summed up, then the style sheet,
 * the index and a page per case (page.c).
 *
 * The history is history.h's (every case's points and change points, one
 * sequential read); the decisions are read run by run through the store's
 * decision call and kept per case, compactly: a reason only where the
 * verdict is not SAME. A year of nightlies of 1,000 cases is 365,000
 * decided cases (docs/history.md, "A published site", has the cost).
 */
#include "site/site.h"

#include "site/internal.h"

#include "base/text.h"
#include "perfgate/errors.h"
#include "report/html.h"
#include "report/report.h"
#include "stats/stats.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The index lists this many regressions at most, newest first; each case page lists its own. */
#define MAX_INDEX_REGRESSIONS 200
/* A sparkline shows this many of the newest points at most. */
#define SPARK_POINTS 120

/* ---- shared pieces -------------------------------------------------------- */

void pg__site_esc(FILE *f, const char *s)
{
    pg_buf b = PG_BUF_INIT;

    pg__text_xml(&b, s ? s : "");
    if (b.ptr)
        fputs(b.ptr, f);
    pg__buf_clear(&b);
}

const char *pg__site_date(char out[16], int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (t <= 0 || !gmtime_r(&tt, &tm) || strftime(out, 16, "%Y-%m-%d", &tm) == 0)
        snprintf(out, 16, "-");
    return out;
}

void pg__site_value(char *out, size_t len, const char *key, double v)
{
    if (!(v > 0))
        snprintf(out, len, "-");
    else if (strchr(key, '#'))
        snprintf(out, len, "%.6g", v);
    else
        pg_fmt_duration(out, len, v);
}

static int hex_sha(const char *sha)
{
    size_t n = 0;

    while (sha && isxdigit((unsigned char)sha[n]))
        n++;
    return sha && n >= 7 && n <= 64 && sha[n] == '\0';
}

void pg__site_commit(FILE *f, const pg__site *s, const char *sha)
{
    if (!sha || !*sha) {
        fputs("-", f);
        return;
    }
    if (s->repo_url && hex_sha(sha))
        fprintf(f, "<a href=\"%s/commit/%s\"><code>%.7s</code></a>", s->repo_url, sha, sha);
    else {
        fputs("<code>", f);
        pg__site_esc(f, hex_sha(sha) ? "" : sha);
        if (hex_sha(sha))
            fprintf(f, "%.7s", sha);
        fputs("</code>", f);
    }
}

const char *pg__site_class(const char *verdict)
{
    if (!verdict)
        return "plain";
    if (strcmp(verdict, "REGRESSED") == 0 || strcmp(verdict, "ERROR") == 0)
        return "bad";
    if (strcmp(verdict, "IMPROVED") == 0)
        return "good";
    return strcmp(verdict, "UNSURE") == 0 ? "unsure" : "plain";
}

/* What the site adds to the report's style: the index's table, sparklines, the navigation. */
static const char site_style[] =
    "nav{font-size:13px;margin:0 0 8px}nav a{margin-right:12px}\n"
    ".spark{width:160px;height:28px;display:block}.spark polyline{fill:none;stroke:#08519c;stroke-width:1}\n"
    ".spark .cp{fill:#d62728}.num{text-align:right;white-space:nowrap}.up{color:#b30000}.down{color:#006d2c}\n"
    ".full svg{width:100%;max-width:900px;height:auto;display:block}h1 code{font-size:18px}\n"
    "td code{overflow-wrap:anywhere}.note{color:#555;font-size:13px}\n";

void pg__site_head(FILE *f, const char *title, const char *css)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    pg__site_esc(f, title);
    fprintf(f, "</title>\n<link rel=\"stylesheet\" href=\"%s\">\n</head><body>\n", css);
}

int pg__site_open(const pg__site *s, const char *rel, pg_outfile *o)
{
    char *path = pg__asprintf("%s/%s", s->dir, rel);
    int err;

    if (!path)
        return pg_error_set(PG_ENOMEM, "out of memory");
    err = pg__outfile_open(o, path, "page");
    free(path);
    return err;
}

int pg__site_tail(pg_outfile *o, pg__site *s)
{
    long size;
    int err;

    fputs("<footer class=\"note\"><p>Written by perfgate site: plain HTML and SVG, no scripts.</p></footer>\n"
          "</body></html>\n", o->f);
    size = ftell(o->f);
    if ((err = pg__outfile_commit(o, "page")) != 0)
        return err;
    s->stats->bytes += size > 0 ? size : 0;
    return 0;
}

/* ---- reading -------------------------------------------------------------- */

/*
 * The branch named, else the one with the most runs (a history database is
 * mostly one branch's: main's, or the nights'), the newest on a tie.
 * PG_ENOTFOUND naming the branches when the named one has no runs.
 */
static int pick_branch(pg__site *s, pg_store *store, const char *want)
{
    pg_run_filter all = {0};
    pg_run_list l = {0};
    pg_keymap seen = PG_KEYMAP_INIT;
    pg_buf names = PG_BUF_INIT;
    size_t i, at, best = 0, most = 0, *counts;
    int err;

    if ((err = pg_store_list_runs(&l, store, &all)) != 0)
        return err;
    /* Runs per branch, each counted at the place of its branch's newest run (the list is newest first). */
    if (!(counts = calloc(l.count + 1, sizeof(*counts)))) {
        pg_run_list_clear(&l);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    for (i = 0; i < l.count; i++) {
        if (!l.items[i].branch || (want && strcmp(want, l.items[i].branch) != 0))
            continue;
        if (!pg__keymap_get(&seen, l.items[i].branch, &at) && pg__keymap_put(&seen, l.items[i].branch, i) == 0)
            at = i;
        else if (!pg__keymap_get(&seen, l.items[i].branch, &at))
            continue;
        if (++counts[at] > most || (counts[at] == most && at < best)) {
            most = counts[at];
            best = at;
        }
    }
    pg__keymap_clear(&seen);
    free(counts);
    if (most) {
        s->branch = pg__strdup(l.items[best].branch);
        pg_run_list_clear(&l);
        return s->branch ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    }
    /* The branches, in the order of their newest runs. */
    for (i = 0; i < l.count && names.len < 200; i++)
        if (l.items[i].branch && !strstr(names.ptr ? names.ptr : "", l.items[i].branch))
            pg__buf_printf(&names, "%s%s", names.len ? ", " : "", l.items[i].branch);
    pg_run_list_clear(&l);
    err = pg_error_set(PG_ENOTFOUND, "no runs on branch '%s'%s%s%s", want ? want : "",
                       names.ptr ? " (branches with runs: " : "; the database is empty", names.ptr ? names.ptr : "",
                       names.ptr ? "); pass --branch" : "");
    pg__buf_clear(&names);
    return err;
}

/* A file name for a key: its safe characters, then 8 hex digits of its hash so two keys never share one. */
static void slug(char out[128], const char *key)
{
    uint64_t h = 1469598103934665603ULL;
    size_t n = 0;
    const char *p;

    for (p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    for (p = key; *p && n < 100; p++)
        out[n++] = isalnum((unsigned char)*p) || *p == '-' || *p == '.' ? *p : '_';
    snprintf(out + n, 128 - n, "-%08x", (unsigned)(h ^ (h >> 32)));
}

/* The newest median, and the median of the points of the last `days` days before the newest point. */
static void summarize(pg__site_case *c, int days)
{
    const pg_history *h = c->h;
    double *v;
    size_t i, n = 0;

    c->current = h->npoints ? h->points[h->npoints - 1].median : NAN;
    c->recent = NAN;
    if (!h->npoints || !(v = malloc(h->npoints * sizeof(*v))))
        return;
    for (i = h->npoints; i-- > 0;) {
        if (h->points[i].started_at < h->points[h->npoints - 1].started_at - 86400LL * days)
            break;
        v[n++] = h->points[i].median;
    }
    if (n) {
        pg_stats_sort(v, n);
        c->recent = pg_stats_quantile_sorted(v, n, 0.5);
    }
    c->nrecent = n;
    free(v);
}

/* Where the decision's gate ran on GitHub: its pull request, and the repository for links. */
static int64_t origin_of(const pg_decision *d, char **repository)
{
    json_t *o = json_loads(d->detail ? d->detail : "{}", 0, NULL), *og = json_object_get(o, "origin");
    json_t *repo = json_object_get(og, "repository");
    int64_t pr = json_is_integer(json_object_get(og, "pr")) ? json_integer_value(json_object_get(og, "pr")) : 0;

    if (repository && !*repository && json_is_string(repo))
        *repository = pg__strdup(json_string_value(repo));
    json_decref(o);
    return pr > 0 ? pr : 0;
}

static int add_decision(pg__site_case *c, const pg_run_info *run, const pg_decision_case *dc, int64_t pr)
{
    pg__site_decision *d;

    if (c->ndec == c->capdec) {
        size_t cap = c->capdec ? 2 * c->capdec : 8;
        pg__site_decision *p = realloc(c->dec, cap * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory");
        c->dec = p;
        c->capdec = cap;
    }
    d = &c->dec[c->ndec];
    memset(d, 0, sizeof(*d));
    d->at = run->started_at;
    d->commit = pg__strdup(run->commit);
    snprintf(d->verdict, sizeof(d->verdict), "%s", dc->verdict ? dc->verdict : "-");
    d->ratio = dc->ratio;
    d->lo = dc->ci_lo;
    d->hi = dc->ci_hi;
    d->rounds = dc->rounds;
    d->pr = pr;
    if (dc->reason && strcmp(d->verdict, "SAME") != 0)
        d->reason = pg__strdup(dc->reason);
    c->ndec++;
    return 0;
}

/* Every stored decision on the branch's runs, newest first, into the cases they decided. */
static int read_decisions(pg__site *s, pg_store *store, const pg_keymap *keys, char **repository)
{
    pg_run_filter f = {0};
    pg_run_list l = {0};
    size_t i, j, at;
    int err;

    f.branch = s->branch;
    if ((err = pg_store_list_runs(&l, store, &f)) != 0)
        return err;
    for (i = 0; i < l.count && !err; i++) {
        pg_decision d;
        int64_t pr;
        if ((err = pg_store_load_decision(&d, store, l.items[i].id)) == PG_ENOTFOUND) {
            err = 0;
            continue;
        }
        if (err)
            break;
        s->stats->decisions++;
        pr = origin_of(&d, repository);
        for (j = 0; j < d.ncases && !err; j++)
            if (d.cases[j].key && pg__keymap_get(keys, d.cases[j].key, &at))
                err = add_decision(&s->cases[at], &l.items[i], &d.cases[j], pr);
        pg_decision_clear(&d);
    }
    pg_run_list_clear(&l);
    return err;
}

/* https://HOST/OWNER/NAME from the flag, else from a decision's repository; NULL when neither has that shape. */
static char *repo_url(const char *flag, const char *repository)
{
    const char *server = getenv("GITHUB_SERVER_URL");
    char *url = flag ? pg__strdup(flag)
                     : repository ? pg__asprintf("%s/%s", server && *server ? server : "https://github.com", repository)
                                  : NULL;
    size_t n, slashes = 0, i;

    if (!url)
        return NULL;
    n = strlen(url);
    while (n && url[n - 1] == '/')
        url[--n] = '\0';
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)url[i];
        slashes += ch == '/';
        if (!isalnum(ch) && !strchr("/:.-_", ch))
            break;
    }
    if (i < n || strncmp(url, "https://", 8) != 0 || slashes != 4) {
        free(url);
        return NULL;
    }
    return url;
}

static int load(pg__site *s, pg_store *store, const pg_site_options *o)
{
    pg_history_options ho = PG_HISTORY_OPTIONS_INIT;
    pg_keymap keys = PG_KEYMAP_INIT;
    char *repository = NULL;
    size_t i;
    int err;

    if ((err = pick_branch(s, store, o->branch)) != 0 ||
        (err = pg_history_load(&s->hs, &s->nh, store, NULL, s->branch, 0, &ho)) != 0)
        return err;
    if (s->nh && !(s->cases = calloc(s->nh, sizeof(*s->cases))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < s->nh; i++) {
        s->cases[i].h = &s->hs[i];
        slug(s->cases[i].slug, s->hs[i].key);
        summarize(&s->cases[i], s->days);
        s->stats->points += s->hs[i].npoints;
        if ((err = pg__keymap_put(&keys, s->hs[i].key, i)) != 0)
            break;
    }
    if (!err)
        err = read_decisions(s, store, &keys, &repository);
    s->repo_url = repo_url(o->repo_url, repository);
    if (!err && o->repo_url && !s->repo_url)
        err = pg_error_set(PG_EUSAGE, "--repo-url %s: give https://HOST/OWNER/NAME", o->repo_url);
    free(repository);
    pg__keymap_clear(&keys);
    return err;
}

/* ---- the index ------------------------------------------------------------ */

static void change_text(char *out, size_t len, double ratio)
{
    pg_fmt_change(out, len, ratio);
}

/* The newest points of a case as a small line, its last change point a red dot. */
static void sparkline(FILE *f, const pg_history *h)
{
    size_t first = h->npoints > SPARK_POINTS ? h->npoints - SPARK_POINTS : 0, n = h->npoints - first, i;
    double lo = INFINITY, hi = -INFINITY;

    if (n == 0)
        return;
    for (i = first; i < h->npoints; i++) {
        lo = fmin(lo, h->points[i].median);
        hi = fmax(hi, h->points[i].median);
    }
    if (!(hi > lo))
        hi = lo * 1.01 + 1e-30;
    fputs("<svg class=\"spark\" viewBox=\"0 0 160 28\" role=\"img\" aria-label=\"trend\"><polyline points=\"", f);
    for (i = 0; i < n; i++)
        fprintf(f, "%.1f,%.1f ", n > 1 ? 2 + 156.0 * (double)i / (double)(n - 1) : 80.0,
                25 - 22 * (h->points[first + i].median - lo) / (hi - lo));
    fputs("\"/>", f);
    if (h->nchanges && h->changes[h->nchanges - 1].index >= first) {
        size_t k = h->changes[h->nchanges - 1].index - first;
        fprintf(f, "<circle class=\"cp\" r=\"2.2\" cx=\"%.1f\" cy=\"%.1f\"/>",
                n > 1 ? 2 + 156.0 * (double)k / (double)(n - 1) : 80.0,
                25 - 22 * (h->points[first + k].median - lo) / (hi - lo));
    }
    fputs("</svg>", f);
}

/* One entry of a regressions list: when, which case, what. */
typedef struct reg {
    int64_t at;
    size_t c;
    size_t k;                 /* change point index, or decision index */
    int decision;
} reg;

static int newest_first(const void *a, const void *b)
{
    const reg *x = a, *y = b;

    if (x->at != y->at)
        return x->at < y->at ? 1 : -1;
    return (x->c > y->c) - (x->c < y->c);
}

static void reg_row(FILE *f, const pg__site *s, const reg *r, const char *prefix)
{
    const pg__site_case *c = &s->cases[r->c];
    char date[16], ch[64], lo[32], hi[32];

    fprintf(f, "<tr class=\"bad\"><td>%s</td><td><a href=\"%s%s.html\"><code>", pg__site_date(date, r->at), prefix,
            c->slug);
    pg__site_esc(f, c->h->key);
    fputs("</code></a></td><td>", f);
    if (r->decision) {
        const pg__site_decision *d = &c->dec[r->k];
        pg_fmt_change_ci(ch, sizeof(ch), d->ratio, d->lo, d->hi);
        fprintf(f, "gate REGRESSED %s at ", ch);
        pg__site_commit(f, s, d->commit);
        if (d->pr && s->repo_url)
            fprintf(f, " (<a href=\"%s/pull/%lld\">#%lld</a>)", s->repo_url, (long long)d->pr, (long long)d->pr);
        else if (d->pr)
            fprintf(f, " (#%lld)", (long long)d->pr);
    } else {
        const pg_change_point *cp = &c->h->changes[r->k];
        change_text(ch, sizeof(ch), cp->ratio);
        pg__site_value(lo, sizeof(lo), c->h->key, cp->before);
        pg__site_value(hi, sizeof(hi), c->h->key, cp->after);
        fprintf(f, "change point %s (%s to %s) at ", ch, lo, hi);
        pg__site_commit(f, s, c->h->points[cp->index].commit);
    }
    fputs("</td></tr>\n", f);
}

int pg__site_regressions(FILE *f, pg__site *s, size_t only, const char *prefix, size_t max)
{
    reg *rs = NULL;
    size_t n = 0, cap = 0, i, k;

    for (i = 0; i < s->nh; i++) {
        const pg__site_case *c = &s->cases[i];
        if (only != (size_t)-1 && i != only)
            continue;
        for (k = 0; k < c->h->nchanges + c->ndec; k++) {
            int dec = k >= c->h->nchanges;
            size_t j = dec ? k - c->h->nchanges : k;
            if (dec ? strcmp(c->dec[j].verdict, "REGRESSED") != 0 : !(c->h->changes[j].ratio > 1))
                continue;
            if (n == cap) {
                reg *p = realloc(rs, (cap = cap ? 2 * cap : 64) * sizeof(*p));
                if (!p) {
                    free(rs);
                    return pg_error_set(PG_ENOMEM, "out of memory");
                }
                rs = p;
            }
            rs[n].at = dec ? c->dec[j].at : c->h->points[c->h->changes[j].index].started_at;
            rs[n].c = i;
            rs[n].k = j;
            rs[n++].decision = dec;
        }
    }
    if (n)
        qsort(rs, n, sizeof(*rs), newest_first);
    if (n == 0)
        fputs("<p>None: no step up among the change points, no gate decided REGRESSED.</p>\n", f);
    else
        fputs("<table><thead><tr><th>date</th><th>case</th><th>what</th></tr></thead><tbody>\n", f);
    for (i = 0; i < n && i < max; i++)
        reg_row(f, s, &rs[i], prefix);
    if (n)
        fputs("</tbody></table>\n", f);
    if (n > max)
        fprintf(f, "<p class=\"note\">and %zu older; each case's page lists its own.</p>\n", n - max);
    if (only == (size_t)-1)
        s->stats->regressions = n;
    free(rs);
    return 0;
}

static void index_row(FILE *f, const pg__site *s, const pg__site_case *c)
{
    const pg_history *h = c->h;
    char cur[32], rec[32], ch[32], date[16];
    double vs = c->current / c->recent;

    fprintf(f, "<tr><td><a href=\"cases/%s.html\"><code>", c->slug);
    pg__site_esc(f, h->key);
    fputs("</code></a></td><td>", f);
    sparkline(f, h);
    pg__site_value(cur, sizeof(cur), h->key, c->current);
    pg__site_value(rec, sizeof(rec), h->key, c->recent);
    change_text(ch, sizeof(ch), vs);
    fprintf(f, "</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num %s\">%s</td><td>", cur, rec,
            vs > 1.005 ? "up" : vs < 0.995 ? "down" : "", isfinite(vs) ? ch : "-");
    if (h->nchanges) {
        const pg_change_point *cp = &h->changes[h->nchanges - 1];
        change_text(ch, sizeof(ch), cp->ratio);
        fprintf(f, "<span class=\"%s\">%s</span> at ", cp->ratio > 1 ? "up" : "down", ch);
        pg__site_commit(f, s, h->points[cp->index].commit);
        fprintf(f, " (%s)", pg__site_date(date, h->points[cp->index].started_at));
    } else {
        fputs("none", f);
    }
    fprintf(f, "</td><td class=\"%s\">%s</td></tr>\n", pg__site_class(c->ndec ? c->dec[0].verdict : NULL),
            c->ndec ? c->dec[0].verdict : "-");
}

static int write_index(pg__site *s)
{
    char date[16];
    pg_outfile out = PG_OUTFILE_INIT;
    FILE *f;
    int64_t newest = 0;
    size_t i;
    int err;

    if ((err = pg__site_open(s, "index.html", &out)) != 0)
        return err;
    f = out.f;
    for (i = 0; i < s->nh; i++)
        if (s->hs[i].npoints && s->hs[i].points[s->hs[i].npoints - 1].started_at > newest)
            newest = s->hs[i].points[s->hs[i].npoints - 1].started_at;
    pg__site_head(f, s->title, "style.css");
    fputs("<h1>", f);
    pg__site_esc(f, s->title);
    fprintf(f, "</h1>\n<p class=\"summary\">%zu case%s on branch <code>", s->nh, s->nh == 1 ? "" : "s");
    pg__site_esc(f, s->branch);
    fprintf(f, "</code>, %zu points, newest run %s; %zu stored gate decision%s.</p>\n", s->stats->points,
            pg__site_date(date, newest), s->stats->decisions, s->stats->decisions == 1 ? "" : "s");
    fputs("<section class=\"panel\" id=\"regressions\">\n<h2>Regressions</h2>\n", f);
    if ((err = pg__site_regressions(f, s, (size_t)-1, "cases/", MAX_INDEX_REGRESSIONS)) != 0) {
        pg__outfile_abort(&out);
        return err;
    }
    fprintf(f, "</section>\n<section class=\"panel\" id=\"cases\">\n<h2>Cases</h2>\n<p class=\"note\">Trend: the newest "
               "%d points, the last change point in red. Newest against the median of the last %d days.</p>\n"
               "<table><thead><tr><th>case</th><th>trend</th><th class=\"num\">newest</th><th class=\"num\">%d-day "
               "median</th><th class=\"num\">newest vs %d days</th><th>last change point</th><th>newest gate</th>"
               "</tr></thead><tbody>\n",
            SPARK_POINTS, s->days, s->days, s->days);
    for (i = 0; i < s->nh; i++)
        index_row(f, s, &s->cases[i]);
    fputs("</tbody></table>\n</section>\n", f);
    return pg__site_tail(&out, s);
}

/* ---- the files ------------------------------------------------------------ */

/* dir and dir/cases exist, and no page of an earlier site is left in dir/cases. */
static int prepare_dir(const pg__site *s)
{
    char *cases = pg__asprintf("%s/cases", s->dir);
    struct dirent *e;
    DIR *d;
    int err = 0;

    if (!cases)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if ((mkdir(s->dir, 0777) != 0 && errno != EEXIST) || (mkdir(cases, 0777) != 0 && errno != EEXIST))
        err = pg_error_set(PG_EIO, "cannot create %s: %s", cases, strerror(errno));
    if (!err && (d = opendir(cases)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            size_t n = strlen(e->d_name);
            char *p;
            if (n < 6 || strcmp(e->d_name + n - 5, ".html") != 0 || !(p = pg__asprintf("%s/%s", cases, e->d_name)))
                continue;
            unlink(p);
            free(p);
        }
        closedir(d);
    }
    free(cases);
    return err;
}

static int write_style(pg__site *s)
{
    pg_outfile out = PG_OUTFILE_INIT;
    long size;
    int err;

    if ((err = pg__site_open(s, "style.css", &out)) != 0)
        return err;
    fputs(pg_report_html_style, out.f);
    fputs(site_style, out.f);
    size = ftell(out.f);
    if ((err = pg__outfile_commit(&out, "style sheet")) == 0)
        s->stats->bytes += size > 0 ? size : 0;
    return err;
}

static void site_clear(pg__site *s)
{
    size_t i, k;

    for (i = 0; s->cases && i < s->nh; i++) {
        for (k = 0; k < s->cases[i].ndec; k++) {
            free(s->cases[i].dec[k].commit);
            free(s->cases[i].dec[k].reason);
        }
        free(s->cases[i].dec);
    }
    free(s->cases);
    pg_history_free_all(s->hs, s->nh);
    free(s->branch);
    free(s->title);
    free(s->repo_url);
}

int pg_site_write(pg_site_stats *out, pg_store *store, const char *dir, const pg_site_options *opts)
{
    pg_site_options dflt = PG_SITE_OPTIONS_INIT;
    pg__site s;
    size_t i;
    int err;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    if (!opts)
        opts = &dflt;
    s.dir = dir;
    s.stats = out;
    s.days = opts->days > 0 ? opts->days : 30;
    if ((err = load(&s, store, opts)) != 0)
        goto done;
    snprintf(out->branch, sizeof(out->branch), "%s", s.branch);
    s.title = opts->title ? pg__strdup(opts->title) : pg__asprintf("perfgate: %s", s.branch);
    if (!s.title) {
        err = pg_error_set(PG_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = prepare_dir(&s)) != 0 || (err = write_style(&s)) != 0 || (err = write_index(&s)) != 0)
        goto done;
    for (i = 0; i < s.nh && !err; i++)
        err = pg__site_case_page(&s, &s.cases[i]);
    out->cases = err ? 0 : s.nh;
done:
    site_clear(&s);
    return err;
}
