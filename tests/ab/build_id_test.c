/*
 * build_id_test.c - what names a base build in a decision: SHA-256 checked
 * against FIPS 180-4's own examples and against `sha256sum` (an independent
 * implementation) at every length around a block's end; a library's digest
 * is its file's; a directory's is that of the `sha256sum` listing of the
 * files its cases load from it; the commit comes from the build's stamp.
 */
#include "compile.h"
#include "support.h"

#include "ab/build_id.h"
#include "base/sha256.h"
#include "base/util.h"
#include "suite/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmp;

static void setup(void)
{
    tmp = pg_test_tmpdir();
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(build_id, .init = setup, .fini = teardown);

static void hex_of(char out[65], const char *text, size_t len)
{
    pg_sha256 s;

    pg_sha256_init(&s);
    pg_sha256_update(&s, text, len);
    pg_sha256_hex(&s, out);
}

Test(build_id, sha256_gives_the_standard_digests)
{
    char d[65], *million = malloc(1000000);

    hex_of(d, "", 0);
    cr_assert_str_eq(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of(d, "abc", 3);
    cr_assert_str_eq(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    hex_of(d, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
    cr_assert_str_eq(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    memset(million, 'a', 1000000);
    hex_of(d, million, 1000000);
    cr_assert_str_eq(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
}

/* sha256sum's digest of `path`. */
static void sha256sum(char out[65], const char *path)
{
    char *cmd = pg__asprintf("sha256sum '%s' | cut -c1-64", path), *text = NULL;

    cr_assert_eq(pg_test_sh(&text, cmd), 0);
    snprintf(out, 65, "%s", text);
    free(text);
    free(cmd);
}

Test(build_id, files_of_every_length_around_a_block_match_sha256sum)
{
    char *path = pg__asprintf("%s/f.bin", tmp), ours[65], theirs[65];
    size_t n;

    for (n = 0; n < 200; n++) {
        FILE *f = fopen(path, "wb");
        size_t i;
        cr_assert(f != NULL);
        for (i = 0; i < n; i++)
            fputc((int)((i * 131 + n) & 0xff), f);
        fclose(f);
        pg_assert_ok(pg_sha256_file(ours, path));
        sha256sum(theirs, path);
        cr_assert_str_eq(ours, theirs, "%zu bytes", n);
    }
    cr_assert_eq(pg_sha256_file(ours, "/no/such/file"), PG_EIO);
    free(path);
}

Test(build_id, a_library_and_a_directory_are_named_by_what_they_give_the_cases)
{
    char *dir = pg__asprintf("%s/build", tmp), *sub = pg__asprintf("%s/build/bin", tmp), *text, *suite;
    char *cmd = NULL, *out = NULL, lib_digest[65];
    pg_suite_set set = {0};
    pg_base_build id;
    const char *paths[1];

    cr_assert(mkdir(dir, 0755) == 0 && mkdir(sub, 0755) == 0);
    free(pg_test_write(dir, "libx.so", "not really a library, but bytes all the same\n"));
    free(pg_test_write(sub, "prog", "#!/bin/sh\nexit 0\n"));
    free(pg_test_write(dir, "unused.so", "never loaded by a case\n"));
    free(pg_test_write(dir, ".perfgate-build-sha", "0123456789abcdef0123456789abcdef01234567\n"));
    text = pg__asprintf("suite: id\n"
                        "benchmarks:\n"
                        "  - {name: p, plugin: '{build}/libx.so', symbol: p}\n"
                        "  - {name: c, command: ['{build}/bin/prog']}\n"
                        "  - {name: outside, command: ['/bin/true']}\n");
    suite = pg_test_write(tmp, "id.yaml", text);
    free(text);
    paths[0] = suite;
    {
        pg_suite_options so = PG_SUITE_OPTIONS_INIT;
        pg_assert_ok(pg_suite_set_load(&set, paths, 1, &so, NULL));
    }

    /* A directory: the digest of `sha256sum` over the files the cases load from it, in path order. */
    pg_assert_ok(pg_ab_build_identity(&id, &set, dir, NULL));
    cr_assert_str_eq(id.path, dir);
    cr_assert_str_eq(id.commit, "0123456789abcdef0123456789abcdef01234567");
    cmd = pg__asprintf("cd '%s' && sha256sum bin/prog libx.so | sha256sum | cut -c1-64", dir);
    cr_assert_eq(pg_test_sh(&out, cmd), 0);
    out[strcspn(out, "\n")] = '\0';
    cr_assert_str_eq(id.sha256, out);
    free(id.path);
    free(id.commit);
    free(id.sha256);
    free(out);
    free(cmd);

    /* Filtered to the plugin case: only its library counts. */
    pg_assert_ok(pg_ab_build_identity(&id, &set, dir, "id/p*"));
    cmd = pg__asprintf("cd '%s' && sha256sum libx.so | sha256sum | cut -c1-64", dir);
    cr_assert_eq(pg_test_sh(&out, cmd), 0);
    out[strcspn(out, "\n")] = '\0';
    cr_assert_str_eq(id.sha256, out);
    free(id.path);
    free(id.commit);
    free(id.sha256);
    free(out);
    free(cmd);

    /* A library stands for itself: its own digest; the commit is its folder's stamp. */
    text = pg__asprintf("%s/libx.so", dir);
    pg_assert_ok(pg_ab_build_identity(&id, &set, text, NULL));
    sha256sum(lib_digest, text);
    cr_assert_str_eq(id.sha256, lib_digest);
    cr_assert_str_eq(id.commit, "0123456789abcdef0123456789abcdef01234567");
    free(id.path);
    free(id.commit);
    free(id.sha256);

    /* No stamp, or a stamp that is no commit: no commit is claimed. */
    free(pg_test_write(dir, ".perfgate-build-sha", "not a sha\n"));
    pg_assert_ok(pg_ab_build_identity(&id, &set, dir, NULL));
    cr_assert_null(id.commit);
    free(id.path);
    free(id.sha256);
    cr_assert_eq(pg_ab_build_identity(&id, &set, "/no/such/build", NULL), PG_ENOTFOUND);
    free(id.path);

    free(text);
    free(suite);
    pg_suite_set_clear(&set);
    free(dir);
    free(sub);
}
