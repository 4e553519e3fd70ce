/*
 * trace_test.c - the trace model, the streaming reader (both JSON forms, B/E
 * pairs, decimals, GPU attribution, malformed input), key_averages() against
 * an independent Python reference, Chrome export and the op recorder.
 */
#include "support.h"

#include "base/instrument.h"
#include "trace/trace.h"
#include "base/util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The index of the first event named `name` (after `from`), or -1. */
static long find(const pg_trace *t, const char *name, long from)
{
    size_t i;

    for (i = (size_t)(from + 1); i < t->nevents; i++)
        if (strcmp(pg_trace_str(t, t->events[i].name), name) == 0)
            return (long)i;
    return -1;
}

static const char *parent_name(const pg_trace *t, long i)
{
    int32_t p = t->events[i].parent;

    return p < 0 ? "(top)" : pg_trace_str(t, t->events[p].name);
}

static pg_trace *read_buf(const char *text)
{
    pg_trace *t = NULL;

    pg_assert_ok(pg_trace_read_buffer(&t, "mem.json", text, strlen(text), NULL));
    return t;
}

static int read_err(const char *text)
{
    pg_trace *t = NULL;
    int err = pg_trace_read_buffer(&t, "bad.json", text, strlen(text), NULL);

    cr_assert_null(t);
    return err;
}

Test(trace_reader, array_form_nests_by_time_on_the_same_thread)
{
    pg_trace *t = read_buf("[{\"name\": \"outer\", \"ph\": \"X\", \"ts\": 10, \"dur\": 100, \"pid\": 1, \"tid\": 1},"
                           " {\"name\": \"inner\", \"ph\": \"X\", \"ts\": 20, \"dur\": 10, \"pid\": 1, \"tid\": 1},"
                           " {\"name\": \"other_thread\", \"ph\": \"X\", \"ts\": 25, \"dur\": 1, \"pid\": 1, \"tid\": 2},"
                           " {\"name\": \"after\", \"ph\": \"X\", \"ts\": 105, \"dur\": 5, \"pid\": 1, \"tid\": 1}]");
    long in = find(t, "inner", -1), ot = find(t, "other_thread", -1), af = find(t, "after", -1);

    cr_assert_eq(t->nevents, 4);
    cr_assert_str_eq(parent_name(t, in), "outer");
    cr_assert_str_eq(parent_name(t, ot), "(top)", "containment only counts on the same pid/tid");
    cr_assert_str_eq(parent_name(t, af), "outer", "an event ending exactly at its parent's end is inside");
    cr_assert_eq(t->events[in].ts, 20000);
    cr_assert_eq(t->events[in].dur, 10000);
    pg_trace_free(t);
}

Test(trace_reader, decimals_are_exact_nanoseconds)
{
    pg_trace *t = read_buf("{\"traceEvents\": [{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1700000000120.250,"
                           " \"dur\": 50.5, \"pid\": 0, \"tid\": 0}, {\"name\": \"b\", \"ph\": \"X\", \"ts\": 1.0e3,"
                           " \"dur\": 0.0004, \"pid\": 0, \"tid\": 0}]}");
    long a = find(t, "a", -1), b = find(t, "b", -1);

    cr_assert_eq(t->events[a].ts, INT64_C(1700000000120250));
    cr_assert_eq(t->events[a].dur, 50500);
    cr_assert_eq(t->events[b].ts, 1000000);
    cr_assert_eq(t->events[b].dur, 0);
    pg_trace_free(t);
}

Test(trace_reader, begin_end_pairs_and_unterminated_array)
{
    /* The Trace Event Format allows the final ']' to be missing. */
    pg_trace *t = read_buf("[{\"name\": \"step\", \"ph\": \"B\", \"ts\": 0, \"pid\": 1, \"tid\": 1},\n"
                           " {\"name\": \"op\", \"ph\": \"B\", \"ts\": 5, \"pid\": 1, \"tid\": 1},\n"
                           " {\"ph\": \"E\", \"ts\": 7, \"pid\": 1, \"tid\": 1},\n"
                           " {\"ph\": \"E\", \"ts\": 9, \"pid\": 1, \"tid\": 1},\n"
                           " {\"name\": \"meta\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"x\"}},\n");
    long s = find(t, "step", -1), o = find(t, "op", -1);

    cr_assert_eq(t->nevents, 2, "metadata is skipped");
    cr_assert_eq(t->nread, 5);
    cr_assert_eq(t->events[s].dur, 9000);
    cr_assert_eq(t->events[o].dur, 2000);
    cr_assert_str_eq(parent_name(t, o), "step");
    pg_trace_free(t);
}

