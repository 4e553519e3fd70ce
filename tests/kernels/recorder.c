/* recorder.c - the logging test instrument and fresh seeds. */
#include "recorder.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void op_begin(void *p, const char *name, const char *shape)
{
    recorder *r = p;

    (void)shape;
    pg__buf_printf(&r->log, "op+ %s\n", name);
    if (++r->depth > r->max_depth)
        r->max_depth = r->depth;
}

static void op_end(void *p, const char *name)
{
    recorder *r = p;

    pg__buf_printf(&r->log, "op- %s\n", name);
    r->depth--;
}

static void gemm(void *p, const char *name, int64_t m, int64_t n, int64_t k)
{
    recorder *r = p;

    (void)name;
    r->flops += 2.0 * (double)m * (double)n * (double)k;
}

static void range_push(void *p, const char *name)
{
    pg__buf_printf(&((recorder *)p)->log, "range+ %s\n", name);
}

static void range_pop(void *p, const char *name)
{
    pg__buf_printf(&((recorder *)p)->log, "range- %s\n", name);
}

static void module_push(void *p, const char *path, int backward)
{
    pg__buf_printf(&((recorder *)p)->log, "mod+ %s%s\n", path, backward ? " bw" : "");
}

static void module_pop(void *p, const char *path)
{
    pg__buf_printf(&((recorder *)p)->log, "mod- %s\n", path);
}

void recorder_start(recorder *r)
{
    pg_buf empty = PG_BUF_INIT;

    memset(r, 0, sizeof(*r));
    r->log = empty;
    pg__buf_puts(&r->log, "");
    r->ins.op_begin = op_begin;
    r->ins.op_end = op_end;
    r->ins.gemm = gemm;
    r->ins.range_push = range_push;
    r->ins.range_pop = range_pop;
    r->ins.module_push = module_push;
    r->ins.module_pop = module_pop;
    r->ins.payload = r;
    pg__instrument_set(&r->ins);
}

void recorder_stop(recorder *r)
{
    pg__instrument_set(NULL);
    pg__buf_clear(&r->log);
}

int recorder_count(const recorder *r, const char *line)
{
    const char *p = r->log.ptr;
    size_t n = strlen(line);
    int count = 0;

    while (p && (p = strstr(p, line)) != NULL) {
        if ((p == r->log.ptr || p[-1] == '\n') && p[n] == '\n')
            count++;
        p += n;
    }
    return count;
}

uint64_t fresh_seed(void)
{
    struct timespec ts;
    const char *fixed = getenv("PG_TEST_SEED");

    if (fixed && *fixed) {
        char *end;
        unsigned long long v = strtoull(fixed, &end, 0);
        cr_assert(*end == '\0', "PG_TEST_SEED='%s' is not a number", fixed);
        return (uint64_t)v;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
}
