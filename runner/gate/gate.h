/*
 * gate.h - the gate's workflows: what `perfgate run`, `gate`, `compare`,
 * `report` and `post` do between parsing their flags and printing.
 *
 * pg_gate_run() measures the suites, stores the run, selects and loads the
 * baseline, compares, confirms regressions and hands back the run with its
 * comparison; with two builds it measures them in interleaved rounds instead
 * of reading a stored baseline. pg_stored_compare_head() does the reading half
 * alone, for runs already in the store.
 *
 * The CLI prints: the workflow reports its steps through a callback, in the
 * order they happen, and never writes to a stream itself.
 */
#ifndef PG_GATE_H
#define PG_GATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "exec/exec.h"
#include "machine/meta.h"
#include "report/report.h"
#include "store/select.h"
#include "store/store.h"
#include "suite/suite.h"
#include "verdict/verdict.h"

/* The steps a gate reports, in the order they happen. */
typedef enum pg_gate_step {
    PG_GATE_NOTE = 0,   /* a line of progress in `text` (interleaving, confirming) */
    PG_GATE_MEASURED,   /* the run is measured; not yet stored */
    PG_GATE_STORED,     /* the run is stored: run->id is set */
    PG_GATE_BASELINE    /* the stored baseline is chosen and loaded (history mode) */
} pg_gate_step;

struct pg_gate_result;

/** Called at each step; `text` is set for PG_GATE_NOTE only. */
typedef void (*pg_gate_notify_fn)(const struct pg_gate_result *state, pg_gate_step step, const char *text,
                                  void *payload);

typedef struct pg_gate_options {
    unsigned version;
    pg_exec_options exec;     /* how cases are measured */
    pg_meta_options meta;     /* commit and branch to record */
    pg_store *store;          /* the run is stored here; NULL: neither stored nor compared with stored runs */
    int compare;              /* 1: compare with a baseline (gate); 0: measure and store only (run) */
    const char *base;         /* stored baseline selector; NULL: the default (select.h) */
    int allow_other_machine;  /* accept a stored baseline from another machine */
    double threshold, alpha;  /* <0: each case's own */
    int confirm;              /* re-measure REGRESSED cases before failing */
    double confirm_budget;    /* seconds of re-measurement at most (history mode) */
    const char *base_build;   /* both set: interleaved rounds of the two builds */
    const char *head_build;
    int rounds;               /* interleaved rounds at most; 0: PG_AB_DEFAULT_ROUNDS */
    FILE *ab_progress;        /* the A/B's own progress line; NULL: none */
    pg_gate_notify_fn notify; /* NULL: no notifications */
    void *payload;
    int fixed_rounds;         /* interleaved: every case all rounds, no sequential stopping */
    double max_time;          /* interleaved: seconds for the rounds (confirmation included); <= 0: no limit */
    pg_store *roofs_from;     /* without `store`: where the machine's stored roofs are read (never written) */
    const pg_report_origin *origin; /* where the run sits on GitHub, kept with the decision; NULL: nowhere */
    int no_diagnose;          /* interleaved: leave timed regressions unexplained (no counting of both builds) */
    int timed_only;           /* interleaved: the timed cases alone, no exact checks (a bisection's steps: checks
                                 do not move with timing, and each step would run them again) */
    const char *const *keys;  /* interleaved: only these case keys (exact); NULL: every case the filter selects */
    size_t nkeys;
} pg_gate_options;

#define PG_GATE_OPTIONS_VERSION 2
#define PG_GATE_OPTIONS_INIT \
    {PG_GATE_OPTIONS_VERSION, PG_EXEC_OPTIONS_INIT, {NULL, NULL}, NULL, 0, NULL, 0, -1.0, -1.0, 0, 300.0, NULL, NULL, 0, NULL, NULL, NULL, 0, 0.0, NULL, NULL, 0, 0, NULL, 0}

