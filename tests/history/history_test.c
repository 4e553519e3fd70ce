/*
 * history_test.c - change points over a simulated history of 120 commits.
 *
 * Each commit gets one run; its samples are log-normal around a true time
 * that steps +8% at commit 40 and -5% at commit 90, on top of run-to-run
 * drift like our machines show (noise.md: 2.2% typical, heavier tails).
 * `perfgate history --format json` must find both steps within one commit
 * and nothing else. Set PG_KEEP_SIM_DB=PATH to keep the database.
 */
#include "support.h"

#include "history/history.h"
#include "stats/stepfit.h"
#include "base/model.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng_state;

static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* Run-to-run drift: mostly 2.2% sd, sometimes a machine phase three times larger. */
static double drift(void)
{
    double d = 0.022 * gauss();
    return uniform() < 0.05 ? 3 * d : d;
}

static void add_result(pg_run *run, const char *key, double truth)
{
    pg_result *r;
    size_t j;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__strdup(key);
    r->suite = pg__strdup("sim");
    r->name = pg__strdup("case");
    r->params_json = pg__strdup("{}");
    r->threads = 1;
    r->device = pg__strdup("cpu");
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->nsamples = 30;
    r->samples = malloc(30 * sizeof(double));
    for (j = 0; j < 30; j++)
        r->samples[j] = truth * exp(0.04 * gauss());
    r->number_per_run = 100;
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, r->nsamples));
}

/* Stores 120 runs on branch main: case "sim/stepped" with the two steps, "sim/flat" without. */
static void simulate(const char *db, uint64_t seed)
{
    pg_store *s;
    int i;

    rng_state = seed;
    pg_assert_ok(pg_store_open(&s, db));
    for (i = 0; i < 120; i++) {
        pg_run *run;
        double step = i >= 90 ? 1.08 * 0.95 : (i >= 40 ? 1.08 : 1.0);
        double phase = drift();
        pg_assert_ok(pg_run_new(&run));
        run->branch = pg__strdup("main");
        run->commit = pg__asprintf("%040d", i + 1);
        run->machine_hash = pg__strdup("00000000000000aa");
        run->machine_json = pg__strdup("{}");
        run->started_at = 1700000000 + 86400LL * i;
        add_result(run, "sim/stepped[]@1:cpu", 1e-3 * step * exp(phase));
        add_result(run, "sim/flat[]@1:cpu", 2e-3 * exp(drift()));
        pg_assert_ok(pg_store_save_run(s, run));
        pg_run_free(run);
    }
    pg_store_close(s);
}

static json_t *history_json(const char *db, const char *glob)
{
    pg_proc p;
    const char *argv[] = {"history", "--db", db, "--format", "json", glob, NULL};
    json_error_t e;
    json_t *root;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "history failed: %s", p.err);
    root = json_loads(p.out, 0, &e);
    cr_assert(root != NULL, "bad JSON: %s", e.text);
    pg_proc_free(&p);
    return root;
}

