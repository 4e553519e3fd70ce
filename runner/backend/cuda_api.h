/*
 * cuda_api.h - the C interface between the CUDA backend's C code and its
 * .cu files.
 *
 * Everything that touches the CUDA runtime or cuBLAS lives in .cu files
 * (compiled by nvcc only when the backend is built), behind the functions
 * declared here with C linkage. When perfgate is built without CUDA, cuda.c
 * defines the same functions to report "built without the CUDA backend", so
 * callers (exec, doctor, checks, tests) never need #if PG_HAS_CUDA.
 *
 * Errors: every function returns 0 or a negative PG_E* code with the one-line
 * message set (pg_error_last()). PG_ESKIP means "no usable device here" and
 * its message is the reason ("no CUDA device: ..."); callers report the case
 * or check as skipped, never as failed.
 */
#ifndef PG_CUDA_API_H
#define PG_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the device ---------------------------------------------------------- */

/**
 * Whether a CUDA device can be used. Probes once per process (later calls
 * return the cached answer and message).
 * @return 0 when device 0 is usable; PG_ESKIP with the reason otherwise.
 */
int pg_cuda_probe(void);

/** What the fingerprint records about device 0 (fields 0 or "" when unknown). */
typedef struct pg_cuda_info {
    int device_count;
    char name[256];
    char pci_bus_id[32];
    int cc_major, cc_minor;      /* compute capability */
    int sm_count;
    size_t total_mem;            /* bytes */
    int l2_bytes;
    int ecc;                     /* ECC enabled */
    int driver_version;          /* cudaDriverGetVersion: 1000*major + 10*minor */
    int runtime_version;         /* cudaRuntimeGetVersion */
    int cublas_version;          /* 10000*major + 100*minor + patch */
    char driver_release[96];     /* NVML's driver version ("580.65.06") or "" */
    unsigned sm_clock_default_mhz; /* peak SM clock (cudaDevAttrClockRate) */
    unsigned sm_clock_mhz;       /* current SM clock (NVML), 0 when unreadable */
    unsigned mem_clock_mhz;      /* current memory clock (NVML), 0 when unreadable */
    int temperature_c;           /* NVML, -1 when unreadable */
} pg_cuda_info;

/**
 * Reads the fingerprint fields of device 0.
 * @return 0, PG_ESKIP with the reason when no device, or PG_EDEVICE.
 */
int pg__cuda_info(pg_cuda_info *out);

/**
 * The device fingerprint as a JSON object (the fields of pg_cuda_info).
 * @param[out] out the JSON text (caller frees).
 * @return 0, PG_ESKIP with the reason when no device, or an error.
 */
int pg_cuda_fingerprint(char **out);

/* ---- workloads ----------------------------------------------------------- */

/** Which built-in GPU workload a spec describes. */
typedef enum pg_cuda_kind {
    PG_CUDA_GEMM = 0,
    PG_CUDA_COPY,
    PG_CUDA_ADD,
    PG_CUDA_GELU,
    PG_CUDA_SOFTMAX,
    PG_CUDA_MASKED_SELECT,
    PG_CUDA_STEP
} pg_cuda_kind;

/** GEMM precisions: inputs and outputs in the named type, fp32 accumulation. */
typedef enum pg_cuda_dtype {
    PG_CUDA_FP32 = 0,
    PG_CUDA_TF32,      /* fp32 storage, tensor-core TF32 multiply */
    PG_CUDA_FP16,
    PG_CUDA_BF16
} pg_cuda_dtype;

/** A workload's shape, parsed from a case's params by cuda_registry.c. */
typedef struct pg_cuda_spec {
    pg_cuda_kind kind;
    pg_cuda_dtype dtype; /* gemm */
    int64_t m, n, k;     /* gemm: C[m,n] = A[m,k]·B[k,n]; copy/add/gelu: n elements */
    int64_t rows, cols;  /* softmax, masked_select; step: B rows of width cols */
    int masked;          /* step: also run a masked select (a host sync) */
    uint64_t seed;       /* inputs are uniform random in [-1, 1), never zeros */
} pg_cuda_spec;

