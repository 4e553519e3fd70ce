/*
 * internal.h - what the files of ab/ share and nothing else calls: the
 * rounds of one case as they are measured (ab.c runs them), kept or left
 * out and described (rounds.c).
 */
#ifndef PG_AB_INTERNAL_H
#define PG_AB_INTERNAL_H

#include "base/case.h"
#include "base/model.h"
#include "verdict/model.h"

struct pg_ab_options;

/* The rounds of one case on both sides. */
typedef struct ab_case {
    const pg_case *c;
    double threshold;         /* the case's (or the options') threshold: what counts as drift in a round */
    double *vals[2];          /* per-round medians of the rounds kept: [0] base, [1] head */
    double *lows[2];          /* per-round fastest tenths (PG_LOW_QUANTILE) of the rounds kept */
    size_t n[2];
    pg_result last[2];        /* the last round of each side: flops, bytes, status */
    pg_result pend[2];        /* this round's sides, until both are in and the round is kept or left out */
    int have[2];
    int failed[2];
    double *d, *dl;           /* per-round log(head/base) of the medians and the fastest tenths, for the looks */
    int round;                /* the round being measured (0-based), for on_round */
    pg_round_notes notes;     /* what the rounds looked like */
    double *fast, *slow, *share, *drift; /* per side of a round kept: two regimes' centres and slow share; drift */
    size_t nbimodal, ndrift;
} ab_case;

/* A round is left out when a side lost at least this share of its wall time to waiting for a CPU or steal:
   the process did not get its core, and its blocks measure the neighbour as much as the code. */
#define PG_AB_LEFT_OUT_SHARE 0.5

/* Rounds after which the job stops when every open case has had each of its rounds left out: a machine that
   busy for that long gives no evidence, and the rest of the rounds would take as long again for nothing. */
#define PG_AB_BUSY_ROUNDS 3

/** Whether `ac` has had PG_AB_BUSY_ROUNDS rounds or more and every one was left out for contention. */
int pg__ab_case_starved(const ab_case *ac);

/** Allocates the per-round arrays of `ac` for `rounds` rounds. */
int pg__ab_case_init(ab_case *ac, const pg_case *c, double threshold, int rounds);
void pg__ab_case_clear(ab_case *ac);

/**
 * Takes side `which` of this round (`r`, taken): a failed side marks the
 * case failed; a measured one waits in pend[] for the other side.
 */
int pg__ab_keep(ab_case *ac, int which, pg_result *r, const struct pg_ab_options *o);

/**
 * Both sides of this round are in: the round is kept (its values join the
 * rounds, its log ratios d and dl) or left out for contention; either way
 * its contention, regimes and transients go into the notes.
 * @return 1 kept, 0 left out (or a side failed), or a negative PG_E* code.
 */
int pg__ab_settle(ab_case *ac, const struct pg_ab_options *o);

/** The notes of `ac` with the medians of its regimes and drifts filled in. */
void pg__ab_notes(pg_round_notes *out, const ab_case *ac);

/** Fills a result of one side from its rounds (`rounds`: how many it should have had). */
int pg__ab_side_result(pg_run *run, const ab_case *ac, int which, int rounds);

#endif
