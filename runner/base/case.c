/*
 * case.c - one benchmark case: its key, its parameters and what it owns.
 */
#include "base/case.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const instrument_names[] = {"time", "instructions", "memory"};

const char *pg_instrument_name(unsigned bit)
{
    size_t i;

    for (i = 0; i < sizeof(instrument_names) / sizeof(instrument_names[0]); i++)
        if (bit == 1u << i)
            return instrument_names[i];
    return NULL;
}

unsigned pg_instrument_parse(const char *name)
{
    size_t i;

    for (i = 0; name && i < sizeof(instrument_names) / sizeof(instrument_names[0]); i++)
        if (strcmp(name, instrument_names[i]) == 0)
            return 1u << i;
    return 0;
}

int pg__case_finish(pg_case *c)
{
    pg_buf key = PG_BUF_INIT, json = PG_BUF_INIT;
    size_t i;

    pg__buf_printf(&key, "%s/%s[", c->suite, c->name);
    pg__buf_puts(&json, "{");
    for (i = 0; i < c->nparams; i++) {
        pg__buf_printf(&key, "%s%s=%s", i ? "," : "", c->params[i].name, c->params[i].value);
        if (i)
            pg__buf_puts(&json, ",");
        pg__buf_json_string(&json, c->params[i].name);
        pg__buf_puts(&json, ":");
        if (c->params[i].is_number)
            pg__buf_puts(&json, c->params[i].value);
        else
            pg__buf_json_string(&json, c->params[i].value);
    }
    pg__buf_printf(&key, "]@%d:%s", c->threads, c->device);
    pg__buf_puts(&json, "}");
    if (!key.ptr || !json.ptr) {
        pg__buf_clear(&key);
        pg__buf_clear(&json);
        return PG_ENOMEM;
    }
    c->key = pg__buf_detach(&key);
    c->params_json = pg__buf_detach(&json);
    return 0;
}

void pg_case_clear(pg_case *c)
{
    size_t i;

    free(c->key);
    free(c->suite);
    free(c->name);
    free(c->kernel);
    free(c->plugin);
    free(c->symbol);
    if (c->command)
        for (i = 0; c->command[i]; i++)
            free(c->command[i]);
    free(c->command);
    free(c->device);
    free(c->metrics);
    free(c->trace);
    free(c->trace_step);
    for (i = 0; i < c->ntrace_ops; i++)
        free(c->trace_ops[i]);
    free(c->trace_ops);
    for (i = 0; i < c->ntrace_metrics; i++)
        free(c->trace_metrics[i]);
    free(c->trace_metrics);
    for (i = 0; i < c->nparams; i++) {
        free(c->params[i].name);
        free(c->params[i].value);
    }
    free(c->params);
    free(c->params_json);
    for (i = 0; i < c->ntags; i++)
        free(c->tags[i]);
    free(c->tags);
    memset(c, 0, sizeof(*c));
}

const pg_param *pg_case_param(const pg_case *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->nparams; i++)
        if (strcmp(c->params[i].name, name) == 0)
            return &c->params[i];
    return NULL;
}

int64_t pg_case_param_int(const pg_case *c, const char *name, int64_t dflt)
{
    const pg_param *p = pg_case_param(c, name);
    char *end;
    long long v;

    if (!p || !p->is_number)
        return dflt;
    /* Integers exactly from their text; other numbers truncated when they fit (1e70 does not). */
    errno = 0;
    v = strtoll(p->value, &end, 10);
    if (end != p->value && !*end && !errno)
        return v;
    if (p->num > -9223372036854775808.0 && p->num < 9223372036854775808.0)
        return (int64_t)p->num;
    /* A number given is never replaced by the default: past int64 it is the nearest end (the kernel refuses it). */
    return p->num > 0 ? INT64_MAX : INT64_MIN;
}

double pg_case_param_double(const pg_case *c, const char *name, double dflt)
{
    const pg_param *p = pg_case_param(c, name);

    return p && p->is_number ? p->num : dflt;
}

const char *pg_case_param_str(const pg_case *c, const char *name, const char *dflt)
{
    const pg_param *p = pg_case_param(c, name);

    return p ? p->value : dflt;
}