Test(trace_reader, strings_escapes_and_unknown_keys)
{
    pg_trace *t = read_buf("{\"otherData\": {\"x\": [1, {\"y\": null}, true, false, -1.5e-3]}, \"traceEvents\": ["
                           "{\"name\": \"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\", \"ph\": \"X\", \"ts\": 1, \"dur\": 1,"
                           " \"pid\": \"CPU functions\", \"tid\": 1, \"args\": {\"Input Dims\": [[64, 64], []]}}]}");

    cr_assert_eq(t->nevents, 1);
    cr_assert_str_eq(pg_trace_str(t, t->events[0].name), "a\"b\\c\xc3\xa9\xf0\x9f\x98\x80");
    cr_assert_str_eq(pg_trace_str(t, t->events[0].pid), "CPU functions");
    cr_assert_str_eq(pg_trace_str(t, t->events[0].shape), "[[64, 64], []]");
    pg_trace_free(t);
}

/* Data-driven: each malformed input and the byte offset its one-line error must name. */
Test(trace_reader, malformed_input_names_the_byte_offset)
{
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"", "at byte 0: empty file"},
        {"   ", "at byte 3: empty file"},
        {"{\"traceEvents\": [{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1,}]}", "at byte 50: expected a string"},
        {"[{\"name\": \"a\" \"ph\": \"X\"}]", "at byte 14: expected ',' or '}' in an event"},
        {"[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1}] x", "at byte 36: unexpected data after the trace"},
        {"{\"traceEvents\": [{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1}", "at byte 50: unexpected end of input"},
        {"{\"meta\": 1}", "no 'traceEvents' array"},
        {"[{\"name\": \"a\", \"ph\": \"X\", \"ts\": \"12\"}]", "at byte 32: ts must be a number"},
        {"[{\"name\": \"a\", \"ph\": \"X\", \"dur\": 3}]", "at byte 1: event without 'ts'"},
        {"[{\"name\": \"a\\q\"}]", "at byte 12: bad escape"},
        {"[{\"name\": \"abc", "at byte 10: unterminated string"},
        {"[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 01}]", "at byte 33: expected ',' or '}' in an event"},
        {"[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1e400}]", "out of range"},
        {"[1]", "at byte 1: expected an event object"},
        {"nul", "at byte 0: expected '[' or '{'"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int err = read_err(cases[i].text);
        cr_assert_eq(err, PG_EFORMAT, "case %zu (%s): %s", i, cases[i].text, pg_error_last());
        cr_assert(strstr(pg_error_last(), cases[i].needle) != NULL, "case %zu: got '%s', want '%s'", i,
                  pg_error_last(), cases[i].needle);
        cr_assert(strncmp(pg_error_last(), "bad.json: ", 10) == 0, "%s", pg_error_last());
        cr_assert_null(strchr(pg_error_last(), '\n'), "one line: %s", pg_error_last());
    }
}

Test(trace_reader, deep_nesting_is_an_error_not_a_crash)
{
    pg_buf b = PG_BUF_INIT;
    int i;

    pg__buf_puts(&b, "{\"x\": ");
    for (i = 0; i < 100000; i++)
        pg__buf_puts(&b, "[");
    cr_assert_eq(read_err(b.ptr), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "nested deeper than 128") != NULL, "%s", pg_error_last());
    pg__buf_clear(&b);
}

