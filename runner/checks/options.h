/* options.h - how exact checks run; shared by the dispatcher (checks.h) and the kinds (kinds.h). */
#ifndef PG_CHECKS_OPTIONS_H
#define PG_CHECKS_OPTIONS_H

/** Options of pg_check_run(). Initialise with PG_CHECK_OPTIONS_INIT. */
typedef struct pg_check_options {
    unsigned version;
    const char *trace_dir;   /* when set, recordings are exported there as Chrome traces */
} pg_check_options;

#define PG_CHECK_OPTIONS_VERSION 1
#define PG_CHECK_OPTIONS_INIT {PG_CHECK_OPTIONS_VERSION, NULL}

#endif
