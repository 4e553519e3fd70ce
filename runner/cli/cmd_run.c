/* cmd_run.c - `perfgate run` and `perfgate gate`: measure, store, compare. */
#include "cli.h"

#include "ab/ab.h"

#include "exec.h"
#include "meta.h"
#include "perfgate/errors.h"
#include "report/report.h"
#include "report_cli.h"
#include "select.h"
#include "store.h"
#include "suite.h"
#include "util.h"
#include "verdict.h"

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


/*
 * Reporting after the run (engineer "report"): every reporter gets the run
 * and its comparison (without a baseline every case is NEW), then the gate
 * posts if asked. Posting problems are printed and never change `rc`: the
 * verdict decides the exit code, a GitHub outage does not.
 */
static int finish_outputs(pg_cli_outputs *outs, const run_flags *fl, const pg_run *run, const pg_comparison *cmp,
                          int rc)
{
    pg_comparison *own = NULL;
    int err;

    if (!cmp) {
        if ((err = pg_compare(&own, run, NULL, 0, NULL)) != 0)
            return pg_cli_fail(err);
        cmp = own;
    }
    if (pg_cli_outputs_emit(outs, run, cmp) != 0 && rc == 0)
        rc = 3;
    if (fl->rep.post || fl->rep.webhook) {
        pg_cli_post_flags pf = {0};
        pg_report_data d = {run, cmp, &outs->origin};
        pf.no_comment = pf.no_status = !fl->rep.post;
        pf.webhook = fl->rep.webhook;
        (void)pg_cli_post(&d, &pf);
    }
    pg_comparison_free(own);
    return rc;
}

/* Finds the case with this key among the loaded suites; NULL when absent. */
static const pg_case *find_case(const pg_suite_set *set, const char *key)
{
    size_t i, j;

    for (i = 0; i < set->count; i++)
        for (j = 0; j < set->suites[i]->ncases; j++)
            if (strcmp(set->suites[i]->cases[j].key, key) == 0)
                return &set->suites[i]->cases[j];
    return NULL;
}

/*
 * gate --confirm: re-measures the REGRESSED cases (in the order of the
 * comparison, until the budget is spent) and lets pg_verdict_confirm() decide
 * again against the same baseline runs. The re-run is not stored: the stored
 * run stays the first measurement, and the reason shows both.
 */
static int confirm_regressions(pg_comparison *cmp, const pg_suite_set *set, const pg_run *const *bases, size_t nb,
                               const pg_exec_options *eo, const pg_compare_options *co, double budget, FILE *human)
{
    pg_run *rerun = NULL;
    int64_t t0 = pg__mono_ns();
    size_t i, n = 0;
    int err;

    if (cmp->counts[PG_VERDICT_REGRESSED] == 0)
        return 0;
    if ((err = pg_run_new(&rerun)) != 0)
        return err;
    for (i = 0; i < cmp->ncases; i++) {
        const pg_case *c;
        pg_result *r;
        if (cmp->cases[i].verdict != PG_VERDICT_REGRESSED || !(c = find_case(set, cmp->cases[i].key)))
            continue;
        if ((double)(pg__mono_ns() - t0) * 1e-9 >= budget)
            break;
        /* A fresh process on other CPUs: a re-run that shares the first one's placement would repeat it. */
        if ((err = pg_run_add_result(&r, rerun)) != 0 || (err = pg_exec_case_fresh(r, c, eo)) != 0)
            goto cleanup;
        n++;
    }
    if (human)
        fprintf(human, "confirming %zu regressed case%s: re-measured %zu in %.1fs (budget %.0fs)\n",
                cmp->counts[PG_VERDICT_REGRESSED], cmp->counts[PG_VERDICT_REGRESSED] == 1 ? "" : "s", n,
                (double)(pg__mono_ns() - t0) * 1e-9, budget);
    err = pg_verdict_confirm(cmp, rerun, bases, nb, co);

cleanup:
    pg_run_free(rerun);
    return err;
}

/* The interleaved gate's A/B options from the flags; `keys` narrows it to a confirmation. */
static pg_ab_options ab_options(const run_flags *fl, const char *const *keys, size_t nkeys)
{
    pg_ab_options ao = PG_AB_OPTIONS_INIT;

    ao.base = fl->base_build;
    ao.head = fl->head_build;
    ao.rounds = (int)fl->rounds;
    ao.filter = fl->filter;
    ao.keys = keys;
    ao.nkeys = nkeys;
    ao.threshold = fl->threshold;
    ao.alpha = fl->alpha;
    ao.progress = isatty(fileno(stderr)) ? stderr : NULL;
    return ao;
}

