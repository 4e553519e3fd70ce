/* cmd_ab.c - `perfgate ab --base PATH --head PATH SUITE`: interleaved A/B of two builds. */
#include "cli/cli.h"

#include "ab/ab.h"
#include "ab/ab_exact.h"
#include "perfgate/errors.h"
#include "report/report.h"
#include "suite/suite.h"
#include "base/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static void print_paired(FILE *f, const pg_ab_result *ab)
{
    size_t i, w = 4;

    for (i = 0; i < ab->head->nresults; i++)
        if (strlen(ab->head->results[i].key) > w)
            w = strlen(ab->head->results[i].key);
    if (ab->sequential)
        fprintf(f, "\npaired rounds (head/base per round: Hodges-Lehmann centre, sign-test confidence sequence, "
                   "anytime p):\n");
    else
        fprintf(f, "\npaired rounds (head/base per round: Hodges-Lehmann centre, Tukey interval, Wilcoxon signed-rank "
                   "p):\n");
    for (i = 0; i < ab->head->nresults; i++) {
        const pg_paired_analysis *p = &ab->paired[i];
        char ch[16], lo[16], hi[16];
        if (p->n == 0) {
            fprintf(f, "  %-*s  -\n", (int)w, ab->head->results[i].key);
            continue;
        }
        pg_fmt_change(ch, sizeof(ch), p->ratio);
        pg_fmt_change(lo, sizeof(lo), p->ci_lo);
        pg_fmt_change(hi, sizeof(hi), p->ci_hi);
        fprintf(f, "  %-*s  %s [%s, %s] (%.0f%%)  head slower in %zu/%zu rounds  p(slower)=%.2g p(faster)=%.2g\n",
                (int)w, ab->head->results[i].key, ch, lo, hi, 100 * p->confidence, p->head_slower, p->n,
                p->p_slower, p->p_faster);
        if (p->dual) {
            /* The second estimator of each round: the sides' fastest tenths. */
            pg_fmt_change(ch, sizeof(ch), p->low.ratio);
            pg_fmt_change(lo, sizeof(lo), p->low.lo);
            pg_fmt_change(hi, sizeof(hi), p->low.hi);
            fprintf(f, "  %-*s  fastest tenth %s [%s, %s]  p(slower)=%.2g p(faster)=%.2g%s\n", (int)w, "", ch, lo, hi,
                    p->low_p_slower, p->low_p_faster,
                    p->notes.contended ? "  (rounds left out: the machine was busy)" : "");
        }
    }
}

