/*
 * init_test.c - `perfgate init BUILD_DIR` on a repository that is not
 * perfgate (tests/data/userrepo, built with make): it finds the plugin and
 * the program, writes a suite that validates and caller workflows that pass
 * the workflow checks (ci/gh/audit.sh: zizmor, GitHub's schemas) and call
 * perfgate's reusable workflows pinned by commit, prints the next three
 * commands, and writes nothing when a file it would write exists.
 */
#include "compile.h"
#include "support.h"

#include "base/node.h"
#include "base/util.h"
#include "perfgate/commit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REF "0123456789abcdef0123456789abcdef01234567"

static char *tmp, *repo;

static int exists_in(const char *dir, const char *rel)
{
    char *path = pg__asprintf("%s/%s", dir, rel);
    struct stat st;
    int yes = stat(path, &st) == 0;

    free(path);
    return yes;
}

/* A git repository holding the user's library and plugin, built with make into build/. */
static void setup(void)
{
    char *out = NULL, *cmd;
    int rc;

    tmp = pg_test_tmpdir();
    repo = pg__asprintf("%s/mylib", tmp);
    cmd = pg__asprintf("cp -a '%s/userrepo/v1' '%s' && cp -a '%s/userrepo/bench/.' '%s/' && git -C '%s' init -q && "
                       "make -C '%s' PERFGATE_CFLAGS='-I" PG_TEST_SOURCE_DIR "/include' 2>&1",
                       PG_TEST_DATA_DIR, repo, PG_TEST_DATA_DIR, repo, repo, repo);
    rc = pg_test_sh(&out, cmd);
    cr_assert_eq(rc, 0, "%s\n%s", cmd, out);
    free(out);
    free(cmd);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(repo);
}

TestSuite(init, .init = setup, .fini = teardown, .timeout = 120);

/* The scalar at `path` (keys, NULL-terminated) of the YAML file dir/rel (caller frees). */
static char *yaml_at(const char *dir, const char *rel, const char *const *path)
{
    char *file = pg__asprintf("%s/%s", dir, rel), *v;
    pg_doc *doc = NULL;
    const pg_node *n;

    cr_assert_eq(pg_doc_load(&doc, file, NULL, 0), 0, "%s", pg_error_last());
    for (n = pg_doc_root(doc); *path && n; path++)
        n = pg_node_get(n, *path);
    v = n && n->scalar ? pg__strdup(n->scalar) : NULL;
    pg_doc_free(doc);
    free(file);
    return v;
}

Test(init, a_suite_that_validates_and_workflows_that_pass_the_checks)
{
    const char *argv[] = {"init", "--perfgate-ref", REF, "build", NULL};
    const char *uses[] = {"jobs", "gate", "uses", NULL}, *build[] = {"jobs", "gate", "with", "build", NULL};
    const char *dir[] = {"jobs", "gate", "with", "build-dir", NULL}, *suites[] = {"jobs", "gate", "with", "suites", NULL};
    const char *ref[] = {"jobs", "gate", "with", "perfgate-ref", NULL};
    const char *validate[] = {"validate", "perf/perfgate.yaml", NULL};
    char *suite, *v, *out = NULL, *cmd;
    pg_proc p;
    int rc;

    pg_test_run(&p, repo, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "found in build: 1 plugin with 2 benchmarks, 1 program") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "they call perfgate's reusable workflows at " REF) != NULL, "%s", p.out);
    /* The next three commands, in order. */
    cr_assert(strstr(p.out, "\nnext:\n  perfgate validate perf/perfgate.yaml\n  perfgate run --no-store "
                            "perf/perfgate.yaml\n  git add perf/perfgate.yaml .github/workflows/perfgate-pr.yml "
                            ".github/workflows/perfgate-post.yml .github/workflows/perfgate-main.yml && git commit") !=
                  NULL,
              "%s", p.out);
    pg_proc_free(&p);
    cr_assert(!exists_in(repo, ".github/workflows/perfgate-nightly.yml"), "the nightly is written only on request");

    pg_test_run(&p, repo, NULL, validate);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "3 cases") != NULL, "%s", p.out);
    pg_proc_free(&p);
    suite = NULL;
    {
        size_t len = 0;
        char *path = pg__asprintf("%s/perf/perfgate.yaml", repo);
        pg_assert_ok(pg__read_file(&suite, &len, path));
        free(path);
    }
    cr_assert(strstr(suite, "suite: mylib\n") != NULL, "%s", suite);
    cr_assert(strstr(suite, "  - name: filter\n    plugin: \"{build}/libmylib_bench.so\"\n    symbol: filter\n"), "%s",
              suite);
    cr_assert(strstr(suite, "  - name: mylib-demo\n    command: [\"{build}/mylib-demo\"]\n"), "%s", suite);
    /* The library the plugin links is no plugin, and no case. */
    cr_assert(strstr(suite, "libmylib.so\"") == NULL, "%s", suite);
    free(suite);

    v = yaml_at(repo, ".github/workflows/perfgate-pr.yml", uses);
    cr_assert_str_eq(v, "perfgate/perfgate/.github/workflows/gate.yml@" REF);
    free(v);
    v = yaml_at(repo, ".github/workflows/perfgate-pr.yml", ref);
    cr_assert_str_eq(v, REF);
    free(v);
    v = yaml_at(repo, ".github/workflows/perfgate-pr.yml", build);
    cr_assert_str_eq(v, "make");
    free(v);
    v = yaml_at(repo, ".github/workflows/perfgate-pr.yml", dir);
    cr_assert_str_eq(v, "build");
    free(v);
    v = yaml_at(repo, ".github/workflows/perfgate-pr.yml", suites);
    cr_assert_str_eq(v, "perf/perfgate.yaml");
    free(v);
    /* zizmor finds nothing high, GitHub's schemas accept them. */
    cmd = pg__asprintf("bash '" PG_TEST_SOURCE_DIR "/ci/gh/audit.sh' '%s/.github/workflows' 2>&1", repo);
    rc = pg_test_sh(&out, cmd);
    cr_assert_eq(rc, 0, "%s\n%s", cmd, out);
    free(out);
    free(cmd);
}

