/*
 * verdict.c - the verdict pipeline: per-case verdicts between a head run and
 * its baseline, stage by stage over a whole comparison (estimate.c makes the
 * estimate and the decision of one case).
 *
 * The model (docs/statistics.md): log t = case level + run offset + sample
 * noise. Samples of one process say nothing about the run offset, so the
 * interval from the samples (Hodges-Lehmann/Moses on log times) is widened by
 * the spread of run medians, measured on the baseline runs and shrunk
 * towards a prior from our machines. A case fails only when the change is
 * both significant after Holm's correction and surely beyond the threshold.
 *
 * The stages (verdict.h) run in this order and only here: estimate, decide,
 * suite, canary (canary.h supplies the reading and what it explains), then on
 * request confirm (confirm.h settles each case) and paired. recount() is the
 * one place counts, the exit code and the outcome come from.
 */
#include "verdict/verdict.h"
#include "verdict/canary.h"
#include "verdict/confirm.h"
#include "verdict/exact.h"
#include "verdict/internal.h"

#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[PG_VERDICT__COUNT] = {
    "SAME", "REGRESSED", "IMPROVED", "UNSURE", "NEW", "MISSING", "ERROR", "SKIPPED"};

static const char *const outcome_names[] = {"PASS", "FAIL", "NOTHING_COMPARED", "ERROR", "ACCEPTED"};

const char *pg_outcome_name(pg_outcome o)
{
    return (unsigned)o < sizeof(outcome_names) / sizeof(outcome_names[0]) ? outcome_names[o] : "?";
}

int pg_outcome_exit_code(const pg_comparison *c)
{
    return c->outcome == PG_OUTCOME_FAIL               ? 1
           : c->outcome == PG_OUTCOME_ERROR            ? PG_EXIT_CASE_ERROR
           : c->outcome == PG_OUTCOME_NOTHING_COMPARED ? PG_EXIT_NOTHING_COMPARED
           : c->exit_code                              ? 1
                                                       : 0;
}

const char *pg_verdict_name(pg_verdict v)
{
    return (unsigned)v < PG_VERDICT__COUNT ? verdict_names[v] : "UNKNOWN";
}

static int push(pg_comparison *c, pg_case_verdict **out)
{
    pg_case_verdict *p = realloc(c->cases, (c->ncases + 1) * sizeof(*p));

    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory comparing runs");
    c->cases = p;
    memset(&p[c->ncases], 0, sizeof(*p));
    *out = &p[c->ncases++];
    return 0;
}

/* Fewest compared cases for the suite-wide view to mean anything. */
#define SUITE_MIN_CASES 8

/* The median and robust spread of every compared case's log ratio. */
static void suite_view(pg_comparison *c, double *scratch)
{
    size_t i, n = 0;

    c->suite.shift = c->suite.spread = NAN;
    for (i = 0; i < c->ncases; i++)
        if (!isnan(c->cases[i].est.p) && c->cases[i].est.ratio > 0 && isfinite(c->cases[i].est.ratio) &&
            !pg_canary_is(c->cases[i].suite))
            scratch[n++] = log(c->cases[i].est.ratio);
    if (n < SUITE_MIN_CASES)
        return;
    c->suite.shift = exp(pg_stats_median(scratch, n));
    c->suite.spread = 1.4826 * pg_stats_mad(scratch, n);
}

/*
 * The decide stage: Holm over the tested cases (those with a p-value), the
 * interval widened by the suite-wide spread where it exceeds the model's
 * drift, and the rule. Sets *ntested for the method line.
 */
static int stage_decide(pg_comparison *c, size_t *ntested, const pg_compare_options *opts)
{
    size_t i, n = c->ncases ? c->ncases : 1;
    double *p = malloc(n * sizeof(*p)), *adj = malloc(n * sizeof(*adj)), *scratch = malloc(n * sizeof(*scratch));
    int err = PG_ENOMEM;

    *ntested = 0;
    if (!p || !adj || !scratch) {
        err = pg_error_set(PG_ENOMEM, "out of memory adjusting p-values");
        goto cleanup;
    }
    /* Canaries are references, not hypotheses about the code: they stay out of Holm's family. */
    for (i = 0; i < c->ncases; i++) {
        p[i] = pg_canary_is(c->cases[i].suite) ? NAN : c->cases[i].est.p;
        *ntested += !isnan(p[i]);
    }
    if ((err = pg_stats_holm(adj, p, c->ncases)) != 0)
        goto cleanup;
    suite_view(c, scratch);
    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        if (isnan(v->est.p))
            continue;
        v->est.p_adj = isnan(p[i]) ? v->est.p : adj[i];
        v->source = c->head ? c->head->source : NULL;
        /* Paired rounds cancel what the suite-wide view guards against: a phase hits both sides. */
        if (isfinite(c->suite.spread) && !opts->paired)
            pg__verdict_widen(v, fmax(v->drift.hw, pg_stats_norm_ppf(1 - v->alpha / 2) * c->suite.spread));
        pg_verdict_decide(v, *ntested);
    }

