/* fixture.c - hand-built result models (see fixture.h). */
#include "fixture.h"

#include "perfgate/config.h"
#include "support.h"
#include "base/util.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void run_meta(pg_run *r, int64_t id, const char *uuid, const char *commit, const char *branch, int64_t t)
{
    free(r->uuid);
    r->id = id;
    r->uuid = pg__strdup(uuid);
    r->suite_set = pg__strdup("cpu,fences");
    r->commit = pg__strdup(commit);
    r->branch = pg__strdup(branch);
    r->tool_version = pg__strdup(PG_VERSION_STRING);
    r->machine_hash = pg__strdup("0123456789abcdef");
    r->machine_json = pg__strdup("{\"cpu_model\": \"Test CPU @ 3.0GHz\", \"online_cores\": 8, \"blas\": \"OpenBLAS\"}");
    r->started_at = t;
    r->finished_at = t + 123;
}

/* A measured result whose five samples have the given median. */
static void add_ok(pg_run *run, const char *suite, const char *name, const char *params, const char *key,
                         double median, double flops)
{
    static const double spread[5] = {0.97, 0.99, 1.0, 1.02, 1.05};
    pg_result *r;
    int i;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__strdup(key);
    r->suite = pg__strdup(suite);
    r->name = pg__strdup(name);
    r->params_json = pg__strdup(params);
    r->threads = 1;
    r->device = pg__strdup(strstr(key, ":cuda") ? "cuda" : "cpu");
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->samples = malloc(5 * sizeof(double));
    for (i = 0; i < 5; i++)
        r->samples[i] = median * spread[i];
    r->nsamples = 5;
    r->number_per_run = 100;
    r->summary.n = 5;
    r->summary.median = median;
    r->summary.q1 = median * 0.99;
    r->summary.q3 = median * 1.02;
    r->summary.iqr = median * 0.03;
    /* Real runs flag IQR >= 10% of the median as noisy; the fixture's mlp_step is set noisy by hand. */
    r->summary.mean = median * 1.006;
    r->summary.stddev = median * 0.03;
    r->summary.min = median * 0.97;
    r->summary.max = median * 1.05;
    r->flops = flops;
    r->threshold = 0.05;
    r->alpha = 0.05;
    r->warmup_s = 0.05;
}

static void add_status(pg_run *run, const char *suite, const char *name, const char *key, pg_status st,
                             const char *msg)
{
    pg_result *r;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__strdup(key);
    r->suite = pg__strdup(suite);
    r->name = pg__strdup(name);
    r->params_json = pg__strdup("{}");
    r->threads = 1;
    r->device = pg__strdup(strstr(key, ":cuda") ? "cuda" : "cpu");
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->status = st;
    r->message = pg__strdup(msg);
}

static void add_check(pg_run *run, const char *name, const char *kind, const char *exp, const char *act, int passed,
                      int skipped, const char *msg)
{
    pg_check_result *c;

    pg_assert_ok(pg_run_add_check(&c, run));
    c->suite = pg__strdup("fences");
    c->name = pg__strdup(name);
    c->kind = pg__strdup(kind);
    c->expected = pg__strdup(exp);
    c->actual = pg__strdup(act);
    c->passed = passed;
    c->skipped = skipped;
    c->message = pg__strdup(msg);
}

static pg_case_verdict *push(pg_comparison *c, const char *key, const char *suite, const char *name, pg_verdict v)
{
    pg_case_verdict *p;

    c->cases = realloc(c->cases, (c->ncases + 1) * sizeof(*c->cases));
    p = &c->cases[c->ncases++];
    memset(p, 0, sizeof(*p));
    p->key = pg__strdup(key);
    p->suite = pg__strdup(suite);
    p->name = pg__strdup(name);
    p->verdict = v;
    p->threshold = 0.05;
    p->alpha = 0.05;
    p->est.ratio = p->est.ci_lo = p->est.ci_hi = p->est.p = p->est.p_adj = p->est.resolution = NAN;
    c->counts[v]++;
    return p;
}