typedef struct pg_gate_result {
    pg_run *run;              /* the head run (stored when a store was given) */
    pg_comparison *cmp;       /* its verdicts and outcome; every case NEW when there was no baseline */
    int compared;             /* 1 when cmp holds a comparison with a baseline (stored or interleaved) */
    size_t nbases;            /* stored baseline runs compared (history mode) */
    const char *described;    /* how the stored baseline was chosen; NULL when none */
    int interleaved;          /* 1: decided on interleaved rounds of two builds */
    const char *base_build;   /* interleaved: the base build (opts->base_build) */
    int rounds;               /* interleaved: the most rounds a case took */
    int max_rounds;           /* interleaved: the most allowed */
    int time_out;             /* interleaved: --max-time ended the rounds or their confirmation */
    int busy_stop;            /* interleaved: stopped early, every open case's rounds left out (machine busy) */
    uint64_t seed;            /* interleaved: the seed of their order */
    int exit_code;            /* 0 pass; 1 a case REGRESSED or an exact check failed; 3 a case ended in ERROR
                                 (`run`: every measured case did); 4 nothing compared (cmp->outcome, gate only:
                                 `run` compares nothing by design) */
    int all_failed;           /* `run`: every case measured (not skipped) ended in ERROR */
    int check_error_code;     /* the worst exit class (2 or 3) of exact checks that could not run; 0 */
    void *internal;
} pg_gate_result;

/**
 * The gate: measures `set` into a new run (commit and branch from
 * opts->meta), stores it in opts->store, then with opts->compare decides it
 * against the stored baseline (opts->base) or, with base_build and
 * head_build, against the base build measured in interleaved rounds;
 * with opts->confirm, REGRESSED cases are re-measured and decided again.
 * @param[out] out filled even on error as far as it got; free with pg_gate_result_clear().
 * @return 0; PG_EINVAL (bad options, or no case or check matched the filter);
 *         a store, measurement or infrastructure error.
 */
int pg_gate_run(pg_gate_result *out, const pg_suite_set *set, const pg_gate_options *opts);
void pg_gate_result_clear(pg_gate_result *r);

/* A stored run compared with its stored baseline. Owns everything it points to. */
typedef struct pg_stored_comparison {
    const pg_run *head;       /* the run judged */
    pg_run *own_head;         /* the loaded head (pg_stored_compare_head); NULL when the caller's */
    pg_run **bases;           /* the baseline runs (of a stored decision: those still stored) */
    size_t nbases;
    pg_selection selection;   /* the baseline runs' ids and how they were chosen */
    pg_comparison *cmp;
    int decided;              /* cmp is the decision the gate stored for `head`, not a comparison made now */
    pg_decision decision;     /* that decision as stored (decided), else empty */
    pg_run *base_stub;        /* the first baseline run as the decision names it (cmp->base); NULL */
    pg_report_origin origin;  /* where the decided run sat on GitHub, as the gate's reports said; empty */
} pg_stored_comparison;

/* What a decision records beyond the comparison. */
typedef struct pg_decision_context {
    const pg_run *const *bases; /* the stored baseline runs compared (their ids and uuids are kept) */
    size_t nbases;
    const char *described;    /* how the baseline was chosen, and what selection left out */
    int confirmed;            /* regressions were re-measured before deciding */
    const pg_report_origin *origin; /* where the run sat on GitHub when its reports were written; NULL */
} pg_decision_context;

/**
 * The decision `cmp` amounts to for the stored run `run_id`, as the store
 * keeps it (store/types.h): the outcome and every case's verdict with its
 * estimate, the baseline runs (or the base build), the suite guard and the
 * canaries. @param ctx may be NULL (no stored baseline runs).
 * @param[out] out free with pg_decision_clear().
 */
int pg_decision_from(pg_decision *out, const pg_comparison *cmp, int64_t run_id, const pg_decision_context *ctx);

/**
 * The comparison a stored decision holds, its cases pointing into `head`
 * and the first of `bases` (the baseline runs still stored) with each key;
 * the outcome, reasons and numbers are the stored ones, not recomputed.
 * @param[out] out free with pg_comparison_free().
 * @param[out] out_base the first baseline run as the decision named it (cmp->base; metadata only, no results),
 *             or NULL; free with pg_run_free() after `out`.
 * @return 0; PG_EFORMAT for a decision this perfgate cannot read.
 */
