/*
 * export.c - writing recordings as Chrome traces (Trace Event Format,
 * object form), loadable in ui.perfetto.dev and chrome://tracing.
 */
#include "trace/trace.h"

#include "perfgate/config.h"
#include "perfgate/errors.h"
#include "base/outfile.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Microseconds with nanosecond digits, without going through a double. */
static int put_micros(pg_buf *b, int64_t ns)
{
    const char *sign = ns < 0 ? "-" : "";
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

    return pg__buf_printf(b, "%s%llu.%03llu", sign, (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
}

static int is_integer_text(const char *s)
{
    if (*s == '-')
        s++;
    if (!*s || strlen(s) > 15)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* pid/tid go out as numbers when they were numbers (Perfetto groups by them). */
static int put_id(pg_buf *b, const char *s)
{
    return is_integer_text(s) ? pg__buf_puts(b, s) : pg__buf_json_string(b, s);
}

static int flush(FILE *f, pg_buf *b)
{
    if (b->len && fwrite(b->ptr, 1, b->len, f) != b->len)
        return pg_error_set(PG_EIO, "writing a trace: %s", strerror(errno));
    b->len = 0;
    return 0;
}

int pg_trace_write_chrome(FILE *f, const pg_trace *t, const char *label)
{
    pg_buf b = PG_BUF_INIT;
    uint64_t *tracks = NULL;
    size_t i, j, ntracks = 0, tcap = 0;
    int err = 0;

    pg__buf_printf(&b, "{\"schemaVersion\": 1, \"displayTimeUnit\": \"ms\", \"otherData\": {\"producer\": "
                       "\"perfgate %s\", \"label\": ", PG_VERSION_STRING);
    pg__buf_json_string(&b, label ? label : "");
    pg__buf_puts(&b, "},\n\"traceEvents\": [\n");
    for (i = 0; i < t->nevents && !err; i++) {
        const pg_trace_event *e = &t->events[i];
        int nargs = 0;
        pg__buf_puts(&b, i ? ",\n{\"ph\": \"X\", \"cat\": " : "{\"ph\": \"X\", \"cat\": ");
        pg__buf_json_string(&b, pg_trace_str(t, e->cat));
        pg__buf_puts(&b, ", \"name\": ");
        pg__buf_json_string(&b, pg_trace_str(t, e->name));
        pg__buf_puts(&b, ", \"pid\": ");
        put_id(&b, pg_trace_str(t, e->pid));
        pg__buf_puts(&b, ", \"tid\": ");
        put_id(&b, pg_trace_str(t, e->tid));
        pg__buf_puts(&b, ", \"ts\": ");
        put_micros(&b, e->ts);
        pg__buf_puts(&b, ", \"dur\": ");
        put_micros(&b, e->dur);
        pg__buf_puts(&b, ", \"args\": {");
        if (e->shape) {
            pg__buf_puts(&b, "\"Input Dims\": ");
            pg__buf_json_string(&b, pg_trace_str(t, e->shape));
            nargs++;
        }
        if (e->correlation >= 0)
            pg__buf_printf(&b, "%s\"correlation\": %lld", nargs++ ? ", " : "", (long long)e->correlation);
        if (e->external_id >= 0)
            pg__buf_printf(&b, "%s\"External id\": %lld", nargs++ ? ", " : "", (long long)e->external_id);
        pg__buf_puts(&b, "}}");
        if (b.len >= 1 << 16)
            err = flush(f, &b);
    }
    /* Name each process and thread once so Perfetto labels the tracks. */
    for (i = 0; i < t->nevents && !err; i++) {
        const pg_trace_event *e = &t->events[i];
        int seen_pid = 0, seen_tid = 0;
        uint64_t key = ((uint64_t)e->pid << 32) | e->tid;
        for (j = 0; j < ntracks; j++) {
            seen_pid |= (uint32_t)(tracks[j] >> 32) == e->pid;
            seen_tid |= tracks[j] == key;
        }
        if (seen_tid)
            continue;
        if (ntracks == tcap) {
            uint64_t *p = realloc(tracks, (tcap = tcap ? tcap * 2 : 16) * sizeof(*p));
            if (!p) {
                err = pg_error_set(PG_ENOMEM, "out of memory writing a trace");
                break;
            }
            tracks = p;
        }
        tracks[ntracks++] = key;
        if (!seen_pid) {
            pg__buf_puts(&b, ",\n{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": ");
            put_id(&b, pg_trace_str(t, e->pid));
            pg__buf_puts(&b, ", \"tid\": 0, \"args\": {\"name\": ");
            pg__buf_json_string(&b, e->device ? "GPU" : "perfgate");
            pg__buf_puts(&b, "}}");
        }
        pg__buf_puts(&b, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": ");
        put_id(&b, pg_trace_str(t, e->pid));
        pg__buf_puts(&b, ", \"tid\": ");
        put_id(&b, pg_trace_str(t, e->tid));
        pg__buf_puts(&b, ", \"args\": {\"name\": ");
        pg__buf_json_string(&b, e->device ? "stream" : "workload");
        pg__buf_puts(&b, "}}");
    }
    if (!err)
        pg__buf_puts(&b, "\n]}\n");
    if (!err && b.ptr == NULL)
        err = pg_error_set(PG_ENOMEM, "out of memory writing a trace");
    if (!err)
        err = flush(f, &b);
    pg__buf_clear(&b);
    free(tracks);
    return err;
}

int pg_trace_export_file(const char *path, const pg_trace *t, const char *label)
{
    pg_outfile out;
    int err;

    /* Written beside its name and renamed over it only when whole (base/outfile.h). */
    if ((err = pg__outfile_open(&out, path, "trace")) != 0)
        return err;
    if ((err = pg_trace_write_chrome(out.f, t, label)) != 0) {
        pg__outfile_abort(&out);
        return err;
    }
    return pg__outfile_commit(&out, "trace");
}
