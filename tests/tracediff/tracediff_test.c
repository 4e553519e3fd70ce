/*
 * tracediff_test.c - `trace diff` on real torch.profiler CPU traces made by
 * Debian's python3-torch in this test (torch_steps.py: a small training step
 * and three variants, profiled in interleaved rounds), a gate whose timed
 * source is a command writing such traces, and the statistics of the diff
 * on synthetic traces with known per-step times.
 *
 * Timing verdicts on real traces depend on the machine: a loaded one may
 * leave a real change UNSURE (the verdict says why), but it must never call
 * the wrong op slower or an unchanged step different. Appearances, paths and
 * counts are exact and asserted exactly.
 */
#include "support.h"

#include "trace/steps.h"
#include "tracediff/tracediff.h"
#include "store/store.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PYTHON "/usr/bin/python3"
#define SCRIPT PG_TEST_SOURCE_DIR "/tests/tracediff/torch_steps.py"

static char *torch_dir;

/* Makes the four variants for a test (12 rounds of 3 steps: a few seconds, most of it importing torch). */
static void make_traces(void)
{
    char *cmd, buf[4096];
    FILE *f;
    size_t n;
    int rc;

    torch_dir = pg_test_tmpdir();
    cmd = pg__asprintf("PG_TORCH_ROUNDS=12 PG_TORCH_STEPS=3 %s %s %s 2>&1", PYTHON, SCRIPT, torch_dir);
    f = popen(cmd, "r");
    n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    rc = f ? pclose(f) : -1;
    buf[n] = '\0';
    cr_assert_eq(rc, 0, "%s failed (python3-torch is a test dependency, ci/packages-test.txt): %s", cmd, buf);
    free(cmd);
}

static void drop_traces(void)
{
    pg_test_rmtree(torch_dir);
    free(torch_dir);
}

/*
 * Whether the machine was calm enough while the traces were made for timing
 * verdicts to mean anything: a load average under 1.5 per core. Past that the
 * scheduler preempts a process that just ran a long op sooner (it spent its
 * share), so even the ops after the wider matmul, paired round by round, come
 * out slower: a real effect of the load, not of the change. The exact parts
 * (appearances, paths, counts) are asserted at any load.
 */
static int calm_machine(void)
{
    double load = 99;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    FILE *f = fopen("/proc/loadavg", "r");

    if (f && fscanf(f, "%lf", &load) != 1)
        load = 99;
    if (f)
        fclose(f);
    if (load / (double)(cores > 0 ? cores : 1) >= 1.5) {
        fprintf(stderr, "load average %.1f on %ld cores: timing verdicts on real traces not asserted\n", load, cores);
        return 0;
    }
    return 1;
}

static pg_trace_steps *steps_of(const char *variant)
{
    pg_trace_steps *s = NULL;
    char *path = pg__asprintf("%s/%s", torch_dir, variant);

    pg_assert_ok(pg_trace_steps_load(&s, path, NULL));
    free(path);
    return s;
}

static pg_trace_diff *diff(const pg_trace_steps *base, const pg_trace_steps *head, int paired)
{
    pg_trace_diff_options o = PG_TRACE_DIFF_OPTIONS_INIT;
    pg_trace_diff *d = NULL;

    o.paired = paired;
    pg_assert_ok(pg_trace_diff_new(&d, base, head, &o));
    return d;
}

static const pg_trace_op_diff *op(const pg_trace_diff *d, const char *name)
{
    size_t i;

    for (i = 0; i < d->nops; i++)
        if (strcmp(d->ops[i].name, name) == 0)
            return &d->ops[i];
    cr_assert_fail("no op %s in the diff", name);
    return NULL;
}

/*
 * A timing verdict a loaded machine may leave undecided, with its reason, but
 * never reverse. (Under a load average near 20 on 2 cores even the raw
 * medians of a 2x op can invert, so they are not asserted.)
 */
static void assert_slower_or_undecided(const pg_trace_op_diff *o)
{
    cr_assert(o->verdict == PG_VERDICT_REGRESSED || o->verdict == PG_VERDICT_UNSURE, "%s: %s (%s)", o->name,
              pg_verdict_name(o->verdict), o->reason ? o->reason : "");
    if (o->verdict == PG_VERDICT_UNSURE)
        cr_assert(o->reason && *o->reason, "UNSURE says why");
    else
        cr_assert(o->ci_lo > 1.05, "%s REGRESSED with its interval above the threshold: %g", o->name, o->ci_lo);
}

