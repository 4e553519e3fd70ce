/*
 * input_test.c - inputs are refused in bounded time and memory: what is not
 * a regular file (a device, a FIFO, a directory) at once, a file over its
 * cap before it is read, and YAML nested too deep while it is parsed.
 */
#include "support.h"

#include "compile.h"
#include "base/node.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *dir;

static void setup(void)
{
    dir = pg_test_tmpdir();
}

static void teardown(void)
{
    pg_test_rmtree(dir);
    free(dir);
}

TestSuite(input, .init = setup, .fini = teardown, .timeout = 60);

static char *fifo_path(void)
{
    char *p = pg__asprintf("%s/pipe.yaml", dir);

    cr_assert(p && mkfifo(p, 0600) == 0, "mkfifo %s", p);
    return p;
}

/* Runs perfgate and checks the exit code and that stderr holds `want`. */
static void expect_refused(const char *const *argv, int code, const char *want)
{
    pg_proc p;

    pg_assert_ok(pg_test_run(&p, dir, NULL, argv));
    cr_expect_eq(p.status, code, "%s %s: exit %d, want %d; stderr: %s", argv[0], argv[1], p.status, code, p.err);
    cr_expect(strstr(p.err, want), "%s: stderr lacks '%s': %s", argv[0], want, p.err);
    pg_proc_free(&p);
}

Test(input, device_fifo_and_directory_refused_without_reading)
{
    char *fifo = fifo_path();
    FILE *f = (FILE *)1;

    /* A FIFO with no writer: a blocking open would wait forever (the suite's timeout fails it). */
    cr_assert_eq(pg__open_input(&f, NULL, fifo, "suite", 0), PG_EINVAL);
    cr_assert_null(f);
    cr_expect(strstr(pg_error_last(), "is a FIFO (named pipe), not a regular suite file"), "%s", pg_error_last());
    cr_assert_eq(pg__open_input(&f, NULL, "/dev/zero", "trace", 0), PG_EINVAL);
    cr_expect(strstr(pg_error_last(), "/dev/zero: is a device, not a regular trace file"), "%s", pg_error_last());
    cr_assert_eq(pg__open_input(&f, NULL, dir, "result", 0), PG_EINVAL);
    cr_expect(strstr(pg_error_last(), "is a directory, not a regular result file"), "%s", pg_error_last());
    cr_assert_eq(pg_error_exit_code(PG_EINVAL), 2);
    free(fifo);
}

Test(input, missing_file_and_size_cap)
{
    char *path = pg_test_write(dir, "five.txt", "12345"), *text = NULL, *missing = pg__asprintf("%s/none", dir);
    size_t len = 0;

    cr_assert_eq(pg__read_input(&text, &len, missing, "suite", 0), PG_ENOTFOUND);
    cr_expect(strstr(pg_error_last(), "no such suite file"), "%s", pg_error_last());
    cr_assert_eq(pg__read_input(&text, &len, path, "suite", 4), PG_EINVAL);
    cr_expect(strstr(pg_error_last(), "5 bytes is over the 4 bytes limit for a suite file"), "%s", pg_error_last());
    cr_assert_null(text);
    pg_assert_ok(pg__read_input(&text, &len, path, "suite", 5));
    cr_expect_eq(len, 5);
    cr_expect_str_eq(text, "12345");
    free(text);
    free(path);
    free(missing);
}

Test(input, cli_refuses_devices_fifos_and_directories_with_exit_2)
{
    char *fifo = fifo_path();
    const char *validate_zero[] = {"validate", "/dev/zero", NULL};
    const char *validate_fifo[] = {"validate", fifo, NULL};
    const char *import_zero[] = {"import", "--db", "t.db", "google-benchmark", "/dev/zero", NULL};
    const char *import_dir[] = {"import", "--db", "t.db", "hyperfine", dir, NULL};
    const char *trace_dir[] = {"trace", dir, NULL};
    const char *trace_fifo[] = {"trace", fifo, NULL};

    expect_refused(validate_zero, 2, "/dev/zero: is a device, not a regular suite file");
    expect_refused(validate_fifo, 2, "is a FIFO (named pipe), not a regular suite file");
    expect_refused(import_zero, 2, "/dev/zero: is a device, not a regular result file");
    expect_refused(import_dir, 2, "is a directory, not a regular result file");
    expect_refused(trace_dir, 2, "is a directory, not a regular trace file");
    expect_refused(trace_fifo, 2, "is a FIFO (named pipe), not a regular trace file");
    free(fifo);
}

