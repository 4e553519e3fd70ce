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
    pg__buf_puts(&key, "]");
    for (i = 0; i < c->nenv; i++) {
        const char *v = c->env[i], *eq = strchr(v, '=');
        pg__buf_printf(&key, "%s%.*s=", i ? "," : "{", (int)(eq - v), v);
        for (v = eq + 1; *v; v++)
            if (strchr("%,={}[]@", *v) || (unsigned char)*v < 0x20 || *v == 0x7f)
                pg__buf_printf(&key, "%%%02X", (unsigned char)*v);
            else
                pg__buf_printf(&key, "%c", *v);
    }
    pg__buf_printf(&key, "%s@%d:%s", c->nenv ? "}" : "", c->threads, c->device);
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

/* The length of the name of "NAME=VALUE". */
static size_t name_len(const char *entry)
{
    return strcspn(entry, "=");
}

int pg_case_sets(const pg_case *c, const char *entry)
{
    size_t i, n = name_len(entry);

    for (i = 0; c && i < c->nenv; i++)
        if (name_len(c->env[i]) == n && strncmp(c->env[i], entry, n) == 0)
            return 1;
    return 0;
}

char **pg_case_environ(const pg_case *c, char *const *base)
{
    size_t n = 0, i, j = 0;
    char **env;

    while (base && base[n])
        n++;
    if (!(env = calloc(n + c->nenv + 1, sizeof(char *))))
        return NULL;
    for (i = 0; i < n; i++)
        if (!pg_case_sets(c, base[i]))
            env[j++] = base[i];
    for (i = 0; i < c->nenv; i++)
        env[j++] = c->env[i];
    return env;
}

int pg_case_setenv(const pg_case *c, const pg_case *prev)
{
    char name[256];
    size_t i, n;

    for (i = 0; prev && i < prev->nenv; i++) {
        n = name_len(prev->env[i]);
        if (n < sizeof(name) && !pg_case_sets(c, prev->env[i])) {
            memcpy(name, prev->env[i], n);
            name[n] = '\0';
            unsetenv(name);
        }
    }
    for (i = 0; i < c->nenv; i++) {
        char *copy = pg__strdup(c->env[i]);
        if (!copy)
            return -1;
        copy[name_len(copy)] = '\0';
        if (setenv(copy, copy + strlen(copy) + 1, 1) != 0) {
            free(copy);
            return -1;
        }
        free(copy);
    }
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
    for (i = 0; i < c->nenv; i++)
        free(c->env[i]);
    free(c->env);
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
