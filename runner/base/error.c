/* error.c - the PG_E* table, pg_strerror() and the per-thread last message. */
#include "perfgate/errors.h"

#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[1024];

const char *pg_strerror(int code)
{
    switch (code) {
    case PG_OK:
        return "success";
#define PG__ERR_STR(name, value, cls, desc) \
    case name:                              \
        return desc;
        PG_ERRNO_MAP(PG__ERR_STR)
#undef PG__ERR_STR
    default:
        return "unknown error";
    }
}

int pg_error_exit_code(int code)
{
    switch (code) {
#define PG__ERR_EXIT(name, value, cls, desc) \
    case name:                               \
        return cls;
        PG_ERRNO_MAP(PG__ERR_EXIT)
#undef PG__ERR_EXIT
    default:
        return code < 0 ? 3 : 0;
    }
}

const char *pg_error_last(void)
{
    return last_message[0] ? last_message : "no detail";
}

int pg_error_set(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(last_message, sizeof(last_message), fmt, ap);
    va_end(ap);
    /*
     * Messages are one line of plain text: they quote names and values from
     * files and reports, so a newline or an escape sequence in one is folded
     * here, whoever forgot to (base/text.h).
     */
    pg__text_plain_inplace(last_message, 0);
    return code;
}

void pg_error_clear(void)
{
    last_message[0] = '\0';
}
