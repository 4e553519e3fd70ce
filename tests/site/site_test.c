/*
 * site_test.c - `perfgate site` on a stored history: 60 nights of three
 * cases (one steps up +25 % at night 30, one steps down -20 % at night 45,
 * one holds), each night decided by a gate whose every seventh decision was
 * a pull request's, and a case whose key would be markup if it were not
 * escaped. The pages must hold what they claim, link to each other by
 * relative paths that exist, fetch nothing, and render in headless Chromium.
 */
#include "support.h"

#include "base/model.h"
#include "base/util.h"
#include "stats/stats.h"
#include "store/store.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NIGHTS 60
#define HOSTILE "site/<b>bold</b>&\"q\"[]@1:cpu"

static void add_result(pg_run *run, const char *key, double level, int night)
{
    pg_result *r;
    size_t j;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__strdup(key);
    r->suite = pg__strdup("site");
    r->name = pg__strdup("case");
    r->params_json = pg__strdup("{}");
    r->threads = 1;
    r->device = pg__strdup("cpu");
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->status = PG_STATUS_OK;
    r->nsamples = 20;
    r->samples = malloc(20 * sizeof(double));
    /* A little noise, the same every run of the test: a deterministic wobble by night and sample. */
    for (j = 0; j < 20; j++)
        r->samples[j] = level * (1 + 0.004 * sin((double)(night * 20 + (int)j)));
    r->number_per_run = 100;
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, r->nsamples));
}

static double level(int c, int night)
{
    if (c == 0)
        return 1e-3 * (night >= 30 ? 1.25 : 1.0);
    if (c == 1)
        return 2e-3 * (night >= 45 ? 0.8 : 1.0);
    return 3e-4;
}

static void decide(pg_store *s, const pg_run *run, int night)
{
    static const char *const keys[] = {"site/up[]@1:cpu", "site/down[]@1:cpu", HOSTILE};
    pg_decision d;
    int c;

    memset(&d, 0, sizeof(d));
    d.run_id = run->id;
    d.made_at = run->finished_at;
    d.cases = calloc(3, sizeof(*d.cases));
    d.ncases = 3;
    for (c = 0; c < 3; c++) {
        double step = level(c, night) / level(c, night - 1);
        pg_decision_case *k = &d.cases[c];
        k->key = pg__strdup(keys[c]);
        k->verdict = pg__strdup(step > 1.05 ? "REGRESSED" : step < 0.95 ? "IMPROVED" : "SAME");
        k->ratio = step;
        k->ci_lo = step * 0.98;
        k->ci_hi = step * 1.02;
        k->p = k->p_adj = step > 1.05 || step < 0.95 ? 1e-4 : 0.6;
        if (step > 1.05)
            k->reason = pg__strdup("slower beyond 5% <i>here</i>");
    }
    d.outcome = pg__strdup(night == 30 ? "FAIL" : "PASS");
    d.detail = night % 7 == 2 ? pg__asprintf("{\"origin\":{\"repository\":\"acme/lib\",\"pr\":%d}}", 100 + night)
                              : pg__strdup("{}");
    pg_assert_ok(pg_store_save_decision(s, &d));
    pg_decision_clear(&d);
}

static char *make_db(const char *dir)
{
    char *db = pg__asprintf("%s/site.db", dir);
    pg_store *s;
    int night;

    pg_assert_ok(pg_store_open(&s, db));
    for (night = 0; night < NIGHTS; night++) {
        pg_run *run;
        pg_assert_ok(pg_run_new(&run));
        run->branch = pg__strdup("main");
        run->commit = pg__asprintf("%08x%032d", 0xabc00000u + (unsigned)night, night);
        run->machine_hash = pg__strdup("00000000000000aa");
        run->machine_json = pg__strdup("{}");
        run->started_at = 1700000000 + 86400LL * night;
        run->finished_at = run->started_at + 60;
        add_result(run, "site/up[]@1:cpu", level(0, night), night);
        add_result(run, "site/down[]@1:cpu", level(1, night), night);
        add_result(run, HOSTILE, level(2, night), night);
        pg_assert_ok(pg_store_save_run(s, run));
        if (night > 0)
            decide(s, run, night);
        pg_run_free(run);
    }
    /* A branch of its own, for the refusal that names the branches. */
    {
        pg_run *run;
        pg_assert_ok(pg_run_new(&run));
        run->branch = pg__strdup("feature");
        run->commit = pg__strdup("feedfacefeedfacefeedfacefeedfacefeedface");
        run->machine_hash = pg__strdup("00000000000000aa");
        run->machine_json = pg__strdup("{}");
        run->started_at = 1700000000;
        add_result(run, "site/up[]@1:cpu", 1e-3, 0);
        pg_assert_ok(pg_store_save_run(s, run));
        pg_run_free(run);
    }
    pg_store_close(s);
    return db;
}