Test(trace_reader, file_and_buffer_agree_across_chunk_boundaries)
{
    char *path = pg_test_data("traces/lab_step_sched.json"), *text = NULL;
    size_t len = 0, i;
    pg_trace *a = NULL, *b = NULL;

    pg_assert_ok(pg__read_file(&text, &len, path));
    cr_assert_gt(len, 2 * 64 * 1024, "the fixture spans several 64 KiB chunks");
    pg_assert_ok(pg_trace_read_file(&a, path, NULL));
    pg_assert_ok(pg_trace_read_buffer(&b, path, text, len, NULL));
    cr_assert_eq(a->nevents, 1757);
    cr_assert_eq(a->nevents, b->nevents);
    cr_assert_eq(a->bytes_read, len);
    for (i = 0; i < a->nevents; i++) {
        cr_assert_str_eq(pg_trace_str(a, a->events[i].name), pg_trace_str(b, b->events[i].name));
        cr_assert_eq(a->events[i].ts, b->events[i].ts);
        cr_assert_eq(a->events[i].dur, b->events[i].dur);
        cr_assert_eq(a->events[i].parent, b->events[i].parent);
    }
    pg_trace_free(a);
    pg_trace_free(b);
    free(text);
    free(path);
}

Test(trace_reader, missing_file_is_an_input_error_naming_it)
{
    pg_trace *t = NULL;

    /* A path that names nothing is the caller's mistake (exit 2), not the machine's. */
    cr_assert_eq(pg_trace_read_file(&t, "/no/such/trace.json", NULL), PG_ENOTFOUND);
    cr_assert(strstr(pg_error_last(), "/no/such/trace.json") != NULL);
}

Test(trace_reader, gpu_events_hang_under_their_launch)
{
    char *path = pg_test_data("traces/kineto_gpu.json");
    pg_trace *t = NULL;
    long k1, k2, cp, ext, idx;

    pg_assert_ok(pg_trace_read_file(&t, path, NULL));
    cr_assert_eq(t->nevents, 19, "flows, counters and metadata are skipped; B/E pairs become one event");
    k1 = find(t, "ampere_sgemm_64x32_sliced1x4_nn", -1);
    k2 = find(t, "ampere_sgemm_64x32_sliced1x4_nn", k1);
    cp = find(t, "Memcpy DtoH (Device -> Pinned)", -1);
    ext = find(t, "elementwise_kernel_by_external_id", -1);
    idx = find(t, "void at::native::index_elementwise_kernel<128, 4>(long, at::native::(anonymous namespace)::write_indices)", -1);
    cr_assert(k1 >= 0 && k2 >= 0 && cp >= 0 && ext >= 0 && idx >= 0);
    cr_assert(t->events[k1].device && t->events[idx].device, "categories match case-insensitively ('Kernel')");
    cr_assert_str_eq(parent_name(t, k1), "cudaLaunchKernel");
    cr_assert_str_eq(parent_name(t, cp), "cudaMemcpyAsync");
    cr_assert_str_eq(parent_name(t, ext), "aten::mm", "without a correlation, External id links to the CPU op");
    /* The second sgemm runs after 'forward' (B/E) has ended on the CPU: only the correlation puts it inside. */
    cr_assert_gt(t->events[k2].ts + t->events[k2].dur, t->events[find(t, "forward", find(t, "forward", -1))].ts +
                                                           t->events[find(t, "forward", find(t, "forward", -1))].dur);
    cr_assert(pg_trace_inside(t, (size_t)k2, (size_t)find(t, "forward", find(t, "forward", -1))));
    cr_assert(pg_trace_inside(t, (size_t)cp, (size_t)find(t, "aten::nonzero", -1)));
    pg_trace_free(t);
    free(path);
}

static int keep_mm(const char *name, const char *cat, void *payload)
{
    return strcmp(name, "aten::mm") == 0 || strcmp(name, "forward") == 0;
}

Test(trace_reader, keep_filter_drops_events_but_keeps_gpu_links)
{
    char *path = pg_test_data("traces/kineto_gpu.json");
    pg_trace_read_options ro = PG_TRACE_READ_OPTIONS_INIT;
    pg_trace *t = NULL;
    long k;

    ro.keep = keep_mm;
    pg_assert_ok(pg_trace_read_file(&t, path, &ro));
    cr_assert_eq(find(t, "masked_select", -1), -1);
    cr_assert_eq(find(t, "ProfilerStep#0", -1), -1);
    k = find(t, "ampere_sgemm_64x32_sliced1x4_nn", -1);
    cr_assert_str_eq(parent_name(t, k), "cudaLaunchKernel");
    cr_assert_str_eq(parent_name(t, t->events[k].parent), "aten::mm");
    pg_trace_free(t);
    free(path);
}

