/* cmd_run.c - `perfgate run` and `perfgate gate`: measure, store, compare. */
#include "cli.h"

#include "gate/gate.h"
#include "perfgate/errors.h"
#include "report/report.h"
#include "report_cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct run_flags {
    const char *db, *commit, *branch, *filter, *base, *trace_dir, *clock;
    double threshold, alpha;
    int quick, no_store;
    double peak_tflops, peak_gflops, precision;
    int allow_other_machine;
    int canary;              /* --canary: reference workloads interleaved with the cases */
    int confirm, no_confirm; /* --confirm (default when CI=true) / --no-confirm */
    double confirm_budget;   /* --confirm-budget: seconds of re-measurement at most */
    pg_cli_report_flags rep; /* --md/--json/--junit/--style, gate: --post/--webhook */
    const char *base_build, *head_build; /* gate: interleaved rounds of two builds */
    long rounds;             /* their rounds; 0: PG_AB_DEFAULT_ROUNDS */
} run_flags;

static const char run_desc[] =
    "Loads the suites (files, or directories of *.yaml in name order), runs every\n"
    "exact check and measures every benchmark case at its fixed thread count, then\n"
    "stores the run with its raw samples and machine fingerprint in one transaction.\n"
    "The commit and branch come from the flags, else GITHUB_SHA/GITHUB_REF_NAME,\n"
    "else git.\n\n"
    "examples:\n"
    "  perfgate run suites/cpu.yaml\n"
    "  perfgate run --filter 'cpu/sgemm*' --db /tmp/pg.db suites/";

static const char gate_desc[] =
    "Runs the suites like 'perfgate run', stores the run, then compares it with its\n"
    "baseline (by default the newest earlier run on the same branch and machine)\n"
    "and exits 1 only on a REGRESSED case or a failed exact check. A first run with\n"
    "no baseline passes with a notice.\n\n"
    "With --base-build and --head-build the gate measures both builds itself, in\n"
    "interleaved rounds (as 'perfgate ab': plugin cases in lockstep, commands back to\n"
    "back, both sides on the same CPUs), decides each case on the paired rounds,\n"
    "and stores the head's rounds as the run. No stored baseline is needed, and a\n"
    "machine phase hits both sides alike.\n\n"
    "examples:\n"
    "  perfgate gate suites/cpu.yaml\n"
    "  perfgate gate --base last:5:main suites/\n"
    "  perfgate gate --base-build ../base/build --head-build build suites/plugin.yaml";


/* What the human reads while the gate works: the steps as they happen. */
typedef struct run_view {
    const run_flags *fl;
    pg_cli_outputs *outs;
    FILE *human;              /* NULL with --style none */
} run_view;

static void on_step(const pg_gate_result *r, pg_gate_step step, const char *text, void *payload)
{
    run_view *v = payload;

    switch (step) {
    case PG_GATE_NOTE:
        if (v->human)
            fprintf(v->human, "%s\n", text);
        break;
    case PG_GATE_MEASURED:
        if (v->human)
            pg_report_run_terminal(v->human, r->run, &v->outs->style);
        break;
    case PG_GATE_STORED:
        fprintf(v->outs->human, "\nstored run %lld (%s @ %.12s) in %s\n", (long long)r->run->id, r->run->branch,
                r->run->commit ? r->run->commit : "no commit", pg_store_path(v->fl->db));
        break;
    case PG_GATE_BASELINE:
        if (r->nbases == 0)
            fprintf(v->outs->human,
                    "\nno baseline yet for branch '%s' on this machine: this run becomes the baseline; pass\n",
                    r->run->branch);
        else
            fprintf(v->outs->human, "\nbaseline: %s\n\n", r->described ? r->described : "stored run");
        break;
    }
}

/* Rejects flag combinations before anything is measured. @return 0 or 2 (printed). */
static int check_flags(const run_flags *fl, int interleaved)
{
    if (interleaved && (!fl->base_build || !fl->head_build)) {
        fprintf(stderr, "perfgate gate: --base-build and --head-build go together; see 'perfgate gate --help'\n");
        return 2;
    }
    if (interleaved && fl->base) {
        fprintf(stderr, "perfgate gate: --base selects a stored baseline; with --base-build the base build is "
                        "measured instead (give one or the other)\n");
        return 2;
    }
    if (fl->rounds < 0 || fl->rounds > 10000 || (fl->rounds && !interleaved)) {
        fprintf(stderr, "perfgate gate: --rounds is between 1 and 10000, with --base-build/--head-build\n");
        return 2;
    }
    if (fl->peak_gflops < 0 || fl->precision < 0 || fl->precision >= 1) {
        fprintf(stderr, "perfgate: --peak-gflops must be positive and --precision a fraction below 100%%\n");
        return 2;
    }
    if (fl->clock && strcmp(fl->clock, "cpu") != 0 && strcmp(fl->clock, "wall") != 0) {
        fprintf(stderr, "perfgate: --clock must be 'wall' or 'cpu', not '%s'\n", fl->clock);
        return 2;
    }
    return 0;
}