static char *read_all(const char *path)
{
    char *text = NULL;
    size_t len;

    pg_assert_ok(pg__read_file(&text, &len, path));
    return text;
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;

    for (; (text = strstr(text, needle)) != NULL; text += strlen(needle))
        n++;
    return n;
}

/* Every href of a page that is relative resolves to a file under the site; none leaves it for anything but links. */
static void check_links(const char *site, const char *page_dir, const char *text)
{
    const char *p = text;

    cr_assert_null(strstr(text, "<script"), "no script on a page");
    cr_assert_null(strstr(text, " src="), "nothing fetched: no src attribute");
    while ((p = strstr(p, "href=\"")) != NULL) {
        const char *v = p + 6, *e = strchr(v, '"');
        char *href = pg__asprintf("%.*s", (int)(e - v), v), *path;
        struct stat st;
        p = e;
        if (strncmp(href, "https://github.com/acme/lib/", 28) == 0 || href[0] == '#') {
            free(href);
            continue;
        }
        cr_assert(strncmp(href, "http", 4) != 0 && href[0] != '/', "a link outside the site: %s", href);
        path = pg__asprintf("%s/%s", page_dir, href);
        cr_assert_eq(stat(path, &st), 0, "%s links to %s, which is not there", page_dir, href);
        free(path);
        free(href);
    }
    (void)site;
}

static char *case_page(const char *site, const char *prefix)
{
    char *dir = pg__asprintf("%s/cases", site), *found = NULL;
    struct dirent *e;
    DIR *d = opendir(dir);

    cr_assert(d);
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            found = pg__asprintf("%s/%s", dir, e->d_name);
    closedir(d);
    free(dir);
    cr_assert(found, "no page for %s", prefix);
    return found;
}

Test(site, pages_hold_the_history_link_to_each_other_and_fetch_nothing)
{
    char *tmp = pg_test_tmpdir(), *db = make_db(tmp), *site = pg__asprintf("%s/out", tmp), *index, *text, *up, *cases;
    const char *argv[] = {"site", "--db", db, "-o", site, "--branch", "main", "--repo-url", "https://github.com/acme/lib",
                          NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "site: 3 cases of branch main (180 points, 59 gate decisions"), "%s", p.out);
    pg_proc_free(&p);
    index = pg__asprintf("%s/index.html", site);
    text = read_all(index);
    check_links(site, site, text);
    /* Every case, with its sparkline; the step up listed under the regressions, as a change point and a decision. */
    cr_assert_eq(count(text, "<svg class=\"spark\""), 3);
    cr_assert(strstr(text, "change point +2"), "%s", text);
    cr_assert(strstr(text, "gate REGRESSED +25.0% [+22.5, +27.5]"), "%s", text);
    cr_assert_null(strstr(text, "change point -20.0%"), "a step down is no regression");
    /* The newest against the last 30 days: the step down 15 nights ago is in that window. */
    cr_assert(strstr(text, "<h2>Regressions</h2>"));
    /* The hostile key is text, never markup. */
    cr_assert_null(strstr(text, "<b>bold</b>"));
    cr_assert(strstr(text, "site/&lt;b&gt;bold&lt;/b&gt;&amp;&quot;q&quot;[]@1:cpu"), "%s", text);
    free(text);

    up = case_page(site, "site_up");
    cases = pg__asprintf("%s/cases", site);
    text = read_all(up);
    check_links(site, cases, text);
    cr_assert(strstr(text, "<svg class=\"trend\""), "the full plot");
    cr_assert_eq(count(text, "<line class=\"change\""), 1, "one change point plotted");
    cr_assert(strstr(text, "Stored gate decisions (59)"), "%s", text);
    /* The commits that moved it: the range of the step, on GitHub; the pull request whose gate saw it. */
    cr_assert(strstr(text, "https://github.com/acme/lib/compare/abc0001d"), "%s", text);
    cr_assert(strstr(text, "<a href=\"https://github.com/acme/lib/pull/") != NULL);
    cr_assert(strstr(text, "slower beyond 5% &lt;i&gt;here&lt;/i&gt;"), "reasons are escaped");
    free(text);
    free(up);
    free(cases);
    free(index);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(site);
}

