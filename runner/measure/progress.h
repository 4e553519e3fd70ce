/*
 * progress.h - what a long measurement prints while it runs: on a terminal
 * one line rewritten in place, in a log (every CI job) one line per
 * finished item, and on GitHub Actions a collapsible group around it all.
 * The caller picks the mode once (pg_progress_mode_for) and passes it down;
 * nothing here prints on stdout, which stays for the reports.
 */
#ifndef PG_PROGRESS_H
#define PG_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/model.h"

typedef enum pg_progress_mode {
    PG_PROGRESS_NONE = 0, /* print nothing */
    PG_PROGRESS_TTY,      /* one line rewritten with \r: a terminal */
    PG_PROGRESS_LINES     /* one line per finished item: a log or a file */
} pg_progress_mode;

/**
 * The mode for progress written to `out`: NONE for NULL, TTY for a terminal
 * (unless TERM=dumb, which cannot erase a line), LINES for anything else.
 */
pg_progress_mode pg_progress_mode_for(FILE *out);

/* One measurement's progress: `total` items, counted as they finish. */
typedef struct pg_progress {
    pg_progress_mode mode;
    FILE *out;
    size_t total, done;
    int64_t t0;           /* pg__mono_ns() at begin */
    const char *label;    /* before the count: "round " gives "[round 3/20]"; "" after begin */
    int group;            /* a GitHub Actions ::group:: is open */
} pg_progress;

/**
 * Starts counting `total` items. With GITHUB_ACTIONS=true (and a mode other
 * than NONE) opens a group named `title`; NULL: no group.
 */
void pg_progress_begin(pg_progress *p, pg_progress_mode mode, FILE *out, size_t total, const char *title);

/** TTY: shows `what` as the item now running, with the time spent and an estimate of what is left. */
void pg_progress_running(pg_progress *p, const char *what);

/** Counts one item done; LINES: prints "[k/N] what  detail  Xs elapsed, ~Ys left" (`detail` NULL: none). */
void pg_progress_finished(pg_progress *p, const char *what, const char *detail);

/** pg_progress_finished() for a measured case: its median, samples, or why it has none. */
void pg_progress_case(pg_progress *p, const pg_result *r);

/** LINES: prints one line that is not counted (an exact check, a note); a newline is added. */
void pg_progress_line(pg_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Clears the TTY line and closes the group; then prints nothing more (ending twice is harmless). */
void pg_progress_end(pg_progress *p);

#endif
