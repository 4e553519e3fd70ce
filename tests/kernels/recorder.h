/* recorder.h - a test instrument that logs every op, range and module hook as text. */
#ifndef PG_TEST_RECORDER_H
#define PG_TEST_RECORDER_H

#include <stdint.h>

#include "base/instrument.h"
#include "base/util.h"

typedef struct recorder {
    pg_buf log;          /* one event per line: "op+ NAME", "op- NAME", "range+ NAME", "mod+ PATH bw" ... */
    double flops;        /* 2*m*n*k summed over GEMMs */
    int depth;           /* current op nesting */
    int max_depth;
    pg_instrument ins;
} recorder;

/** Installs a fresh recorder; uninstall with recorder_stop(). */
void recorder_start(recorder *r);
void recorder_stop(recorder *r);
/** Occurrences of `line` as a whole line in the log. */
int recorder_count(const recorder *r, const char *line);

/**
 * A per-test random seed from time and pid, so inputs are fresh on every
 * run; PG_TEST_SEED=N (decimal or 0x hex) replays the inputs of the run
 * whose failure message named N.
 */
uint64_t fresh_seed(void);

#endif
