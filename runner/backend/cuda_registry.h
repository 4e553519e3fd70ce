/*
 * cuda_registry.h - from a suite case to a GPU workload spec.
 */
#ifndef PG_CUDA_REGISTRY_H
#define PG_CUDA_REGISTRY_H

#include "backend/cuda_api.h"

struct pg_case;

/**
 * Reads the case's kernel name and params into a workload spec (defaults
 * filled in). Needs no device, so bad params are reported everywhere.
 * @return 0, or PG_EINVAL with "CASE KEY: what is wrong".
 */
int pg__cuda_spec_from_case(pg_cuda_spec *out, const struct pg_case *c);

#endif