/*
 * gate --base-build/--head-build: the exact checks into `run` as usual, then
 * both builds in interleaved rounds; the head's rounds become the run's
 * results (swapped in, so the comparison's case pointers stay valid) and the
 * comparison is the paired one.
 */
static int measure_interleaved(pg_ab_result *ab, pg_run *run, const pg_suite_set *set, const run_flags *fl,
                               const pg_exec_options *eo, FILE *human)
{
    pg_exec_options checks = *eo;
    pg_ab_options ao = ab_options(fl, NULL, 0);
    pg_result *results;
    size_t n;
    int err;

    checks.checks_only = 1;
    checks.canary = 0;
    if ((err = pg_exec_run(run, set, &checks)) != 0)
        return err;
    if (human)
        fprintf(human, "interleaving base %s and head %s over %d rounds\n", fl->base_build, fl->head_build,
                fl->rounds > 0 ? (int)fl->rounds : PG_AB_DEFAULT_ROUNDS);
    if ((err = pg_ab_run(ab, set, &ao)) != 0)
        return err;
    results = run->results;
    n = run->nresults;
    run->results = ab->head->results;
    run->nresults = ab->head->nresults;
    ab->head->results = results;
    ab->head->nresults = n;
    pg_comparison_rebind_head(ab->cmp, run);
    return 0;
}

