/* roofline_test.c - the compute/memory/overhead rule on stated roofs, the roofs a real run stores in its
   fingerprint, the labels and MFU of a real run of the shipped kernels, the HTML roofline rendered by
   headless Chromium, and the doctor's BLAS kernel check under a generic OpenBLAS core. */
#include "compile.h"
#include "support.h"

#include "machine/roofline.h"
#include "base/util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A machine with a 100 GFLOP/s peak and 10 GB/s: the ridge is at 10 FLOP/byte. */
static const pg_roofs roofs = {100e9, 10e9, 1, 0};

Test(roofline, rule_on_stated_roofs)
{
    pg_roof_point p;

    /* sgemm 256^3: 33.5 MFLOP over 786 KB, 42.7 FLOP/B, at 50 GFLOP/s. */
    pg_roofline_point(&p, 2.0 * 256 * 256 * 256, 3.0 * 256 * 256 * 4, 2.0 * 256 * 256 * 256 / 50e9, &roofs);
    cr_assert_eq(p.bound, PG_ROOF_COMPUTE, "%s", p.why);
    cr_assert_float_eq(p.ridge, 10.0, 1e-12);
    cr_assert_float_eq(p.attainable, 100e9, 1);
    cr_assert_float_eq(p.fraction, 0.5, 1e-12);
    /* add over 1M floats: no FLOPs, 12 MB at 6 GB/s. */
    pg_roofline_point(&p, 0, 12e6, 12e6 / 6e9, &roofs);
    cr_assert_eq(p.bound, PG_ROOF_MEMORY, "%s", p.why);
    cr_assert_float_eq(p.fraction, 0.6, 1e-12);
    cr_assert_eq(p.intensity, 0);
    /* A GEMM below the ridge (2 FLOP/B) near the slanted roof is memory-bound: attainable is I x bandwidth. */
    pg_roofline_point(&p, 2e9, 1e9, 0.2, &roofs);
    cr_assert_eq(p.bound, PG_ROOF_MEMORY, "%s", p.why);
    cr_assert_float_eq(p.attainable, 20e9, 1);
    /* The same work at 5% of its roof: overhead-bound. */
    pg_roofline_point(&p, 2e9, 1e9, 2.0, &roofs);
    cr_assert_eq(p.bound, PG_ROOF_OVERHEAD, "%s", p.why);
    cr_assert(p.fraction < PG_ROOF_OVERHEAD_FRACTION);
    /* Work the roofs would finish in under 1 us (sgemm 16^3 moves 3 KB: 0.3 us at 10 GB/s), however fast. */
    pg_roofline_point(&p, 2.0 * 16 * 16 * 16, 3.0 * 16 * 16 * 4, 0.4e-6, &roofs);
    cr_assert_eq(p.bound, PG_ROOF_OVERHEAD, "%s", p.why);
    /* No counted work at all (the empty kernel). */
    pg_roofline_point(&p, 0, 0, 2e-9, &roofs);
    cr_assert_eq(p.bound, PG_ROOF_OVERHEAD);
    /* Below the ridge but cache-resident (bytes within a 1 MB last-level cache): only the compute roof binds. */
    pg_roofline_point(&p, 2e6, 1e6, 2e6 / 30e9, &(pg_roofs){100e9, 10e9, 1, 1 << 20});
    cr_assert_eq(p.bound, PG_ROOF_COMPUTE, "%s", p.why);
    cr_assert_float_eq(p.attainable, 100e9, 1);
    /* Without roofs nothing is claimed. */
    pg_roofline_point(&p, 1e9, 1e6, 0.1, &(pg_roofs){0, 0, 0, 0});
    cr_assert_eq(p.bound, PG_ROOF_UNKNOWN);
    cr_assert_str_eq(pg_roof_bound_name(PG_ROOF_MEMORY), "memory-bound");
}

