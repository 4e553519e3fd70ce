/*
 * install_test.c - perfgate installs like a tool: `cmake --install BUILD
 * --prefix P` of the build under test puts the program, its companions
 * (perfgate-meter, the allocation counter, the BLAS counter, the CUDA
 * module) in P/lib/perfgate, the headers, perfgate.pc and the CMake
 * package in place; a plugin built with `pkg-config --cflags perfgate`
 * (the make-built repository of tests/data/userrepo) and one built with
 * find_package(perfgate) load and run under P/bin/perfgate, which finds its
 * companions in P, never in the build tree, also after P is moved.
 */
#include "compile.h"
#include "support.h"

#include "base/util.h"
#include "perfgate/config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmp, *prefix;

static int exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

static void setup(void)
{
    char *build = pg_test_build_dir();

    tmp = pg_test_tmpdir();
    prefix = pg__asprintf("%s/prefix", tmp);
    free(pg_test_sh_expect(0, "cmake --install '%s' --prefix '%s' 2>&1", build, prefix));
    free(build);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(prefix);
}

TestSuite(install, .init = setup, .fini = teardown, .timeout = 300);

Test(install, the_usual_places)
{
    static const char *const files[] = {
        "bin/perfgate", "lib/perfgate/perfgate-meter", "lib/perfgate/libperfgate-memshim.so",
        "lib/perfgate/libperfgate_count.so", "include/perfgate/perfgate.h", "include/perfgate/plugin.h",
        "include/perfgate/count.h", "include/perfgate/region.h", "include/perfgate/errors.h",
        "lib/pkgconfig/perfgate.pc", "lib/cmake/perfgate/perfgateConfig.cmake",
        "lib/cmake/perfgate/perfgateConfigVersion.cmake", "share/perfgate/pin-workflows.sh",
        "share/perfgate/python/perfgate_count.py",
        "share/doc/perfgate/LICENSE", NULL};
    char *out, *path;
    size_t i;

    for (i = 0; files[i]; i++) {
        path = pg__asprintf("%s/%s", prefix, files[i]);
        cr_assert(exists(path), "cmake --install put no %s", files[i]);
        free(path);
    }
    path = pg__asprintf("%s/lib/perfgate/libperfgate-cuda.so", prefix);
    cr_assert_eq(exists(path), PG_HAS_CUDA, "the CUDA module is installed exactly when it is built");
    free(path);
    /* The installed program names its version, the commit it was built from, and its licence. */
    out = pg_test_sh_expect(0, "'%s/bin/perfgate' --version", prefix);
    cr_assert(strncmp(out, "perfgate " PG_VERSION_STRING " (CUDA backend: ", 25) == 0, "%s", out);
    cr_assert(strstr(out, "\ncommit: ") && strstr(out, "\nlicence: Apache-2.0"), "%s", out);
    free(out);
    out = pg_test_sh_expect(0, "PKG_CONFIG_PATH='%s/lib/pkgconfig' pkg-config --modversion perfgate", prefix);
    cr_assert_str_eq(out, PG_VERSION_STRING "\n");
    free(out);
}

/* A suite with the plugin `lib` (both benchmarks), short. */
static char *suite_for(const char *name, const char *lib)
{
    char *text = pg__asprintf("suite: %s\ndefaults: {min_run_time: 0.05s, warmup: 10ms, min_samples: 5}\n"
                              "benchmarks:\n  - {name: filter, plugin: \"%s\", symbol: filter}\n"
                              "  - {name: design, plugin: \"%s\", symbol: design}\n",
                              name, lib, lib);
    char *file = pg__asprintf("%s.yaml", name), *path = pg_test_write(tmp, file, text);

    free(text);
    free(file);
    return path;
}

static void runs_under_the_installed_perfgate(const char *p, const char *suite)
{
    char *out = pg_test_sh_expect(0, "cd '%s' && '%s/bin/perfgate' run --no-store '%s' 2>&1", tmp, p, suite);

    cr_assert(strstr(out, "/filter[]@1:cpu") && strstr(out, "/design[]@1:cpu"), "%s", out);
    cr_assert(strstr(out, "ERROR") == NULL, "%s", out);
    free(out);
    /* The counting instrument: perfgate-meter and the allocation counter, from the prefix. */
    out = pg_test_sh_expect(0, "cd '%s' && '%s/bin/perfgate' run --no-store --instrument memory '%s' 2>&1", tmp, p, suite);
    cr_assert(strstr(out, "#allocs_per_iter") != NULL && strstr(out, "ERROR") == NULL, "%s", out);
    free(out);
}