Test(site, renders_in_headless_chromium_from_file_urls)
{
    char *tmp = pg_test_tmpdir(), *db = make_db(tmp), *site = pg__asprintf("%s/out", tmp);
    char *dom = pg__asprintf("%s/dom.html", tmp), *png = pg__asprintf("%s/shot.png", tmp), *cmd, *text, *up;
    const char *argv[] = {"site", "--db", db, "-o", site, NULL};
    struct stat st;
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    up = case_page(site, "site_up");
    /* The index after layout: the cases' rows with their sparklines, the style sheet applied from file://. */
    cmd = pg__asprintf("chromium --headless --no-sandbox --disable-gpu --user-data-dir=%s/profile --dump-dom "
                       "file://%s/index.html > %s 2>/dev/null",
                       tmp, site, dom);
    cr_assert_eq(system(cmd), 0, "headless chromium failed (is the chromium package installed?)");
    free(cmd);
    text = read_all(dom);
    cr_assert_eq(count(text, "<svg class=\"spark\""), 3, "%s", text);
    cr_assert(strstr(text, "href=\"cases/site_up"), "%s", text);
    free(text);
    cmd = pg__asprintf("chromium --headless --no-sandbox --disable-gpu --user-data-dir=%s/profile --dump-dom "
                       "file://%s > %s 2>/dev/null",
                       tmp, up, dom);
    cr_assert_eq(system(cmd), 0);
    free(cmd);
    text = read_all(dom);
    cr_assert(strstr(text, "<polyline class=\"median\""), "the full plot");
    cr_assert(strstr(text, "href=\"../index.html\""));
    free(text);
    cmd = pg__asprintf("chromium --headless --no-sandbox --disable-gpu --user-data-dir=%s/profile "
                       "--window-size=1200,900 --screenshot=%s file://%s > /dev/null 2>&1",
                       tmp, png, up);
    cr_assert_eq(system(cmd), 0);
    free(cmd);
    cr_assert_eq(stat(png, &st), 0, "no screenshot");
    cr_assert_gt(st.st_size, 10000, "screenshot suspiciously small: %lld bytes", (long long)st.st_size);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(site);
    free(dom);
    free(png);
    free(up);
}

Test(site, refuses_what_it_cannot_show)
{
    char *tmp = pg_test_tmpdir(), *db = make_db(tmp), *site = pg__asprintf("%s/out", tmp);
    char *missing = pg__asprintf("%s/nothing.db", tmp);
    const char *nobranch[] = {"site", "--db", db, "-o", site, "--branch", "nope", NULL};
    const char *nodb[] = {"site", "--db", missing, "-o", site, NULL};
    const char *noout[] = {"site", "--db", db, NULL};
    const char *badurl[] = {"site", "--db", db, "-o", site, "--repo-url", "javascript:alert(1)", NULL};
    struct stat st;
    pg_proc p;

    pg_test_run(&p, NULL, NULL, nobranch);
    cr_assert_eq(p.status, 2, "%s", p.err);
    cr_assert(strstr(p.err, "no runs on branch 'nope' (branches with runs: feature, main)"), "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, nodb);
    cr_assert_eq(p.status, 2, "%s", p.err);
    cr_assert(strstr(p.err, "no database at"), "%s", p.err);
    cr_assert_neq(stat(missing, &st), 0, "no database is made for a site");
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, noout);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "-o DIR is required"), "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, badurl);
    cr_assert_eq(p.status, 2, "%s", p.err);
    cr_assert(strstr(p.err, "--repo-url javascript:alert(1): give https://HOST/OWNER/NAME"), "%s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(site);
    free(missing);
}