/* key_averages() against make_reference.py's brute-force computation. */
static void check_reference(const char *trace)
{
    char *path = pg_test_data(trace), *ref_path = NULL, *text = NULL, *line, *save = NULL;
    size_t len = 0, nrows = 0, i, checked = 0;
    pg_trace *t = NULL;
    pg_trace_stat *rows = NULL;

    ref_path = pg__asprintf("%.*s.key_averages.tsv", (int)(strlen(path) - 5), path);
    pg_assert_ok(pg_trace_read_file(&t, path, NULL));
    pg_assert_ok(pg_trace_aggregate(&rows, &nrows, t, 0, PG_TRACE_SORT_NAME));
    pg_assert_ok(pg__read_file(&text, &len, ref_path));
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[512];
        long long count, total, self;
        if (line[0] == '#')
            continue;
        cr_assert_eq(sscanf(line, "%511[^\t]\t%lld\t%lld\t%lld", name, &count, &total, &self), 4, "%s", line);
        for (i = 0; i < nrows; i++)
            if (strcmp(rows[i].name, name) == 0)
                break;
        cr_assert_lt(i, nrows, "%s: row '%s' missing", trace, name);
        cr_assert_eq(rows[i].count, count, "%s: %s count", trace, name);
        cr_assert_eq(rows[i].total_ns, total, "%s: %s total", trace, name);
        cr_assert_eq(rows[i].self_ns, self, "%s: %s self %lld vs reference %lld", trace, name,
                     (long long)rows[i].self_ns, self);
        checked++;
    }
    cr_assert_eq(checked, nrows, "%s: every row is in the reference", trace);
    free(rows);
    pg_trace_free(t);
    free(text);
    free(ref_path);
    free(path);
}

Test(trace_aggregate, matches_independent_reference)
{
    check_reference("traces/fence3_mask.json");
    check_reference("traces/lab_step_sched.json");
    check_reference("traces/kineto_gpu.json");
}

Test(trace_aggregate, group_by_shape_and_sort)
{
    pg_trace *t = read_buf("[{\"name\": \"mm\", \"ph\": \"X\", \"ts\": 0, \"dur\": 5, \"pid\": 1, \"tid\": 1, \"args\": {\"Input Dims\": [[2, 2]]}},"
                           " {\"name\": \"mm\", \"ph\": \"X\", \"ts\": 10, \"dur\": 7, \"pid\": 1, \"tid\": 1, \"args\": {\"Input Dims\": [[4, 4]]}},"
                           " {\"name\": \"mm\", \"ph\": \"X\", \"ts\": 20, \"dur\": 1, \"pid\": 1, \"tid\": 1, \"args\": {\"Input Dims\": [[2, 2]]}},"
                           " {\"name\": \"add\", \"ph\": \"X\", \"ts\": 30, \"dur\": 9, \"pid\": 1, \"tid\": 1}]");
    pg_trace_stat *rows = NULL;
    size_t n = 0;

    pg_assert_ok(pg_trace_aggregate(&rows, &n, t, 1, PG_TRACE_SORT_TOTAL));
    cr_assert_eq(n, 3);
    cr_assert_str_eq(rows[0].name, "add");
    cr_assert_str_eq(rows[1].shape, "[[4, 4]]");
    cr_assert_eq(rows[2].count, 2);
    cr_assert_eq(rows[2].total_ns, 6000);
    free(rows);
    pg_assert_ok(pg_trace_aggregate(&rows, &n, t, 0, PG_TRACE_SORT_COUNT));
    cr_assert_eq(n, 2);
    cr_assert_str_eq(rows[0].name, "mm");
    cr_assert_eq(rows[0].count, 3);
    free(rows);
    pg_trace_free(t);
}