/* Whether `name` is among the first `k` ops of the diff, which lists them by the change of their median self time. */
static int top_mover(const pg_trace_diff *d, const char *name, size_t k)
{
    size_t i;

    for (i = 0; i < d->nops && i < k; i++)
        if (strcmp(d->ops[i].name, name) == 0)
            return 1;
    return 0;
}

static void assert_no_timing_change(const pg_trace_diff *d, const char *const *allowed)
{
    size_t i, j;

    for (i = 0; i < d->nops; i++) {
        const pg_trace_op_diff *o = &d->ops[i];
        int ok = 0;
        if (o->change != PG_OP_KEPT || o->verdict == PG_VERDICT_SAME || o->verdict == PG_VERDICT_UNSURE)
            continue;
        for (j = 0; allowed && allowed[j]; j++)
            ok = ok || (strcmp(allowed[j], o->name) == 0 && o->verdict == PG_VERDICT_REGRESSED);
        cr_assert(ok, "%s is %s (%+.1f%%) but does the same work on both sides", o->name,
                  pg_verdict_name(o->verdict), 100 * (o->ratio - 1));
    }
}

/* The same through the command line: the report line, the JSON, and the per-step table. */
static void cli_prints_the_new_op_and_json(void)
{
    pg_proc p;
    char *base = pg__asprintf("%s/base", torch_dir), *mask = pg__asprintf("%s/mask", torch_dir);
    const char *argv[] = {"trace", "diff", "--paired", base, mask, NULL};
    const char *json[] = {"trace", "diff", "--paired", "-f", "json", base, mask, NULL};
    const char *steps[] = {"trace", "--steps", "-n", "5", mask, NULL};

    pg_trace_steps *bs = steps_of("base"), *ms = steps_of("mask");
    pg_trace_diff *d = diff(bs, ms, 1);
    /* The same files decide the same: exit 1 exactly when the library's paired diff regressed. */
    int want = pg_trace_diff_regressed(d) ? 1 : 0;

    pg_trace_diff_free(d);
    pg_trace_steps_free(bs);
    pg_trace_steps_free(ms);
    pg_assert_ok(pg_test_run(&p, NULL, NULL, argv));
    cr_assert_eq(p.status, want, "exit %d: %s", p.status, p.err);
    cr_assert(strstr(p.out, "APPEARED    aten::nonzero (1 per step): train_step > aten::index > aten::nonzero\n") !=
                  NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_assert_ok(pg_test_run(&p, NULL, NULL, json));
    cr_assert(strstr(p.out, "\"name\":\"aten::nonzero\",\"path\":\"train_step > aten::index > aten::nonzero\","
                            "\"kind\":\"cpu\",\"change\":\"appeared\",\"base_count\":0,\"head_count\":1") != NULL,
              "%s", p.out);
    pg_proc_free(&p);
    pg_assert_ok(pg_test_run(&p, NULL, NULL, steps));
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "36 steps from 12 files") != NULL, "%s", p.out);
    pg_proc_free(&p);
    free(base);
    free(mask);
}