/* A verdict between two measured results. */
static pg_case_verdict *versus(pg_comparison *c, const pg_result *h, const pg_result *b, pg_verdict v, double lo,
                               double hi, double p, double padj, const char *reason)
{
    pg_case_verdict *x = push(c, h->key, h->suite, h->name, v);

    x->head = h;
    x->base = b;
    x->est.head_n = h->nsamples;
    x->est.base_n = b->nsamples;
    x->est.head_median = h->summary.median;
    x->est.base_median = b->summary.median;
    x->est.ratio = h->summary.median / b->summary.median;
    x->est.ci_lo = lo;
    x->est.ci_hi = hi;
    x->est.p = p;
    x->est.p_adj = padj;
    x->est.resolution = 0.021;
    x->reason = pg__strdup(reason);
    return x;
}

void pg_test_fixed_model(pg_test_model *m)
{
    pg_run *h, *b;
    pg_comparison *c;
    pg_result *h1, *h2, *h3, *h4, *h5, *h7, *h8, *b1, *b2, *b3, *b4, *b6;
    pg_case_verdict *v;

    memset(m, 0, sizeof(*m));
    pg_assert_ok(pg_run_new(&m->head));
    pg_assert_ok(pg_run_new(&m->base));
    h = m->head;
    b = m->base;
    run_meta(h, 12, "00000000-0000-4000-8000-000000000012", "1234567890abcdef1234567890abcdef12345678",
             "feature/faster-gemm", 1790000000);
    h->ref = pg__strdup("refs/pull/42/merge");
    h->pr = 42;
    h->ci_url = pg__strdup("https://github.com/acme/kernels/actions/runs/777");
    run_meta(b, 11, "00000000-0000-4000-8000-000000000011", "abcdefabcdefabcdefabcdefabcdefabcdefabcd", "main",
             1789990000);

    add_ok(h, "cpu", "sgemm", "{\"n\": 1024}", "cpu/sgemm[n=1024]@1:cpu", 45.0e-3, 2147483648.0);
    add_ok(h, "cpu", "sgemm", "{\"n\": 256}", "cpu/sgemm[n=256]@1:cpu", 0.85e-3, 33554432.0);
    add_ok(h, "cpu", "dgemm", "{\"n\": 128}", "cpu/dgemm[n=128]@1:cpu", 136.5e-6, 4194304.0);
    add_ok(h, "cpu", "mlp_step", "{\"B\": 64, \"adamw\": \"forloop\"}", "cpu/mlp_step[B=64,adamw=forloop]@1:cpu",
                0.02544, 0);
    add_ok(h, "cpu", "softmax", "{\"n\": 4096}", "cpu/softmax[n=4096]@1:cpu", 812e-9, 0);
    add_status(h, "cpu", "gemm_bf16", "cpu/gemm_bf16[m=8192]@1:cuda", PG_STATUS_SKIPPED, "no CUDA device");
    add_status(h, "cpu", "plugin_fft", "cpu/plugin_fft@1:cpu", PG_STATUS_ERROR,
                    "plugin libfft.so: symbol 'pg_bench_fft' not found");
    add_check(h, "linear_train_flops", "flops", "total=768 addmm=256 mm=512", "total=768 addmm=256 mm=512", 1, 0,
              NULL);
    add_check(h, "mask_syncs", "ops", "within masked_select: contains [index, nonzero]",
              "masked_select: [index, copy]", 0, 0, "op 'nonzero' not found inside range 'masked_select' <1 window>");
    add_check(h, "gpu_no_sync", "ops", "not_contains [cudaStreamSynchronize]", NULL, 1, 1, "no CUDA device");

    add_ok(b, "cpu", "sgemm", "{\"n\": 1024}", "cpu/sgemm[n=1024]@1:cpu", 40.3e-3, 2147483648.0);
    add_ok(b, "cpu", "sgemm", "{\"n\": 256}", "cpu/sgemm[n=256]@1:cpu", 1.0e-3, 33554432.0);
    add_ok(b, "cpu", "dgemm", "{\"n\": 128}", "cpu/dgemm[n=128]@1:cpu", 136.0e-6, 4194304.0);
    add_ok(b, "cpu", "mlp_step", "{\"B\": 64, \"adamw\": \"forloop\"}", "cpu/mlp_step[B=64,adamw=forloop]@1:cpu",
                0.024, 0);
    add_ok(b, "cpu", "old_kernel", "{}", "cpu/old_kernel@1:cpu", 2.5, 0);

    /* Pointers are taken only now: adding results moves the arrays. */
    h1 = &h->results[0];
    h2 = &h->results[1];
    h3 = &h->results[2];
    h4 = &h->results[3];
    h5 = &h->results[4];
    h7 = &h->results[5];
    h8 = &h->results[6];
    b1 = &b->results[0];
    b2 = &b->results[1];
    b3 = &b->results[2];
    b4 = &b->results[3];
    b6 = &b->results[4];
    h4->warnings = PG_WARN_NOISY;
    h5->bytes = 32768;

    c = m->cmp = calloc(1, sizeof(*c));
    c->head = h;
    c->base = b;
    c->nbases = 1;
    c->method = pg__strdup("fixture: hand-made verdicts");
    versus(c, h1, b1, PG_VERDICT_REGRESSED, 1.082, 1.153, 0.0004, 0.0024, "slower beyond 5% (Holm p=0.0024 over 4 cases)");
    versus(c, h2, b2, PG_VERDICT_IMPROVED, 0.81, 0.89, 0.0006, 0.003, NULL);
    versus(c, h3, b3, PG_VERDICT_SAME, 0.99, 1.02, 0.31, 0.62, NULL);
    versus(c, h4, b4, PG_VERDICT_UNSURE, 0.97, 1.16, 0.07, 0.21,
           "interval -3.0% to +16.0% straddles the 5% threshold; resolution 9.1% at this noise: raise min_run_time");
    v = push(c, h5->key, "cpu", "softmax", PG_VERDICT_NEW);
    v->head = h5;
    v->est.head_n = 5;
    v->est.head_median = h5->summary.median;
    v->reason = pg__strdup("not in the baseline");
    v = push(c, h7->key, "cpu", "gemm_bf16", PG_VERDICT_SKIPPED);
    v->head = h7;
    v->reason = pg__strdup("no CUDA device");
    v = push(c, h8->key, "cpu", "plugin_fft", PG_VERDICT_ERROR);
    v->head = h8;
    v->reason = pg__strdup(h8->message);
    v = push(c, b6->key, "cpu", "old_kernel", PG_VERDICT_MISSING);
    v->base = b6;
    v->est.base_n = 5;
    v->est.base_median = b6->summary.median;
    v->reason = pg__strdup("in the baseline but not in this run");
    c->checks_total = 3;
    c->checks_failed = 1;
    c->exit_code = 1;
    c->outcome = PG_OUTCOME_FAIL;
}

