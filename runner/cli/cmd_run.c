/* cmd_run.c - `perfgate run` and `perfgate gate`: flags in, pg_gate_run() (gate.h), verdict out. */
#include "cli/cli.h"

#include "gate/gate.h"
#include "perfgate/errors.h"
#include "cli/report_cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The flags that are not gate options themselves. */
typedef struct run_cli {
    const char *db, *clock, *instrument;
    int quick, no_store, no_confirm, no_roofline, fail_on_error;
    long rounds;
    double max_time;
    pg_cli_report_flags rep; /* --md/--json/--junit/--style, gate: --post/--webhook */
} run_cli;

static const char run_desc[] =
    "Loads the suites (files, or directories of *.yaml in name order), runs every\n"
    "exact check and measures every benchmark case at its fixed thread count, then\n"
    "stores the run with its raw samples and machine fingerprint in one transaction.\n"
    "The commit and branch come from the flags, else GITHUB_SHA/GITHUB_REF_NAME,\n"
    "else git.\n\n"
    "exit codes: 0 measured and stored; 1 an exact check failed; 2 usage or invalid\n"
    "input; 3 infrastructure error, or every measured case ended in ERROR (nothing\n"
    "was measured; with --fail-on-error, any case that ended in ERROR). A run\n"
    "compares nothing: 'perfgate gate' does.\n\n"
    "examples:\n"
    "  perfgate run suites/cpu.yaml\n"
    "  perfgate run --fail-on-error --branch main suites/   (record a baseline)\n"
    "  perfgate run --filter 'cpu/sgemm*' --db /tmp/pg.db suites/";

static const char gate_desc[] =
    "Runs the suites like 'perfgate run', stores the run, then compares it with its\n"
    "baseline, always from this machine: for a pull request the newest run of its\n"
    "base commit, else of the default branch; for a nightly (schedule or\n"
    "workflow_dispatch), a --branch given explicitly, or outside CI the previous 5\n"
    "runs of the same branch, pooled; for another CI event the default branch.\n\n"
    "exit codes: 0 pass (also when the only cases are NEW: 'N new cases, nothing to\n"
    "compare them with yet'); 1 a case REGRESSED or an exact check failed; 2 usage or\n"
    "invalid input; 3 infrastructure error, or ERROR: a case could not be measured\n"
    "on either build (it crashed, timed out or failed to run; never a pass); 4\n"
    "nothing compared: no baseline run on this machine (a first run, a cache miss,\n"
    "runs only from another machine or measured otherwise) or no case decided (every\n"
    "case UNSURE or SKIPPED). 1, 2 and 3 win over 4. The reason names what was\n"
    "searched, the runs that exist, and the fix. With a database the decision is\n"
    "stored with the run: 'perfgate report' shows it as printed here.\n\n"
    "With --base-build and --head-build the gate measures both builds itself, in\n"
    "interleaved rounds (as 'perfgate ab': plugin cases in lockstep, commands back to\n"
    "back, both sides on the same CPUs), decides each case on the paired rounds,\n"
    "and stores the head's rounds as the run (mode interleaved-head) beside the base\n"
    "build's (interleaved-base), with the decision naming the base build by path,\n"
    "commit and sha256; plain gates never pool these runs. No stored baseline is\n"
    "needed, and a machine phase hits both sides alike. A case the base build does\n"
    "not have yet (no plugin file, benchmark or program) is NEW. Each round measures\n"
    "each side in a fresh\n"
    "process (PERFGATE_WORKER_ROUNDS=K: one worker process per build kept for K\n"
    "rounds, cheaper but measured to find fewer changes: docs/statistics.md;\n"
    "PERFGATE_ROUND_TIME=SEC: the sampling per side per round).\n\n"
    "examples:\n"
    "  perfgate gate suites/cpu.yaml\n"
    "  perfgate gate --base last:5:main suites/\n"
    "  perfgate gate --base-build ../base/build --head-build build suites/plugin.yaml";

/* Rejects flag combinations before anything is measured. @return 0 or 2 (printed). */
static int check_flags(const run_cli *cl, const pg_gate_options *go, int interleaved)
{
    const char *bad = NULL;

    if (interleaved && (!go->base_build || !go->head_build))
        bad = "perfgate gate: --base-build and --head-build go together; see 'perfgate gate --help'";
    else if (interleaved && go->base)
        bad = "perfgate gate: --base selects a stored baseline; with --base-build the base build is measured "
              "instead (give one or the other)";
    else if (cl->rounds < 0 || cl->rounds > 10000 || (cl->rounds && !interleaved))
        bad = "perfgate gate: --rounds is between 1 and 10000, with --base-build/--head-build";
    else if (cl->max_time < 0 || ((cl->max_time > 0 || go->fixed_rounds) && !interleaved))
        bad = "perfgate gate: --max-time (positive seconds) and --fixed-rounds go with --base-build/--head-build";
    else if (go->exec.peak_gflops < 0 || go->exec.precision < 0 || go->exec.precision >= 1)
        bad = "perfgate: --peak-gflops must be positive and --precision a fraction below 100%";
    if (bad) {
        fprintf(stderr, "%s\n", bad);
        return 2;
    }
    if (cl->instrument && pg_cli_instruments(NULL, cl->instrument) != 0)
        return 2;
    if (cl->clock && strcmp(cl->clock, "cpu") != 0 && strcmp(cl->clock, "wall") != 0) {
        fprintf(stderr, "perfgate: --clock must be 'wall' or 'cpu', not '%s'\n", cl->clock);
        return 2;
    }
    return 0;
}

