/*
 * diagnose_test.c - "what changed" end to end, with real Valgrind and a
 * plugin of real numerical work (tests/data/plugin/stencil.c, built here at
 * -O2 -g in several variants: sweeps per iteration and the layout of its
 * rows are data values, so every build runs the same machine code):
 *
 * - a counted gate of 10 % more sweeps names sweep() with its share of the
 *   instructions, in the markdown and the JSON, and the HTML report's
 *   differential flame graph, laid out by headless Chromium, draws sweep
 *   red and its unchanged sibling residual() not;
 * - an interleaved gate's timed regression is counted on both builds for
 *   that case only (--no-diagnose: not), without Valgrind the rest is
 *   still counted and the missing part said; a gate with nothing regressed
 *   counts nothing at all;
 * - rows that alias in the caches at a 4 KiB pitch: time regresses with the
 *   same instructions, and that is what the row says, also as the gate
 *   stored its decision.
 */
#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmp;

static void setup(void)
{
    tmp = pg_test_tmpdir();
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(diagnose, .init = setup, .fini = teardown, .timeout = 300);

/* tmp/NAME/libstencil.so, the plugin built with `flags`; returns the build directory (caller frees). */
static char *build(const char *name, const char *flags)
{
    char *dir = pg__asprintf("%s/%s", tmp, name), *all = pg__asprintf("-O2 -g %s", flags ? flags : ""), *lib;

    cr_assert(mkdir(dir, 0755) == 0);
    lib = pg_test_build_plugin(dir, "plugin/stencil.c", "stencil", all);
    free(lib);
    free(all);
    return dir;
}

static char *suite(const char *bench, const char *params)
{
    char *text = pg__asprintf("suite: st\n"
                              "defaults: {threads: 1, min_run_time: 0.2s, warmup: 20ms, min_samples: 10}\n"
                              "benchmarks:\n"
                              "  - {name: %s, plugin: \"{build}/libstencil.so\", symbol: %s, params: %s}\n",
                              bench, bench, params);
    char *name = pg__asprintf("%s.yaml", bench), *path = pg_test_write(tmp, name, text);

    free(text);
    free(name);
    return path;
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len = 0;

    pg_assert_ok(pg__read_file(&text, &len, path));
    return text;
}

/* The diagnosis of the verdict `key` in the JSON report at `path` (a new reference), or NULL. */
static json_t *diagnosis(const char *path, const char *key)
{
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je), *v, *d = NULL;
    size_t i;

    cr_assert(r != NULL, "%s: %s", path, je.text);
    json_array_foreach(json_object_get(r, "verdicts"), i, v)
        if (strcmp(json_string_value(json_object_get(v, "key")), key) == 0 && json_object_get(v, "diagnosis")) {
            d = json_object_get(v, "diagnosis");
            json_incref(d);
        }
    json_decref(r);
    return d;
}

static size_t count_substr(const char *hay, const char *needle)
{
    size_t n = 0;

    while ((hay = strstr(hay, needle)) != NULL) {
        n++;
        hay += strlen(needle);
    }
    return n;
}

/* The share in percent the comment's "what changed" line gives `fn` ("..., 98 % of it in `fn`"), or -1. */
static int comment_share(const char *md, const char *fn)
{
    char *tail = pg__asprintf(" %% of it in `%s`", fn);
    const char *at = strstr(md, tail), *p;
    int share = -1;

    if (at) {
        for (p = at; p > md && p[-1] >= '0' && p[-1] <= '9'; p--)
            ;
        if (p < at)
            share = atoi(p);
    }
    free(tail);
    return share;
}

/* The fill of the flame graph's frame of `fn` in a page's DOM: r, g, b. */
static void frame_fill(int rgb[3], const char *dom, const char *fn)
{
    char *at = pg__asprintf("data-fn=\"%s\"", fn);
    const char *g = strstr(dom, at), *fill;

    cr_assert(g != NULL, "no frame for %s in the laid-out page", fn);
    fill = strstr(g, "fill=\"rgb(");
    cr_assert(fill != NULL && sscanf(fill, "fill=\"rgb(%d,%d,%d)", &rgb[0], &rgb[1], &rgb[2]) == 3);
    free(at);
}