Test(tracediff_torch, mask_wide_and_unchanged_variants, .init = make_traces, .fini = drop_traces, .timeout = 300)
{
    pg_trace_steps *base = steps_of("base"), *mask = steps_of("mask"), *wide = steps_of("wide"),
                   *same = steps_of("same");
    pg_trace_diff *d;
    const pg_trace_op_diff *o;

    size_t i;
    int calm = calm_machine();

    cr_assert_eq(base->sources, 12);
    cr_assert_eq(base->nsteps, 36);

    /* (a) x[x[:, 0] > 0] inside the step: aten::index holding aten::nonzero appears, with its path. */
    d = diff(base, mask, 1);
    o = op(d, "aten::nonzero");
    cr_assert_eq(o->change, PG_OP_APPEARED);
    cr_assert_str_eq(o->path, "train_step > aten::index > aten::nonzero");
    cr_assert(o->head_exact && o->head_count == 1, "exactly one per step: %g", o->head_count);
    cr_assert_eq(op(d, "aten::index")->change, PG_OP_APPEARED);
    cr_assert_str_eq(op(d, "aten::index")->path, "train_step > aten::index");
    cr_assert_eq(op(d, "aten::gt")->change, PG_OP_APPEARED);
    cr_assert_eq(d->disappeared, 0);
    cr_assert_eq(op(d, "aten::addmm")->base_count, op(d, "aten::addmm")->head_count);
    pg_trace_diff_free(d);

    /*
     * (b) the first Linear twice as wide: its addmm and weight-gradient mm do
     * twice the work and are among the top 3 movers (ops are listed by the
     * change of their median self time per step; train_step's own time can
     * move as much). Ops around them do the same work,
     * but after a matmul that streamed twice the weights through the cache;
     * on a calm machine some are measurably slower (aten::clamp_min reading
     * the addmm's output +20-29%, train_step's own time +16%, paired), a real
     * effect of the change, so they may be REGRESSED; none may be IMPROVED.
     */
    d = diff(base, wide, 1);
    cr_assert_eq(d->appeared + d->disappeared + d->count_changed, 0, "the same ops, the same counts");
    if (calm) {
        assert_slower_or_undecided(op(d, "aten::addmm"));
        assert_slower_or_undecided(op(d, "aten::mm"));
        cr_assert(top_mover(d, "aten::addmm", 3) && top_mover(d, "aten::mm", 3),
                  "addmm and mm among the top 3 movers: %s, %s, %s", d->nops > 0 ? d->ops[0].name : "-",
                  d->nops > 1 ? d->ops[1].name : "-", d->nops > 2 ? d->ops[2].name : "-");
        for (i = 0; i < d->nops; i++)
            cr_assert_neq(d->ops[i].verdict, PG_VERDICT_IMPROVED, "%s IMPROVED", d->ops[i].name);
        cr_assert_neq(d->step.verdict, PG_VERDICT_IMPROVED);
    }
    pg_trace_diff_free(d);

    /* (c) the same step again: nothing but SAME or UNSURE, no op or count changed. */
    d = diff(base, same, 1);
    cr_assert_eq(d->appeared + d->disappeared + d->count_changed, 0);
    if (calm) {
        assert_no_timing_change(d, NULL);
        cr_assert(d->step.verdict == PG_VERDICT_SAME || d->step.verdict == PG_VERDICT_UNSURE, "%s",
                  pg_verdict_name(d->step.verdict));
        for (i = 0; i < d->nops; i++)
            cr_assert(d->ops[i].verdict == PG_VERDICT_SAME || d->ops[i].verdict == PG_VERDICT_UNSURE);
    }
    pg_trace_diff_free(d);

    /* The unpaired comparison of (c) may be undecided but never claims a change either. */
    d = diff(base, same, 0);
    if (calm)
        assert_no_timing_change(d, NULL);
    pg_trace_diff_free(d);

    pg_trace_steps_free(base);
    pg_trace_steps_free(mask);
    pg_trace_steps_free(wide);
    pg_trace_steps_free(same);
    cli_prints_the_new_op_and_json();
}

/* ---- the statistics on synthetic traces with known times ------------------ */

/* Writes ROUNDS files of STEPS steps: step{op_a, op_b, op_c} with a deterministic jitter of a few percent. */
static char *synthetic(const char *root, const char *name, double a_us, int with_extra)
{
    char *dir = pg__asprintf("%s/%s", root, name);
    int r, k;
    unsigned x = 12345;

    mkdir(dir, 0755);
    for (r = 0; r < 12; r++) {
        pg_buf b = PG_BUF_INIT;
        char *file;
        double ts = 1000;
        pg__buf_puts(&b, "[");
        for (k = 0; k < 5; k++) {
            double j[3], ta, tb, tc;
            int q;
            for (q = 0; q < 3; q++) {
                x = x * 1103515245u + 12345u;
                j[q] = 1.0 + 0.04 * ((double)((x >> 16) % 1000) / 1000.0 - 0.5);
            }
            ta = a_us * j[0];
            tb = 300 * j[1];
            tc = 150 * j[2];
            pg__buf_printf(&b, "%s{\"name\":\"ProfilerStep#%d\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":1}",
                           k ? "," : "", k, ts, ta + tb + tc + 20 + (with_extra ? 40 : 0));
            pg__buf_printf(&b, ",{\"name\":\"op_a\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":1}",
                           ts + 5, ta);
            pg__buf_printf(&b, ",{\"name\":\"op_b\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":1}",
                           ts + 10 + ta, tb);
            pg__buf_printf(&b, ",{\"name\":\"op_c\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":1}",
                           ts + 15 + ta + tb, tc);
            if (with_extra)
                pg__buf_printf(&b, ",{\"name\":\"op_new\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":30,\"pid\":1,\"tid\":1}",
                               ts + 16 + ta + tb + tc);
            ts += ta + tb + tc + 100;
        }
        pg__buf_puts(&b, "]");
        file = pg__asprintf("r%02d.json", r);
        free(pg_test_write(dir, file, b.ptr));
        free(file);
        pg__buf_clear(&b);
    }
    return dir;
}