Test(history, finds_both_injected_steps_and_nothing_else)
{
    /* Seeds are fixed; bench/history_accuracy.c measures the rate over hundreds. */
    static const uint64_t seeds[] = {1, 2, 3, 4};
    size_t s;

    for (s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
        char *tmp = pg_test_tmpdir();
        char *db = pg__asprintf("%s/sim.db", tmp);
        json_t *root, *cases, *stepped = NULL, *flat = NULL, *cps;
        size_t i;

        simulate(db, seeds[s]);
        root = history_json(db, "sim/*");
        cases = json_object_get(root, "cases");
        cr_assert_eq(json_array_size(cases), 2);
        for (i = 0; i < 2; i++) {
            json_t *c = json_array_get(cases, i);
            if (strcmp(json_string_value(json_object_get(c, "key")), "sim/stepped[]@1:cpu") == 0)
                stepped = c;
            else
                flat = c;
        }
        cr_assert(stepped && flat);
        cr_assert_eq(json_array_size(json_object_get(stepped, "points")), 100, "default --last is 100");
        json_decref(root);

        /* All 120 commits: steps at 40 (+8%) and 90 (-5%). */
        {
            pg_proc p;
            const char *argv[] = {"history", "--db", db, "--last", "0", "--format", "json", "sim/stepped*", NULL};
            json_error_t e;
            pg_test_run(&p, NULL, NULL, argv);
            cr_assert_eq(p.status, 0, "%s", p.err);
            root = json_loads(p.out, 0, &e);
            pg_proc_free(&p);
        }
        cr_assert(root);
        cps = json_object_get(json_array_get(json_object_get(root, "cases"), 0), "change_points");
        cr_assert_eq(json_array_size(cps), 2, "seed %llu: %zu change points", (unsigned long long)seeds[s],
                     json_array_size(cps));
        {
            json_int_t i0 = json_integer_value(json_object_get(json_array_get(cps, 0), "index"));
            json_int_t i1 = json_integer_value(json_object_get(json_array_get(cps, 1), "index"));
            double c0 = json_real_value(json_object_get(json_array_get(cps, 0), "change"));
            double c1 = json_real_value(json_object_get(json_array_get(cps, 1), "change"));
            cr_assert(i0 >= 39 && i0 <= 41, "seed %llu: first step at %lld", (unsigned long long)seeds[s],
                      (long long)i0);
            cr_assert(i1 >= 89 && i1 <= 91, "seed %llu: second step at %lld", (unsigned long long)seeds[s],
                      (long long)i1);
            cr_assert(c0 > 0.05 && c0 < 0.11, "first step %+.3f", c0);
            cr_assert(c1 < -0.03 && c1 > -0.08, "second step %+.3f", c1);
            cr_assert_str_eq(json_string_value(json_object_get(json_array_get(cps, 0), "commit")),
                             "0000000000000000000000000000000000000041");
        }
        json_decref(root);

        /* The flat case never steps. */
        root = history_json(db, "sim/flat*");
        cps = json_object_get(json_array_get(json_object_get(root, "cases"), 0), "change_points");
        cr_assert_eq(json_array_size(cps), 0, "seed %llu: false change point in a flat history",
                     (unsigned long long)seeds[s]);
        json_decref(root);
        if (getenv("PG_KEEP_SIM_DB") && s == 0) {
            char cmd[512];
            snprintf(cmd, sizeof(cmd), "cp %s %s", db, getenv("PG_KEEP_SIM_DB"));
            cr_assert_eq(system(cmd), 0);
        }
        pg_test_rmtree(tmp);
        free(tmp);
        free(db);
    }
}

