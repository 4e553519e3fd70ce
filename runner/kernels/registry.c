/* registry.c - the table of built-in kernels. Add a kernel here to name it in suites. */
#include "kernels/kernels.h"

#include <string.h>

extern const pg_kernel pg__kernel_sgemm;
extern const pg_kernel pg__kernel_dgemm;
extern const pg_kernel pg__kernel_linear;
extern const pg_kernel pg__kernel_elementwise;
extern const pg_kernel pg__kernel_add;
extern const pg_kernel pg__kernel_mul;
extern const pg_kernel pg__kernel_gelu;
extern const pg_kernel pg__kernel_copy;
extern const pg_kernel pg__kernel_softmax;
extern const pg_kernel pg__kernel_layernorm;
extern const pg_kernel pg__kernel_masked_select;
extern const pg_kernel pg__kernel_mlp_train_step;
extern const pg_kernel pg__kernel_empty;

static const pg_kernel *const kernels[] = {
    &pg__kernel_sgemm,
    &pg__kernel_dgemm,
    &pg__kernel_linear,
    &pg__kernel_elementwise,
    &pg__kernel_add,
    &pg__kernel_mul,
    &pg__kernel_gelu,
    &pg__kernel_copy,
    &pg__kernel_softmax,
    &pg__kernel_layernorm,
    &pg__kernel_masked_select,
    &pg__kernel_mlp_train_step,
    &pg__kernel_empty,
    NULL,
};

/* GPU kernel descriptors live with the CUDA backend (backend/cuda_registry.c). */
extern const pg_kernel *const pg__cuda_kernels[];

#define MAX_KERNELS 128

const pg_kernel *const *pg_kernel_all(void)
{
    static const pg_kernel *all[MAX_KERNELS + 1];
    static int built;
    size_t i, n = 0;

    if (!built) {
        for (i = 0; kernels[i] && n < MAX_KERNELS; i++)
            all[n++] = kernels[i];
        for (i = 0; pg__cuda_kernels[i] && n < MAX_KERNELS; i++)
            all[n++] = pg__cuda_kernels[i];
        all[n] = NULL;
        built = 1;
    }
    return all;
}

const pg_kernel *pg_kernel_find(const char *name)
{
    const pg_kernel *const *all = pg_kernel_all();
    size_t i;

    for (i = 0; all[i]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

const pg_kernel *pg_kernel_find_for(const char *name, const char *device)
{
    const pg_kernel *const *all = pg_kernel_all();
    size_t i;

    for (i = 0; all[i]; i++)
        if (strcmp(all[i]->name, name) == 0 && strcmp(all[i]->device, device) == 0)
            return all[i];
    return NULL;
}