static void same_or_undecided(const pg_trace_op_diff *o, int paired)
{
    if (paired)
        cr_assert_eq(o->verdict, PG_VERDICT_SAME, "%s paired: %s (%s)", o->name, pg_verdict_name(o->verdict),
                     o->reason ? o->reason : "");
    else
        cr_assert(o->verdict == PG_VERDICT_SAME ||
                      (o->verdict == PG_VERDICT_UNSURE && o->reason && strstr(o->reason, "run-to-run drift")),
                  "%s unpaired: %s (%s)", o->name, pg_verdict_name(o->verdict), o->reason ? o->reason : "");
}

Test(tracediff_stats, known_changes_decide_and_aa_stays_same)
{
    char *root = pg_test_tmpdir();
    char *b = synthetic(root, "base", 200, 0), *h = synthetic(root, "slow", 400, 1), *a = synthetic(root, "aa", 200, 0);
    pg_trace_steps *sb = NULL, *sh = NULL, *sa = NULL;
    pg_trace_diff *d;
    int paired;

    pg_assert_ok(pg_trace_steps_load(&sb, b, NULL));
    pg_assert_ok(pg_trace_steps_load(&sh, h, NULL));
    pg_assert_ok(pg_trace_steps_load(&sa, a, NULL));
    for (paired = 0; paired <= 1; paired++) {
        d = diff(sb, sh, paired);
        cr_assert_eq(op(d, "op_a")->verdict, PG_VERDICT_REGRESSED, "paired %d: %s", paired,
                     op(d, "op_a")->reason ? op(d, "op_a")->reason : "");
        cr_assert(op(d, "op_a")->ratio > 1.9 && op(d, "op_a")->ratio < 2.1, "%g", op(d, "op_a")->ratio);
        /* Unchanged ops: SAME when paired; unpaired, one baseline run leaves the drift unmeasured (UNSURE). */
        same_or_undecided(op(d, "op_b"), paired);
        same_or_undecided(op(d, "op_c"), paired);
        cr_assert_eq(op(d, "op_new")->change, PG_OP_APPEARED);
        cr_assert_eq(d->step.verdict, PG_VERDICT_REGRESSED);
        cr_assert(pg_trace_diff_regressed(d));
        /* The movers: the appeared op first, then op_a (the largest change of median self time). */
        cr_assert_str_eq(d->ops[0].name, "op_new");
        cr_assert_str_eq(d->ops[1].name, "op_a");
        pg_trace_diff_free(d);
        d = diff(sb, sa, paired);
        same_or_undecided(op(d, "op_a"), paired);
        same_or_undecided(op(d, "op_b"), paired);
        cr_assert_eq(d->counts[PG_VERDICT_REGRESSED] + d->counts[PG_VERDICT_IMPROVED], 0);
        cr_assert(!pg_trace_diff_regressed(d));
        pg_trace_diff_free(d);
    }
    pg_trace_steps_free(sb);
    pg_trace_steps_free(sh);
    pg_trace_steps_free(sa);
    pg_test_rmtree(root);
    free(root);
    free(b);
    free(h);
    free(a);
}

/* ---- a gate whose timed source is a command writing torch traces ---------- */

