/*
 * kernel.c - the kernels entries name: resolving a name for a device and
 * checking parameter names against what the kernel reads.
 */
#include "suite/internal.h"

#include "base/util.h"

#include <stdio.h>
#include <string.h>

/* Names of the registered kernels, NULL-terminated, for suggestions. */
static const char *const *kernel_names(void)
{
    static const char *names[160];
    const pg_kernel *const *all = pg_kernel_all();
    size_t i, n = 0;

    for (i = 0; all[i] && n + 1 < sizeof(names) / sizeof(names[0]); i++)
        names[n++] = all[i]->name;
    names[n] = NULL;
    return names;
}

/* Did-you-mean over the kernel's declared parameter names. */
int pg__check_kernel_param(pg_diags *d, const pg_kernel *k, const pg_node *key)
{
    pg_buf known = PG_BUF_INIT;
    char sug[96];
    size_t i;

    if (!k || !k->params || pg__in_list(k->params, key->scalar))
        return 0;
    if (!*pg__dym(sug, sizeof(sug), key->scalar, k->params)) {
        for (i = 0; k->params[i]; i++)
            pg__buf_printf(&known, "%s%s", i ? ", " : "", k->params[i]);
        snprintf(sug, sizeof(sug), " (it reads %s)", known.ptr ? known.ptr : "none");
        pg__buf_clear(&known);
    }
    pg__diag_add(d, key, "kernel '%s' has no parameter '%s'%s", k->name, key->scalar, sug);
    return -1;
}

/* Resolves a kernel name for a device, reporting unknown names and wrong devices. */
const pg_kernel *pg__find_kernel(pg_diags *d, const pg_node *n, const char *device, const pg_node *device_node)
{
    const pg_kernel *const *all = pg_kernel_all();
    const pg_kernel *k;
    char sug[96];
    size_t i;

    if (!pg_kernel_find(n->scalar)) {
        pg__diag_add(d, n, "unknown kernel '%s'%s", n->scalar, pg__dym(sug, sizeof(sug), n->scalar, kernel_names()));
        return NULL;
    }
    if ((k = pg_kernel_find_for(n->scalar, device)) != NULL)
        return k;
    for (i = 0; all[i]; i++)
        if (strcmp(all[i]->name, n->scalar) == 0)
            break;
    if (device_node)
        pg__diag_add(d, n, "kernel '%s' runs only on %s, but device is %s (set at %d:%d)", n->scalar,
                     all[i]->device, device, device_node->line, device_node->col);
    else
        pg__diag_add(d, n, "kernel '%s' runs only on %s; add 'device: %s'", n->scalar, all[i]->device,
                     all[i]->device);
    return NULL;
}
