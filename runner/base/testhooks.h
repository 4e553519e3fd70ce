/*
 * testhooks.h - test-only fault injection, compiled in only with the CMake
 * option PG_TEST_HOOKS (ON in ci/test.sh, OFF by default: release builds
 * never read the variable).
 *
 * PG_TEST_SLOWDOWN='GLOB=FACTOR[,GLOB=FACTOR...]', e.g. 'cpu/sgemm*=1.10' (in GLOB, [ opens a
 * character class: match a key's brackets with ?, as in 'cpu/sgemm?n=256?@*=1.1'):
 * every CPU kernel case whose key matches GLOB spins after each timed block
 * for (FACTOR - 1) times the block's own duration, so its measured time per
 * iteration grows by FACTOR whatever the machine does meanwhile.
 *
 * PG_TEST_WORKER_GARBAGE=N: see pg__test_worker_garbage().
 *
 * PG_TEST_TURN_LOCK=FILE: see pg__test_turn_begin().
 *
 * PG_TEST_NO_RANDOM=1: see pg__test_no_random().
 */
#ifndef PG_TESTHOOKS_H
#define PG_TESTHOOKS_H

/**
 * The slowdown factor for the case `key` (1.0: none; always 1.0 without
 * PG_TEST_HOOKS). A malformed entry is ignored.
 */
double pg__test_slowdown(const char *key);

/** Busy-waits (no sleep: a sleeping core would not look like slower code) for `seconds`. */
void pg__test_spin(double seconds);

/**
 * PG_TEST_WORKER_GARBAGE=N: a plugin worker process (plugin.h) answers its
 * N-th request with bytes that are no result record. @return 1 for that
 * request (always 0 without PG_TEST_HOOKS).
 */
int pg__test_worker_garbage(unsigned request);

/**
 * PG_TEST_TURN_LOCK=FILE: around each block a lockstep plugin process runs
 * in its turn, an exclusive lock on FILE; a block that finds it held (the
 * other build running a block at the same time: lockstep broken) appends a
 * line to FILE.overlap. Returns the descriptor to pass to
 * pg__test_turn_end() (-1: none; always without PG_TEST_HOOKS).
 */
int pg__test_turn_begin(void);
void pg__test_turn_end(int fd);

/**
 * PG_TEST_NO_RANDOM=1: the kernel's random generator answers as if it had
 * failed, for the code that must then fail closed (a run's uuid). @return 1
 * then (always 0 without PG_TEST_HOOKS).
 */
int pg__test_no_random(void);

#endif