Test(roofline, classify_reads_the_roofs_of_the_results_thread_count)
{
    const char *fp = "{\"roofline\":{\"cpu\":{\"2\":{\"peak_gflops\":100,\"triad_gbs\":10,\"peak_reliable\":false}}}}";
    pg_result r = {0};
    pg_roof_point p;
    pg_roofs got;

    r.status = PG_STATUS_OK;
    r.device = "cpu";
    r.threads = 1;
    r.flops = 2e9;
    r.bytes = 1e7;
    r.summary.median = 0.04;
    pg_roofline_classify(&p, &r, fp);
    cr_assert_eq(p.bound, PG_ROOF_UNKNOWN, "no roofs at 1 thread");
    r.threads = 2;
    pg_roofline_classify(&p, &r, fp);
    cr_assert_eq(p.bound, PG_ROOF_COMPUTE, "%s", p.why);
    cr_assert_float_eq(p.fraction, 0.5, 1e-12);
    cr_assert_eq(pg_roofline_roofs(&got, fp, "cpu", 2), 0);
    cr_assert_eq(got.peak_reliable, 0);
    cr_assert_eq(pg_roofline_roofs(&got, "{}", "cpu", 2), 1);
    cr_assert_eq(pg_roofline_roofs(&got, "not json", "cpu", 2), 1);
}

Test(roofline, bandwidth_is_measured_and_positive)
{
    double triad, copy;

    cr_assert_eq(pg_roofline_bandwidth(&triad, &copy, 1, 24u << 20), 0);
    cr_assert_gt(triad, 0);
    cr_assert_gt(copy, 0);
    cr_assert_neq(pg_roofline_bandwidth(&triad, &copy, 0, 1 << 20), 0);
}

static size_t count_substr(const char *s, const char *needle)
{
    size_t n = 0;

    while ((s = strstr(s, needle)) != NULL) {
        n++;
        s += strlen(needle);
    }
    return n;
}

/* The shipped kernels a real run labels whatever the machine's speed: GEMMs with counted bytes, a
   bandwidth kernel, the empty kernel (no work), a tiny GEMM (under a microsecond at the roofs). */
static const char suite[] = "suite: roof\n"
                            "defaults: {min_run_time: 0.05s, warmup: 10ms, min_samples: 5}\n"
                            "benchmarks:\n"
                            "  - {name: sgemm, kernel: sgemm, params: {n: [16, 256]}}\n"
                            "  - {name: copy, kernel: copy, params: {n: 1048576}}\n"
                            "  - {name: empty, kernel: empty}\n";