cleanup:
    free(p);
    free(adj);
    free(scratch);
    return err;
}

/* The suite stage: a move the whole suite shares is not this case's: UNSURE until a re-run confirms it. */
static void stage_suite(pg_comparison *c, pg_suite_move move)
{
    size_t i;

    if (!isfinite(move.shift))
        return;
    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        double half = sqrt(1 + v->threshold);
        int up = v->verdict == PG_VERDICT_REGRESSED && move.shift > half &&
                 v->est.ci_lo / move.shift <= 1 + v->threshold;
        int down = v->verdict == PG_VERDICT_IMPROVED && move.shift < 1 / half &&
                   v->est.ci_hi / move.shift >= 1 / (1 + v->threshold);

        if (isnan(v->est.p) || !(up || down))
            continue;
        v->verdict = PG_VERDICT_UNSURE;
        pg__verdict_set_reason(v, pg__asprintf("the whole suite moved %+.1f%% (median of its cases): a machine phase or a "
                                   "change to everything; re-run to confirm",
                                   100 * (move.shift - 1)));
    }
}

/*
 * The canary stage: a reference workload moving is the machine's doing, so a
 * canary is never REGRESSED or IMPROVED, and a case whose change the drifted
 * canary of its kind explains becomes UNSURE. The comparison takes over
 * `reading` (its summary).
 */
static int stage_canary(pg_comparison *c, pg_canary_reading *reading)
{
    size_t i;

    free(c->canary.summary);
    c->canary = *reading;
    reading->summary = NULL;
    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        const char *which = "";
        char *reason;
        double s;

        if ((v->verdict != PG_VERDICT_REGRESSED && v->verdict != PG_VERDICT_IMPROVED) || pg_verdict_is_exact(v))
            continue;
        if (pg_canary_is(v->suite))
            reason = pg__asprintf("machine drift: this %s canary moved %+.1f%% between base and head",
                                  strcmp(v->name, PG_CANARY_MEMORY) == 0 ? "memory" : "compute",
                                  100 * (v->est.ratio - 1));
        else if (pg_canary_explains(&s, &which, &c->canary, v))
            reason = pg__asprintf("machine drift: %s canary %+.0f%% (this case %+.1f%%); re-run to confirm", which,
                                  100 * (s - 1), 100 * (v->est.ratio - 1));
        else
            continue;
        if (!reason)
            return pg_error_set(PG_ENOMEM, "out of memory writing a drift reason");
        pg__verdict_set_reason(v, reason);
        v->verdict = PG_VERDICT_UNSURE;
    }
    return 0;
}

/* The verdicts a confirmation re-run settles: a false IMPROVED is as wrong as a false REGRESSED. */
int pg_verdict_to_confirm(const pg_case_verdict *v, int improved_too)
{
    /* A counted metric is counted again identically: nothing for a re-run to settle. */
    if (pg_verdict_is_exact(v))
        return 0;
    return v->verdict == PG_VERDICT_REGRESSED || (improved_too && v->verdict == PG_VERDICT_IMPROVED);
}

/*
 * The confirmation stage: settles every REGRESSED case (and IMPROVED one
 * when `improved_too`) on `again[i]`, its re-measurement decided on its own
 * (NULL when none was made; confirm.h).
 */
int pg__verdict_stage_confirm(pg_comparison *c, const pg_case_verdict *const *again, int improved_too)
{
    size_t i;
    int err;

    for (i = 0; i < c->ncases; i++)
        if (pg_verdict_to_confirm(&c->cases[i], improved_too) && (err = pg_confirm_settle(&c->cases[i], again[i])) != 0)
            return err;
    return 0;
}