Test(tracediff_gate, per_step_samples_stored_and_per_op_history, .timeout = 300)
{
    char *dir = pg_test_tmpdir(), *db = pg__asprintf("%s/g.db", dir), *yaml, *suite;

    const char *env[] = {"PG_TORCH_ROUNDS=2", "PG_TORCH_STEPS=3", NULL};
    const char *hist[] = {"history", "--db", db, "torch_train/train/self:aten::mm*", NULL};
    const char *hist_json[] = {"history", "--db", db, "--format", "json", "torch_train/*", NULL};
    pg_store *store = NULL;
    pg_run *run = NULL;
    pg_proc p;
    const pg_result *step, *mm;
    int i;

    /* The first commit runs the base step, the second adds x[mask] to it (the variant the script is given). */
    for (i = 1; i <= 2; i++) {
        char commit[8], *sub = pg__asprintf("%s/v%d", dir, i), *md = pg__asprintf("%s/report%d.md", dir, i);
        const char *variant = i == 1 ? "base" : "mask";
        const char *gate[] = {"gate", "--db", db, "--commit", commit, "--branch", "main", "--md", md, NULL, NULL};
        mkdir(sub, 0755);
        yaml = pg__asprintf("suite: torch_train\n"
                            "benchmarks:\n"
                            "  - name: train\n"
                            "    command: [%s, %s, \"{trace_dir}\", %s]\n"
                            "    timeout: 120s\n"
                            "    trace: {path: \"{trace_dir}/%s\", ops: [\"aten::addmm\", \"aten::mm\", train_step]}\n",
                            PYTHON, SCRIPT, variant, variant);
        suite = pg_test_write(sub, "train.yaml", yaml);
        gate[9] = suite;
        snprintf(commit, sizeof(commit), "c%d", i);
        /* The first gate has no baseline (4); the second compares, and its exit is what its verdicts owe. */
        if (i == 1) {
            pg_assert_ok(pg_test_run(&p, dir, env, gate));
            cr_assert_eq(p.status, 4, "gate 1 exit %d: %s%s", p.status, p.out, p.err);
        } else {
            pg_test_run_judged(&p, dir, env, gate);
        }
        cr_assert(strstr(p.out, "torch_train/train/self:aten::mm[]@1:cpu") != NULL, "%s", p.out);
        pg_proc_free(&p);
        if (i == 2) {
            char *text = NULL;
            size_t n = 0;
            /* The report shows the new op with its path under the case. */
            pg_assert_ok(pg__read_file(&text, &n, md));
            cr_assert(strstr(text, "#### Trace: ops that appeared, disappeared or changed count per step") != NULL,
                      "%s", text);
            cr_assert(strstr(text, "| `torch_train/train[]@1:cpu` | `train_step > aten::index > aten::nonzero` | 0 | 1 "
                                   "| APPEARED |") != NULL,
                      "%s", text);
            free(text);
        }
        free(sub);
        free(md);
        free(yaml);
        free(suite);
    }
    /* Each step is one sample: 2 rounds of 3 steps. */
    pg_assert_ok(pg_store_open(&store, db));
    pg_assert_ok(pg_store_load_run(&run, store, 2));
    step = pg_run_find(run, "torch_train/train[]@1:cpu");
    mm = pg_run_find(run, "torch_train/train/self:aten::mm[]@1:cpu");
    cr_assert(step && mm && pg_run_find(run, "torch_train/train/self:aten::addmm[]@1:cpu") &&
              pg_run_find(run, "torch_train/train/self:train_step[]@1:cpu"));
    cr_assert_eq(step->nsamples, 6);
    cr_assert_eq(mm->nsamples, 6);
    cr_assert_str_eq(step->metric, "step_time");
    cr_assert_str_eq(mm->metric, "self_time");
    for (i = 0; i < 6; i++)
        cr_assert(mm->samples[i] > 0 && mm->samples[i] < step->samples[i], "an op's self time lies inside its step");
    pg_run_free(run);
    pg_store_close(store);
    /* The per-op series over the two commits. */
    pg_assert_ok(pg_test_run(&p, dir, NULL, hist));
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "torch_train/train/self:aten::mm[]@1:cpu  (2 commits)") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "c1") && strstr(p.out, "c2"), "%s", p.out);
    pg_proc_free(&p);
    pg_assert_ok(pg_test_run(&p, dir, NULL, hist_json));
    cr_assert(strstr(p.out, "torch_train/train/self:aten::addmm[]@1:cpu") != NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(dir);
    free(db);
}

/* ---- stored traces as a source, and what is an error -------------------- */