Test(diagnose, a_counted_gate_names_the_function_and_the_flame_graph_draws_it_red)
{
    char *base = build("base", NULL), *head = build("head", "-DSWEEPS=11"), *s = suite("relax", "{n: 64}");
    char *md = pg__asprintf("%s/r.md", tmp), *js = pg__asprintf("%s/r.json", tmp), *html = pg__asprintf("%s/r.html", tmp);
    char *png = pg__asprintf("%s/shot.png", tmp), *text;
    const char *gate[] = {"gate", "--no-store", "--instrument", "instructions", "--base-build", base, "--head-build",
                          head, "--md", md, "--json", js, s, NULL};
    const char *rep[] = {"report", "--from", js, "--format", "html", "-o", html, NULL};
    json_t *d, *top;
    pg_proc p;
    int red[3], grey[3];
    long size;

    pg_test_run(&p, tmp, NULL, gate);
    cr_assert_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    pg_proc_free(&p);
    /* The comment's row, and its top five: the function, where it is, its share. */
    text = slurp(md);
    cr_assert(strstr(text, "**what changed:** +") != NULL, "%s", text);
    cr_assert(strstr(text, "% of it in `sweep` (stencil.c:") != NULL, "%s", text);
    cr_assert_geq(comment_share(text, "sweep"), 90, "the comment gives sweep under 90 %% of the change:\n%s", text);
    cr_assert(strstr(text, "| `sweep` | `stencil.c:") != NULL, "%s", text);
    free(text);
    d = diagnosis(js, "st/relax[n=64]@1:cpu#instructions");
    cr_assert(d != NULL, "no diagnosis in the JSON report");
    top = json_array_get(json_object_get(json_object_get(d, "functions"), "exclusive"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(top, "name")), "sweep");
    cr_assert_geq(json_number_value(json_object_get(top, "share")), 0.9, "sweep holds under 90%% of the change");
    cr_assert(strstr(json_string_value(json_object_get(top, "file")), "stencil.c") != NULL);
    /* The sibling did the same work: it is no delta at all. */
    cr_assert(strstr(json_dumps(json_object_get(d, "functions"), 0), "residual") == NULL);
    json_decref(d);

    /* The HTML page of the report, laid out by a real browser. */
    pg_test_run(&p, tmp, NULL, rep);
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    text = slurp(html);
    cr_assert(strstr(text, "<script") == NULL, "the page stays self-contained");
    free(text);
    text = pg_test_browser_dom(tmp, html);
    cr_assert_eq(count_substr(text, "<svg class=\"flame\""), 1, "one flame graph: the cycles' case shares it");
    cr_assert(strstr(text, "<g class=\"frame grew\" data-fn=\"sweep\">") != NULL, "%s", text);
    cr_assert(strstr(text, "<g class=\"frame same\" data-fn=\"residual\">") != NULL, "%s", text);
    frame_fill(red, text, "sweep");
    frame_fill(grey, text, "residual");
    cr_assert(red[0] > 200 && red[1] < 120 && red[2] < 120, "sweep is not red: rgb(%d,%d,%d)", red[0], red[1], red[2]);
    cr_assert(grey[0] == grey[1] && grey[1] == grey[2], "residual is coloured: rgb(%d,%d,%d)", grey[0], grey[1],
              grey[2]);
    free(text);
    size = pg_test_browser_shot(tmp, html, png, 1300, 900);
    cr_assert_gt(size, 10000, "screenshot suspiciously small: %ld bytes", size);
    free(base);
    free(head);
    free(s);
    free(md);
    free(js);
    free(html);
    free(png);
}

/*
 * Rounds at most of the interleaved gates: a case stops once settled, so
 * on a quiet machine this costs nothing; on a loaded one, the rounds left
 * out for contention leave enough to decide.
 */
#define ROUNDS "60"

/*
 * Runs an interleaved gate that should find a regression. On a machine
 * others load, its rounds are left out (a side waited for a CPU) or its
 * confirmation misses, and the gate rightly says UNSURE (exit 4): what these
 * tests check is what follows a decided regression, so such a gate runs
 * again, three times in all at most. Any other exit is returned at once.
 */
static void run_regressed(pg_proc *p, const char *const *env, const char *const *argv)
{
    int tries = 0;

    for (;;) {
        pg_test_run(p, tmp, env, argv);
        if (p->status != 4 || ++tries == 3)
            return;
        pg_proc_free(p);
    }
}

/*
 * An interleaved gate of `base` against `head` over suite `s`, JSON into
 * `js`: its output (caller frees). `regressed`: the head is slower (run_regressed).
 */