static pg_gate_options gate_options(const run_flags *fl, int gate, pg_store *store)
{
    pg_gate_options go = PG_GATE_OPTIONS_INIT;

    go.exec.filter = fl->filter;
    go.exec.progress = isatty(fileno(stderr));
    go.exec.progress_out = stderr;
    go.exec.time_scale = fl->quick ? 0.2 : 1.0;
    go.exec.trace_dir = fl->trace_dir;
    go.exec.peak_tflops = fl->peak_tflops;
    go.exec.peak_gflops = fl->peak_gflops;
    go.exec.precision = fl->precision;
    go.exec.cpu_clock = fl->clock && strcmp(fl->clock, "cpu") == 0;
    go.exec.canary = fl->canary;
    go.meta.commit = fl->commit;
    go.meta.branch = fl->branch;
    go.store = store;
    go.compare = gate;
    go.base = fl->base;
    go.allow_other_machine = fl->allow_other_machine;
    go.threshold = fl->threshold;
    go.alpha = fl->alpha;
    go.confirm = fl->confirm;
    go.confirm_budget = fl->confirm_budget;
    go.base_build = fl->base_build;
    go.head_build = fl->head_build;
    go.rounds = (int)fl->rounds;
    go.ab_progress = isatty(fileno(stderr)) ? stderr : NULL;
    return go;
}

/*
 * After the gate: the comparison on the terminal, every reporter, then the
 * post if asked. Posting problems are printed and never change the exit
 * code: the verdict decides it, a GitHub outage does not.
 */
static int finish(pg_cli_outputs *outs, const run_flags *fl, const pg_gate_result *r, FILE *human)
{
    int rc = r->exit_code;

    if (human && r->interleaved) {
        fprintf(human, "\nbaseline: build %s, interleaved with the head over %d rounds (seed %llu)\n\n",
                fl->base_build, r->rounds, (unsigned long long)r->seed);
        pg_report_compare_terminal(human, r->cmp, &outs->style);
    } else if (human && r->nbases) {
        pg_report_compare_terminal(human, r->cmp, &outs->style);
    }
    if (pg_cli_outputs_emit(outs, r->run, r->cmp) != 0 && rc == 0)
        rc = 3;
    if (fl->rep.post || fl->rep.webhook) {
        pg_cli_post_flags pf = {0};
        pg_report_data d = {r->run, r->cmp, &outs->origin};
        pf.no_comment = pf.no_status = !fl->rep.post;
        pf.webhook = fl->rep.webhook;
        (void)pg_cli_post(&d, &pf);
    }
    return rc > r->check_error_code ? rc : r->check_error_code;
}