/* "2 UNSURE, 1 SKIPPED": the verdicts that decided nothing, for the outcome's reason. */
static void undecided_counts(pg_buf *b, const pg_comparison *c)
{
    static const pg_verdict kinds[] = {PG_VERDICT_UNSURE, PG_VERDICT_SKIPPED, PG_VERDICT_ERROR, PG_VERDICT_NEW,
                                       PG_VERDICT_MISSING};
    size_t i;
    int first = 1;

    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (c->counts[kinds[i]]) {
            pg__buf_printf(b, "%s%zu %s", first ? "" : ", ", c->counts[kinds[i]], verdict_names[kinds[i]]);
            first = 0;
        }
}

/* Whether every UNSURE case is one whose every round was left out for contention (verdict_paired). */
static int all_unsure_busy(const pg_comparison *c)
{
    size_t i;

    for (i = 0; i < c->ncases; i++) {
        const pg_case_verdict *v = &c->cases[i];
        if (v->verdict == PG_VERDICT_UNSURE &&
            !(v->paired && v->rounds.measured > 0 && v->rounds.contended == v->rounds.measured))
            return 0;
    }
    return 1;
}

/* "2 cases ended in ERROR ...: the first one's key and reason", for the ERROR outcome. */
static char *error_reason(const pg_comparison *c)
{
    size_t n = c->counts[PG_VERDICT_ERROR], i;

    for (i = 0; i < c->ncases; i++)
        if (c->cases[i].verdict == PG_VERDICT_ERROR)
            break;
    if (i == c->ncases)
        return NULL;
    return pg__asprintf("%zu case%s could not be measured, so nothing vouches for %s: %s: %s%s", n, n == 1 ? "" : "s",
                        n == 1 ? "it" : "them", c->cases[i].key,
                        c->cases[i].reason ? c->cases[i].reason : "failed",
                        n > 1 ? "; see the other cases' reasons" : "");
}

/*
 * The outcome: FAIL by the exit rule; ERROR when a case could not be
 * measured; NOTHING_COMPARED when there are benchmark cases and none was
 * decided, because a pass would vouch for changes nobody measured, unless
 * the only undecided ones are NEW against an existing baseline (a PASS that
 * says so). Exact checks alone (no benchmark case) decide by themselves. The reason says why and what to do; the stored-baseline
 * workflow replaces it with what it searched when it found no baseline.
 */
static void settle_outcome(pg_comparison *c)
{
    size_t decided = c->counts[PG_VERDICT_SAME] + c->counts[PG_VERDICT_REGRESSED] + c->counts[PG_VERDICT_IMPROVED];
    size_t fresh = c->counts[PG_VERDICT_NEW];
    pg_buf b = PG_BUF_INIT;

    free(c->outcome_reason);
    c->outcome_reason = NULL;
    c->outcome = c->exit_code ? PG_OUTCOME_FAIL : PG_OUTCOME_PASS;
    if (c->exit_code)
        return;
    if (c->counts[PG_VERDICT_ERROR]) {
        /* A case that never ran is vouched for by nothing: no pass, whatever the others did. */
        c->outcome = PG_OUTCOME_ERROR;
        c->outcome_reason = error_reason(c);
        return;
    }
    if ((c->outcome_reason = pg__accept_reason(c)) != NULL) {
        /* Regressions someone accepted: not a failure, and not a plain pass either. */
        c->outcome = PG_OUTCOME_ACCEPTED;
        return;
    }
    if (c->ncases == 0 || decided > 0)
        return;
    if (c->base && fresh && c->counts[PG_VERDICT_UNSURE] + c->counts[PG_VERDICT_SKIPPED] == 0) {
        /* A baseline that lacks the cases (a first pull request that adds them) is no reason to block them. */
        c->outcome_reason = pg__asprintf("%zu new case%s, nothing to compare %s with yet", fresh, fresh == 1 ? "" : "s",
                                         fresh == 1 ? "it" : "them");
        return;
    }
    c->outcome = PG_OUTCOME_NOTHING_COMPARED;
    if (!c->base) {
        pg__buf_puts(&b, "no baseline run to compare with; measure the base build alongside with --base-build");
    } else {
        pg__buf_puts(&b, "no case was decided (");
        undecided_counts(&b, c);
        if (c->counts[PG_VERDICT_UNSURE] && all_unsure_busy(c))
            pg__buf_puts(&b, "): the machine was busy, every round left out; gate on an idle runner, or keep "
                             "other jobs off its CPUs");
        else if (c->counts[PG_VERDICT_UNSURE])
            pg__buf_puts(&b, "): the data cannot tell at this noise; pool baseline runs (--base last:5), measure "
                             "interleaved with --base-build, or raise min_run_time");
        else
            pg__buf_puts(&b, "): no case has samples on both sides; see each case's reason");
    }
    c->outcome_reason = pg__buf_detach(&b);
}