Test(tracediff_source, stored_trace_steps_and_errors_of_the_case)
{
    char *dir = pg_test_tmpdir(), *lab = pg_test_data("traces/lab_step_sched.json"), *fence = pg_test_data("traces/fence3_mask.json");
    char *yaml = pg__asprintf("suite: stored\n"
                              "benchmarks:\n"
                              "  - name: lab\n"
                              "    trace: {path: %s, ops: [\"aten::*mm\"]}\n"
                              "  - name: nostep\n"
                              "    trace: %s\n"
                              "  - name: failing\n"
                              "    command: [/bin/false]\n"
                              "    trace: \"{trace_dir}\"\n",
                              lab, fence);
    char *suite = pg_test_write(dir, "stored.yaml", yaml);
    const char *argv[] = {"run", "--no-store", "--json", "-", suite, NULL};
    pg_proc p;

    pg_assert_ok(pg_test_run(&p, dir, NULL, argv));
    /* The lab trace has 3 steps; its 4 addmm and 8 mm per step are two series. */
    cr_assert(strstr(p.out, "\"key\": \"stored/lab[]@1:cpu\"") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\"key\": \"stored/lab/self:aten::addmm[]@1:cpu\"") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\"key\": \"stored/lab/self:aten::mm[]@1:cpu\"") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "no step: no range matches 'ProfilerStep#*' (top-level events: 'aten::zeros', 'my_block', "
                            "'masked_select')") != NULL,
              "a trace without steps is an ERROR of its case: %s", p.out);
    cr_assert(strstr(p.out, "command '/bin/false' exited with status 1") != NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(dir);
    free(lab);
    free(fence);
    free(yaml);
    free(suite);
}