static int do_run(run_flags *fl, char **paths, int npaths, int gate)
{
    int interleaved = gate && (fl->base_build || fl->head_build);
    pg_cli_outputs outs;
    pg_suite_set set = {0};
    pg_store *store = NULL;
    pg_gate_result res;
    pg_gate_options go;
    run_view view;
    int err, rc;

    memset(&res, 0, sizeof(res));
    if ((rc = check_flags(fl, interleaved)) != 0)
        return rc;
    if ((rc = pg_cli_outputs_init(&outs, &fl->rep, 1)) != 0) {
        pg_cli_outputs_free(&outs);
        return rc;
    }
    view.fl = fl;
    view.outs = &outs;
    view.human = outs.quiet ? NULL : outs.human;
    if ((err = pg_cli_load_suites(&set, paths, npaths)) != 0) {
        pg_cli_outputs_free(&outs);
        return pg_error_exit_code(err);
    }
    /* Open the store before measuring, so a bad path fails in a second, not after minutes. */
    if (!fl->no_store && (err = pg_store_open(&store, pg_store_path(fl->db))) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if (interleaved && fl->canary && view.human)
        fprintf(view.human, "note: --canary is for comparisons with stored runs; interleaved rounds cancel machine "
                            "drift themselves\n");
    go = gate_options(fl, gate, store);
    go.notify = on_step;
    go.payload = &view;
    if ((err = pg_gate_run(&res, &set, &go)) != 0)
        rc = pg_cli_fail(err);
    else
        rc = finish(&outs, fl, &res, view.human);

cleanup:
    pg_gate_result_free(&res);
    pg_store_close(store);
    pg_suite_set_free(&set);
    pg_cli_outputs_free(&outs);
    return rc;
}

/* Appends `count` options of a group to the spec array (room is checked). */
static void add_opts(pg_opt *opts, int *n, int cap, const pg_opt *group, int count)
{
    int i;

    for (i = 0; i < count && *n < cap - 1; i++)
        opts[(*n)++] = group[i];
    memset(&opts[*n], 0, sizeof(pg_opt));
}

static int run_or_gate(int argc, char **argv, int gate)
{
    run_flags fl = {0};
    int nargs, rc, nopts = 0;
    pg_opt opts[48];
    const pg_opt run_group[] = {
        {"db", 0, PG_OPT_STR, &fl.db, "PATH", "database file (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"commit", 0, PG_OPT_STR, &fl.commit, "SHA", "commit to record (default GITHUB_SHA, else git)"},
        {"branch", 0, PG_OPT_STR, &fl.branch, "NAME", "branch to record (default GITHUB_REF_NAME, else git)"},
        {"filter", 'f', PG_OPT_STR, &fl.filter, "GLOB", "only cases and checks whose key matches GLOB"},
        {"quick", 0, PG_OPT_FLAG, &fl.quick, NULL, "sample for a fifth of each case's min_run_time (smoke runs)"},
        {"no-store", 0, PG_OPT_FLAG, &fl.no_store, NULL, "measure and print without storing the run"},
        {"trace-dir", 0, PG_OPT_STR, &fl.trace_dir, "DIR", "export the exact checks' recordings as Chrome traces"},
        {"peak-tflops", 0, PG_OPT_DOUBLE, &fl.peak_tflops, "T",
         "GPU MFU against T TFLOP/s instead of a measured GEMM ceiling"},
        {"peak-gflops", 0, PG_OPT_DOUBLE, &fl.peak_gflops, "GF",
         "CPU MFU against this peak (default: a 1024^3 sgemm measured at each thread count)"},
        {"precision", 0, PG_OPT_DOUBLE, &fl.precision, "PCT",
         "keep sampling (up to max_run_time) until the median's 95% CI is within +-PCT"},
        {"clock", 0, PG_OPT_STR, &fl.clock, "wall|cpu",
         "CPU cases: wall time (default) or process CPU time, which leaves out preemption"},
        {"canary", 0, PG_OPT_FLAG, &fl.canary, NULL,
         "measure reference workloads between the cases (suite 'canary') to detect machine drift"},
    };
    const pg_opt gate_group[] = {
        {"base", 'b', PG_OPT_STR, &fl.base, "SEL", "baseline selector (id, commit:SHA, branch:NAME, last:K, pin:NAME)"},
        {"threshold", 0, PG_OPT_DOUBLE, &fl.threshold, "PCT", "minimum effect that can fail (e.g. 5%)"},
        {"alpha", 0, PG_OPT_DOUBLE, &fl.alpha, "P", "family-wise significance level (e.g. 0.05)"},
        {"allow-other-machine", 0, PG_OPT_FLAG, &fl.allow_other_machine, NULL, "compare with a baseline from another machine"},
        {"confirm", 0, PG_OPT_FLAG, &fl.confirm, NULL,
         "re-measure REGRESSED cases and fail only if the re-run regresses too (default when CI=true)"},
        {"no-confirm", 0, PG_OPT_FLAG, &fl.no_confirm, NULL, "never re-measure (overrides CI=true)"},
        {"confirm-budget", 0, PG_OPT_DOUBLE, &fl.confirm_budget, "SEC", "seconds of re-measurement at most (default 300)"},
        {"base-build", 0, PG_OPT_STR, &fl.base_build, "PATH",
         "measure this base build interleaved with --head-build (plugin library or {build} directory)"},
        {"head-build", 0, PG_OPT_STR, &fl.head_build, "PATH", "the head build, the same way"},
        {"rounds", 'r', PG_OPT_INT, &fl.rounds, "R", "interleaved rounds with --base-build (default 20)"},
    };
    pg_cmd_spec spec = {gate ? "gate" : "run", "[options] SUITE|DIR...",
                        gate ? "Run suites, store the run, compare with the baseline and exit with the verdict."
                             : "Run suites, store the run with its raw samples, print the results.",
                        gate ? gate_desc : run_desc, opts, 1, -1};

    fl.threshold = -1;
    fl.alpha = -1;
    fl.confirm_budget = -1;
    add_opts(opts, &nopts, 48, run_group, (int)(sizeof(run_group) / sizeof(run_group[0])));
    if (gate)
        add_opts(opts, &nopts, 48, gate_group, (int)(sizeof(gate_group) / sizeof(gate_group[0])));
    /* The reporting options follow, on both commands; the list stays {0}-terminated. */
    pg_cli_report_opts(opts, &nopts, &fl.rep, gate);
    memset(&opts[nopts], 0, sizeof(pg_opt));
    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    {
        const char *ci = getenv("CI");
        fl.confirm = !fl.no_confirm && (fl.confirm || (ci && strcmp(ci, "true") == 0));
    }
    if (fl.confirm_budget < 0)
        fl.confirm_budget = 300;
    return do_run(&fl, argv + 1, nargs, gate);
}

int pg_cmd_run(int argc, char **argv)
{
    return run_or_gate(argc, argv, 0);
}

int pg_cmd_gate(int argc, char **argv)
{
    return run_or_gate(argc, argv, 1);
}