Test(history, detect_on_short_or_constant_series_finds_nothing)
{
    double flat[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    double tiny[3] = {1, 2, 3};
    pg_change_point *cps;
    size_t n;

    pg_assert_ok(pg_history_detect(&cps, &n, flat, 10, NULL));
    cr_assert_eq(n, 0);
    free(cps);
    pg_assert_ok(pg_history_detect(&cps, &n, tiny, 3, NULL));
    cr_assert_eq(n, 0);
    free(cps);
}

Test(history, clean_step_is_found_at_its_index)
{
    double y[40];
    pg_change_point *cps;
    size_t n, i;

    rng_state = 99;
    for (i = 0; i < 40; i++)
        y[i] = (i < 25 ? 1.0 : 1.2) * exp(0.01 * gauss());
    pg_assert_ok(pg_history_detect(&cps, &n, y, 40, NULL));
    cr_assert_eq(n, 1);
    cr_assert_eq(cps[0].index, 25);
    cr_assert_float_eq(cps[0].ratio, 1.2, 0.02);
    free(cps);
}

static char *read_all(const char *path)
{
    char *text = NULL;
    size_t len;

    cr_assert_eq(pg__read_file(&text, &len, path), 0, "%s", pg_error_last());
    return text;
}

static size_t count_substr(const char *hay, const char *needle)
{
    size_t n = 0;
    const char *p = hay;

    while ((p = strstr(p, needle)) != NULL) {
        n++;
        p += strlen(needle);
    }
    return n;
}

Test(history, html_report_renders_in_headless_chromium_with_plots)
{
    char *tmp = pg_test_tmpdir();
    char *db = pg__asprintf("%s/sim.db", tmp), *html = pg__asprintf("%s/report.html", tmp);
    char *dom = pg__asprintf("%s/dom.html", tmp), *png = pg__asprintf("%s/shot.png", tmp);
    char *cmd, *text;
    pg_proc p;
    const char *argv[] = {"history", "--db", db, "--last", "0", "--html", html, NULL};
    struct stat st;

    simulate(db, 1);
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    text = read_all(html);
    cr_assert(strstr(text, "<script") == NULL && strstr(text, "http://") == strstr(text, "http://www.w3.org"),
              "the page must be self-contained");
    free(text);

    /* Render it: the DOM after layout must hold both plots with their change points. */
    cmd = pg__asprintf("chromium --headless --no-sandbox --disable-gpu --user-data-dir=%s/profile "
                       "--dump-dom file://%s > %s 2>/dev/null",
                       tmp, html, dom);
    cr_assert_eq(system(cmd), 0, "headless chromium failed (is the chromium package installed?)");
    free(cmd);
    text = read_all(dom);
    cr_assert_eq(count_substr(text, "<svg class=\"trend\""), 2, "two plots expected");
    cr_assert_eq(count_substr(text, "<polyline class=\"median\""), 2);
    cr_assert_eq(count_substr(text, "<polygon class=\"iqr\""), 2);
    cr_assert_eq(count_substr(text, "<line class=\"change\""), 2, "the two steps are marked");
    cr_assert(strstr(text, "sim/stepped[]@1:cpu") != NULL);
    free(text);
    cmd = pg__asprintf("chromium --headless --no-sandbox --disable-gpu --user-data-dir=%s/profile "
                       "--window-size=1000,800 --screenshot=%s file://%s > /dev/null 2>&1",
                       tmp, png, html);
    cr_assert_eq(system(cmd), 0);
    free(cmd);
    cr_assert_eq(stat(png, &st), 0, "no screenshot");
    cr_assert_gt(st.st_size, 10000, "screenshot suspiciously small: %lld bytes", (long long)st.st_size);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(html);
    free(dom);
    free(png);
}

Test(history, report_format_html_holds_verdicts_and_trends)
{
    char *tmp = pg_test_tmpdir();
    char *db = pg__asprintf("%s/sim.db", tmp), *html = pg__asprintf("%s/r.html", tmp);
    char *text;
    pg_proc p;
    const char *argv[] = {"report", "--db", db, "--format", "html", "-o", html, NULL};

    simulate(db, 2);
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    text = read_all(html);
    cr_assert(strstr(text, "Verdicts of this run") != NULL);
    cr_assert(strstr(text, "<td><code>sim/stepped[]@1:cpu</code></td>") != NULL, "verdict row missing");
    cr_assert_eq(count_substr(text, "<svg class=\"trend\""), 2);
    free(text);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(html);
}

/* The dashboard: summary and counts on top, full width, commit labels, base and head marked, a threshold band. */
Test(history, html_report_reads_like_a_dashboard_in_headless_chromium)
{
    char *tmp = pg_test_tmpdir();
    char *db = pg__asprintf("%s/sim.db", tmp), *html = pg__asprintf("%s/r.html", tmp);
    char *dom = pg__asprintf("%s/dom.html", tmp);
    char *cmd, *text, *p;
    pg_proc pr;
    const char *argv[] = {"report", "--db", db, "--format", "html", "-o", html, NULL};
    size_t bands = 0;

    simulate(db, 2);
    pg_test_run(&pr, NULL, NULL, argv);
    cr_assert_eq(pr.status, 0, "%s", pr.err);
    pg_proc_free(&pr);
    text = read_all(html);
    cr_assert(strstr(text, "max-width:900px") == NULL, "the page is full width");
    free(text);
    cmd = pg__asprintf("chromium --headless --no-sandbox --disable-gpu --user-data-dir=%s/profile "
                       "--dump-dom file://%s > %s 2>/dev/null",
                       tmp, html, dom);
    cr_assert_eq(system(cmd), 0, "headless chromium failed (is the chromium package installed?)");
    free(cmd);
    text = read_all(dom);
    /* The summary comes first: the verdict counts before the table and the plots. */
    cr_assert(strstr(text, "<p class=\"summary\">") != NULL);
    cr_assert(strstr(text, "class=\"badge") != NULL && strstr(text, "class=\"badge") < strstr(text, "<table>"));
    cr_assert(strstr(text, "<table>") < strstr(text, "<svg class=\"trend\""));
    cr_assert_eq(count_substr(text, "<figure class=\"case"), 2, "one small plot per case");
    /* Commit labels: the newest commit's short SHA and its date (1700000000 + 119 days is 2024-03-12). */
    cr_assert(strstr(text, ">0000000</text>") != NULL);
    cr_assert(strstr(text, ">03-12</text>") != NULL, "dates under the commits");
    cr_assert_eq(count_substr(text, "<line class=\"mark base\""), 2, "the base commit marked in each plot");
    cr_assert_eq(count_substr(text, "<line class=\"mark head\""), 2, "the head commit marked in each plot");
    /* The threshold band around the baseline fills at most about half the plot: the axis spans twice it. */
    for (p = text; (p = strstr(p, "<rect class=\"band\"")) != NULL; p++) {
        double height = atof(strstr(p, "height=\"") + 8);
        cr_assert(height > 20 && height < 0.56 * (200 - 14 - 44), "band height %g", height);
        bands++;
    }
    cr_assert_eq(bands, 2);
    free(text);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(html);
    free(dom);
}

/* ---- the step fit against a brute-force segmentation ------------------------ */

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sum of |y - lower median| over y[i..j), by sorting the segment. */
static double ref_cost(const double *y, size_t i, size_t j)
{
    double s[200], c = 0;
    size_t k, m = j - i;

    memcpy(s, y + i, m * sizeof(*s));
    qsort(s, m, sizeof(*s), cmp_dbl);
    for (k = 0; k < m; k++)
        c += fabs(s[k] - s[(m - 1) / 2]);
    return c;
}

/* The segment starts of the penalised L1 fit, by the O(n^3 log n) definition (docs/history.md). */
static size_t ref_fit(size_t *starts, const double *values, size_t n, const pg_history_options *o)
{
    double y[200], d[200], f[201], sigma, gamma;
    size_t prev[201], i, j, nb = 0;

    for (i = 0; i < n; i++)
        y[i] = log(values[i]);
    for (i = 0; i + 1 < n; i++)
        d[i] = fabs(y[i + 1] - y[i]);
    sigma = fmax(1.4826 * pg_stats_median(d, n - 1) / sqrt(2.0), 1e-6);
    gamma = o->penalty * sigma * log((double)n);
    f[0] = 0;
    for (j = 1; j <= n; j++) {
        f[j] = INFINITY;
        for (i = 0; i < j; i++) {
            double c;
            if ((j - i < o->min_segment && !(i == 0 && j == n)) || !isfinite(f[i]))
                continue;
            c = f[i] + ref_cost(y, i, j) + gamma;
            if (c < f[j]) {
                f[j] = c;
                prev[j] = i;
            }
        }
    }
    for (j = prev[n]; j > 0; j = prev[j])
        starts[nb++] = j;
    return nb; /* newest first */
}

Test(history, step_fit_matches_a_brute_force_segmentation)
{
    /* Every boundary of the fit becomes a change point with no effect or test filter. */
    pg_history_options o = PG_HISTORY_OPTIONS_INIT;
    double y[200];
    size_t starts[200], trial;

    o.min_effect = 0;
    o.alpha = 2;
    rng_state = 2026;
    for (trial = 0; trial < 40; trial++) {
        size_t n = 8 + (size_t)(uniform() * 150), nsteps = (size_t)(uniform() * 4), i, k, nb, ncps;
        double level = 1;
        pg_change_point *cps;
        size_t at[4];
        for (k = 0; k < nsteps; k++)
            at[k] = (size_t)(uniform() * (double)n);
        for (i = 0; i < n; i++) {
            for (k = 0; k < nsteps; k++)
                if (at[k] == i)
                    level *= uniform() < 0.5 ? 1.1 : 0.9;
            y[i] = level * exp((trial % 3 == 0 ? 0.002 : 0.02) * gauss());
        }
        o.min_segment = 1 + trial % 4;
        nb = ref_fit(starts, y, n, &o);
        pg_assert_ok(pg_history_detect(&cps, &ncps, y, n, &o));
        cr_assert_eq(ncps, nb, "trial %zu (n %zu): %zu change points, the definition gives %zu", trial, n, ncps, nb);
        for (k = 0; k < nb; k++)
            cr_assert_eq(cps[k].index, starts[nb - 1 - k], "trial %zu: step %zu at %zu, expected %zu", trial, k,
                         cps[k].index, starts[nb - 1 - k]);
        free(cps);
    }
}

/* ---- the JSON document ------------------------------------------------------ */

Test(history, json_is_byte_for_byte_what_jansson_writes)
{
    char *dir = pg_test_tmpdir();
    static const char *const keys[] = {"plain/case[n=1]@1:cpu", "quote\"back\\slash", "tab\there\nnew\x01line",
                                       "utf8/caf\xc3\xa9/\xe2\x86\x92"};
    static const double scale[] = {1.5e-9, 3e-5, 0.25, 12345.678};
    pg_store *s;
    pg_proc p;
    json_t *root;
    json_error_t e;
    char *db, *again;
    const char *argv[] = {"history", "--db", NULL, "--format", "json", "--last", "0", NULL};
    int i, k;

    db = pg__asprintf("%s/h.db", dir);
    rng_state = 7;
    pg_assert_ok(pg_store_open(&s, db));
    for (i = 0; i < 30; i++) {
        pg_run *run;
        pg_assert_ok(pg_run_new(&run));
        run->branch = pg__strdup(i % 2 ? "main" : "feature/\"x\"");
        run->commit = pg__asprintf("%040d", i / 2 + 1); /* pairs of runs of one commit pool into one point */
        run->machine_hash = pg__strdup("00000000000000aa");
        run->machine_json = pg__strdup("{}");
        run->started_at = 1700000000 + 3600LL * i;
        for (k = 0; k < 4; k++)
            add_result(run, keys[k], scale[k] * (i >= 20 ? 1.3 : 1.0));
        pg_assert_ok(pg_store_save_run(s, run));
        pg_run_free(run);
    }
    pg_store_close(s);
    argv[2] = db;
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    root = json_loads(p.out, 0, &e);
    cr_assert(root != NULL, "bad JSON at %d:%d: %s", e.line, e.column, e.text);
    cr_assert_eq(json_array_size(json_object_get(root, "cases")), 4);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(root, "cases"), 2), "key")),
                     keys[2]);
    again = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    cr_assert(strlen(p.out) == strlen(again) + 1 && strncmp(p.out, again, strlen(again)) == 0,
              "the document differs from jansson's text of it");
    free(again);
    json_decref(root);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(dir);
    free(db);
}

