/*
 * cuda.c - the CUDA backend's dispatch: skip without a device, otherwise
 * set up the workload, check its output once against a CPU reference, and
 * sample it on device events (cuda_measure.h); MFU against a measured GEMM
 * ceiling or --peak-tflops.
 *
 * Always compiled. Without the CUDA backend (PG_HAS_CUDA 0) this file also
 * defines the cuda_api.h functions, each reporting "no CUDA device", so the
 * rest of perfgate and the tests never need #if PG_HAS_CUDA.
 */
#include "backend/backend.h"

#include "backend/cuda_api.h"
#include "backend/cuda_measure.h"
#include "backend/cuda_registry.h"
#include "kernels/kernels.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !PG_HAS_CUDA
/* ---- the backend is not built: every entry point says so ------------------ */

#define NOT_BUILT "no CUDA device (perfgate was built without the CUDA backend)"

int pg_cuda_probe(void)
{
    return pg_error_set(PG_ESKIP, NOT_BUILT);
}

int pg__cuda_info(pg_cuda_info *out)
{
    memset(out, 0, sizeof(*out));
    out->temperature_c = -1;
    return pg_cuda_probe();
}

int pg__cuda_workload_new(pg_cuda_workload **out, const pg_cuda_spec *spec)
{
    (void)spec;
    *out = NULL;
    return pg_cuda_probe();
}

int pg__cuda_workload_run(pg_cuda_workload *w, int64_t iters)
{
    (void)w;
    (void)iters;
    return pg_cuda_probe();
}

int pg__cuda_workload_verify(pg_cuda_workload *w)
{
    (void)w;
    return pg_cuda_probe();
}

void pg__cuda_workload_free(pg_cuda_workload *w)
{
    (void)w;
}

int pg__cuda_gemm(pg_cuda_workload *w, const char *op, pg_cuda_dtype dtype, int64_t m, int64_t n, int64_t k,
                  const void *a, const void *b, void *c)
{
    (void)w, (void)op, (void)dtype, (void)m, (void)n, (void)k, (void)a, (void)b, (void)c;
    return pg_cuda_probe();
}

int pg__cuda_workload_time(double *out_s, pg_cuda_workload *w, int64_t iters)
{
    (void)w;
    (void)iters;
    *out_s = 0;
    return pg_cuda_probe();
}

int pg__cuda_workload_flush_l2(pg_cuda_workload *w)
{
    (void)w;
    return pg_cuda_probe();
}

int pg__cuda_sm_clock(unsigned *out_mhz)
{
    *out_mhz = 0;
    return pg_cuda_probe();
}

unsigned pg__cuda_sm_default_clock(void)
{
    return 0;
}
#endif

/* ---- fingerprint ---------------------------------------------------------- */

#if PG_HAS_CUDA
/* An NVIDIA driver's device nodes, its /proc entry, or WSL's GPU device. */
static int driver_present(void)
{
    static const char *const paths[] = {"/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia/version", "/dev/dxg"};
    size_t i;

    for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        if (access(paths[i], F_OK) == 0)
            return 1;
    return 0;
}
#endif

int pg_cuda_fingerprint(char **out)
{
    pg_cuda_info in;
    json_t *o;
    char cc[16];
    int err;

    *out = NULL;
#if PG_HAS_CUDA
    /* Every run records the machine: without a driver there is no device, and no need to load CUDA to say so. */
    if (!driver_present())
        return pg_error_set(PG_ESKIP, "no CUDA device: no NVIDIA driver on this machine");
#endif
    if ((err = pg__cuda_info(&in)) != 0)
        return err;
    snprintf(cc, sizeof(cc), "%d.%d", in.cc_major, in.cc_minor);
    o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:b, s:i, s:i, s:i}", "name", in.name, "pci_bus_id",
                  in.pci_bus_id, "compute_capability", cc, "device_count", in.device_count, "sm_count", in.sm_count,
                  "memory_bytes", (json_int_t)in.total_mem, "l2_bytes", (json_int_t)in.l2_bytes, "ecc", in.ecc,
                  "driver_api_version", in.driver_version, "runtime_version", in.runtime_version,
                  "cublas_version", in.cublas_version);
    if (!o)
        return pg_error_set(PG_ENOMEM, "out of memory encoding the GPU fingerprint");
    json_object_set_new(o, "driver_version", in.driver_release[0] ? json_string(in.driver_release) : json_null());
    json_object_set_new(o, "sm_clock_default_mhz",
                        in.sm_clock_default_mhz ? json_integer(in.sm_clock_default_mhz) : json_null());
    json_object_set_new(o, "sm_clock_mhz", in.sm_clock_mhz ? json_integer(in.sm_clock_mhz) : json_null());
    json_object_set_new(o, "mem_clock_mhz", in.mem_clock_mhz ? json_integer(in.mem_clock_mhz) : json_null());
    json_object_set_new(o, "temperature_c", in.temperature_c >= 0 ? json_integer(in.temperature_c) : json_null());
    *out = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(o);
    return *out ? 0 : pg_error_set(PG_ENOMEM, "out of memory encoding the GPU fingerprint");
}