/* gate --confirm with both builds at hand: fresh interleaved rounds of the REGRESSED cases only. */
static int confirm_interleaved(pg_comparison *cmp, const pg_suite_set *set, const run_flags *fl, FILE *human)
{
    pg_ab_options ao;
    pg_ab_result again;
    const char **keys;
    int64_t t0 = pg__mono_ns();
    size_t i, n = 0;
    int err;

    if (cmp->counts[PG_VERDICT_REGRESSED] == 0)
        return 0;
    if (!(keys = calloc(cmp->ncases, sizeof(*keys))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < cmp->ncases; i++)
        if (cmp->cases[i].verdict == PG_VERDICT_REGRESSED)
            keys[n++] = cmp->cases[i].key;
    ao = ab_options(fl, keys, n);
    ao.filter = NULL;
    err = pg_ab_run(&again, set, &ao);
    free(keys);
    if (err)
        return err;
    if (human)
        fprintf(human, "confirming %zu regressed case%s: %d fresh interleaved rounds in %.1fs\n", n,
                n == 1 ? "" : "s", again.rounds, (double)(pg__mono_ns() - t0) * 1e-9);
    err = pg_verdict_confirm_paired(cmp, again.cmp);
    pg_ab_result_free(&again);
    return err;
}

static int do_run(run_flags *fl, char **paths, int npaths, int gate)
{
    pg_exec_options eo = PG_EXEC_OPTIONS_INIT;
    pg_meta_options mo = {fl->commit, fl->branch};
    pg_cli_outputs outs;
    FILE *human;
    pg_suite_set set = {0};
    pg_store *store = NULL;
    pg_run *run = NULL;
    pg_buf names = PG_BUF_INIT;
    pg_ab_result ab;
    int interleaved = gate && (fl->base_build || fl->head_build);
    size_t i;
    int err, rc = 3;

    memset(&ab, 0, sizeof(ab));
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
    if ((rc = pg_cli_outputs_init(&outs, &fl->rep, 1)) != 0) {
        pg_cli_outputs_free(&outs);
        return rc;
    }
    rc = 3;
    human = outs.quiet ? NULL : outs.human;
    if ((err = pg_cli_load_suites(&set, paths, npaths)) != 0) {
        pg_cli_outputs_free(&outs);
        return pg_error_exit_code(err);
    }
    /* Open the store before measuring, so a bad path fails in a second, not after minutes. */
    if (!fl->no_store && (err = pg_store_open(&store, pg_store_path(fl->db))) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    if ((err = pg_run_new(&run)) != 0 || (err = pg_meta_fill(run, &mo)) != 0) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    for (i = 0; i < set.count; i++)
        pg__buf_printf(&names, "%s%s", i ? "," : "", set.suites[i]->name);
    run->suite_set = pg__buf_detach(&names);

    eo.filter = fl->filter;
    eo.progress = isatty(fileno(stderr));
    eo.progress_out = stderr;
    eo.time_scale = fl->quick ? 0.2 : 1.0;
    eo.trace_dir = fl->trace_dir;
    eo.peak_tflops = fl->peak_tflops;
    eo.peak_gflops = fl->peak_gflops;
    eo.precision = fl->precision;
    eo.cpu_clock = fl->clock && strcmp(fl->clock, "cpu") == 0;
    eo.canary = fl->canary;
    if (interleaved && fl->canary && human)
        fprintf(human, "note: --canary is for comparisons with stored runs; interleaved rounds cancel machine "
                       "drift themselves\n");
    err = interleaved ? measure_interleaved(&ab, run, &set, fl, &eo, human) : pg_exec_run(run, &set, &eo);
    if (err) {
        rc = pg_cli_fail(err);
        goto cleanup;
    }
    run->finished_at = pg__now_unix();
    if (run->nresults == 0 && run->nchecks == 0) {
        fprintf(stderr, "perfgate: no case or check matched%s%s\n", fl->filter ? " the filter " : "",
                fl->filter ? fl->filter : "");
        rc = 2;
        goto cleanup;
    }
    if (human)
        pg_report_run_terminal(human, run, &outs.style);
    if (store) {
        if ((err = pg_store_save_run(store, run)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        fprintf(outs.human, "\nstored run %lld (%s @ %.12s) in %s\n", (long long)run->id, run->branch,
               run->commit ? run->commit : "no commit", pg_store_path(fl->db));
    }
    rc = 0;
    for (i = 0; i < run->nchecks; i++)
        if (!run->checks[i].passed)
            rc = 1;

    if (interleaved) {
        if (fl->confirm && (err = confirm_interleaved(ab.cmp, &set, fl, human)) != 0) {
            rc = pg_cli_fail(err);
        } else {
            if (human) {
                fprintf(human, "\nbaseline: build %s, interleaved with the head over %d rounds (seed %llu)\n\n",
                        fl->base_build, ab.rounds, (unsigned long long)ab.seed);
                pg_report_compare_terminal(human, ab.cmp, &outs.style);
            }
            rc = finish_outputs(&outs, fl, run, ab.cmp, ab.cmp->exit_code);
        }
    } else if (gate && store) {
        pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
        pg_selection sel = {0};
        pg_run **bases = NULL;
        pg_comparison *cmp = NULL;
        size_t nb = 0;

        co.threshold = fl->threshold;
        co.alpha = fl->alpha;
        pg_select_options so = PG_SELECT_OPTIONS_INIT;

        so.allow_other_machine = fl->allow_other_machine;
        if ((err = pg_select_base_ext(&sel, store, fl->base, run->id, &so)) != 0) {
            rc = pg_cli_fail(err);
            goto cleanup;
        }
        bases = calloc(sel.count + 1, sizeof(*bases));
        for (i = 0; bases && i < sel.count; i++) {
            if ((err = pg_store_load_run(&bases[nb], store, sel.ids[i])) != 0)
                break;
            nb++;
        }
        if (!bases || err) {
            rc = pg_cli_fail(err ? err : PG_ENOMEM);
        } else {
            if (nb == 0)
                fprintf(outs.human,
                        "\nno baseline yet for branch '%s' on this machine: this run becomes the baseline; pass\n",
                        run->branch);
            else
                fprintf(outs.human, "\nbaseline: %s\n\n", sel.described ? sel.described : "stored run");
            if ((err = pg_compare(&cmp, run, (const pg_run *const *)bases, nb, &co)) != 0 ||
                (fl->confirm &&
                 (err = confirm_regressions(cmp, &set, (const pg_run *const *)bases, nb, &eo, &co,
                                            fl->confirm_budget, human)) != 0)) {
                rc = pg_cli_fail(err);
            } else {
                if (nb && human)
                    pg_report_compare_terminal(human, cmp, &outs.style);
                rc = finish_outputs(&outs, fl, run, cmp, cmp->exit_code);
            }
        }
        pg_comparison_free(cmp);
        for (i = 0; i < nb; i++)
            pg_run_free(bases[i]);
        free(bases);
        pg_selection_free(&sel);
    } else {
        rc = finish_outputs(&outs, fl, run, NULL, rc);
    }
    /* A check that could not run is bad input (2) or broken infrastructure (3), never a regression. */
    for (i = 0; i < run->nchecks; i++)
        if (run->checks[i].error && pg_error_exit_code(run->checks[i].error) > rc)
            rc = pg_error_exit_code(run->checks[i].error);

cleanup:
    pg_ab_result_free(&ab);
    pg__buf_free(&names);
    pg_run_free(run);
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