/* ---- the pruned step fit against the exhaustive one -------------------------
 *
 * The pruned fit's choices are certified against rounding, and a choice it
 * cannot certify on the best fit's path makes it walk every segment as the
 * exhaustive fit does, so on any series both must give the same fit. The
 * series: noise of several spreads and tails with steps, short and long,
 * penalties from loose to strict, minimum segments 1 to 5, and series of
 * few distinct values (exact counts), where exact ties between fits are
 * common and the fallback must be taken.
 */

/* The penalty history uses: `penalty` robust sds of successive differences times ln(n). */
static double penalty_of(const double *y, size_t n, double penalty)
{
    double *d = malloc(n * sizeof(*d)), sigma;
    size_t i, k;

    for (i = 0; i + 1 < n; i++) {
        double v = fabs(y[i + 1] - y[i]);
        for (k = i; k > 0 && d[k - 1] > v; k--)
            d[k] = d[k - 1];
        d[k] = v;
    }
    sigma = n > 1 ? 1.4826 * d[(n - 2) / 2] / sqrt(2.0) : 0;
    free(d);
    return penalty * fmax(sigma, 1e-6) * log((double)n);
}

typedef enum { NOISE, HEAVY, LEVELS, COUNTS } series_kind;

/* A series of kind `kind`: log times at a level that steps a few times. */
static void make_series(double *y, size_t n, series_kind kind)
{
    double level = log(1e-3 * (1 + 99 * uniform())), sd = kind == NOISE ? 0.002 + 0.05 * uniform() : 0.02;
    size_t i, at[4], nsteps = (size_t)(uniform() * 5), k;

    for (k = 0; k < 4; k++)
        at[k] = (size_t)(uniform() * (double)n);
    for (i = 0; i < n; i++) {
        for (k = 0; k < nsteps && k < 4; k++)
            if (at[k] == i)
                level += (uniform() < 0.5 ? 1 : -1) * (0.01 + 0.2 * uniform());
        switch (kind) {
        case NOISE:
            y[i] = level + sd * gauss();
            break;
        case HEAVY: /* Student-like tails: a normal over the root of a small chi-square */
            y[i] = level + sd * gauss() / sqrt(fmax(1e-3, (gauss() * gauss() + gauss() * gauss()) / 2));
            break;
        case LEVELS: /* a handful of distinct values: many exact ties between fits */
            y[i] = floor(level * 10) / 10 + 0.1 * (double)(int)(uniform() * 3);
            break;
        case COUNTS: /* exact counts: constant segments, one value per level */
            y[i] = log(1e6 * floor(exp(level) * 1000));
            break;
        }
    }
}

