/*
 * trace_flops_test.c - flops checks on traces: Kineto's per-op FLOPs (tests/data/traces/kineto_flops.json,
 * torch's own counts of two lab steps), the same trace without them (the FLOPs of its matrix products from
 * "Input Dims"), a difference named by the op's shape, a legacy trace that carries none, and the rules of
 * pg_trace_op_flops(): the shapes of each product it knows, an op nested in a counted op counted once, a
 * malformed count refused.
 */
#include "support.h"

#include "perfgate/errors.h"
#include "trace/trace.h"
#include "base/util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define SUM_IN_OUT (3LL * 256 * 256 + 256 * 512)
#define STEP (6LL * 64 * SUM_IN_OUT)

static const char suite_text[] =
    "suite: kineto_flops\n"
    "checks:\n"
    "  - name: c\n"
    "    kind: flops\n"
    "    trace: %s\n"
    "    expect: {%s}\n";

/* Runs one flops check on `trace` with `expect`; returns perfgate's exit code, output in *p. */
static int run_check(pg_proc *p, const char *dir, const char *trace, const char *expect)
{
    char *text = pg__asprintf(suite_text, trace, expect), *suite = pg_test_write(dir, "s.yaml", text);
    const char *argv[] = {"run", "--no-store", suite, NULL};

    pg_test_run(p, NULL, NULL, argv);
    free(suite);
    free(text);
    return p->status;
}

Test(trace_flops, kineto_flops_args_give_the_steps_flops)
{
    char *suite = pg_test_data("traces/kineto_flops.yaml");
    const char *argv[] = {"run", "--no-store", suite, NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "check kineto_flops/two_steps_from_flops_args (flops): passed") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "(24 ops counted: 24 with the trace's own FLOPs, 0 from their shapes)") != NULL, "%s",
              p.out);
    pg_proc_free(&p);
    free(suite);
}