/*
 * The one recount: counts and exit code from the verdicts as they stand, under the comparison's exit rule. A
 * regression accepted on purpose stays REGRESSED in the counts and fails nothing.
 */
void pg__verdict_recount(pg_comparison *c)
{
    size_t i, open = 0;

    memset(c->counts, 0, sizeof(c->counts));
    for (i = 0; i < c->ncases; i++) {
        c->counts[c->cases[i].verdict]++;
        open += c->cases[i].verdict == PG_VERDICT_REGRESSED && !c->cases[i].accepted;
    }
    c->exit_code = (open > 0 || c->checks_failed > 0 ||
                    (c->fail_on_missing && c->counts[PG_VERDICT_MISSING] > 0) ||
                    (c->fail_on_new && c->counts[PG_VERDICT_NEW] > 0))
                       ? 1
                       : 0;
    settle_outcome(c);
}

/* The exact checks of the head run: a failed one fails the comparison. */
static void take_checks(pg_comparison *c, const pg_run *head)
{
    size_t i;

    c->checks_total = head->nchecks;
    c->checks_failed = 0;
    for (i = 0; i < head->nchecks; i++)
        c->checks_failed += !head->checks[i].passed;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return (x > y) - (x < y);
}

/* How a paired comparison's cases were estimated: one estimator per round, or two; "" for one. */
static const char *paired_estimators(const pg_comparison *c)
{
    size_t i;

    for (i = 0; i < c->ncases; i++)
        if (c->cases[i].dual.on)
            return " on two estimators per round (each side's median block and its fastest tenth: SAME needs "
                   "both within the threshold, either can show a change, alpha split 98/2 between them)";
    return "";
}

/* The method line of a sequential interleaved gate, with how many rounds the cases took. */
static int paired_method(pg_comparison *c, size_t ntested)
{
    size_t *r = malloc((c->ncases ? c->ncases : 1) * sizeof(*r)), i, n = 0, early = 0, most = 0, left = 0;

    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory describing the method");
    for (i = 0; i < c->ncases; i++)
        if (c->cases[i].paired) {
            r[n++] = c->cases[i].est.head_n;
            early += c->cases[i].est.settled_at > 0;
            most = c->cases[i].est.head_n > most ? c->cases[i].est.head_n : most;
            left += c->cases[i].rounds.contended;
        }
    qsort(r, n, sizeof(*r), cmp_size);
    c->method = pg__asprintf(
        "interleaved rounds paired per round%s, decided sequentially: after every round from round %d, an "
        "anytime-valid sign-test confidence sequence for the median per-round log ratio (Howard & Ramdas 2022) "
        "and anytime p-values, Holm over %zu cases; a case stops once REGRESSED, SAME or IMPROVED; REGRESSED when "
        "Holm p < alpha and the lower bound exceeds 1 + threshold; rounds per case: median %zu, max %zu (%zu of %zu "
        "settled before the maximum)%s",
        paired_estimators(c), PG_PAIRED_MIN_ROUNDS, ntested, n ? r[n / 2] : 0, most, early, n,
        left ? "; rounds in which a side ran under half its wall time (waiting for a CPU) were left out" : "");
    free(r);
    return c->method ? 0 : pg_error_set(PG_ENOMEM, "out of memory describing the method");
}

/* Whether a case of `c` is not a counted metric: its line is the statistical one. */
static int has_timed(const pg_comparison *c)
{
    size_t i;

    for (i = 0; i < c->ncases; i++)
        if (!pg_verdict_is_exact(&c->cases[i]))
            return 1;
    return 0;
}