Test(tracediff_cli, bad_input_exits_2_with_one_line)
{
    char *lab = pg_test_data("traces/lab_step_sched.json"), *broken = pg_test_data("traces/broken.yaml");
    const char *missing[] = {"trace", "diff", lab, "/nonexistent.json", NULL};
    const char *paired[] = {"trace", "diff", "--paired", lab, lab, NULL};
    const char *notrace[] = {"trace", "diff", lab, broken, NULL};
    const char *fmt[] = {"trace", "--steps", "-f", "xml", lab, NULL};
    const char *undecided[] = {"trace", "diff", lab, lab, NULL};
    pg_proc p;

    pg_assert_ok(pg_test_run(&p, NULL, NULL, missing));
    cr_assert_eq(p.status, 2, "%s", p.err);
    cr_assert(strstr(p.err, "/nonexistent.json: cannot open trace") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_assert_ok(pg_test_run(&p, NULL, NULL, paired));
    cr_assert_eq(p.status, 2, "%s", p.err);
    cr_assert(strstr(p.err, "paired rounds need the same number of trace files on each side, 2 or more") != NULL,
              "%s", p.err);
    pg_proc_free(&p);
    pg_assert_ok(pg_test_run(&p, NULL, NULL, notrace));
    cr_assert_eq(p.status, 2, "%s", p.err);
    cr_assert(strstr(p.err, "broken.yaml") != NULL && strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "%s",
              p.err);
    pg_proc_free(&p);
    pg_assert_ok(pg_test_run(&p, NULL, NULL, fmt));
    cr_assert_eq(p.status, 2, "%s", p.err);
    pg_proc_free(&p);
    /* 3 steps a side: every time UNSURE, nothing appeared: nothing decided is exit 4, never a pass. */
    pg_assert_ok(pg_test_run(&p, NULL, NULL, undecided));
    cr_assert_eq(p.status, 4, "%s%s", p.out, p.err);
    cr_assert(strstr(p.err, "nothing decided: the step time and every op are UNSURE") != NULL, "%s", p.err);
    pg_proc_free(&p);
    free(lab);
    free(broken);
}

/* GPU figures as series: the hand-checked fixture of tests/trace/steps_test.c, one sample per step. */
Test(tracediff_source, gpu_metrics_are_series_per_step)
{
    char *dir = pg_test_tmpdir(), *fixture = pg_test_data("traces/kineto_steps_gpu.json");
    char *yaml = pg__asprintf("suite: gpu\nbenchmarks:\n  - name: fixture\n"
                              "    trace: {path: %s, metrics: [gpu_idle, host_wait, kernel_wait]}\n",
                              fixture);
    char *suite = pg_test_write(dir, "gpu.yaml", yaml);
    const char *argv[] = {"run", "--no-store", "--json", "-", suite, NULL};
    json_t *doc, *results, *r;
    json_error_t jerr;
    pg_proc p;
    size_t i, found = 0;

    pg_assert_ok(pg_test_run(&p, dir, NULL, argv));
    cr_assert_eq(p.status, 0, "%s", p.err);
    doc = json_loads(p.out, 0, &jerr);
    cr_assert(doc, "%s", jerr.text);
    results = json_object_get(doc, "results");
    json_array_foreach(results, i, r) {
        const char *key = json_string_value(json_object_get(r, "key"));
        json_t *x = json_object_get(r, "samples");
        double a = json_number_value(json_array_get(x, 0)), b = json_number_value(json_array_get(x, 1));
        cr_assert_eq(json_array_size(x), 2, "%s: one sample per step", key);
        if (strcmp(key, "gpu/fixture/gpu_idle[]@1:cpu") == 0) {
            cr_assert(fabs(a - 225e-6) < 1e-12 && fabs(b - 4e-6) < 1e-12, "%g %g", a, b);
            found++;
        } else if (strcmp(key, "gpu/fixture/host_wait[]@1:cpu") == 0) {
            cr_assert(fabs(a - 181e-6) < 1e-12 && b == 0, "%g %g", a, b);
            found++;
        } else if (strcmp(key, "gpu/fixture/kernel_wait[]@1:cpu") == 0) {
            cr_assert(fabs(a - 4e-6) < 1e-12 && fabs(b - 4e-6) < 1e-12, "%g %g", a, b);
            found++;
        }
    }
    cr_assert_eq(found, 3, "%s", p.out);
    json_decref(doc);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(dir);
    free(fixture);
    free(yaml);
    free(suite);
}

/* ---- what changed behind a trace case's regression ------------------------ */

/*
 * An interleaved gate whose timed case is a command writing torch traces:
 * the base build runs the step, the head the step with a boolean-mask
 * selection of half a large tensor (torch_steps.py "gather": real work,
 * inside train_step). The step regresses, and the row says which op
 * appeared, from the ops per step both builds' traces recorded.
 */
Test(tracediff_gate, a_regressed_step_says_which_op_appeared, .timeout = 400)
{
    char *dir = pg_test_tmpdir(), *yaml, *suite, *js = pg__asprintf("%s/g.json", dir);
    const char *variants[] = {"base", "gather"};
    const char *env[] = {"PG_TORCH_ROUNDS=1", "PG_TORCH_STEPS=3", NULL};
    json_error_t je;
    json_t *r, *v, *d;
    const char *line;
    pg_proc p;
    size_t i;

    for (i = 0; i < 2; i++) {
        /* A build: a script that writes one profiled run of its variant, flat in the trace directory. */
        char *b = pg__asprintf("%s/%s", dir, variants[i]), *sh;
        cr_assert(mkdir(b, 0755) == 0);
        sh = pg__asprintf("%s \"%s\" \"$1\" %s && mv \"$1\"/%s/*.json \"$1\"/\n", PYTHON, SCRIPT, variants[i],
                          variants[i]);
        free(pg_test_write(b, "steps.sh", sh));
        free(sh);
        free(b);
    }
    yaml = pg__asprintf("suite: torch_train\n"
                        "benchmarks:\n"
                        "  - name: train\n"
                        "    command: [sh, \"{build}/steps.sh\", \"{trace_dir}\"]\n"
                        "    timeout: 120s\n"
                        "    trace: {path: \"{trace_dir}\"}\n");
    suite = pg_test_write(dir, "train.yaml", yaml);
    {
        char *base = pg__asprintf("%s/base", dir), *head = pg__asprintf("%s/gather", dir);
        const char *gate[] = {"gate", "--no-store", "--base-build", base, "--head-build", head, "--json", js, suite,
                              NULL};
        /* 16 MiB gathered per step on top of a small one: the step takes several times as long. */
        pg_test_run(&p, dir, env, gate);
        cr_assert_eq(p.status, 1, "the slower step did not regress: exit %d\n%s%s", p.status, p.out, p.err);
        cr_assert_eq(pg_test_report_exit(js), 1);
        cr_assert(strstr(p.out, "what changed: +1 `aten::index` per step under `train_step`") != NULL, "%s", p.out);
        pg_proc_free(&p);
        free(base);
        free(head);
    }
    r = json_load_file(js, 0, &je);
    cr_assert(r != NULL, "%s", je.text);
    v = json_array_get(json_object_get(r, "verdicts"), 0);
    d = json_object_get(v, "diagnosis");
    cr_assert(d != NULL, "no diagnosis");
    cr_assert_str_eq(json_string_value(json_object_get(d, "source")), "trace");
    line = json_string_value(json_object_get(d, "what_changed"));
    cr_assert(strncmp(line, "+1 `aten::index` per step under `train_step` (new, ", 51) == 0, "%s", line);
    json_decref(r);
    pg_test_rmtree(dir);
    free(dir);
    free(yaml);
    free(suite);
    free(js);
}
