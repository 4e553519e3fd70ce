/* model.c - allocation and lookup for the result model. */
#include "base/model.h"

#include "perfgate/errors.h"
#include "base/testhooks.h"
#include "base/util.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static const char *status_names[] = {"ok", "skipped", "error"};

const char *pg_status_name(pg_status s)
{
    return (unsigned)s < 3 ? status_names[s] : "unknown";
}

int pg_status_parse(pg_status *out, const char *name)
{
    int i;

    for (i = 0; i < 3; i++)
        if (name && strcmp(name, status_names[i]) == 0) {
            *out = (pg_status)i;
            return 0;
        }
    return pg_error_set(PG_EINVAL, "unknown result status '%s'", name ? name : "(null)");
}

static const char *const mode_names[PG_MODE__COUNT] = {"plain", "interleaved-head", "interleaved-base", "counted"};

const char *pg_run_mode_name(pg_run_mode m)
{
    return (unsigned)m < PG_MODE__COUNT ? mode_names[m] : "unknown";
}

int pg_run_mode_parse(pg_run_mode *out, const char *name)
{
    int i;

    for (i = 0; i < PG_MODE__COUNT; i++)
        if (name && strcmp(name, mode_names[i]) == 0) {
            *out = (pg_run_mode)i;
            return 0;
        }
    return pg_error_set(PG_EINVAL, "unknown run mode '%s'", name ? name : "(null)");
}

int pg__uuid4(char out[37])
{
    unsigned char b[16];
    size_t got = 0;

    /*
     * The kernel's generator, or no uuid at all: merges take equal uuids for
     * one run, so a guessable fallback (time and pid) could drop a run.
     */
    while (got < sizeof(b) && !pg__test_no_random()) {
        ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got < sizeof(b))
        return pg_error_set(PG_EIO, "cannot draw a random run id: the kernel's random generator failed (getrandom: "
                                    "%s)", got ? "short read" : strerror(errno ? errno : ENOSYS));
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
             b[11], b[12], b[13], b[14], b[15]);
    return 0;
}

int pg_run_new(pg_run **out)
{
    char uuid[37];
    pg_run *run = calloc(1, sizeof(*run));
    int err;

    *out = NULL;
    if (!run)
        return pg_error_set(PG_ENOMEM, "out of memory allocating a run");
    if ((err = pg__uuid4(uuid)) != 0) {
        free(run);
        return err;
    }
    run->uuid = pg__strdup(uuid);
    run->source = pg__strdup("perfgate");
    if (!run->uuid || !run->source) {
        pg_run_free(run);
        return pg_error_set(PG_ENOMEM, "out of memory allocating a run");
    }
    *out = run;
    return 0;
}

void pg__result_clear(pg_result *r)
{
    free(r->key);
    free(r->suite);
    free(r->name);
    free(r->params_json);
    free(r->device);
    free(r->metric);
    free(r->unit);
    free(r->message);
    free(r->samples);
    free(r->extra_json);
    memset(r, 0, sizeof(*r));
}

static int set_outcome(pg_result *out, pg_status status, const char *message)
{
    assert(out);
    out->status = status;
    out->absent = 0;
    free(out->message);
    out->message = pg__strdup(message);
    return 0;
}

int pg__result_absent(pg_result *out, const char *message)
{
    set_outcome(out, PG_STATUS_ERROR, message);
    out->absent = 1;
    return 0;
}

int pg__result_error(pg_result *out, const char *message)
{
    return set_outcome(out, PG_STATUS_ERROR, message);
}

int pg__result_skip(pg_result *out, const char *reason)
{
    return set_outcome(out, PG_STATUS_SKIPPED, reason);
}

void pg__check_clear(pg_check_result *c)
{
    free(c->suite);
    free(c->name);
    free(c->kind);
    free(c->expected);
    free(c->actual);
    free(c->message);
    free(c->detail);
    memset(c, 0, sizeof(*c));
}

void pg_run_free(pg_run *run)
{
    size_t i;

    if (!run)
        return;
    for (i = 0; i < run->nresults; i++)
        pg__result_clear(&run->results[i]);
    for (i = 0; i < run->nchecks; i++)
        pg__check_clear(&run->checks[i]);
    free(run->results);
    free(run->checks);
    free(run->uuid);
    free(run->suite_set);
    free(run->commit);
    free(run->branch);
    free(run->ref);
    free(run->ci_url);
    free(run->source);
    free(run->tool_version);
    free(run->machine_hash);
    free(run->machine_json);
    free(run);
}

int pg_run_add_result(pg_result **out, pg_run *run)
{
    pg_result *p = run->results;

    *out = NULL;
    /* Doubling: a run read back from a store has ten thousand results. */
    if (run->nresults + 1 > run->results_room) {
        size_t room = run->nresults < 4 ? 8 : 2 * run->nresults;
        if (!(p = realloc(run->results, room * sizeof(*p))))
            return pg_error_set(PG_ENOMEM, "out of memory adding a result");
        run->results = p;
        run->results_room = room;
    }
    memset(&p[run->nresults], 0, sizeof(*p));
    p[run->nresults].mfu = -1.0;
    *out = &p[run->nresults++];
    return 0;
}

int pg_run_add_check(pg_check_result **out, pg_run *run)
{
    pg_check_result *p = realloc(run->checks, (run->nchecks + 1) * sizeof(*p));

    *out = NULL;
    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory adding a check result");
    run->checks = p;
    memset(&p[run->nchecks], 0, sizeof(*p));
    *out = &p[run->nchecks++];
    return 0;
}

void pg_run_swap_results(pg_run *a, pg_run *b)
{
    pg_result *results;
    size_t n;

    assert(a && b);
    results = a->results;
    n = a->nresults;
    a->results = b->results;
    a->nresults = b->nresults;
    b->results = results;
    b->nresults = n;
    n = a->results_room;
    a->results_room = b->results_room;
    b->results_room = n;
}

pg_result *pg_run_find(const pg_run *run, const char *key)
{
    size_t i;

    for (i = 0; i < run->nresults; i++)
        if (strcmp(run->results[i].key, key) == 0)
            return &run->results[i];
    return NULL;
}
