/*
 * count_abi.h - what the BLAS-counting preload library (count/count.c) and
 * the runner that reads its output (count.c) agree on.
 *
 * The runner sets PG_COUNT_ENV_DIR to a fresh directory and preloads the
 * library; every process of the program that exits normally writes
 * DIR/count.PID.tsv: the line PG_COUNT_MAGIC, then one line per distinct
 * call (tab-separated: op, calling function, range path or empty, shape,
 * calls, FLOPs), the line PG_COUNT_OVERFLOW when a count overflowed, and
 * a line "PG_COUNT_UNFORWARDED<TAB>NAME" for each BLAS name the program
 * called that no library in it defines (the call did nothing).
 */
#ifndef PG_COUNT_ABI_H
#define PG_COUNT_ABI_H

#define PG_COUNT_ENV_DIR "PERFGATE_COUNT_DIR"
#define PG_COUNT_MAGIC "perfgate-count 1"
#define PG_COUNT_OVERFLOW "overflow"
#define PG_COUNT_UNFORWARDED "unforwarded"
#define PG_COUNT_LIBRARY "libperfgate_count.so"

#endif
