/*
 * loader.c - loading plugin libraries, checking their ABI version, finding
 * benchmarks; and the `{build}`/`{suite_dir}` expansion of plugin and
 * command paths.
 */
#include "plugin/plugin.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pg_plugin_lib {
    void *handle;
    char *path;
    const pg_plugin *table;
};

int pg_plugin_open(pg_plugin_lib **out, const char *path)
{
    pg_plugin_lib *lib = NULL;
    pg_plugin_entry_fn entry;
    void *sym;
    int err = PG_EPLUGIN;

    *out = NULL;
    if (access(path, F_OK) != 0)
        return pg_error_set(PG_ENOTFOUND, "plugin '%s' does not exist (build it first?)", path);
    lib = calloc(1, sizeof(*lib));
    if (!lib)
        return pg_error_set(PG_ENOMEM, "out of memory loading plugin '%s'", path);
    lib->path = pg__strdup(path);
    /* RTLD_LOCAL: two plugins (an A/B pair) export the same names. */
    lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        pg_error_set(PG_EPLUGIN, "cannot load plugin: %s", dlerror());
        goto cleanup;
    }
    sym = dlsym(lib->handle, PG_PLUGIN_ENTRY_SYMBOL);
    if (!sym) {
        pg_error_set(PG_EPLUGIN, "'%s' is not a perfgate plugin: it exports no %s() (use PG_PLUGIN_DEFINE)", path,
                     PG_PLUGIN_ENTRY_SYMBOL);
        goto cleanup;
    }
    /* POSIX guarantees data and function pointers convert through dlsym. */
    memcpy(&entry, &sym, sizeof(entry));
    lib->table = entry();
    if (!lib->table) {
        pg_error_set(PG_EPLUGIN, "plugin '%s': %s() returned NULL", path, PG_PLUGIN_ENTRY_SYMBOL);
        goto cleanup;
    }
    /* Only the first two fields may be read before the version is known. */
    if (lib->table->abi_version != PG_PLUGIN_ABI_VERSION) {
        pg_error_set(PG_EPLUGIN,
                     "plugin '%s' was built against perfgate plugin ABI version %u, but this perfgate "
                     "speaks version %d; rebuild the plugin against this perfgate's include/perfgate/plugin.h",
                     path, (unsigned)lib->table->abi_version, PG_PLUGIN_ABI_VERSION);
        goto cleanup;
    }
    if (lib->table->size < sizeof(pg_plugin)) {
        pg_error_set(PG_EPLUGIN, "plugin '%s' has a plugin table of %u bytes, expected %zu: a corrupt or "
                     "hand-made table", path, (unsigned)lib->table->size, sizeof(pg_plugin));
        goto cleanup;
    }
    if (lib->table->nbenchmarks > 0 && !lib->table->benchmarks) {
        pg_error_set(PG_EPLUGIN, "plugin '%s' declares %zu benchmarks but no table", path,
                     lib->table->nbenchmarks);
        goto cleanup;
    }
    *out = lib;
    lib = NULL;
    err = 0;
cleanup:
    pg_plugin_close(lib);
    return err;
}

void pg_plugin_close(pg_plugin_lib *lib)
{
    if (!lib)
        return;
    if (lib->handle)
        dlclose(lib->handle);
    free(lib->path);
    free(lib);
}

const pg_plugin *pg_plugin_table(const pg_plugin_lib *lib)
{
    return lib->table;
}

int pg_plugin_find(const pg_benchmark **out, const pg_plugin_lib *lib, const char *name)
{
    pg_buf names = PG_BUF_INIT;
    size_t i;
    int err;

    *out = NULL;
    for (i = 0; i < lib->table->nbenchmarks; i++) {
        const pg_benchmark *b = &lib->table->benchmarks[i];
        if (b->name && name && strcmp(b->name, name) == 0) {
            *out = b;
            return 0;
        }
    }
    for (i = 0; i < lib->table->nbenchmarks; i++)
        pg__buf_printf(&names, "%s%s", i ? ", " : "", lib->table->benchmarks[i].name);
    err = pg_error_set(PG_ENOTFOUND, "plugin '%s' has no benchmark '%s' (it has: %s)", lib->path,
                       name ? name : "(no symbol given)", names.ptr ? names.ptr : "none");
    pg__buf_clear(&names);
    return err;
}

/* ---- paths ------------------------------------------------------------- */

static char *absolute(const char *path)
{
    char cwd[PATH_MAX];

    if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
        return pg__strdup(path);
    return pg__asprintf("%s/%s", cwd, path);
}

static char *suite_dir(const pg_case *c)
{
    const char *file = c->node && c->node->file ? c->node->file : NULL;
    const char *slash = file ? strrchr(file, '/') : NULL;
    char *dir, *abs;

    if (!slash)
        return absolute(".");
    dir = pg__asprintf("%.*s", (int)(slash - file), file);
    if (!dir)
        return NULL;
    if (!*dir) {
        free(dir);
        return pg__strdup("/");
    }
    abs = absolute(dir);
    free(dir);
    return abs;
}

int pg_plugin_subst(char **out, const char *text, const pg_case *c, const char *build_dir)
{
    pg_buf b = PG_BUF_INIT;
    const char *p = text;
    char *build = NULL, *sdir = NULL;
    int err = PG_ENOMEM;

    *out = NULL;
    while (*p) {
        if (strncmp(p, "{build}", 7) == 0) {
            if (!build) {
                const char *env = getenv("PERFGATE_BUILD");
                build = absolute(build_dir ? build_dir : env && *env ? env : "build");
                if (!build)
                    goto cleanup;
            }
            pg__buf_puts(&b, build);
            p += 7;
        } else if (strncmp(p, "{suite_dir}", 11) == 0) {
            if (!sdir && !(sdir = suite_dir(c)))
                goto cleanup;
            pg__buf_puts(&b, sdir);
            p += 11;
        } else {
            pg__buf_put(&b, p, 1);
            p++;
        }
    }
    if (!b.ptr && pg__buf_puts(&b, "") != 0)
        goto cleanup;
    *out = pg__buf_detach(&b);
    err = *out ? 0 : PG_ENOMEM;
cleanup:
    if (err)
        pg_error_set(err, "out of memory expanding '%s'", text);
    pg__buf_clear(&b);
    free(build);
    free(sdir);
    return err;
}

int pg_plugin_path(char **out, const pg_case *c, const char *build_dir)
{
    char *path = NULL, *dir;
    int err;

    *out = NULL;
    if ((err = pg_plugin_subst(&path, c->plugin, c, build_dir)) != 0)
        return err;
    if (path[0] == '/') {
        *out = path;
        return 0;
    }
    /* Relative paths written in a suite are relative to the suite's file. */
    dir = suite_dir(c);
    *out = dir ? pg__asprintf("%s/%s", dir, path) : NULL;
    free(dir);
    free(path);
    return *out ? 0 : pg_error_set(PG_ENOMEM, "out of memory resolving a plugin path");
}