/* The method line every report prints. */
static int describe_method(pg_comparison *c, size_t ntested, const pg_compare_options *opts)
{
    free(c->method);
    if (opts->paired && opts->sequential)
        return paired_method(c, ntested);
    if (opts->paired)
        c->method = pg__asprintf(
            "interleaved rounds paired per round%s: one-sided Wilcoxon signed-rank on the per-round log ratios, Holm "
            "over %zu cases; Hodges-Lehmann ratio with Tukey's interval; REGRESSED when Holm p < alpha and the "
            "lower bound exceeds 1 + threshold",
            paired_estimators(c), ntested);
    else
        c->method = pg__asprintf(
            "one-sided Mann-Whitney U on log times, Holm over %zu cases; ratio of medians with a %s interval widened "
            "by run-to-run drift (%s %.3g%% prior, %zu baseline run%s; and by the spread of all cases' changes); "
            "REGRESSED when Holm p < alpha and the lower bound exceeds 1 + threshold",
            ntested, opts->interval == PG_INTERVAL_BOOTSTRAP ? "bootstrap" : "Hodges-Lehmann/Moses",
            c->nbases >= 2 ? "measured on the baseline runs, shrunk to a" : "assumed:",
            100 * (opts->drift >= 0 ? opts->drift : PG_DRIFT_PRIOR), c->nbases, c->nbases == 1 ? "" : "s");
    if (c->method && pg_comparison_has_exact(c)) {
        /* A comparison of counts alone says nothing of a test it did not run. */
        char *both = has_timed(c) ? pg__asprintf("%s; %s", c->method, PG_VERDICT_EXACT_METHOD)
                                  : pg__strdup(PG_VERDICT_EXACT_METHOD);
        free(c->method);
        c->method = both;
    }
    return c->method ? 0 : pg_error_set(PG_ENOMEM, "out of memory describing the method");
}

int pg_comparison_adjust(pg_comparison *c, const pg_compare_options *opts)
{
    pg_compare_options dflt = PG_COMPARE_OPTIONS_INIT;
    pg_canary_reading canary = {NAN, NAN, 0, NULL};
    size_t ntested;
    int err;

    if (!opts)
        opts = &dflt;
    if ((err = stage_decide(c, &ntested, opts)) != 0)
        return err;
    if (!opts->paired)
        stage_suite(c, c->suite);
    if ((err = pg_canary_read(&canary, c->cases, c->ncases)) != 0 || (err = stage_canary(c, &canary)) != 0)
        return err;
    pg__verdict_recount(c);
    return describe_method(c, ntested, opts);
}

/* Indexes the results of `run` by key (the first of a key, as pg_run_find()). */
static int index_run(pg_keymap *m, const pg_run *run)
{
    size_t i;
    int err;

    for (i = 0; i < run->nresults; i++)
        if ((err = pg__keymap_put(m, run->results[i].key, i)) != 0)
            return err;
    return 0;
}

static const pg_result *indexed_find(const pg_run *run, const pg_keymap *m, const char *key)
{
    size_t i;

    return pg__keymap_get(m, key, &i) ? &run->results[i] : NULL;
}

/* Collects the samples of `key` from every base run that measured it; `maps` index the base runs (or NULL). */
size_t pg__verdict_base_sets(pg_sample_set *out, const pg_result **first, const pg_run *const *bases,
                             const pg_keymap *maps, size_t nbases, const char *key)
{
    size_t i, n = 0;

    *first = NULL;
    for (i = 0; i < nbases; i++) {
        const pg_result *r = maps ? indexed_find(bases[i], &maps[i], key) : pg_run_find(bases[i], key);
        if (!r)
            continue;
        if (!*first)
            *first = r;
        if (r->status == PG_STATUS_OK && r->nsamples > 0)
            out[n++] = (pg_sample_set){r->samples, r->nsamples};
    }
    return n;
}

/* Every case of a baseline run that the head lacks, once: MISSING. `cases` indexes the cases so far. */
static int add_missing(pg_comparison *c, pg_keymap *cases, const pg_run *const *bases, size_t nbases)
{
    size_t b, i, j;
    int err;

    for (b = 0; b < nbases; b++) {
        for (i = 0; i < bases[b]->nresults; i++) {
            const pg_result *r = &bases[b]->results[i];
            pg_case_verdict *v = NULL;
            if (pg__keymap_get(cases, r->key, &j))
                continue;
            if ((err = push(c, &v)) != 0 || (err = pg__keymap_put(cases, r->key, c->ncases - 1)) != 0)
                return err;
            v->key = pg__strdup(r->key);
            v->suite = pg__strdup(r->suite);
            v->name = pg__strdup(r->name);
            v->base = r;
            v->est.base_n = r->nsamples;
            v->est.base_median = r->summary.median;
            v->est.ratio = v->est.ci_lo = v->est.ci_hi = v->est.p = v->est.p_adj = NAN;
            v->est.shift_lo = v->est.shift_hi = v->est.center = v->est.resolution = NAN;
            v->verdict = PG_VERDICT_MISSING;
            v->reason = pg__strdup("in the baseline but not in this run");
        }
    }
    return 0;
}