Test(trace_flops, without_flops_args_the_shapes_give_the_same_count)
{
    char *tmp = pg_test_tmpdir(), *src = pg_test_data("traces/kineto_flops.json"), *text = NULL, *w, *r;
    char *copy;
    size_t len = 0;
    pg_proc p;

    /* The fixture with every `,"flops":N` cut out. */
    cr_assert_eq(pg__read_file(&text, &len, src), 0);
    for (r = w = text; *r;) {
        if (strncmp(r, ",\"flops\":", 9) == 0) {
            for (r += 9; *r >= '0' && *r <= '9'; r++)
                ;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
    cr_assert_null(strstr(text, ",\"flops\":"));
    copy = pg_test_write(tmp, "shapes.json", text);
    cr_assert_eq(run_check(&p, tmp, "shapes.json",
                           "total: 2*6*64*(3*256*256 + 256*512), per_op: {\"aten::addmm\": 2*2*64*(3*256*256 + "
                           "256*512), \"aten::mm\": 2*4*64*(3*256*256 + 256*512)}"),
                 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "(24 ops counted: 0 with the trace's own FLOPs, 24 from their shapes)") != NULL, "%s",
              p.out);
    pg_proc_free(&p);
    free(copy);
    free(text);
    free(src);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(trace_flops, a_difference_names_the_ops_shape)
{
    char *tmp = pg_test_tmpdir(), *trace = pg_test_data("traces/kineto_flops.json");
    char *expect = pg__asprintf("per_module: {forward: 2*2*64*%lld + 2*64*256*256}", SUM_IN_OUT);
    pg_proc p;

    cr_assert_eq(run_check(&p, tmp, trace, expect), 1, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "module forward: expected 92,274,688, got 83,886,080 (-8,388,608) "
                            "(-1 call of aten::addmm [[256],[64,256],[256,256],[],[]])") != NULL,
              "%s", p.out);
    pg_proc_free(&p);
    free(expect);
    free(trace);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(trace_flops, a_trace_without_flops_says_how_to_record_them)
{
    char *tmp = pg_test_tmpdir(), *trace = pg_test_data("traces/lab_step_sched.json");
    pg_proc p;

    cr_assert_eq(run_check(&p, tmp, trace, "total: 1"), 1, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "total: expected 1, got 0 (-1); the trace carries no FLOPs: record it with "
                            "torch.profiler.profile(with_flops=True)") != NULL,
              "%s", p.out);
    pg_proc_free(&p);
    free(trace);
    pg_test_rmtree(tmp);
    free(tmp);
}

static pg_trace *read_text(const char *text)
{
    pg_trace *t = NULL;

    pg_assert_ok(pg_trace_read_buffer(&t, "t.json", text, strlen(text), NULL));
    return t;
}

static int64_t flops_of(const pg_trace *t, const char *name, int *derived)
{
    size_t i;

    for (i = 0; i < t->nevents; i++)
        if (strcmp(pg_trace_str(t, t->events[i].name), name) == 0)
            return pg_trace_op_flops(t, i, derived);
    cr_assert_fail("no event %s", name);
    return -2;
}

Test(trace_flops, shapes_of_each_product)
{
    pg_trace *t = read_text(
        "[{\"name\": \"aten::bmm\", \"ph\": \"X\", \"ts\": 0, \"dur\": 1, \"args\": {\"Input Dims\": [[8, 4, 5], [8, 5, 6]]}},"
        " {\"name\": \"aten::baddbmm\", \"ph\": \"X\", \"ts\": 2, \"dur\": 1, \"args\": {\"Input Dims\": [[8, 4, 6], [8, 4, 5], [8, 5, 6], [], []]}},"
        " {\"name\": \"aten::mv\", \"ph\": \"X\", \"ts\": 4, \"dur\": 1, \"args\": {\"Input Dims\": [[7, 3], [3]]}},"
        " {\"name\": \"aten::addmv\", \"ph\": \"X\", \"ts\": 6, \"dur\": 1, \"args\": {\"Input Dims\": [[7], [7, 3], [3], [], []]}},"
        " {\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 8, \"dur\": 1, \"args\": {\"Input Dims\": [[2, 3], [4, 5]]}},"
        " {\"name\": \"aten::matmul\", \"ph\": \"X\", \"ts\": 10, \"dur\": 1, \"args\": {\"Input Dims\": [[2, 3], [3, 5]]}},"
        " {\"name\": \"aten::conv2d\", \"ph\": \"X\", \"ts\": 12, \"dur\": 1, \"args\": {\"Input Dims\": [[1, 3, 8, 8], [4, 3, 3, 3]], \"flops\": 10368}},"
        " {\"name\": \"aten::add\", \"ph\": \"X\", \"ts\": 14, \"dur\": 1, \"args\": {\"flops\": null}}]");
    int derived = -1;

    cr_assert_eq(flops_of(t, "aten::bmm", &derived), 2 * 8 * 4 * 5 * 6);
    cr_assert_eq(derived, 1);
    cr_assert_eq(flops_of(t, "aten::baddbmm", NULL), 2 * 8 * 4 * 5 * 6);
    cr_assert_eq(flops_of(t, "aten::mv", NULL), 2 * 7 * 3);
    cr_assert_eq(flops_of(t, "aten::addmv", NULL), 2 * 7 * 3);
    cr_assert_eq(flops_of(t, "aten::mm", NULL), -1, "inner dimensions that disagree give nothing");
    cr_assert_eq(flops_of(t, "aten::matmul", NULL), -1, "matmul is counted by the mm or bmm it calls");
    cr_assert_eq(flops_of(t, "aten::conv2d", &derived), 10368, "a convolution only through the trace's count");
    cr_assert_eq(derived, 0);
    cr_assert_eq(flops_of(t, "aten::add", NULL), -1, "null is no count");
    pg_trace_free(t);
}

Test(trace_flops, an_op_inside_a_counted_op_counts_once)
{
    static const char text[] =
        "{\"traceEvents\": ["
        "{\"name\": \"train/step\", \"cat\": \"user_annotation\", \"ph\": \"X\", \"ts\": 0, \"dur\": 100, \"pid\": 1, \"tid\": 1},"
        "{\"name\": \"aten::conv2d\", \"cat\": \"cpu_op\", \"ph\": \"X\", \"ts\": 1, \"dur\": 50, \"pid\": 1, \"tid\": 1,"
        " \"args\": {\"flops\": 1000}},"
        "{\"name\": \"aten::mm\", \"cat\": \"cpu_op\", \"ph\": \"X\", \"ts\": 2, \"dur\": 10, \"pid\": 1, \"tid\": 1,"
        " \"args\": {\"Input Dims\": [[2, 3], [3, 4]]}},"
        "{\"name\": \"aten::mm\", \"cat\": \"cpu_op\", \"ph\": \"X\", \"ts\": 60, \"dur\": 10, \"pid\": 1, \"tid\": 1,"
        " \"args\": {\"Input Dims\": [[2, 3], [3, 4]]}}]}";
    char *tmp = pg_test_tmpdir(), *trace = pg_test_write(tmp, "nested.json", text);
    pg_proc p;

    /* The mm inside the convolution is the convolution's work; the one after it is its own. A range's name
       may hold '/'. */
    cr_assert_eq(run_check(&p, tmp, "nested.json",
                           "total: 1000 + 2*2*3*4, per_op: {\"aten::conv2d\": 1000, \"aten::mm\": 2*2*3*4}, "
                           "per_module: {\"train/step\": 1000 + 2*2*3*4}"),
                 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    free(trace);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(trace_flops, a_malformed_count_is_refused_with_its_offset)
{
    static const char text[] = "[{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 0, \"dur\": 1, \"args\": {\"flops\": \"many\"}}]";
    pg_trace *t = NULL;

    cr_assert_eq(pg_trace_read_buffer(&t, "t.json", text, strlen(text), NULL), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "t.json") && strstr(pg_error_last(), "args.flops must be a number"), "%s",
              pg_error_last());
    cr_assert_null(t);
}