/* Fills result `r` in place (big models allocate their arrays once: growing them one by one is quadratic). */
static void fill_ok(pg_result *r, const char *key, const char *params, double median)
{
    pg_run tmp = {0};
    pg_result *one;

    /* Reuse add_ok on a scratch run, then move the result over. */
    add_ok(&tmp, "generated", "a_rather_long_benchmark_name_for_width", params, key, median, 0);
    one = &tmp.results[0];
    *r = *one;
    free(tmp.results);
}

void pg_test_big_model(pg_test_model *m, size_t n)
{
    pg_comparison *c;
    size_t i;

    memset(m, 0, sizeof(*m));
    pg_assert_ok(pg_run_new(&m->head));
    pg_assert_ok(pg_run_new(&m->base));
    run_meta(m->head, 2, "00000000-0000-4000-8000-000000000002", "1111111111111111111111111111111111111111", "pr",
             1790000000);
    run_meta(m->base, 1, "00000000-0000-4000-8000-000000000001", "2222222222222222222222222222222222222222", "main",
             1789990000);
    m->head->ci_url = pg__strdup("https://github.com/acme/kernels/actions/runs/778");
    m->head->results = calloc(n, sizeof(pg_result));
    m->base->results = calloc(n, sizeof(pg_result));
    cr_assert(m->head->results && m->base->results);
    for (i = 0; i < n; i++) {
        char key[160], params[64];
        double f = i % 1000 == 7 ? 1.2 : i % 1000 == 9 ? 0.8 : 1.01;
        snprintf(params, sizeof(params), "{\"n\": %zu}", i);
        snprintf(key, sizeof(key), "generated/a_rather_long_benchmark_name_for_width[n=%zu,mode=train]@1:cpu", i);
        fill_ok(&m->head->results[i], key, params, 1e-3 * f);
        fill_ok(&m->base->results[i], key, params, 1e-3);
        m->head->nresults = m->base->nresults = i + 1;
    }
    c = m->cmp = calloc(1, sizeof(*c));
    c->head = m->head;
    c->base = m->base;
    c->nbases = 1;
    c->method = pg__strdup("fixture: generated verdicts");
    c->cases = calloc(n, sizeof(*c->cases));
    for (i = 0; i < n; i++) {
        const pg_result *h = &m->head->results[i], *b = &m->base->results[i];
        double r = h->summary.median / b->summary.median;
        pg_verdict v = r > 1.1 ? PG_VERDICT_REGRESSED : r < 0.9 ? PG_VERDICT_IMPROVED : PG_VERDICT_SAME;
        pg_case_verdict *x = &c->cases[i];
        x->key = pg__strdup(h->key);
        x->suite = pg__strdup(h->suite);
        x->name = pg__strdup(h->name);
        x->verdict = v;
        x->head = h;
        x->base = b;
        x->est.head_n = x->est.base_n = 5;
        x->est.head_median = h->summary.median;
        x->est.base_median = b->summary.median;
        x->est.ratio = r;
        x->est.ci_lo = r - 0.02;
        x->est.ci_hi = r + 0.02;
        x->est.p = 0.01;
        x->est.p_adj = 0.04;
        x->threshold = x->alpha = 0.05;
        x->est.resolution = 0.021;
        c->counts[v]++;
        c->ncases = i + 1;
    }
    c->exit_code = c->counts[PG_VERDICT_REGRESSED] > 0;
    c->outcome = c->exit_code ? PG_OUTCOME_FAIL : PG_OUTCOME_PASS;
}

