/*
 * region.h - the measured region of this process, for instruments that
 * count instead of timing.
 *
 * The plugin host starts and stops its clock exactly around a benchmark's
 * timed region (its iterate call, its pg_keep_running() loop less what
 * pg_pause_timing() excludes); the built-in kernel path does the same
 * around run(). Both also call pg__region_enter()/pg__region_leave(), which
 * do nothing unless a counting instrument (meter/) installed hooks: then
 * Callgrind collects, or the allocation counter counts, only inside the
 * region. Calls must pair; a second enter without a leave is ignored.
 */
#ifndef PG_REGION_H
#define PG_REGION_H

typedef struct pg_region_hooks {
    void (*enter)(void *payload);
    void (*leave)(void *payload);
    void *payload;
} pg_region_hooks;

/** Installs `hooks` (copied) for this process; NULL removes them. */
void pg__region_set(const pg_region_hooks *hooks);

/** The measured region begins: the installed enter hook runs once. */
void pg__region_enter(void);

/** The measured region ends: the installed leave hook runs once. */
void pg__region_leave(void);

#endif