static int do_run(const run_cli *cl, pg_gate_options *go, char **paths, int npaths)
{
    int interleaved = go->compare && (go->base_build || go->head_build);
    pg_cli_outputs outs;
    pg_cli_gate_view view;
    pg_suite_set set = {0};
    pg_store *store = NULL, *roofs_from = NULL;
    pg_gate_result res = {0};
    int err, rc;

    if ((rc = check_flags(cl, go, interleaved)) != 0)
        return rc;
    if ((rc = pg_cli_outputs_init(&outs, &cl->rep, 1)) != 0) {
        pg_cli_outputs_clear(&outs);
        return rc;
    }
    if ((err = pg_cli_load_suites(&set, paths, npaths)) != 0) {
        pg_cli_outputs_clear(&outs);
        return pg_error_exit_code(err);
    }
    /* Open the store before measuring, so a bad path fails in a second, not after minutes. */
    if (!cl->no_store && (err = pg_store_open(&store, pg_store_path(cl->db))) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    view = (pg_cli_gate_view){&outs, outs.quiet ? NULL : outs.human, store ? pg_store_name(store) : pg_store_path(cl->db),
                              &cl->rep};
    if (interleaved && go->exec.canary && view.human)
        fprintf(view.human, "note: --canary is for comparisons with stored runs; interleaved rounds cancel machine "
                            "drift themselves\n");
    go->store = store;
    go->exec.roofline = !cl->no_roofline && !(getenv("PERFGATE_ROOFLINE") && strcmp(getenv("PERFGATE_ROOFLINE"), "off") == 0);
    /* --no-store stores nothing, but a plain run reads the machine's roofs from a database that already exists
       (interleaved rounds measure no roofs). */
    if (cl->no_store && go->exec.roofline && !interleaved)
        go->roofs_from = roofs_from = pg_cli_open_existing(pg_store_path(cl->db));
    go->rounds = (int)cl->rounds;
    go->max_time = cl->max_time;
    go->exec.progress = outs.quiet ? PG_PROGRESS_NONE : pg_progress_mode_for(stderr);
    go->exec.progress_out = stderr;
    go->exec.time_scale = cl->quick ? 0.2 : 1.0;
    go->exec.cpu_clock = cl->clock && strcmp(cl->clock, "cpu") == 0;
    if (cl->instrument)
        pg_cli_instruments(&go->exec.instruments, cl->instrument);
    go->ab_progress = go->exec.progress ? stderr : NULL;
    go->origin = &outs.origin;
    go->notify = pg_cli_gate_step;
    go->payload = &view;
    rc = (err = pg_gate_run(&res, &set, go)) != 0 ? pg_cli_fail(err) : pg_cli_gate_finish(&view, &res);
    if (!err && cl->fail_on_error && !go->compare && res.cmp && res.cmp->counts[PG_VERDICT_ERROR] && !res.all_failed &&
        rc != 3) {
        fprintf(stderr, "perfgate run: %zu of %zu cases ended in ERROR (--fail-on-error); the run is stored, and the "
                        "cases' reasons are above\n",
                res.cmp->counts[PG_VERDICT_ERROR], res.run->nresults);
        rc = 3;
    }

cleanup:
    pg_gate_result_clear(&res);
    pg_store_close(store);
    pg_store_close(roofs_from);
    pg_suite_set_clear(&set);
    pg_cli_outputs_clear(&outs);
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
    run_cli cl = {0};
    pg_gate_options options = PG_GATE_OPTIONS_INIT, *go = &options;
    int nargs, rc, nopts = 0;
    pg_opt opts[48];
    const pg_opt run_group[] = {
        {"db", 0, PG_OPT_STR, &cl.db, "PATH",
         "database file or postgresql:// URL (default $PERFGATE_DB, else baselines/perfgate.db)"},
        {"commit", 0, PG_OPT_STR, &go->meta.commit, "SHA", "commit to record (default GITHUB_SHA, else git)"},
        {"branch", 0, PG_OPT_STR, &go->meta.branch, "NAME", "branch to record (default GITHUB_REF_NAME, else git)"},
        {"filter", 'f', PG_OPT_STR, &go->exec.filter, "GLOB", "only cases and checks whose key matches GLOB"},
        {"quick", 0, PG_OPT_FLAG, &cl.quick, NULL, "sample for a fifth of each case's min_run_time (smoke runs)"},
        {"no-store", 0, PG_OPT_FLAG, &cl.no_store, NULL, "measure and print without storing the run"},
        {"trace-dir", 0, PG_OPT_STR, &go->exec.trace_dir, "DIR", "export the exact checks' recordings as Chrome traces"},
        {"peak-tflops", 0, PG_OPT_DOUBLE, &go->exec.peak_tflops, "T",
         "GPU MFU against T TFLOP/s instead of a measured GEMM ceiling"},
        {"peak-gflops", 0, PG_OPT_DOUBLE, &go->exec.peak_gflops, "GF",
         "CPU MFU against this peak (default: a 1024^3 sgemm measured at each thread count)"},
        {"precision", 0, PG_OPT_DOUBLE, &go->exec.precision, "PCT",
         "keep sampling (up to max_run_time) until the median's 95% CI is within +-PCT"},
        {"clock", 0, PG_OPT_STR, &cl.clock, "wall|cpu",
         "CPU cases: wall time (default) or process CPU time, which leaves out preemption"},
        {"canary", 0, PG_OPT_FLAG, &go->exec.canary, NULL,
         "measure reference workloads between the cases (suite 'canary') to detect machine drift"},
        {"instrument", 0, PG_OPT_STR, &cl.instrument, "LIST",
         "measure with time, instructions (Valgrind) and/or memory, comma-separated; overrides the suites'"},
        {"no-roofline", 0, PG_OPT_FLAG, &cl.no_roofline, NULL,
         "skip measuring peak FLOP/s and memory bandwidth, which label cases compute-/memory-/overhead-bound "
         "(also PERFGATE_ROOFLINE=off)"},
    };
    const pg_opt run_only[] = {
        {"fail-on-error", 0, PG_OPT_FLAG, &cl.fail_on_error, NULL,
         "exit 3 when any case ended in ERROR (the run is still stored), as a baseline recording should"},
    };
    const pg_opt gate_group[] = {
        {"base", 'b', PG_OPT_STR, &go->base, "SEL", "baseline selector (id, commit:SHA, branch:NAME, last:K, pin:NAME)"},
        {"threshold", 0, PG_OPT_DOUBLE, &go->threshold, "PCT", "minimum effect that can fail (e.g. 5%)"},
        {"alpha", 0, PG_OPT_DOUBLE, &go->alpha, "P", "family-wise significance level (e.g. 0.05)"},
        {"allow-other-machine", 0, PG_OPT_FLAG, &go->allow_other_machine, NULL, "compare with a baseline from another machine"},
        {"confirm", 0, PG_OPT_FLAG, &go->confirm, NULL,
         "re-measure REGRESSED/IMPROVED cases; a verdict stands only if the re-run agrees (the default)"},
        {"no-confirm", 0, PG_OPT_FLAG, &cl.no_confirm, NULL, "never re-measure: the first measurement decides"},
        {"confirm-budget", 0, PG_OPT_DOUBLE, &go->confirm_budget, "SEC", "seconds of re-measurement at most (default 300)"},
        {"base-build", 0, PG_OPT_STR, &go->base_build, "PATH",
         "measure this base build interleaved with --head-build (plugin library or {build} directory)"},
        {"head-build", 0, PG_OPT_STR, &go->head_build, "PATH", "the head build, the same way"},
        {"rounds", 'r', PG_OPT_INT, &cl.rounds, "R",
         "interleaved rounds at most with --base-build (default 20); a case stops once its verdict is settled"},
        {"max-time", 0, PG_OPT_DOUBLE, &cl.max_time, "SEC",
         "interleaved: seconds for all rounds, confirmation included; the time left goes to the cases still open"},
        {"fixed-rounds", 0, PG_OPT_FLAG, &go->fixed_rounds, NULL,
         "interleaved: every case all --rounds, decided at that count (no sequential stopping)"},
    };
    pg_cmd_spec spec = {gate ? "gate" : "run", "[options] SUITE|DIR...",
                        gate ? "Run suites, store the run, compare with the baseline and exit with the verdict."
                             : "Run suites, store the run with its raw samples, print the results.",
                        gate ? gate_desc : run_desc, opts, 1, -1};

    go->compare = gate;
    go->confirm_budget = -1;
    add_opts(opts, &nopts, 48, run_group, (int)(sizeof(run_group) / sizeof(run_group[0])));
    if (gate)
        add_opts(opts, &nopts, 48, gate_group, (int)(sizeof(gate_group) / sizeof(gate_group[0])));
    else
        add_opts(opts, &nopts, 48, run_only, (int)(sizeof(run_only) / sizeof(run_only[0])));
    /* The reporting options follow, on both commands; the list stays {0}-terminated. */
    pg_cli_report_opts(opts, &nopts, &cl.rep, gate);
    memset(&opts[nopts], 0, sizeof(pg_opt));
    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    /* A verdict against stored runs from one process is too often a fluke: confirm it unless told not to. */
    go->confirm = !cl.no_confirm;
    if (go->confirm_budget < 0)
        go->confirm_budget = 300;
    return do_run(&cl, go, argv + 1, nargs);
}

int pg_cmd_run(int argc, char **argv)
{
    return run_or_gate(argc, argv, 0);
}

int pg_cmd_gate(int argc, char **argv)
{
    return run_or_gate(argc, argv, 1);
}