Test(install, plugins_built_with_pkg_config_and_find_package_run)
{
    char *out, *suite;

    /* pkg-config: the user's own Makefile, which reads pkg-config --cflags perfgate. */
    free(pg_test_sh_expect(0, "cp -a '%s/userrepo/v1' '%s/mk' && cp -a '%s/userrepo/bench/.' '%s/mk/'", PG_TEST_DATA_DIR, tmp,
            PG_TEST_DATA_DIR, tmp));
    out = pg_test_sh_expect(0, "cd '%s/mk' && PKG_CONFIG_PATH='%s/lib/pkgconfig' make 2>&1", tmp, prefix);
    cr_assert(strstr(out, "-I") && strstr(out, "/include"), "%s", out);
    free(out);
    suite = suite_for("mk", "mk/build/libmylib_bench.so");
    runs_under_the_installed_perfgate(prefix, suite);
    free(suite);

    /* find_package(perfgate) and perfgate::plugin. */
    out = pg_test_sh_expect(0, "cmake -S '%s/adopt/cmake-plugin' -B '%s/cm' -DCMAKE_PREFIX_PATH='%s' -DMYLIB_SRC='%s/userrepo' "
                "2>&1 && cmake --build '%s/cm' 2>&1",
             PG_TEST_DATA_DIR, tmp, prefix, PG_TEST_DATA_DIR, tmp);
    cr_assert(strstr(out, "perfgate " PG_VERSION_STRING ": ") != NULL, "%s", out);
    free(out);
    suite = suite_for("cm", "cm/libmylib_bench.so");
    runs_under_the_installed_perfgate(prefix, suite);
    free(suite);
}

Test(install, companions_come_from_the_prefix_wherever_it_goes)
{
    char *moved = pg__asprintf("%s/elsewhere/tree", tmp), *out, *suite;

    /* Moved (as a cache restores it at another path): still whole, and pkg-config follows. */
    free(pg_test_sh_expect(0, "mkdir -p '%s/elsewhere' && mv '%s' '%s'", tmp, prefix, moved));
    out = pg_test_sh_expect(0, "PKG_CONFIG_PATH='%s/lib/pkgconfig' pkg-config --cflags perfgate", moved);
    cr_assert(strstr(out, "/elsewhere/tree/") != NULL, "%s", out);
    free(out);
    free(pg_test_sh_expect(0, "cp -a '%s/userrepo/v1' '%s/mk' && cp -a '%s/userrepo/bench/.' '%s/mk/' && cd '%s/mk' && "
               "PKG_CONFIG_PATH='%s/lib/pkgconfig' make 2>&1",
            PG_TEST_DATA_DIR, tmp, PG_TEST_DATA_DIR, tmp, tmp, moved));
    suite = suite_for("mk", "mk/build/libmylib_bench.so");
    runs_under_the_installed_perfgate(moved, suite);
    out = pg_test_sh_expect(0, "'%s/bin/perfgate' count -- /bin/true 2>&1", moved);
    cr_assert(strstr(out, "Total: 0 FLOP") != NULL, "%s", out);
    free(out);
    /* Without them in the prefix, the installed program fails and says where it looked: never the build tree. */
    free(pg_test_sh_expect(0, "rm '%s/lib/perfgate/libperfgate_count.so' '%s/lib/perfgate/perfgate-meter'", moved, moved));
    out = pg_test_sh_expect(2, "'%s/bin/perfgate' count -- /bin/true 2>&1", moved);
    cr_assert(strstr(out, "libperfgate_count.so not found") != NULL && strstr(out, "lib/perfgate") != NULL, "%s", out);
    free(out);
    out = pg_test_sh_expect(2, "cd '%s' && '%s/bin/perfgate' run --no-store --instrument memory '%s' 2>&1", tmp, moved, suite);
    cr_assert(strstr(out, "perfgate-meter") != NULL, "%s", out);
    free(out);
    free(suite);
    free(moved);
}
