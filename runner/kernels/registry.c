/* registry.c - the table of built-in kernels. Add a kernel here to name it in suites. */
#include "kernels/kernels.h"

#include <string.h>

extern const pg_kernel pg__kernel_sgemm;
extern const pg_kernel pg__kernel_dgemm;

static const pg_kernel *const kernels[] = {
    &pg__kernel_sgemm,
    &pg__kernel_dgemm,
    NULL,
};

const pg_kernel *const *pg_kernel_all(void)
{
    return kernels;
}

const pg_kernel *pg_kernel_find(const char *name)
{
    size_t i;

    for (i = 0; kernels[i]; i++)
        if (strcmp(kernels[i]->name, name) == 0)
            return kernels[i];
    return NULL;
}