int pg_cmd_ab(int argc, char **argv)
{
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    const char *seed_text = NULL, *instrument = NULL;
    unsigned instruments = PG_INSTRUMENT_TIME;
    long rounds = 0;
    double round_time = 0;
    pg_term_style style = pg_term_style_auto(stdout);
    pg_suite_set set = {0};
    pg_ab_result ab;
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"base", 0, PG_OPT_STR, &o.base, "PATH", "the base build: a plugin library, or a build directory for {build}"},
        {"head", 0, PG_OPT_STR, &o.head, "PATH", "the head build, the same way"},
        {"rounds", 'r', PG_OPT_INT, &rounds, "R", "interleaved rounds at most (default 20); a case stops once settled"},
        {"fixed-rounds", 0, PG_OPT_FLAG, &o.fixed, NULL, "every case all R rounds, decided at that count"},
        {"max-time", 0, PG_OPT_DOUBLE, &o.max_time, "SEC", "seconds for all rounds; the time left goes to open cases"},
        {"round-time", 0, PG_OPT_DOUBLE, &round_time, "SEC", "sampling per side per round (default min_run_time/4, at least 20 ms)"},
        {"seed", 0, PG_OPT_STR, &seed_text, "N", "seed of the random order (default: from the clock; printed)"},
        {"filter", 'f', PG_OPT_STR, &o.filter, "GLOB", "only cases whose key matches GLOB"},
        {"round-min", 0, PG_OPT_FLAG, &o.round_min, NULL, "a round's value is its fastest block (default: its median block)"},
        {"sequential", 0, PG_OPT_FLAG, &o.sequential, NULL,
         "plugin cases: one side after the other in a round, not in lockstep"},
        {"instrument", 0, PG_OPT_STR, &instrument, "LIST",
         "time (default: interleaved rounds), or instructions and/or memory: counted once per side, no rounds"},
        {"fresh-processes", 0, PG_OPT_FLAG, &o.fresh, NULL,
         "plugin cases: fresh processes every round (the default), even with PERFGATE_WORKER_ROUNDS"},
        {0},
    };
    const pg_cmd_spec spec = {
        "ab", "--base PATH --head PATH [options] SUITE|DIR...",
        "Measure two builds interleaved in one job and give a verdict per case.",
        "Over up to R rounds, each benchmark case is measured once per build per round, both\n"
        "sides on the same CPUs: plugin cases in lockstep (two processes taking turns\n"
        "block by block), commands back to back in a random order. So the drift and\n"
        "phases of a shared machine hit both sides alike. Each round gives one value per\n"
        "side (its median block), and each case is decided on the per-round ratios:\n"
        "after every round from round 5, an anytime-valid confidence sequence for the\n"
        "median ratio and anytime p-values, Holm over the cases; REGRESSED when\n"
        "significant and the lower bound is beyond the threshold. A case stops being\n"
        "measured once REGRESSED, SAME or IMPROVED; UNSURE ones get all R rounds\n"
        "(--fixed-rounds: every case R rounds, Wilcoxon signed-rank and Tukey's\n"
        "interval). Nothing is stored.\n\n"
        "With --instrument instructions (or memory) nothing is interleaved: counts do\n"
        "not move between processes, so each case is counted on each side (two\n"
        "processes, which must agree) and REGRESSED when the head's count grew beyond\n"
        "the case's exact threshold (default 0.5%).\n\n"
        "Every round measures each side in a fresh process. PERFGATE_WORKER_ROUNDS=K\n"
        "instead keeps one worker process per build for K rounds (cheaper rounds, but\n"
        "measured to find fewer changes: docs/statistics.md); a worker that dies or\n"
        "breaks the protocol is replaced and its round measured again.\n"
        "PERFGATE_ROUND_TIME=SEC sets the sampling per side per round.\n"
        "PERFGATE_OVERLAP_SETUP=1 sets up the next case's processes while a pair is\n"
        "measured (cheaper rounds, but wider spreads: docs/statistics.md).\n\n"
        "A build is a plugin library (it replaces each plugin case's library) or a\n"
        "directory substituted for {build} in plugin paths and command arguments.\n\n"
        "examples:\n"
        "  perfgate ab --base old/libmine.so --head build/libmine.so suites/mine.yaml\n"
        "  perfgate ab --base ../main-build --head build suites/cmds.yaml   # command: [\"{build}/bench\"]",
        opts, 1, -1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (!o.base || !o.head) {
        fprintf(stderr, "perfgate ab: --base and --head are both required; see 'perfgate ab --help'\n");
        return 2;
    }
    if (o.max_time < 0) {
        fprintf(stderr, "perfgate ab: --max-time must be positive seconds\n");
        return 2;
    }
    if (rounds < 0 || rounds > 10000) {
        fprintf(stderr, "perfgate ab: --rounds must be between 1 and 10000\n");
        return 2;
    }
    if (seed_text) {
        char *end;
        o.seed = strtoull(seed_text, &end, 0);
        if (*end || o.seed == 0) {
            fprintf(stderr, "perfgate ab: --seed must be a positive integer, not '%s'\n", seed_text);
            return 2;
        }
    }
    if (instrument && pg_cli_instruments(&instruments, instrument) != 0)
        return 2;
    if ((instruments & PG_INSTRUMENT_TIME) && instruments != PG_INSTRUMENT_TIME) {
        fprintf(stderr, "perfgate ab: --instrument: time is interleaved and counts are not; run them as two A/Bs\n");
        return 2;
    }
    o.rounds = (int)rounds;
    o.round_time = round_time;
    o.progress = stderr;
    if ((err = pg_cli_load_suites(&set, argv + 1, nargs)) != 0)
        return pg_error_exit_code(err);
    err = instruments == PG_INSTRUMENT_TIME ? pg_ab_run(&ab, &set, &o)
                                            : pg_ab_exact_run(&ab, &set, &o, instruments, NULL);
    if (err) {
        pg_suite_set_clear(&set);
        return pg_cli_fail(err);
    }
    if (instruments == PG_INSTRUMENT_TIME)
        printf("A/B: %s%d interleaved rounds, seed %" PRIu64 "\nbase: %s\nhead: %s\n\n",
               ab.rounds < ab.max_rounds ? "up to " : "", ab.rounds, ab.seed, o.base, o.head);
    else
        printf("A/B: counted (%s), no rounds\nbase: %s\nhead: %s\n\n", instrument, o.base, o.head);
    pg_report_compare_terminal(stdout, ab.cmp, &style);
    if (ab.paired)
        print_paired(stdout, &ab);
    /* No case decided is "nothing compared" (4), never a pass. */
    rc = pg_outcome_exit_code(ab.cmp);
    pg_ab_result_clear(&ab);
    pg_suite_set_clear(&set);
    return rc;
}
