/*
 * blas_kernel.h - is OpenBLAS running the kernel this CPU's ISA deserves?
 *
 * A DYNAMIC_ARCH OpenBLAS picks its kernels by CPU at load time, or takes
 * OPENBLAS_CORETYPE; an old OpenBLAS on a new CPU (or a stray
 * OPENBLAS_CORETYPE) falls back to a generic SSE kernel several times
 * slower, and MFU measured against an equally slow ceiling still reads near
 * 100%. The doctor compares the core in use with the widest ISA the CPU
 * reports and, when the core is narrower, times sgemm 256^3 under both in
 * fresh processes to give the factor.
 */
#ifndef PG_BLAS_KERNEL_H
#define PG_BLAS_KERNEL_H

typedef struct pg_blas_kernel {
    char core[64];        /* openblas_get_corename(): "SkylakeX", "Haswell", "Prescott", ... */
    char isa[32];         /* the widest vector ISA in /proc/cpuinfo: "AVX-512", "AVX2", "AVX", "SSE4.2", "SSE2" */
    char expected[32];    /* an OpenBLAS core for that ISA: "SkylakeX", "Haswell", "Sandybridge", "Nehalem" */
    int narrower;         /* the core in use uses a narrower ISA than the CPU has */
    double t_core;        /* seconds per sgemm 256^3 with the core in use (fresh process); 0: not measured */
    double t_expected;    /* ... with OPENBLAS_CORETYPE=expected */
    double factor;        /* t_core / t_expected; 0: not measured */
} pg_blas_kernel;

/* A factor at or above this flags the kernel (the generic-vs-AVX-512 case measured 4.6x). */
#define PG_BLAS_SLOW_FACTOR 1.5

/**
 * Reads the core and the ISA; when the core is narrower (or `always`),
 * runs `probe` (argv of a command that prints seconds per sgemm 256^3,
 * e.g. perfgate doctor --blas-probe) twice: as is and with
 * OPENBLAS_CORETYPE=expected.
 */
int pg_blas_kernel_check(pg_blas_kernel *out, char *const probe[], int always);

/** Seconds per single-threaded sgemm 256^3 in this process: the fastest of 20 calls after 3 warm-up calls. */
double pg_blas_probe_sgemm(void);

#endif