int pg_decision_to(pg_comparison **out, pg_run **out_base, const pg_decision *d, const pg_run *head,
                   const pg_run *const *bases, size_t nbases);

/** Where the decided run sat on GitHub when the gate wrote its reports (empty when nowhere). */
int pg_decision_origin(pg_report_origin *out, const pg_decision *d);

/**
 * Loads the run `head_sel` selects (NULL: the latest) with the decision the
 * gate stored for it (c->decided), as `report`, `post` and the HTML report
 * show it; a run without one (stored by `perfgate run`, or by a perfgate
 * that kept none) is compared now as pg_stored_compare_head() does.
 * @param[out] out free with pg_stored_clear().
 */
int pg_stored_decision_head(pg_stored_comparison *out, pg_store *store, const char *head_sel);

/**
 * Whether the stored decision of c->head (read into c->decision when one
 * exists) says otherwise than the comparison c->cmp made now: another
 * outcome, or another verdict for a case. 0 when none was stored.
 */
int pg_stored_decision_differs(pg_stored_comparison *c, pg_store *store);

/**
 * Selects the baseline of `head` (already stored: head->id is set) that
 * `base_sel` names in `store` (NULL: the default rule of select.h) and loads
 * its runs. An empty selection is no error: a first run has no baseline.
 * @param[out] out free with pg_stored_clear(); `head` must outlive it.
 */
int pg_stored_select(pg_stored_comparison *out, pg_store *store, const pg_run *head, const char *base_sel,
                     const pg_select_options *so);

/** Compares the head of `c` with its loaded baseline runs into c->cmp. */
int pg_stored_compare(pg_stored_comparison *c, const pg_compare_options *co);

/**
 * Loads the run `head_sel` selects (NULL: the latest) and compares it with
 * its baseline, as `perfgate compare`, `report` and `post` do.
 * @param[out] out free with pg_stored_clear().
 */
int pg_stored_compare_head(pg_stored_comparison *out, pg_store *store, const char *head_sel, const char *base_sel,
                      const pg_select_options *so, const pg_compare_options *co);
void pg_stored_clear(pg_stored_comparison *c);

/*
 * Shared by the files of the gate (gate.c, diagnose.c, accepted.c), no
 * interface of it.
 */
/** The case with this key among the loaded suites; NULL when absent. */
const pg_case *pg__gate_find_case(const pg_suite_set *set, const char *key);

/**
 * For every REGRESSED timed case of an interleaved gate's comparison that
 * has no diagnosis yet (a trace case has its trace's): counts it on both
 * builds (instructions per function and est. cycles where Valgrind is,
 * heap bytes and allocations, the BLAS calls of a `count: blas` command)
 * and attaches what changed (cause.h). Nothing runs without such a case.
 * Counting that fails is said in the case's diagnosis and in `said` (one
 * line for the gate's progress), never an error of the gate.
 * @return 0 or PG_ENOMEM.
 */
int pg__gate_diagnose(pg_comparison *cmp, const pg_suite_set *set, const pg_gate_options *o, pg_buf *said);

/**
 * The suites' `accept:` entries (suite.h) in a history-mode gate: an entry
 * accepts the REGRESSED cases it names while the run's commit is its
 * `since` or one of the next recorded on the run's branch, `commits` in
 * all. An interleaved gate, or one without a store, applies none (a pull
 * request accepts with a label) and says so when one would have mattered.
 * What was done is said in `said`.
 * @return 0, a store error, or PG_ENOMEM.
 */
int pg__gate_accept_suites(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o, pg_buf *said);

/**
 * The stored run `head_id` compared with the runs named by uuid in `uuids`
 * (space-separated; those no longer stored are left out), as the
 * nightly's issues compare tonight with the nights before a change.
 * @param[out] out free with pg_stored_clear().
 */
int pg_stored_compare_uuids(pg_stored_comparison *out, pg_store *store, int64_t head_id, const char *uuids,
                            const pg_compare_options *co);

#endif
