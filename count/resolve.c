/*
 * resolve.c - finding the real function a wrapper of libperfgate_count.so
 * forwards to, at the first call rather than at load time.
 *
 * Preloaded, the library sits at the front of the global scope, so every
 * reference to a name it defines binds to it, including references from a
 * library that Python or dlopen() loaded with RTLD_LOCAL. That library's
 * BLAS (NumPy's libblas.so.3, say) is then in no global scope, and
 * dlsym(RTLD_NEXT) cannot see it. So the real function is looked for where
 * the loader would have found it without this library:
 *
 *   1. the next definition in the global scope (dlsym(RTLD_NEXT));
 *   2. the calling object's own scope: dlopen(RTLD_NOLOAD) of the object
 *      that holds the return address gives a handle whose lookups search
 *      that object and its dependencies, where its BLAS is;
 *   3. every other loaded object, in load order.
 *
 * A definition found in this library itself is skipped in steps 2 and 3 (a
 * program may link it). The handles of steps 2 and 3 stay open, so a
 * function found there stays mapped for as long as it is cached.
 */
#include "count_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OBJECTS 1024

/* An object of this library, whose address dladdr() places in it. */
static const char anchor;

static int ours(void *p)
{
    Dl_info mine, theirs;

    return p && dladdr(&anchor, &mine) && dladdr(p, &theirs) && mine.dli_fbase == theirs.dli_fbase;
}

/* `name` in the scope of the loaded object `path`; the handle is kept. */
static void *in_scope_of(const char *path, const char *name)
{
    void *h, *p;

    if (!path || !*path || !(h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD)))
        return NULL;
    p = dlsym(h, name);
    if (!p || ours(p)) {
        dlclose(h);
        return NULL;
    }
    return p;
}

typedef struct objects {
    char *path[MAX_OBJECTS];
    size_t n;
} objects;

static int collect(struct dl_phdr_info *info, size_t size, void *payload)
{
    objects *o = payload;

    (void)size;
    if (info->dlpi_name && info->dlpi_name[0] && o->n < MAX_OBJECTS && (o->path[o->n] = strdup(info->dlpi_name)))
        o->n++;
    return 0;
}

/* Step 3: the first loaded object (after the program) whose scope defines `name`. Copies the paths first:
   dlopen() is not called while dl_iterate_phdr() holds the loader's list. */
static void *in_any_object(const char *name)
{
    objects *o = calloc(1, sizeof(*o));
    void *p = NULL;
    size_t i;

    if (!o)
        return NULL;
    dl_iterate_phdr(collect, o);
    for (i = 0; i < o->n; i++) {
        if (!p)
            p = in_scope_of(o->path[i], name);
        free(o->path[i]);
    }
    free(o);
    return p;
}

void *pg__count_next(const char *name, void *caller)
{
    Dl_info info;
    void *p = dlsym(RTLD_NEXT, name); /* what comes after this library is never this library */

    if (p)
        return p;
    if (caller && dladdr(caller, &info) && info.dli_fname && (p = in_scope_of(info.dli_fname, name)) != NULL)
        return p;
    return in_any_object(name);
}