/* History mode: a head whose samples held two regimes says so after its reason, whatever its verdict. */
static void add_regimes(pg_comparison *c)
{
    size_t i;

    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        char *r;
        if (!v->regime || v->paired || v->dual.on)
            continue;
        r = v->reason ? pg__asprintf("%s; %s", v->reason, v->regime) : pg__strdup(v->regime);
        if (r)
            pg__verdict_set_reason(v, r);
    }
}

/*
 * A case whose baseline has no samples of it. A build that lacks the case
 * (no such plugin file, benchmark or program: a pull request adds it) makes
 * it NEW. A base build measured alongside that failed on it is an ERROR with
 * its cause, as a head-side failure is. A stored baseline run that failed or
 * skipped it leaves it UNSURE, saying why: the head is fine, the baseline
 * knows nothing.
 */
static void base_unmeasured(pg_case_verdict *v, const pg_result *base, int alongside)
{
    const char *why = base->message ? base->message : "no reason given";

    v->est.base_median = base->status == PG_STATUS_OK ? base->summary.median : NAN;
    if (base->status == PG_STATUS_ERROR && base->absent) {
        v->verdict = PG_VERDICT_NEW;
        v->reason = pg__asprintf("not in the baseline (%s)", why);
        return;
    }
    if (base->status == PG_STATUS_ERROR && alongside) {
        v->verdict = PG_VERDICT_ERROR;
        v->reason = pg__strdup(why);
        return;
    }
    v->verdict = PG_VERDICT_UNSURE;
    if (v->est.base_median > 0 && v->est.head_median > 0)
        v->est.ratio = v->est.head_median / v->est.base_median;
    if (base->status == PG_STATUS_OK)
        v->reason = pg__strdup("the baseline has no raw samples for this case");
    else
        v->reason = pg__asprintf("the baseline %s this case (%s): nothing to compare with until a baseline run "
                                 "measures it",
                                 base->status == PG_STATUS_SKIPPED ? "skipped" : "could not measure", why);
}

