/*
 * perfgate/region.h - marks the measured regions of a program that a
 * `command:` case runs under perfgate's `instructions` instrument.
 *
 * Without marks the whole process is counted (start-up, argument parsing,
 * output and all). With them, only what runs between
 * PERFGATE_REGION_BEGIN() and PERFGATE_REGION_END() is: each marked region
 * is one iteration, and the result is the count per region (the mean when
 * there are several, so mark the same work each time). Regions must not
 * nest. The marks are Callgrind's client requests (<valgrind/callgrind.h>
 * from Valgrind's development files, Debian's `valgrind` package): a
 * region begins with CALLGRIND_ZERO_STATS and ends with
 * CALLGRIND_DUMP_STATS_AT, so a program may use those macros directly to
 * the same effect. Outside Valgrind they cost a few instructions; where
 * the header is missing (or with PERFGATE_NO_VALGRIND defined) they do
 * nothing and the whole process is counted.
 *
 * Header-only; compiles alone as C11 and C++17 with
 * -Wall -Wextra -pedantic -Werror (tests/header checks it).
 */
#ifndef PERFGATE_REGION_H
#define PERFGATE_REGION_H

#if !defined(PERFGATE_NO_VALGRIND) && defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PERFGATE_REGION_BEGIN() CALLGRIND_ZERO_STATS
#define PERFGATE_REGION_END() CALLGRIND_DUMP_STATS_AT("perfgate-region")
#endif
#endif

#ifndef PERFGATE_REGION_BEGIN
#define PERFGATE_REGION_BEGIN() ((void)0)
#define PERFGATE_REGION_END() ((void)0)
#endif

#endif
