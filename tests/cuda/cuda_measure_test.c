/*
 * cuda_measure_test.c - the GPU sampling loop driven by a fake device, so
 * block sizing on device time, cold samples and throttle flags are checked
 * exactly on machines without a GPU.
 */
#include "support.h"

#include "backend/cuda_measure.h"
#include "base/model.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A fake device: each iteration costs `iter_s` of device time; the first
 * iteration after an L2 flush costs `cold_s` instead. The SM clock reads
 * `clock_mhz` until `throttle_after` blocks have run, then `throttled_mhz`. */
typedef struct fake_device {
    double iter_s, cold_s;
    int flushed;
    int64_t blocks, flushes, clock_reads;
    int64_t throttle_after;
    unsigned clock_mhz, throttled_mhz;
    int fail_at_block; /* 0: never */
} fake_device;

static int fake_block(void *payload, int64_t iters, double *out_s)
{
    fake_device *d = payload;

    d->blocks++;
    if (d->fail_at_block && d->blocks == d->fail_at_block)
        return pg_error_set(PG_EDEVICE, "fake.cu:1: kernel launch failed: an illegal memory access");
    *out_s = (double)iters * d->iter_s;
    if (d->flushed && iters > 0)
        *out_s += d->cold_s - d->iter_s;
    d->flushed = 0;
    return 0;
}

static int fake_flush(void *payload)
{
    fake_device *d = payload;

    d->flushes++;
    d->flushed = 1;
    return 0;
}

static int fake_clock(void *payload, unsigned *out)
{
    fake_device *d = payload;

    d->clock_reads++;
    *out = d->throttle_after && d->blocks >= d->throttle_after ? d->throttled_mhz : d->clock_mhz;
    return 0;
}

static pg_gpu_measure_options quick_options(void)
{
    pg_gpu_measure_options o = PG_GPU_MEASURE_OPTIONS_INIT;

    o.min_run_time = 0.05;
    o.max_run_time = 1.0;
    o.warmup = 0.01;
    o.min_samples = 10;
    return o;
}

Test(cuda_measure, block_grows_until_one_ms_of_device_time)
{
    fake_device d = {10e-6, 10e-6, 0, 0, 0, 0, 0, 1980, 1980, 0};
    pg_gpu_timer t = {fake_block, fake_flush, fake_clock, &d};
    pg_gpu_measure_options o = quick_options();
    pg_gpu_measurement m;
    size_t i;

    pg_assert_ok(pg__gpu_measure(&m, &t, &o));
    /* 10 us per iteration: 64 iterations are 0.64 ms, 128 are 1.28 ms. */
    cr_assert_eq(m.number_per_run, 128);
    cr_assert_geq(m.nsamples, 10);
    for (i = 0; i < m.nsamples; i++)
        cr_assert_float_eq(m.samples[i], 10e-6, 1e-12, "sample %zu = %g", i, m.samples[i]);
    cr_assert_eq(d.flushes, 0, "warm samples never flush");
    /* 0.05 s of device time in 1.28 ms blocks: 40 samples. */
    cr_assert_eq(m.nsamples, 40);
    cr_assert_eq(m.throttled, 0);
    cr_assert_eq(m.warnings & PG_WARN_THROTTLED, 0);
    cr_assert_not_null(m.clock_before);
    cr_assert_eq(m.clock_before[0], 1980);
    pg__gpu_measurement_clear(&m);
}

Test(cuda_measure, cold_samples_flush_before_each_single_iteration)
{
    fake_device d = {10e-6, 30e-6, 0, 0, 0, 0, 0, 1980, 1980, 0};
    pg_gpu_timer t = {fake_block, fake_flush, fake_clock, &d};
    pg_gpu_measure_options o = quick_options();
    pg_gpu_measurement m;
    size_t i;

    o.cold = 1;
    pg_assert_ok(pg__gpu_measure(&m, &t, &o));
    cr_assert_eq(m.number_per_run, 1, "a cold block is one iteration");
    cr_assert_geq(m.nsamples, 10);
    /* Every block was preceded by a flush, and the flush is not in the sample. */
    cr_assert_eq(d.flushes, d.blocks);
    for (i = 0; i < m.nsamples; i++)
        cr_assert_float_eq(m.samples[i], 30e-6, 1e-12, "sample %zu = %g", i, m.samples[i]);
    pg__gpu_measurement_clear(&m);
}