void pg_test_model_free(pg_test_model *m)
{
    pg_comparison_free(m->cmp);
    pg_run_free(m->head);
    pg_run_free(m->base);
    memset(m, 0, sizeof(*m));
}

pg_result *pg_test_add_result(pg_run *run, const char *suite, const char *name, size_t n)
{
    pg_result *r;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__asprintf("%s/%s@1:cpu", suite, name);
    r->suite = pg__strdup(suite);
    r->name = pg__strdup(name);
    r->status = PG_STATUS_OK;
    r->samples = calloc(n, sizeof(double));
    r->nsamples = n;
    cr_assert(r->key && r->suite && r->name && r->samples, "out of memory");
    return r;
}

void pg_test_store_foreign_runs(pg_store *store, size_t count, const char *branch, const char *machine_hash,
                                const char *cpu_model)
{
    size_t i;

    for (i = 0; i < count; i++) {
        pg_run *run;
        pg_assert_ok(pg_run_new(&run));
        run->branch = pg__strdup(branch);
        run->commit = pg__strdup("0000000000000000000000000000000000000000");
        run->suite_set = pg__strdup("foreign");
        run->machine_hash = pg__strdup(machine_hash);
        run->machine_json = pg__asprintf("{\"cpu_model\": \"%s\"}", cpu_model);
        run->started_at = run->finished_at = pg__now_unix();
        pg_assert_ok(pg_store_save_run(store, run));
        pg_run_free(run);
    }
}

pg_result *pg_test_add_count(pg_run *run, const char *key, const char *metric, double value, const char *extra)
{
    const char *slash = strchr(key, '/'), *open = strchr(key, '[');
    pg_result *r;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__asprintf("%s#%s", key, metric);
    r->suite = pg__asprintf("%.*s", (int)(slash ? slash - key : 0), key);
    r->name = pg__asprintf("%.*s", (int)(open && slash ? open - slash - 1 : 0), slash ? slash + 1 : key);
    r->params_json = pg__strdup("{}");
    r->threads = 1;
    r->device = pg__strdup("cpu");
    r->metric = pg__strdup(metric);
    r->unit = pg__strdup(strcmp(metric, "instructions") == 0 ? "Ir" : "cycles");
    r->threshold = 0.005;
    r->alpha = 0.05;
    r->samples = malloc(2 * sizeof(double));
    cr_assert(r->samples != NULL);
    r->samples[0] = r->samples[1] = value;
    r->nsamples = 2;
    r->number_per_run = 1;
    pg_stats_summarize(&r->summary, r->samples, 2);
    r->extra_json = extra ? pg__strdup(extra) : NULL;
    return r;
}