Test(roofline, a_run_stores_its_roofs_and_labels_every_case, .timeout = 300)
{
    char *tmp = pg_test_tmpdir(), *path = pg_test_write(tmp, "roof.yaml", suite);
    char *json = pg__asprintf("%s/r.json", tmp), *db = pg__asprintf("%s/r.db", tmp);
    char *html = pg__asprintf("%s/r.html", tmp), *dom = pg__asprintf("%s/dom.html", tmp), *doc, *cmd;
    const char *env[] = {"PERFGATE_ROOFLINE=on", NULL};
    const char *argv[] = {"run", "--db", db, "--json", json, path, NULL};
    const char *rep[] = {"report", "--db", db, "--format", "html", "-o", html, "latest", NULL};
    json_t *o, *results, *r, *cpu1;
    size_t i, pts = 0;
    pg_proc p;

    pg_test_run(&p, NULL, env, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "roofline (docs/measuring.md): 1 thread: peak") != NULL, "%s", p.out);
    pg_proc_free(&p);
    cr_assert_eq(pg__read_file(&doc, NULL, json), 0);
    o = json_loads(doc, 0, NULL);
    free(doc);
    cpu1 = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(o, "machine"),
                                                                           "fingerprint"),
                                                           "roofline"),
                                           "cpu"),
                           "1");
    cr_assert_not_null(cpu1, "the fingerprint holds the roofs at 1 thread");
    cr_assert_gt(json_number_value(json_object_get(cpu1, "peak_gflops")), 0);
    cr_assert_gt(json_number_value(json_object_get(cpu1, "triad_gbs")), 0);
    cr_assert_gt(json_number_value(json_object_get(cpu1, "copy_gbs")), 0);
    results = json_object_get(o, "results");
    json_array_foreach(results, i, r) {
        const char *key = json_string_value(json_object_get(r, "key"));
        json_t *roof = json_object_get(r, "roofline");
        const char *bound = json_string_value(json_object_get(roof, "bound"));
        double mfu = json_number_value(json_object_get(r, "mfu"));
        cr_assert_not_null(bound, "%s has no roofline label", key);
        /* MFU divides by a ceiling no case's fastest sample beats, so a median never passes it. */
        cr_assert_leq(mfu, 1.0, "%s: MFU %g", key, mfu);
        if (strstr(key, "empty") || strstr(key, "n=16]"))
            cr_assert_str_eq(bound, "overhead-bound", "%s", key);
        if (strstr(key, "copy"))
            cr_assert_eq(json_number_value(json_object_get(roof, "intensity")), 0.0);
        if (strstr(key, "sgemm"))
            pts++;
    }
    json_decref(o);
    /* The HTML roofline, laid out by a real browser. */
    pg_test_run(&p, NULL, env, rep);
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    cmd = pg__asprintf("chromium --headless --no-sandbox --disable-gpu --user-data-dir=%s/profile "
                       "--dump-dom file://%s > %s 2>/dev/null",
                       tmp, html, dom);
    cr_assert_eq(system(cmd), 0, "headless chromium failed (is the chromium package installed?)");
    free(cmd);
    cr_assert_eq(pg__read_file(&doc, NULL, dom), 0);
    cr_assert_eq(count_substr(doc, "<svg class=\"roofline\""), 1, "one roofline plot");
    cr_assert_eq(count_substr(doc, "<polyline class=\"roof\""), 1, "one roof: every case ran at 1 thread");
    cr_assert_eq(count_substr(doc, "<circle class=\"case-pt\""), pts, "a point per GEMM case");
    cr_assert_eq(count_substr(doc, "<rect class=\"bw-bar\""), 1, "a bar for copy, which has no FLOPs");
    cr_assert(strstr(doc, "data-bound=\"overhead-bound\"") != NULL, "sgemm n=16 is overhead-bound");
    cr_assert(strstr(doc, "<script") == NULL, "the page stays self-contained");
    free(doc);
    pg_test_rmtree(tmp);
    free(tmp);
    free(path);
    free(json);
    free(db);
    free(html);
    free(dom);
}

Test(roofline, doctor_flags_a_generic_blas_kernel_with_its_factor, .timeout = 120)
{
    const char *env[] = {"OPENBLAS_CORETYPE=Prescott", NULL};
    const char *argv[] = {"doctor", "--no-measure", "--json", NULL};
    pg_proc p;
    json_t *o, *k;
    char *flags = NULL;

    /* Only where the CPU has a vector ISA wider than Prescott's SSE3 (any x86-64 from 2011 on). */
    if (pg_test_sh(&flags, "grep -qw avx /proc/cpuinfo") != 0) {
        free(flags);
        cr_skip_test("this CPU has no AVX: Prescott is its kernel");
    }
    free(flags);
    pg_test_run(&p, NULL, env, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    o = json_loads(p.out, 0, NULL);
    k = json_object_get(o, "blas_kernel");
    cr_assert_str_eq(json_string_value(json_object_get(k, "core")), "Prescott",
                     "a DYNAMIC_ARCH OpenBLAS takes OPENBLAS_CORETYPE");
    cr_assert(json_is_true(json_object_get(k, "narrower")));
    cr_assert_gt(json_number_value(json_object_get(k, "factor")), 0, "the factor is measured, not assumed");
    cr_assert_neq(strcmp(json_string_value(json_object_get(k, "expected_core")), "Prescott"), 0);
    json_decref(o);
    pg_proc_free(&p);
    argv[2] = NULL;
    pg_test_run(&p, NULL, env, argv);
    cr_assert(strstr(p.out, "OpenBLAS runs the Prescott kernel on an") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "x slower") != NULL, "%s", p.out);
    pg_proc_free(&p);
}