Test(cuda_measure, samples_under_75_percent_of_default_clock_are_throttled)
{
    /* The clock drops to 1000 MHz (51% of 1980) after the 20th block. */
    fake_device d = {1e-3, 1e-3, 0, 0, 0, 0, 20, 1980, 1000, 0};
    pg_gpu_timer t = {fake_block, fake_flush, fake_clock, &d};
    pg_gpu_measure_options o = quick_options();
    pg_gpu_measurement m;
    size_t i, expect = 0;
    char *json;
    json_t *j;

    o.default_clock_mhz = 1980;
    pg_assert_ok(pg__gpu_measure(&m, &t, &o));
    cr_assert_eq(m.number_per_run, 1);
    for (i = 0; i < m.nsamples; i++)
        expect += m.clock_before[i] < 1485 || m.clock_after[i] < 1485;
    cr_assert_gt(expect, 0);
    cr_assert_lt(expect, m.nsamples, "the first samples ran at full clock");
    cr_assert_eq(m.throttled, expect);
    cr_assert(m.warnings & PG_WARN_THROTTLED);
    json = pg__gpu_measurement_json(&m, &o);
    j = json_loads(json, 0, NULL);
    cr_assert_not_null(j, "%s", json);
    cr_assert_eq(json_integer_value(json_object_get(j, "throttled_samples")), (json_int_t)expect);
    cr_assert_eq(json_integer_value(json_object_get(j, "sm_clock_default_mhz")), 1980);
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(j, "sm_clock_after_mhz"), "min")), 1000, 1e-9);
    json_decref(j);
    free(json);
    pg__gpu_measurement_clear(&m);
}

Test(cuda_measure, clock_above_threshold_is_not_throttled)
{
    /* 1500 MHz is 75.8% of 1980: slower, but not under the 75% rule. */
    fake_device d = {1e-3, 1e-3, 0, 0, 0, 0, 1, 1980, 1500, 0};
    pg_gpu_timer t = {fake_block, fake_flush, fake_clock, &d};
    pg_gpu_measure_options o = quick_options();
    pg_gpu_measurement m;

    o.default_clock_mhz = 1980;
    pg_assert_ok(pg__gpu_measure(&m, &t, &o));
    cr_assert_eq(m.throttled, 0);
    cr_assert_eq(m.warnings & PG_WARN_THROTTLED, 0);
    pg__gpu_measurement_clear(&m);
}

Test(cuda_measure, device_error_stops_with_its_message)
{
    fake_device d = {10e-6, 10e-6, 0, 0, 0, 0, 0, 1980, 1980, 5};
    pg_gpu_timer t = {fake_block, fake_flush, fake_clock, &d};
    pg_gpu_measure_options o = quick_options();
    pg_gpu_measurement m;

    cr_assert_eq(pg__gpu_measure(&m, &t, &o), PG_EDEVICE);
    cr_assert(strstr(pg_error_last(), "illegal memory access") != NULL, "%s", pg_error_last());
    cr_assert_null(m.samples);
}

Test(cuda_measure, cold_needs_a_flush)
{
    fake_device d = {10e-6, 10e-6, 0, 0, 0, 0, 0, 1980, 1980, 0};
    pg_gpu_timer t = {fake_block, NULL, NULL, &d};
    pg_gpu_measure_options o = quick_options();
    pg_gpu_measurement m;

    o.cold = 1;
    cr_assert_eq(pg__gpu_measure(&m, &t, &o), PG_EINVAL);
    cr_assert_eq(d.blocks, 0);
}

Test(cuda_measure, no_clock_reader_means_no_clocks)
{
    fake_device d = {10e-6, 10e-6, 0, 0, 0, 0, 0, 1980, 1980, 0};
    pg_gpu_timer t = {fake_block, fake_flush, NULL, &d};
    pg_gpu_measure_options o = quick_options();
    pg_gpu_measurement m;

    o.default_clock_mhz = 1980;
    pg_assert_ok(pg__gpu_measure(&m, &t, &o));
    cr_assert_null(m.clock_before);
    cr_assert_eq(m.throttled, 0);
    pg__gpu_measurement_clear(&m);
}