int pg_compare(pg_comparison **out, const pg_run *head, const pg_run *const *bases, size_t nbases,
               const pg_compare_options *opts)
{
    pg_compare_options dflt = PG_COMPARE_OPTIONS_INIT;
    pg_sample_set *sets = NULL;
    pg_keymap *maps = NULL, cases = PG_KEYMAP_INIT;
    pg_comparison *c;
    size_t i;
    int err;

    *out = NULL;
    if (!opts)
        opts = &dflt;
    c = calloc(1, sizeof(*c));
    sets = malloc((nbases ? nbases : 1) * sizeof(*sets));
    maps = calloc(nbases ? nbases : 1, sizeof(*maps));
    if (!c || !sets || !maps) {
        free(sets);
        free(maps);
        free(c);
        return pg_error_set(PG_ENOMEM, "out of memory comparing runs");
    }
    /* Keyed lookups: a comparison of thousands of cases against K runs must not scan each run per case. */
    for (i = 0; i < nbases; i++)
        if ((err = index_run(&maps[i], bases[i])) != 0)
            goto fail;
    c->head = head;
    c->base = nbases ? bases[0] : NULL;
    c->nbases = nbases;
    c->fail_on_missing = opts->fail_on_missing;
    c->fail_on_new = opts->fail_on_new;

    for (i = 0; i < head->nresults; i++) {
        const pg_result *h = &head->results[i], *base;
        size_t nsets = pg__verdict_base_sets(sets, &base, bases, maps, nbases, h->key);
        pg_case_verdict *v = NULL;

        if ((err = push(c, &v)) != 0 || (err = pg__keymap_put(&cases, h->key, c->ncases - 1)) != 0)
            goto fail;
        v->key = pg__strdup(h->key);
        v->suite = pg__strdup(h->suite);
        v->name = pg__strdup(h->name);
        v->head = h;
        v->base = base;
        v->threshold = opts->threshold >= 0 ? opts->threshold : (h->threshold > 0 ? h->threshold : 0.05);
        v->alpha = opts->alpha > 0 ? opts->alpha : (h->alpha > 0 ? h->alpha : 0.05);
        v->est.head_n = h->nsamples;
        v->est.head_median = h->summary.median;
        v->est.ratio = v->est.ci_lo = v->est.ci_hi = v->est.p = v->est.p_adj = NAN;
        v->est.shift_lo = v->est.shift_hi = v->est.center = v->est.resolution = NAN;
        if (h->status == PG_STATUS_SKIPPED) {
            v->verdict = PG_VERDICT_SKIPPED;
            v->reason = pg__strdup(h->message ? h->message : "skipped");
        } else if (h->status == PG_STATUS_ERROR) {
            v->verdict = PG_VERDICT_ERROR;
            v->reason = pg__strdup(h->message ? h->message : "failed");
        } else if (!base) {
            v->verdict = PG_VERDICT_NEW;
            v->reason = pg__strdup(nbases ? "not in the baseline" : "no baseline yet");
        } else if (nsets == 0) {
            base_unmeasured(v, base, bases[0]->mode == PG_MODE_INTERLEAVED_BASE);
        } else if (h->nsamples == 0) {
            v->verdict = PG_VERDICT_UNSURE;
            v->est.base_median = base->summary.median;
            v->reason = pg__strdup("this run has no raw samples for this case");
        } else if (pg_verdict_is_exact(v)) {
            /* Counted metrics: their own threshold, the newest base run, no test (verdict_exact.h). */
            v->threshold = h->threshold > 0 ? h->threshold : PG_EXACT_THRESHOLD;
            if ((err = pg_verdict_exact(v, h->samples, h->nsamples, sets[0].x, sets[0].n)) != 0)
                goto fail;
        } else {
            pg_sample_set hs = {h->samples, h->nsamples};
            err = pg_verdict_estimate(v, &hs, 1, sets, nsets, opts);
            v->est.busy = h->waited + h->stolen;
            if (!err && (err = pg__verdict_note_regimes(v, h)) != 0)
                goto fail;
            if (err == PG_EINVAL) {
                v->verdict = PG_VERDICT_UNSURE;
                v->est.p = NAN;
                v->reason = pg__strdup("no positive samples to compare");
            } else if (err) {
                goto fail;
            }
        }
    }
    if ((err = add_missing(c, &cases, bases, nbases)) != 0)
        goto fail;
    take_checks(c, head);
    if ((err = pg_comparison_adjust(c, opts)) != 0)
        goto fail;
    add_regimes(c);
    err = 0;
    *out = c;
    c = NULL;
fail:
    free(sets);
    for (i = 0; i < nbases; i++)
        pg__keymap_clear(&maps[i]);
    free(maps);
    pg__keymap_clear(&cases);
    pg_comparison_free(c);
    return err;
}

void pg_comparison_free(pg_comparison *c)
{
    size_t i;

    if (!c)
        return;
    for (i = 0; i < c->ncases; i++) {
        free(c->cases[i].key);
        free(c->cases[i].suite);
        free(c->cases[i].name);
        free(c->cases[i].reason);
        free(c->cases[i].regime);
        free(c->cases[i].accepted);
        pg_diagnosis_free(c->cases[i].diag);
    }
    free(c->cases);
    free(c->accepted_by);
    free(c->method);
    free(c->canary.summary);
    free(c->outcome_reason);
    free(c->build.path);
    free(c->build.commit);
    free(c->build.sha256);
    free(c);
}

int pg_verdict_confirm_paired(pg_comparison *c, const pg_comparison *again)
{
    const pg_case_verdict **match = calloc(c->ncases ? c->ncases : 1, sizeof(*match));
    size_t i, j;
    int err;

    if (!match)
        return pg_error_set(PG_ENOMEM, "out of memory confirming regressions");
    for (i = 0; i < c->ncases; i++)
        for (j = 0; again && j < again->ncases && !match[i]; j++)
            if (strcmp(again->cases[j].key, c->cases[i].key) == 0)
                match[i] = &again->cases[j];
    /* REGRESSED and IMPROVED alike: a process-level effect can make either, and a false IMPROVED hides a slowdown. */
    if ((err = pg__verdict_stage_confirm(c, match, 1)) == 0)
        pg__verdict_recount(c);
    free(match);
    return err;
}