/** Parses a dtype name (fp32, tf32, fp16, bf16). @return 0 or PG_EINVAL. */
int pg__cuda_dtype_parse(pg_cuda_dtype *out, const char *name);
const char *pg__cuda_dtype_name(pg_cuda_dtype d);

typedef struct pg_cuda_workload pg_cuda_workload;

/**
 * Allocates device buffers for `spec`, fills inputs with random values and
 * creates the stream (and the cuBLAS handle for GEMMs) the workload runs on.
 * @param[out] out the workload; free with pg__cuda_workload_free().
 * @return 0, PG_ESKIP when no device, PG_EINVAL for a bad shape, PG_EDEVICE.
 */
int pg__cuda_workload_new(pg_cuda_workload **out, const pg_cuda_spec *spec);

/**
 * Enqueues `iters` iterations on the workload's stream and returns without
 * waiting (except masked_select, whose count pass waits by design). Ops and
 * ranges are reported through the instrument hooks (instrument.h), GEMMs
 * through pg__cuda_gemm().
 */
int pg__cuda_workload_run(pg_cuda_workload *w, int64_t iters);

/**
 * Checks the last output against a CPU reference at the tolerance of the
 * workload's precision, on a sample of output entries (so it stays cheap for
 * 8192^3 GEMMs). Waits for the stream.
 * @return 0, or PG_EKERNEL naming the first entry out of tolerance.
 */
int pg__cuda_workload_verify(pg_cuda_workload *w);

void pg__cuda_workload_free(pg_cuda_workload *w);

/**
 * The single GPU GEMM entry point (row-major, like pg_kernels_gemm_f32):
 * C[m,n] = A[m,k]·B[k,n] in `dtype` with fp32 accumulation, through
 * cublasGemmEx on the workload's stream and handle. Like the CPU entry point
 * it brackets the call with pg__op_begin(op)/pg__op_end(op) and reports
 * pg__op_gemm(op, m, n, k), so FLOP checks count GPU GEMMs the same way.
 */
int pg__cuda_gemm(pg_cuda_workload *w, const char *op, pg_cuda_dtype dtype, int64_t m, int64_t n, int64_t k,
                  const void *a, const void *b, void *c);

/* ---- timing -------------------------------------------------------------- */

/**
 * Times one block: records an event, enqueues `iters` iterations, records a
 * second event on the same stream and waits for it.
 * @param[out] out_s device seconds between the two events.
 */
int pg__cuda_workload_time(double *out_s, pg_cuda_workload *w, int64_t iters);

/**
 * Evicts the L2 cache: a memset of a buffer of the device's L2 size on the
 * workload's stream, waited for (so it is never inside a timed interval).
 */
int pg__cuda_workload_flush_l2(pg_cuda_workload *w);

/**
 * The device's current SM clock in MHz, read through NVML when the driver
 * provides it.
 * @param[out] out_mhz the clock; 0 when it cannot be read.
 */
int pg__cuda_sm_clock(unsigned *out_mhz);

/** The device's default (peak) SM clock in MHz; 0 when unknown. */
unsigned pg__cuda_sm_default_clock(void);

/* ---- streams for plugins (CUDA builds only) ------------------------------ */

/**
 * Creates the CUDA stream a GPU plugin case runs on (pg_cuda_stream()).
 * @param[out] out the cudaStream_t.
 * @return 0, or PG_ESKIP with the reason when no device is usable.
 */
int pg_cuda_stream_create(void **out);

/** Waits for all work queued on `stream`. @return 0 or PG_EDEVICE. */
int pg_cuda_stream_sync(void *stream);

void pg_cuda_stream_destroy(void *stream);

#ifdef __cplusplus
}
#endif
#endif