static char *gate(int *status, const char *base, const char *head, const char *s, const char *js, const char *extra,
                  const char *const *env, int regressed)
{
    const char *argv[] = {"gate", "--no-store", "--base-build", base, "--head-build", head, "--rounds", ROUNDS, "--json",
                          js, s, extra, NULL};
    pg_proc p;
    char *all;

    if (regressed)
        run_regressed(&p, env, argv);
    else
        pg_test_run(&p, tmp, env, argv);
    *status = p.status;
    all = pg__asprintf("%s%s", p.out, p.err);
    pg_proc_free(&p);
    return all;
}

Test(diagnose, a_timed_regression_is_counted_on_both_builds_and_only_then)
{
    char *base = build("base", NULL), *head = build("head", "-DSWEEPS=30"), *same = build("same", NULL);
    char *s = suite("relax", "{n: 64}"), *js = pg__asprintf("%s/g.json", tmp), *out;
    const char *novg[] = {"PERFGATE_VALGRIND=/nonexistent/valgrind", NULL};
    const char *line;
    json_t *d;
    int rc;

    /* Three times the sweeps: REGRESSED, then both builds counted for it. */
    out = gate(&rc, base, head, s, js, NULL, NULL, 1);
    cr_assert_eq(rc, 1, "exit %d\n%s", rc, out);
    cr_assert(strstr(out, "diagnosing 1 regressed case: counted both builds in") != NULL, "%s", out);
    cr_assert(strstr(out, "st/relax[n=64]@1:cpu: what changed: +") != NULL, "%s", out);
    free(out);
    d = diagnosis(js, "st/relax[n=64]@1:cpu");
    cr_assert(d != NULL);
    cr_assert_str_eq(json_string_value(json_object_get(d, "source")), "recounted");
    line = json_string_value(json_object_get(d, "what_changed"));
    cr_assert(strstr(line, "% instructions, ") != NULL && strstr(line, "of it in `sweep` (stencil.c:") != NULL, "%s",
              line);
    cr_assert_gt(json_number_value(json_object_get(d, "seconds")), 0);
    /* Heap traffic counted too (none moved), and estimated cycles. */
    cr_assert(json_is_object(json_object_get(d, "allocs_per_iter")) && json_is_object(json_object_get(d, "est_cycles")));
    json_decref(d);

    /* Turned off: nothing counted. */
    out = gate(&rc, base, head, s, js, "--no-diagnose", NULL, 1);
    cr_assert_eq(rc, 1, "exit %d\n%s", rc, out);
    cr_assert(strstr(out, "diagnosing") == NULL, "%s", out);
    cr_assert_null(diagnosis(js, "st/relax[n=64]@1:cpu"));
    free(out);

    /* Without Valgrind: the allocations are still counted, the instructions are said to be missing. */
    out = gate(&rc, base, head, s, js, NULL, novg, 1);
    cr_assert_eq(rc, 1, "exit %d\n%s", rc, out);
    d = diagnosis(js, "st/relax[n=64]@1:cpu");
    cr_assert(d != NULL, "%s", out);
    cr_assert(strstr(json_string_value(json_object_get(d, "note")), "instructions not counted") != NULL, "%s", out);
    cr_assert(json_is_object(json_object_get(d, "allocs_per_iter")), "%s", out);
    cr_assert(json_is_null(json_object_get(d, "instructions")), "%s", out);
    json_decref(d);
    free(out);

    /* The same code on both sides: whatever the rounds say, nothing regressed, nothing is counted. */
    out = gate(&rc, base, same, s, js, NULL, NULL, 0);
    cr_assert_eq(rc, pg_test_report_exit(js), "%s", out);
    cr_assert_neq(rc, 1, "the same code regressed:\n%s", out);
    cr_assert(strstr(out, "diagnosing") == NULL && strstr(out, "what changed") == NULL, "%s", out);
    free(out);
    free(base);
    free(head);
    free(same);
    free(s);
    free(js);
}