/* ---- timing a workload ---------------------------------------------------- */

static int timer_block(void *payload, int64_t iters, double *out_s)
{
    return pg__cuda_workload_time(out_s, payload, iters);
}

static int timer_flush(void *payload)
{
    return pg__cuda_workload_flush_l2(payload);
}

static int timer_clock(void *payload, unsigned *out_mhz)
{
    (void)payload;
    return pg__cuda_sm_clock(out_mhz);
}

/* Samples workload `w` with the case's settings scaled by `time_scale`. */
static int measure_workload(pg_gpu_measurement *out, pg_gpu_measure_options *mo, pg_cuda_workload *w,
                            const pg_case *c, double time_scale)
{
    pg_gpu_timer timer = {timer_block, timer_flush, timer_clock, NULL};

    timer.payload = w;
    mo->min_run_time = c->min_run_time * time_scale;
    mo->max_run_time = c->max_run_time * (time_scale < 1 ? time_scale : 1.0);
    if (mo->max_run_time < mo->min_run_time)
        mo->max_run_time = mo->min_run_time;
    mo->warmup = c->warmup * time_scale;
    mo->min_samples = c->min_samples;
    mo->cold = c->cold;
    mo->default_clock_mhz = pg__cuda_sm_default_clock();
    return pg__gpu_measure(out, &timer, mo);
}

/* ---- MFU ceilings: a large GEMM measured once per process ------------------ */

static struct {
    int tried;
    double tflops;   /* 0 when it could not be measured */
} ceilings[2];       /* [0] fp32, [1] bf16 (for tf32, fp16 and bf16) */

static double measured_ceiling(int low_precision, double time_scale)
{
    pg_gpu_measure_options mo = PG_GPU_MEASURE_OPTIONS_INIT;
    pg_gpu_measurement m = {0};
    pg_cuda_spec spec = {0};
    pg_cuda_workload *w = NULL;
    pg_case c = {0};
    const char *env = getenv("PERFGATE_CUDA_CEILING_N");
    int64_t n = env && atoll(env) > 0 ? atoll(env) : 8192;

    if (ceilings[low_precision].tried)
        return ceilings[low_precision].tflops;
    ceilings[low_precision].tried = 1;
    spec.kind = PG_CUDA_GEMM;
    spec.dtype = low_precision ? PG_CUDA_BF16 : PG_CUDA_FP32;
    spec.m = spec.n = spec.k = n;
    spec.seed = 7;
    c.min_run_time = 0.3;
    c.max_run_time = 2.0;
    c.warmup = 0.05;
    c.min_samples = 5;
    if (pg__cuda_workload_new(&w, &spec) == 0 &&
        measure_workload(&m, &mo, w, &c, time_scale < 1 ? time_scale : 1.0) == 0 && m.nsamples > 0) {
        /* The best sample: a ceiling is what the device can do, not what it usually does. */
        pg_summary s;
        if (pg_stats_summarize(&s, m.samples, m.nsamples) == 0 && s.min > 0)
            ceilings[low_precision].tflops = 2.0 * (double)n * (double)n * (double)n / s.min * 1e-12;
    }
    pg__gpu_measurement_clear(&m);
    pg__cuda_workload_free(w);
    return ceilings[low_precision].tflops;
}