/* The export is valid Trace Event Format: parsed here by jansson, not by perfgate. */
Test(trace_export, chrome_json_structure)
{
    char *path = pg_test_data("traces/kineto_gpu.json"), *dir = pg_test_tmpdir(), *out;
    pg_trace *t = NULL, *back = NULL;
    json_t *root, *evs, *e;
    json_error_t jerr;
    size_t i, nx = 0, nm = 0;

    pg_assert_ok(pg_trace_read_file(&t, path, NULL));
    out = pg__asprintf("%s/out.json", dir);
    pg_assert_ok(pg_trace_export_file(out, t, "label \"quoted\""));
    root = json_load_file(out, 0, &jerr);
    cr_assert_not_null(root, "%s:%d: %s", out, jerr.line, jerr.text);
    cr_assert(json_is_object(root));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(root, "otherData"), "label")), "label \"quoted\"");
    evs = json_object_get(root, "traceEvents");
    cr_assert(json_is_array(evs));
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        cr_assert_not_null(ph);
        cr_assert(json_is_string(json_object_get(e, "name")));
        cr_assert(json_object_get(e, "pid") && json_object_get(e, "tid"));
        if (strcmp(ph, "X") == 0) {
            nx++;
            cr_assert(json_is_number(json_object_get(e, "ts")) && json_is_number(json_object_get(e, "dur")));
            cr_assert(json_is_string(json_object_get(e, "cat")));
            cr_assert(json_is_object(json_object_get(e, "args")));
        } else {
            cr_assert_str_eq(ph, "M");
            nm++;
        }
    }
    cr_assert_eq(nx, t->nevents);
    cr_assert_geq(nm, 3, "process and thread names");
    /* And it reads back to the same nesting. */
    pg_assert_ok(pg_trace_read_file(&back, out, NULL));
    cr_assert_eq(back->nevents, t->nevents);
    for (i = 0; i < t->nevents; i++) {
        cr_assert_str_eq(pg_trace_str(t, t->events[i].name), pg_trace_str(back, back->events[i].name));
        cr_assert_eq(t->events[i].ts, back->events[i].ts);
        cr_assert_eq(t->events[i].parent, back->events[i].parent);
    }
    json_decref(root);
    pg_trace_free(t);
    pg_trace_free(back);
    pg_test_rmtree(dir);
    free(dir);
    free(out);
    free(path);
}

Test(trace_recorder, records_ops_ranges_modules_with_parents)
{
    pg_recorder *r = NULL;
    const pg_instrument *prev;
    pg_trace *t;
    long step, mm, mod;

    pg_assert_ok(pg_recorder_new(&r));
    prev = pg__instrument_set(pg_recorder_instrument(r, NULL));
    pg__range_push("step");
    pg__module_push("mlp.1", 0);
    pg__op_begin("mm", "[2,3]x[3,4]");
    pg__op_gemm("mm", 2, 4, 3);
    pg__op_end("mm");
    pg__module_pop("mlp.1");
    pg__range_pop("step");
    pg__instrument_set(prev);
    pg_assert_ok(pg_recorder_status(r));
    t = pg_recorder_trace(r);
    cr_assert_eq(t->nevents, 3);
    step = find(t, "step", -1);
    mod = find(t, "mlp.1", -1);
    mm = find(t, "mm", -1);
    cr_assert_str_eq(pg_trace_str(t, t->events[step].cat), "user_annotation");
    cr_assert_str_eq(pg_trace_str(t, t->events[mod].cat), "module");
    cr_assert_str_eq(pg_trace_str(t, t->events[mm].cat), "cpu_op");
    cr_assert_str_eq(pg_trace_str(t, t->events[mm].shape), "[2,3]x[3,4]");
    cr_assert_str_eq(parent_name(t, mm), "mlp.1");
    cr_assert_str_eq(parent_name(t, mod), "step");
    cr_assert(t->events[step].dur >= t->events[mm].dur);
    cr_assert(t->events[mm].ts >= t->events[step].ts);
    cr_assert_neq(t->events[mm].tid, 0);
    pg_recorder_free(r);
}

Test(trace_recorder, mismatched_hooks_are_reported)
{
    pg_recorder *r = NULL;
    const pg_instrument *prev;

    pg_assert_ok(pg_recorder_new(&r));
    prev = pg__instrument_set(pg_recorder_instrument(r, NULL));
    pg__range_push("outer");
    pg__op_begin("mm", NULL);
    pg__range_pop("outer"); /* mm never ended */
    pg__instrument_set(prev);
    cr_assert_eq(pg_recorder_status(r), PG_EKERNEL);
    cr_assert(strstr(pg_error_last(), "'outer' while 'mm'") != NULL, "%s", pg_error_last());
    pg_recorder_free(r);

    pg_assert_ok(pg_recorder_new(&r));
    prev = pg__instrument_set(pg_recorder_instrument(r, NULL));
    pg__range_push("left_open");
    pg__instrument_set(prev);
    cr_assert_eq(pg_recorder_status(r), PG_EKERNEL);
    cr_assert(strstr(pg_error_last(), "'left_open' was still open") != NULL, "%s", pg_error_last());
    pg_recorder_free(r);
}