/*
 * Both estimators of a paired case: each estimator's p is the smaller of its
 * two directions (anytime) or the one in its centre's direction (fixed
 * count), and the case's p the smaller of each divided by its share of
 * alpha (model.h, weighted Bonferroni): Holm then runs on that.
 */
static void paired_dual(pg_case_verdict *v, const pg_paired_analysis *p)
{
    double pm, pl;

    v->dual.on = 1;
    v->dual.by = p->by;
    v->dual.median.ratio = p->ratio;
    v->dual.median.lo = p->ci_lo;
    v->dual.median.hi = p->ci_hi;
    v->dual.median.claim_lo = p->claim_lo;
    v->dual.median.claim_hi = p->claim_hi;
    v->dual.low = p->low;
    pm = p->sequential ? fmin(p->p_slower, p->p_faster) : p->ratio >= 1 ? p->p_slower : p->p_faster;
    pl = p->sequential ? fmin(p->low_p_slower, p->low_p_faster) : p->low.ratio >= 1 ? p->low_p_slower : p->low_p_faster;
    v->est.p = pg_verdict_dual_p(pm, pl);
}

int pg_verdict_paired(pg_comparison *c, const pg_run *head, const pg_paired_analysis *paired,
                      const pg_compare_options *opts)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    size_t i, j;

    if (opts)
        o = *opts;
    for (i = 0; i < head->nresults; i++) {
        const pg_paired_analysis *p = &paired[i];
        pg_case_verdict *v = NULL;
        double half;
        for (j = 0; j < c->ncases && !v; j++)
            if (strcmp(c->cases[j].key, head->results[i].key) == 0)
                v = &c->cases[j];
        if (v && p->n == 0 && p->notes.contended > 0) {
            /* Measured, but every round left out: the process never had its CPU long enough. */
            v->paired = 1;
            v->rounds = p->notes;
            v->verdict = PG_VERDICT_UNSURE;
            v->est.p = NAN;
            pg__verdict_set_reason(v, pg__asprintf("this process ran %.0f%% of the wall time (mean over the rounds), "
                                                   "under half in every round (%zu of %zu left out): the machine was "
                                                   "busy; gate on an idle runner, or keep other jobs off its CPUs",
                                                   100 * (1 - p->notes.busy_mean), p->notes.contended,
                                                   p->notes.measured));
            continue;
        }
        /* Only cases the comparison tested (both sides measured) take the paired view. */
        if (!v || p->n == 0 || isnan(v->est.p))
            continue;
        v->paired = 1;
        /* The head's samples are rounds here, not one process's blocks: its regimes are the rounds' notes. */
        free(v->regime);
        v->regime = NULL;
        v->est.settled_at = p->settled_at;
        v->est.ratio = v->est.center = p->ratio;
        v->est.ci_lo = v->est.shift_lo = isfinite(p->ci_lo) ? p->ci_lo : NAN;
        v->est.ci_hi = v->est.shift_hi = isfinite(p->ci_hi) ? p->ci_hi : NAN;
        /* Anytime p-values: the smaller one, as the sequential looks took it (ab/paired.c). */
        v->est.p = p->sequential ? fmin(p->p_slower, p->p_faster) : p->ratio >= 1 ? p->p_slower : p->p_faster;
        /* The pairing cancels run-to-run drift: a phase slows both sides of a round alike. */
        v->drift.sd = v->drift.hw = 0;
        v->drift.measured = 0;
        v->est.very_noisy = 0;
        half = 0.5 * (log(v->est.ci_hi) - log(v->est.ci_lo));
        v->est.resolution = isfinite(half) ? (1 + v->threshold) * exp(half) - 1 : NAN;
        v->rounds = p->notes;
        if (p->dual)
            paired_dual(v, p);
    }
    o.paired = 1;
    for (i = 0; i < head->nresults; i++)
        o.sequential |= paired[i].sequential;
    return pg_comparison_adjust(c, &o);
}

void pg_comparison_rebind_head(pg_comparison *c, const pg_run *run)
{
    c->head = run;
    take_checks(c, run);
    pg__verdict_recount(c);
}