Test(init, writes_nothing_when_a_file_exists)
{
    const char *argv[] = {"init", "build", NULL};
    char *mine = pg__asprintf("%s/.github/workflows", repo);
    pg_proc p;

    {
        char *cmd = pg__asprintf("mkdir -p '%s'", mine);
        cr_assert_eq(pg_test_sh(NULL, cmd), 0);
        free(cmd);
    }
    free(pg_test_write(mine, "perfgate-main.yml", "name: mine\n"));
    pg_test_run(&p, repo, NULL, argv);
    cr_assert_eq(p.status, 2, "%s%s", p.out, p.err);
    cr_assert(strstr(p.err, ".github/workflows/perfgate-main.yml already exists") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "overwrites nothing, and wrote nothing") != NULL, "%s", p.err);
    pg_proc_free(&p);
    cr_assert(!exists_in(repo, "perf/perfgate.yaml") && !exists_in(repo, ".github/workflows/perfgate-pr.yml"));
    {
        char *text = NULL;
        size_t len = 0;
        char *path = pg__asprintf("%s/perfgate-main.yml", mine);
        pg_assert_ok(pg__read_file(&text, &len, path));
        cr_assert_str_eq(text, "name: mine\n");
        free(text);
        free(path);
    }
    free(mine);
}

Test(init, says_why_it_cannot)
{
    const char *empty[] = {"init", "empty", NULL}, *outside[] = {"init", "--root", "mylib", "elsewhere", NULL};
    const char *missing[] = {"init", "nowhere", NULL}, *badref[] = {"init", "--perfgate-ref", "v0.1.0", "build", NULL};
    const char *nobuild[] = {"init", "build", NULL};
    char *dir;
    pg_proc p;

    dir = pg__asprintf("%s/empty", repo);
    cr_assert_eq(mkdir(dir, 0755), 0);
    free(dir);
    pg_test_run(&p, repo, NULL, empty);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "holds no perfgate plugin") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, repo, NULL, missing);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "'nowhere' does not exist") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, repo, NULL, badref);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "a full commit SHA") != NULL, "%s", p.err);
    pg_proc_free(&p);
    dir = pg__asprintf("%s/elsewhere", tmp);
    cr_assert_eq(mkdir(dir, 0755), 0);
    free(dir);
    pg_test_run(&p, tmp, NULL, outside);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "is outside the repository") != NULL, "%s", p.err);
    pg_proc_free(&p);
    /* Without a Makefile, CMakeLists.txt or meson.build, the build command is the user's to give. */
    dir = pg__asprintf("%s/Makefile", repo);
    cr_assert_eq(unlink(dir), 0);
    free(dir);
    pg_test_run(&p, repo, NULL, nobuild);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "--build-command") != NULL, "%s", p.err);
    pg_proc_free(&p);
}