static int hook_calls;

static void count_op_begin(void *p, const char *name, const char *shape)
{
    (void)name;
    (void)shape;
    *(int *)p += 1;
}

static void count_name(void *p, const char *name)
{
    (void)name;
    *(int *)p += 1;
}

static void count_gemm(void *p, const char *name, int64_t m, int64_t n, int64_t k)
{
    (void)name;
    *(int *)p += (int)(m * n * k);
}

static void call_every_hook(void)
{
    pg__range_push("x");
    pg__op_begin("mm", NULL);
    pg__op_gemm("mm", 1, 2, 3);
    pg__op_end("mm");
    pg__range_pop("x");
}

/*
 * The hooks reach an installed instrument and nothing else: installed, each
 * hook calls its function (1 + 1 + 6 + 1 + 1 = 10 counted); uninstalled,
 * the same calls count nothing; an instrument that fills only some hooks
 * gets those and the others are skipped, not called through NULL.
 */
Test(trace_recorder, hooks_reach_only_an_installed_instrument)
{
    pg_instrument all = {count_op_begin, count_name, count_gemm, count_name, count_name, NULL, NULL, &hook_calls};
    pg_instrument some = {count_op_begin, NULL, NULL, NULL, NULL, NULL, NULL, &hook_calls};
    const pg_instrument *prev;

    cr_assert_null(pg__instrument);
    hook_calls = 0;
    prev = pg__instrument_set(&all);
    call_every_hook();
    cr_assert_eq(hook_calls, 10);
    cr_assert_eq(pg__instrument_set(prev), &all);
    call_every_hook();
    cr_assert_eq(hook_calls, 10, "a hook reached an uninstalled instrument");
    pg__instrument_set(&some);
    call_every_hook();
    pg__instrument_set(prev);
    cr_assert_eq(hook_calls, 11);
}

/* Strings, escapes and numbers cut by the 64 KiB chunk boundary at every offset read the same as from memory. */
Test(trace_reader, tokens_split_across_chunks)
{
    char *dir = pg_test_tmpdir();
    int pad;

    for (pad = 0; pad < 24; pad++) {
        pg_buf b = PG_BUF_INIT;
        pg_trace *f = NULL, *m = NULL;
        char *path;
        size_t want = 65536 - 40 + (size_t)pad;
        pg__buf_puts(&b, "{\"pad\": \"");
        while (b.len < want)
            pg__buf_puts(&b, "x");
        pg__buf_puts(&b, "\", \"traceEvents\": [{\"name\": \"a\\\"\\u00e9\\ud83d\\ude00 b\", \"ph\": \"X\", "
                         "\"ts\": 123.456, \"dur\": 7.5, \"pid\": 1, \"tid\": 2}]}");
        path = pg_test_write(dir, "split.json", b.ptr);
        pg_assert_ok(pg_trace_read_file(&f, path, NULL));
        pg_assert_ok(pg_trace_read_buffer(&m, "mem", b.ptr, b.len, NULL));
        cr_assert_eq(f->nevents, 1, "pad %d", pad);
        cr_assert_str_eq(pg_trace_str(f, f->events[0].name), "a\"\xc3\xa9\xf0\x9f\x98\x80 b", "pad %d", pad);
        cr_assert_str_eq(pg_trace_str(f, f->events[0].name), pg_trace_str(m, m->events[0].name));
        cr_assert_eq(f->events[0].ts, 123456, "pad %d", pad);
        cr_assert_eq(f->events[0].dur, 7500, "pad %d", pad);
        pg_trace_free(f);
        pg_trace_free(m);
        free(path);
        pg__buf_clear(&b);
    }
    pg_test_rmtree(dir);
    free(dir);
}