Test(diagnose, rows_that_alias_in_the_caches_regress_with_the_same_instructions)
{
    char *base = build("base", NULL), *head = build("alias", "-DPITCH=8192"), *s = suite("layout", "{n: 2048}");
    char *js = pg__asprintf("%s/l.json", tmp), *db = pg__asprintf("%s/l.db", tmp), *out, *text;
    const char *argv[] = {"gate", "--db", db, "--base-build", base, "--head-build", head, "--rounds", ROUNDS, "--json",
                          js, s, NULL};
    const char *rep[] = {"report", "--db", db, "--format", "md", NULL};
    const char *line;
    json_t *d;
    pg_proc p;

    run_regressed(&p, NULL, argv);
    out = pg__asprintf("%s%s", p.out, p.err);
    cr_assert_eq(p.status, 1, "exit %d\n%s", p.status, out);
    pg_proc_free(&p);
    d = diagnosis(js, "st/layout[n=2048]@1:cpu");
    cr_assert(d != NULL, "%s", out);
    line = json_string_value(json_object_get(d, "what_changed"));
    cr_assert(strncmp(line, "same instructions (+0.00 %): a memory or layout effect (est. cycles +", 69) == 0, "%s",
              line);
    cr_assert_eq(json_number_value(json_object_get(json_object_get(d, "instructions"), "base")),
                 json_number_value(json_object_get(json_object_get(d, "instructions"), "head")));
    json_decref(d);
    free(out);
    /* As the gate stored its decision: the report of the run says it again. */
    pg_test_run(&p, tmp, NULL, rep);
    cr_assert_eq(p.status, 0, "%s", p.err);
    text = p.out;
    cr_assert(strstr(text, "**what changed:** same instructions (+0.00 %): a memory or layout effect") != NULL, "%s",
              text);
    pg_proc_free(&p);
    free(base);
    free(head);
    free(s);
    free(js);
    free(db);
}

/* A program of CBLAS calls; -DEXTRA adds one sgemm of another shape, which takes several times the
   rest's time: a change that a neighbour's load on the machine does not hide. */
static const char blas_prog[] = "#include <cblas.h>\n"
                                "#ifndef EXTRA\n#define EXTRA 0\n#endif\n"
                                "static float a[1024 * 1024], b[1024 * 1024], c[1024 * 1024];\n"
                                "int main(void)\n"
                                "{\n"
                                "    int i;\n"
                                "    for (i = 0; i < 1024 * 1024; i++) {\n"
                                "        a[i] = (float)(i % 7) * 0.125f;\n"
                                "        b[i] = (float)(i % 5) * 0.25f;\n"
                                "    }\n"
                                "    for (i = 0; i < 10; i++)\n"
                                "        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 128, 128, 128, 1.0f, a, 128, b,"
                                " 128, 0.0f, c, 128);\n"
                                "    if (EXTRA)\n"
                                "        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1024, 1024, 1024, 1.0f, a, 1024, b,"
                                " 1024, 0.0f, c, 1024);\n"
                                "    return c[7] > 1e30f;\n"
                                "}\n";

Test(diagnose, a_count_blas_command_names_the_blas_call_that_appeared)
{
    char *src = pg_test_write(tmp, "prog.c", blas_prog), *js = pg__asprintf("%s/b.json", tmp), *out, *cmd;
    char *base = pg__asprintf("%s/pbase", tmp), *head = pg__asprintf("%s/phead", tmp), *log = NULL, *s;
    /* Without Valgrind (a whole process of GEMMs under it takes minutes): the BLAS calls and the heap alone. */
    const char *novg[] = {"PERFGATE_VALGRIND=/nonexistent/valgrind", NULL};
    const char *line;
    json_t *d;
    int rc;

    cmd = pg__asprintf("mkdir '%s' '%s' && cc -O2 -o '%s/prog' '%s' -lopenblas && cc -O2 -DEXTRA=1 -o '%s/prog' '%s' "
                       "-lopenblas",
                       base, head, base, src, head, src);
    cr_assert_eq(pg_test_sh(&log, cmd), 0, "%s", log);
    free(log);
    free(cmd);
    s = pg_test_write(tmp, "blas.yaml", "suite: b\n"
                                        "defaults: {threads: 1, min_run_time: 0.2s, warmup: 20ms, min_samples: 5}\n"
                                        "benchmarks:\n"
                                        "  - {name: prog, command: [\"{build}/prog\"], count: blas}\n");
    out = gate(&rc, base, head, s, js, NULL, novg, 1);
    cr_assert_eq(rc, 1, "exit %d\n%s", rc, out);
    d = diagnosis(js, "b/prog[]@1:cpu");
    cr_assert(d != NULL, "%s", out);
    line = json_string_value(json_object_get(d, "what_changed"));
    cr_assert(line && strncmp(line, "+1 call of `sgemm [1024,1024]x[1024,1024]` per iteration (new)", 62) == 0, "%s",
              out);
    cr_assert_eq(json_number_value(json_object_get(json_object_get(d, "flops"), "head")) -
                     json_number_value(json_object_get(json_object_get(d, "flops"), "base")),
                 2.0 * 1024 * 1024 * 1024);
    json_decref(d);
    free(out);
    free(src);
    free(js);
    free(base);
    free(head);
    free(s);
}