Test(init, a_plugin_that_crashes_as_it_loads_is_passed_over)
{
    const char *argv[] = {"init", "--no-workflows", "build", NULL};
    char *build = pg__asprintf("%s/build", repo), *lib = pg_test_build_plugin(build, "adopt/crash_on_load.c", "crash", NULL);
    char *cmd;
    pg_proc p;

    /* Files that only look like libraries are read, never trusted: an ELF header over junk, a cut library. */
    cmd = pg__asprintf("cd '%s' && python3 -c 'import struct, sys\n"
                       "h = b\"\\x7fELF\\x02\\x01\\x01\" + bytes(9) + struct.pack(\"<HHIQQQIHHHHHH\", 3, 62, 1, 0, "
                       "1 << 40, 1 << 62, 0, 64, 56, 5, 64, 100, 0)\n"
                       "open(\"libjunk.so\", \"wb\").write(h + b\"x\" * 4000)' && "
                       "head -c 300 libmylib_bench.so > libcut.so && chmod +x libjunk.so libcut.so",
                       build);
    cr_assert_eq(pg_test_sh(NULL, cmd), 0);
    free(cmd);
    pg_test_run(&p, repo, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "passed over:\n    libcrash.so: a perfgate plugin, not used: loading it crashed") != NULL,
              "%s", p.out);
    cr_assert(strstr(p.out, "found in build: 1 plugin with 2 benchmarks") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "wrote perf/perfgate.yaml\n") != NULL && !exists_in(repo, ".github"), "%s", p.out);
    pg_proc_free(&p);
    free(lib);
    free(build);
}

Test(init, a_cmake_repository_the_nightly_and_a_command_yaml_must_quote)
{
    const char *guess[] = {"init", "--nightly", "--perfgate-ref", REF, "--suite", "bench/perf.yaml", "out", NULL};
    const char *given[] = {"init", "--root", ".", "--build-command", "make -C src OUT=\"$PWD/out\" # all: of it",
                           "--perfgate-ref", REF, "--suite", "x.yaml", "out", NULL};
    const char *build[] = {"jobs", "record", "with", "build", NULL};
    const char *runs_on[] = {"jobs", "nightly", "with", "runs-on", NULL};
    char *v, *sub = pg__asprintf("%s/cm", tmp);
    pg_proc p;

    {
        char *cmd = pg__asprintf("mkdir -p '%s/.git' '%s/out'", sub, sub);
        cr_assert_eq(pg_test_sh(NULL, cmd), 0);
        free(cmd);
    }
    free(pg_test_write(sub, "CMakeLists.txt", "project(cm C)\n"));
    {
        char *outdir = pg__asprintf("%s/out", sub);
        char *lib = pg_test_build_plugin(outdir, "plugin/mybench.c", "mybench", NULL);
        free(lib);
        free(outdir);
    }
    pg_test_run(&p, sub, NULL, guess);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    v = yaml_at(sub, ".github/workflows/perfgate-main.yml", build);
    cr_assert_str_eq(v, "cmake -S . -B out -DCMAKE_BUILD_TYPE=Release && cmake --build out -j \"$(nproc)\"");
    free(v);
    v = yaml_at(sub, ".github/workflows/perfgate-nightly.yml", runs_on);
    cr_assert_str_eq(v, "[\"self-hosted\", \"linux\", \"x64\", \"gpu\"]");
    free(v);
    cr_assert(exists_in(sub, "bench/perf.yaml"));
    {
        char *cmd = pg__asprintf("rm -rf '%s/.github'", sub);
        pg_test_sh(NULL, cmd);
        free(cmd);
    }
    /* A command with quotes, $, # and ": " reads back from the YAML exactly as given. */
    pg_test_run(&p, sub, NULL, given);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    v = yaml_at(sub, ".github/workflows/perfgate-main.yml", build);
    cr_assert_str_eq(v, "make -C src OUT=\"$PWD/out\" # all: of it");
    free(v);
    free(sub);
}

Test(init, pins_the_commit_it_was_built_from)
{
    const char *argv[] = {"init", "build", NULL};
    const char *ref[] = {"jobs", "post", "with", "perfgate-ref", NULL};
    int published = strlen(PG_COMMIT_STRING) == 40;
    char *v;
    pg_proc p;

    pg_test_run(&p, repo, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    /* A build from a commit pins it; a build with uncommitted changes has none to pin: a placeholder, and how to fill it. */
    if (!published)
        cr_assert(strstr(p.out, "name perfgate at PERFGATE_SHA") && strstr(p.out, "pin-workflows.sh v"), "%s", p.out);
    pg_proc_free(&p);
    v = yaml_at(repo, ".github/workflows/perfgate-post.yml", ref);
    cr_assert_str_eq(v, published ? PG_COMMIT_STRING : "PERFGATE_SHA");
    free(v);
}
