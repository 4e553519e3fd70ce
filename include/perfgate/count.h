/*
 * perfgate/count.h - ranges a program marks for `perfgate count` and
 * `count: blas` cases.
 *
 *   PG_COUNT_RANGE_PUSH("attention");
 *   cblas_sgemm(...);              // counted under range "attention"
 *   PG_COUNT_RANGE_POP();
 *
 * Header-only and free to leave in a release: the calls go to the preload
 * library (libperfgate_count.so) when perfgate counts the program, and do
 * nothing otherwise (weak references, resolved to NULL when it is absent).
 * Ranges nest ("outer/inner") and are per thread. Programs that already
 * mark NVTX ranges (nvtxRangePushA/nvtxRangePop from libnvToolsExt) need
 * nothing more.
 */
#ifndef PERFGATE_COUNT_H
#define PERFGATE_COUNT_H

#ifdef __cplusplus
extern "C" {
#endif

void perfgate_range_push(const char *name) __attribute__((weak));
void perfgate_range_pop(void) __attribute__((weak));

#ifdef __cplusplus
}
#endif

#define PG_COUNT_RANGE_PUSH(name)                                                                                      \
    do {                                                                                                               \
        if (perfgate_range_push)                                                                                       \
            perfgate_range_push(name);                                                                                 \
    } while (0)
#define PG_COUNT_RANGE_POP()                                                                                           \
    do {                                                                                                               \
        if (perfgate_range_pop)                                                                                        \
            perfgate_range_pop();                                                                                      \
    } while (0)

#endif
