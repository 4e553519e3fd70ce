/*
 * cuda_registry.c - descriptors of the built-in CUDA kernels.
 *
 * Always compiled, so suites naming GPU kernels validate on machines built
 * without CUDA; the kernels' run functions live in the .cu files.
 */
#include "kernels/kernels.h"

#include <stddef.h>

const pg_kernel *const pg__cuda_kernels[] = {
    NULL,
};