Test(stepfit, pruned_fit_chooses_what_the_exhaustive_walk_chooses)
{
    static const series_kind kinds[] = {NOISE, NOISE, NOISE, HEAVY, LEVELS, COUNTS};
    static const double penalties[] = {0.5, 1, 3, 6};
    size_t trial, pruned[4] = {0}, total[4] = {0};

    rng_state = 20261201;
    for (trial = 0; trial < 360; trial++) {
        series_kind kind = kinds[trial % 6];
        size_t n = trial % 7 == 0 ? 4 + (size_t)(uniform() * 400) : 4 + (size_t)(uniform() * 200);
        size_t shortest = 1 + trial % 5, j;
        double *y = malloc(n * sizeof(*y)), gamma;
        size_t *fast = malloc((n + 1) * sizeof(*fast)), *slow = malloc((n + 1) * sizeof(*slow));
        pg_stepfit_path path, slow_path;

        make_series(y, n, kind);
        gamma = penalty_of(y, n, penalties[trial % 4]);
        memset(fast, 0xff, (n + 1) * sizeof(*fast));
        memset(slow, 0xff, (n + 1) * sizeof(*slow));
        pg_assert_ok(pg_stepfit(fast, y, n, shortest, gamma, 0, &path));
        pg_assert_ok(pg_stepfit(slow, y, n, shortest, gamma, 1, &slow_path));
        cr_assert_eq(slow_path, PG_STEPFIT_EXHAUSTIVE);
        /* The segment starts of the best fit, end to start. */
        for (j = n; j > 0 && j <= n; j = slow[j])
            cr_assert_eq(fast[j], slow[j], "trial %zu (kind %d, n %zu, min segment %zu, %s): the segment ending at %zu "
                         "starts at %zu, the exhaustive walk says %zu", trial, (int)kind, n, shortest,
                         path == PG_STEPFIT_PRUNED ? "pruned" : "fell back", j, fast[j], slow[j]);
        pruned[kind] += path == PG_STEPFIT_PRUNED;
        total[kind]++;
        free(y);
        free(fast);
        free(slow);
    }
    /* Both ways were taken: noise is certified nearly always, exact ties fall back. */
    cr_assert_geq(pruned[NOISE], total[NOISE] * 9 / 10, "pruned %zu of %zu noisy series", pruned[NOISE], total[NOISE]);
    cr_assert_geq(pruned[HEAVY], total[HEAVY] * 9 / 10, "pruned %zu of %zu heavy-tailed series", pruned[HEAVY],
                  total[HEAVY]);
    cr_assert_lt(pruned[LEVELS], total[LEVELS], "no series of few values fell back to the exhaustive walk");
}

Test(stepfit, short_series_and_infinite_values)
{
    double y[5] = {1, 2, 3, 4, 5};
    size_t prev[6];
    pg_stepfit_path path;

    /* A segment may be shorter than the minimum only when it spans everything. */
    pg_assert_ok(pg_stepfit(prev, y, 5, 9, 1.0, 0, &path));
    cr_assert_eq(prev[5], 0);
    /* Every segment holding an infinite value costs infinity or NaN: no fit, by the exhaustive walk. */
    y[2] = INFINITY;
    pg_assert_ok(pg_stepfit(prev, y, 5, 1, 1.0, 0, &path));
    cr_assert_eq(prev[5], (size_t)-1);
    cr_assert_eq(path, PG_STEPFIT_EXHAUSTIVE);
    y[3] = NAN;
    cr_assert_eq(pg_stepfit(prev, y, 5, 1, 1.0, 0, &path), PG_EINVAL);
}