/* Sets r->mfu and notes the ceiling it used in `extra`. */
static void fill_mfu(pg_result *r, json_t *extra, const pg_cuda_spec *spec, const pg_backend_options *opts)
{
    int low = spec->kind == PG_CUDA_GEMM && spec->dtype != PG_CUDA_FP32;
    double peak = opts->peak_tflops, ceiling;

    if (r->flops <= 0 || r->summary.median <= 0)
        return;
    if (peak > 0) {
        json_object_set_new(extra, "mfu_peak_tflops", json_real(peak));
        json_object_set_new(extra, "mfu_peak_source", json_string("--peak-tflops"));
    } else {
        ceiling = measured_ceiling(low, opts->time_scale);
        if (ceiling <= 0)
            return;
        peak = ceiling;
        json_object_set_new(extra, "mfu_peak_tflops", json_real(peak));
        json_object_set_new(extra, "mfu_peak_source",
                            json_string(low ? "measured bf16 GEMM ceiling" : "measured fp32 GEMM ceiling"));
    }
    r->mfu = r->flops / r->summary.median / (peak * 1e12);
}

/* ---- the backend entry point ---------------------------------------------- */

static int attach_extra(pg_result *r, json_t *extra)
{
    free(r->extra_json);
    r->extra_json = json_dumps(extra, JSON_SORT_KEYS | JSON_COMPACT);
    return r->extra_json ? 0 : pg_error_set(PG_ENOMEM, "out of memory encoding GPU details");
}

int pg_backend_cuda_case(pg_result *out, const pg_case *c, const pg_backend_options *opts)
{
    pg_gpu_measure_options mo = PG_GPU_MEASURE_OPTIONS_INIT;
    pg_gpu_measurement m = {0};
    const pg_kernel *k = c->kernel ? pg_kernel_find_for(c->kernel, "cuda") : NULL;
    pg_cuda_workload *w = NULL;
    pg_cuda_spec spec;
    json_t *extra = NULL, *details;
    char *text = NULL;
    int err, rc = 0;

    if (!k)
        return pg__result_error(out, "no built-in GPU kernel of that name (cuda runs built-in kernels only)");
    /* Parameters are checked before the device, so a typo fails on every machine. */
    if (pg__cuda_spec_from_case(&spec, c) != 0)
        return pg__result_error(out, pg_error_last());
    if ((err = k->setup((void **)&w, c)) != 0)
        return err == PG_ESKIP ? pg__result_skip(out, pg_error_last()) : pg__result_error(out, pg_error_last());

    /* One run outside any timing: the output must match the CPU reference. */
    if ((err = pg__cuda_workload_run(w, 1)) != 0 || (err = pg__cuda_workload_verify(w)) != 0) {
        rc = pg__result_error(out, pg_error_last());
        goto cleanup;
    }
    if ((err = measure_workload(&m, &mo, w, c, opts->time_scale)) != 0) {
        rc = pg__result_error(out, pg_error_last());
        goto cleanup;
    }
    out->status = PG_STATUS_OK;
    out->samples = m.samples;
    m.samples = NULL;
    out->nsamples = m.nsamples;
    out->number_per_run = m.number_per_run;
    out->warmup_s = m.warmup_s;
    out->warnings = m.warnings;
    out->flops = k->flops(c);
    out->bytes = k->bytes(c);
    if ((rc = pg_stats_summarize(&out->summary, out->samples, out->nsamples)) != 0)
        goto cleanup;

    text = pg__gpu_measurement_json(&m, &mo);
    extra = text ? json_loads(text, 0, NULL) : NULL;
    if (!extra) {
        rc = pg_error_set(PG_ENOMEM, "out of memory encoding GPU details");
        goto cleanup;
    }
    free(text);
    text = NULL;
    if (pg_cuda_fingerprint(&text) == 0 && (details = json_loads(text, 0, NULL)) != NULL)
        json_object_set_new(extra, "device", details);
    if (spec.kind == PG_CUDA_GEMM)
        json_object_set_new(extra, "dtype", json_string(pg__cuda_dtype_name(spec.dtype)));
    /* The ceiling's own GEMM must not run while this workload holds memory it could need. */
    pg__cuda_workload_free(w);
    w = NULL;
    fill_mfu(out, extra, &spec, opts);
    rc = attach_extra(out, extra);

cleanup:
    free(text);
    json_decref(extra);
    pg__gpu_measurement_clear(&m);
    pg__cuda_workload_free(w);
    return rc;
}
