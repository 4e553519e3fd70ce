/* cmd_sensitivity.c - `perfgate doctor --sensitivity SUITE`: would a change of real work be caught here? */
#include "cli/cli.h"

#include "ab/sensitivity.h"
#include "perfgate/errors.h"
#include "report/report.h"
#include "suite/suite.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const outcome_names[] = {"caught", "MISSED", "UNSURE", "failed", "not injected"};

/* The change to inject when none was given: twice the largest threshold, the least the rule fails on reliably. */
static double default_change(const pg_suite_set *set)
{
    double most = 0;
    size_t i, j;

    for (i = 0; i < set->count; i++)
        for (j = 0; j < set->suites[i]->ncases; j++)
            most = fmax(most, set->suites[i]->cases[j].threshold);
    return 2 * (most > 0 ? most : 0.05);
}

static void print_case(const pg_sensitivity_case *sc, size_t w)
{
    char change[64] = "-", rounds[16] = "-";
    const char *why = "";

    if (sc->v && isfinite(sc->v->est.ratio)) {
        pg_fmt_change_ci(change, sizeof(change), sc->v->est.ratio, sc->v->est.ci_lo, sc->v->est.ci_hi);
        snprintf(rounds, sizeof(rounds), "%zu", sc->v->est.head_n);
    }
    if (sc->outcome == PG_SENS_NOT_INJECTED)
        why = "its work runs outside perfgate's process (a command, a trace or a GPU case)";
    else if (sc->v && sc->outcome != PG_SENS_CAUGHT && sc->v->reason)
        why = sc->v->reason;
    printf("  %-*s  %-12s  %-26s  %6s  %s\n", (int)w, sc->key, outcome_names[sc->outcome], change, rounds, why);
}

int pg_cli_sensitivity(const char *suite, double change_pct, long rounds, const char *filter)
{
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    pg_suite_set set = {0};
    pg_sensitivity s;
    char *paths[] = {(char *)suite};
    size_t i, w = 4, missed;
    int err;

    if ((err = pg_cli_load_suites(&set, paths, 1)) != 0)
        return pg_error_exit_code(err);
    o.extra_work = change_pct > 0 ? change_pct / 100 : default_change(&set);
    o.rounds = (int)rounds;
    o.filter = filter;
    o.progress = stderr;
    if ((err = pg_sensitivity_run(&s, &set, &o)) != 0) {
        pg_suite_set_clear(&set);
        return pg_cli_fail(err);
    }
    for (i = 0; i < s.ncases; i++)
        w = strlen(s.cases[i].key) > w ? strlen(s.cases[i].key) : w;
    printf("sensitivity: %s gated against itself, the head doing %+.1f%% more of each case's own work (%lld more "
           "iteration%s in every %lld counted), up to %d interleaved rounds\n\n",
           suite, 100 * s.change, (long long)s.whole, s.whole == 1 ? "" : "s", (long long)s.unit, s.ab.max_rounds);
    printf("  %-*s  %-12s  %-26s  %6s  %s\n", (int)w, "case", "outcome", "measured change [interval]", "rounds", "why");
    for (i = 0; i < s.ncases; i++)
        print_case(&s.cases[i], w);
    missed = s.counts[PG_SENS_MISSED] + s.counts[PG_SENS_UNSURE] + s.counts[PG_SENS_FAILED];
    printf("\n%zu caught, %zu missed, %zu UNSURE, %zu failed of %zu cases", s.counts[PG_SENS_CAUGHT],
           s.counts[PG_SENS_MISSED], s.counts[PG_SENS_UNSURE], s.counts[PG_SENS_FAILED],
           s.ncases - s.counts[PG_SENS_NOT_INJECTED]);
    if (s.counts[PG_SENS_NOT_INJECTED])
        printf(" (%zu more could not take the change)", s.counts[PG_SENS_NOT_INJECTED]);
    printf("\n");
    if (missed)
        printf("a gate on this machine would not fail a %+.0f%% slowdown of the cases not caught: raise their "
               "min_run_time or --rounds, gate them on a quieter runner, or accept a larger threshold there\n",
               100 * s.change);
    pg_sensitivity_clear(&s);
    pg_suite_set_clear(&set);
    return missed ? 1 : 0;
}
