/*
 * header_test.c - the public headers compile alone, as C11 and as C++17,
 * with -Wall -Wextra -pedantic -Werror (libgit2's headertest idea); a
 * plugin using every call builds both ways and loads; and the plugin API
 * is what the binary can honour: header-only, linking nothing.
 */
#include "support.h"

#include "compile.h"
#include "plugin/plugin.h"
#include "base/util.h"

#include <stdlib.h>

static const char *const headers[] = {"perfgate/perfgate.h", "perfgate/plugin.h", "perfgate/errors.h",
                                     "perfgate/region.h"};

static void compile_alone(const char *compiler, const char *std, const char *lang, const char *header)
{
    char *tmp = pg_test_tmpdir();
    char *cmd = pg__asprintf("printf '#include <%s>\\n#include <%s>\\n' | %s %s -x %s -Wall -Wextra -pedantic "
                             "-Werror -I'%s/include' -c - -o '%s/h.o'",
                             header, header, compiler, std, lang, PG_TEST_SOURCE_DIR, tmp);
    char *log = NULL;
    int rc = pg_test_sh(&log, cmd);

    cr_assert_eq(rc, 0, "%s alone as %s failed:\n%s\n%s", header, std, cmd, log);
    free(log);
    free(cmd);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(header, each_public_header_compiles_alone_as_c11)
{
    size_t i;

    for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
        compile_alone("cc", "-std=c11", "c", headers[i]);
}

Test(header, each_public_header_compiles_alone_as_cxx17)
{
    size_t i;

    for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
        compile_alone("c++", "-std=c++17", "c++", headers[i]);
}

/*
 * The perfgate binary exports no symbols, so the plugin umbrella may declare
 * nothing a plugin would have to link: a plugin calling every function of it
 * links with every symbol defined (-z defs), and the runner-only errors.h
 * stays out of it.
 */
Test(header, the_plugin_api_links_nothing_from_perfgate)
{
    char *tmp = pg_test_tmpdir();
    char *lib = pg_test_build_plugin(tmp, "header/uses_every_call.c", "every_defs", "-Wl,-z,defs");
    char *cmd = pg__asprintf("printf '#include <perfgate/perfgate.h>\\n#ifdef PERFGATE_ERRORS_H\\n#error errors.h "
                             "is runner-only\\n#endif\\n' | cc -std=c11 -x c -Werror -I'%s/include' -c - -o '%s/u.o'",
                             PG_TEST_SOURCE_DIR, tmp);
    char *log = NULL;

    cr_assert_eq(pg_test_sh(&log, cmd), 0, "perfgate/perfgate.h pulls in perfgate/errors.h:\n%s", log);
    free(log);
    free(cmd);
    free(lib);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(header, a_plugin_using_every_call_builds_as_c_and_cxx_and_loads)
{
    char *tmp = pg_test_tmpdir();
    char *lib_c = pg_test_build_plugin(tmp, "header/uses_every_call.c", "every_c", NULL);
    char *lib_cxx = pg__asprintf("%s/libevery_cxx.so", tmp);
    char *cmd = pg__asprintf("c++ -std=c++17 -x c++ -shared -fPIC -Wall -Wextra -pedantic -Werror -I'%s/include' "
                             "-o '%s' '%s/header/uses_every_call.c'",
                             PG_TEST_SOURCE_DIR, lib_cxx, PG_TEST_DATA_DIR);
    char *log = NULL;
    pg_plugin_lib *pl = NULL;
    const pg_benchmark *b = NULL;

    cr_assert_eq(pg_test_sh(&log, cmd), 0, "C++ build failed:\n%s", log);
    pg_assert_ok(pg_plugin_open(&pl, lib_c));
    pg_assert_ok(pg_plugin_find(&b, pl, "callbacks"));
    pg_plugin_close(pl);
    /* The C++ build exports the entry point with C linkage. */
    pg_assert_ok(pg_plugin_open(&pl, lib_cxx));
    cr_assert_str_eq(pg_plugin_table(pl)->name, "header_check");
    cr_assert_eq(pg_plugin_table(pl)->nbenchmarks, 2);
    pg_plugin_close(pl);
    free(log);
    free(cmd);
    free(lib_c);
    free(lib_cxx);
    pg_test_rmtree(tmp);
    free(tmp);
}