/* 100,000 levels of flow nesting: refused at level 65, where the parser is, not after reading it all. */
Test(input, deep_flow_nesting_refused_while_parsing)
{
    size_t depth = 100000, i;
    pg_buf b = PG_BUF_INIT;
    pg_doc *doc = NULL;
    char *path;
    const char *validate[] = {"validate", "deep.yaml", NULL};

    pg_assert_ok(pg__buf_puts(&b, "suite: s\nbenchmarks: "));
    for (i = 0; i < depth; i++)
        pg__buf_put(&b, "[", 1);
    for (i = 0; i < depth; i++)
        pg__buf_put(&b, "]", 1);
    pg__buf_puts(&b, "\n");
    cr_assert_eq(pg_doc_load(&doc, "deep.yaml", b.ptr, b.len), PG_ESUITE);
    cr_expect_str_eq(pg_error_last(), "deep.yaml:2:77: nested more than 64 levels deep");
    path = pg_test_write(dir, "deep.yaml", b.ptr);
    expect_refused(validate, 2, "deep.yaml:2:77: nested more than 64 levels deep");
    free(path);
    pg__buf_clear(&b);
}

/* A 50 MB suite of one-line benchmarks: refused by its size before it is read or parsed. */
Test(input, oversized_suite_refused_before_parsing)
{
    char *path = pg__asprintf("%s/big.yaml", dir);
    FILE *f = fopen(path, "w");
    const char *validate[] = {"validate", "big.yaml", NULL};
    long i, size;

    cr_assert(f);
    size = fprintf(f, "suite: big\nbenchmarks:\n");
    for (i = 0; size < 50000000; i++)
        size += fprintf(f, "  - {name: b%ld, kernel: noop}\n", i);
    fclose(f);
    expect_refused(validate, 2, "big.yaml: 50.0 MB is over the 4 MiB limit for a suite file");
    free(path);
}

/* Anchors and aliases still resolve through the event parser, and an alias must name an earlier anchor. */
Test(input, aliases_resolve_and_unknown_alias_is_positioned)
{
    const char *ok = "a: &x {k: 1}\nb: *x\nc:\n  <<: *x\n  j: 2\n";
    const char *bad = "a: 1\nb: *nope\n";
    pg_doc *doc = NULL;
    pg_node *root;

    pg_assert_ok(pg_doc_load(&doc, "ok.yaml", ok, strlen(ok)));
    root = pg_doc_root(doc);
    cr_expect_eq(pg_node_get(root, "a"), pg_node_get(root, "b"), "an alias shares its anchor's subtree");
    cr_expect(pg_node_is(pg_node_get(pg_node_get(root, "c"), "k"), "1"), "merge key applied");
    cr_expect_eq(pg_node_get(root, "c")->count, 2);
    pg_doc_free(doc);
    cr_assert_eq(pg_doc_load(&doc, "bad.yaml", bad, strlen(bad)), PG_ESUITE);
    cr_expect_str_eq(pg_error_last(), "bad.yaml:2:4: alias '*nope' names no anchor defined before it");
}

/* Output that cannot be written is no pass: `validate > /dev/full` exits 3 and says why. */
Test(input, unwritable_stdout_is_exit_3)
{
    char *suite = pg_test_write(dir, "ok.yaml", "suite: s\nbenchmarks:\n  - {name: a, kernel: add}\n");
    char *cmd = pg__asprintf("{ '%s' validate '%s' > /dev/full; }", PG_TEST_BINARY, suite), *out = NULL;
    int status = pg_test_sh(&out, cmd);

    cr_expect_eq(status, 3, "exit %d: %s", status, out);
    cr_expect(out && strstr(out, "cannot write to standard output"), "%s", out);
    free(out);
    free(cmd);
    free(suite);
}
