/* trace.c - the recording model: interned strings, events, nesting. */
#include "trace/trace.h"

#include "perfgate/errors.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int pg_trace_new(pg_trace **out)
{
    pg_trace *t = calloc(1, sizeof(*t));
    uint32_t id;

    *out = NULL;
    if (!t)
        return pg_error_set(PG_ENOMEM, "out of memory for a trace");
    /* String id 0 is always the empty string, so a zeroed event names "". */
    if (pg_trace_intern(&id, t, "", 0) != 0) {
        pg_trace_free(t);
        return PG_ENOMEM;
    }
    *out = t;
    return 0;
}

void pg_trace_free(pg_trace *t)
{
    size_t i;

    if (!t)
        return;
    for (i = 0; i < t->nstrs; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->shash);
    free(t->events);
    free(t->flops);
    free(t);
}

static uint64_t hash_bytes(const char *s, size_t len)
{
    /* FNV-1a: short names, few collisions, no dependencies. */
    uint64_t h = 1469598103934665603ULL;
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static int rehash(pg_trace *t, size_t cap)
{
    uint32_t *h = calloc(cap, sizeof(*h));
    size_t i;

    if (!h)
        return pg_error_set(PG_ENOMEM, "out of memory for a string table");
    for (i = 0; i < t->nstrs; i++) {
        size_t j = hash_bytes(t->strs[i], strlen(t->strs[i])) & (cap - 1);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = (uint32_t)i + 1;
    }
    free(t->shash);
    t->shash = h;
    t->shcap = cap;
    return 0;
}

int pg_trace_intern(uint32_t *out, pg_trace *t, const char *s, size_t len)
{
    size_t j;
    char *copy;

    if (t->nstrs * 2 >= t->shcap && rehash(t, t->shcap ? t->shcap * 2 : 256) != 0)
        return PG_ENOMEM;
    j = hash_bytes(s, len) & (t->shcap - 1);
    while (t->shash[j]) {
        const char *c = t->strs[t->shash[j] - 1];
        if (strncmp(c, s, len) == 0 && c[len] == '\0') {
            *out = t->shash[j] - 1;
            return 0;
        }
        j = (j + 1) & (t->shcap - 1);
    }
    if (t->nstrs == t->scap) {
        size_t cap = t->scap ? t->scap * 2 : 256;
        char **p = realloc(t->strs, cap * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory for a string table");
        t->strs = p;
        t->scap = cap;
    }
    if (!(copy = malloc(len + 1)))
        return pg_error_set(PG_ENOMEM, "out of memory for a string table");
    memcpy(copy, s, len);
    copy[len] = '\0';
    t->strs[t->nstrs] = copy;
    t->shash[j] = (uint32_t)t->nstrs + 1;
    *out = (uint32_t)t->nstrs++;
    return 0;
}

int pg__trace_set_flops(pg_trace *t, uint32_t seq, int64_t flops)
{
    if (t->nflops && t->flops[t->nflops - 1].seq >= seq)
        return pg_error_set(PG_EINVAL, "trace FLOPs recorded out of order");
    if (t->nflops == t->fcap) {
        size_t cap = t->fcap ? t->fcap * 2 : 64;
        pg_trace_flops *p = realloc(t->flops, cap * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory for trace FLOPs");
        t->flops = p;
        t->fcap = cap;
    }
    t->flops[t->nflops].seq = seq;
    t->flops[t->nflops++].flops = flops;
    return 0;
}

int64_t pg_trace_event_flops(const pg_trace *t, size_t ev)
{
    size_t lo = 0, hi = t->nflops;
    uint32_t seq;

    if (ev >= t->nevents)
        return -1;
    seq = t->events[ev].seq;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->flops[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->nflops && t->flops[lo].seq == seq ? t->flops[lo].flops : -1;
}

const char *pg_trace_str(const pg_trace *t, uint32_t id)
{
    return id < t->nstrs ? t->strs[id] : "";
}

int pg__trace_add(size_t *out, pg_trace *t, const pg_trace_event *ev)
{
    if (t->nevents == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        pg_trace_event *p = realloc(t->events, cap * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory for %zu trace events", cap);
        t->events = p;
        t->cap = cap;
    }
    t->events[t->nevents] = *ev;
    t->events[t->nevents].seq = (uint32_t)t->nevents;
    if (out)
        *out = t->nevents;
    t->nevents++;
    return 0;
}

static int event_cmp(const void *pa, const void *pb)
{
    const pg_trace_event *a = pa, *b = pb;

    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    /* On equal starts the longer event is the outer one. */
    if (a->dur != b->dur)
        return a->dur > b->dur ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A small open-addressing map from 64-bit keys to event or track indices. */
typedef struct idmap {
    uint64_t *keys;
    int64_t *vals;
    size_t cap, n;
} idmap;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int idmap_alloc(idmap *m, size_t cap)
{
    m->keys = malloc(cap * sizeof(*m->keys));
    m->vals = malloc(cap * sizeof(*m->vals));
    m->cap = cap;
    m->n = 0;
    if (!m->keys || !m->vals)
        return pg_error_set(PG_ENOMEM, "out of memory nesting trace events");
    memset(m->vals, 0xff, cap * sizeof(*m->vals)); /* -1: empty */
    return 0;
}

/* Maps start small and grow with their keys: a trace has few threads and
 * only its runtime calls carry correlation ids. */
static int idmap_init(idmap *m)
{
    return idmap_alloc(m, 64);
}

static void idmap_free(idmap *m)
{
    free(m->keys);
    free(m->vals);
}

/* Returns the slot of `key`: vals[slot] is -1 when the key is absent. */
static size_t idmap_slot(const idmap *m, uint64_t key)
{
    size_t j = mix64(key) & (m->cap - 1);

    while (m->vals[j] != -1 && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    return j;
}

static int64_t idmap_get(const idmap *m, uint64_t key)
{
    return m->vals[idmap_slot(m, key)];
}

static void idmap_set_slot(idmap *m, size_t j, uint64_t key, int64_t val)
{
    m->keys[j] = key;
    m->vals[j] = val;
    m->n++;
}

/* Keeps the load under one half; returns 0 or PG_ENOMEM. */
static int idmap_reserve(idmap *m)
{
    idmap bigger;
    size_t i;
    int err;

    if ((m->n + 1) * 2 <= m->cap)
        return 0;
    if ((err = idmap_alloc(&bigger, m->cap * 2)) != 0)
        return err;
    for (i = 0; i < m->cap; i++)
        if (m->vals[i] != -1)
            idmap_set_slot(&bigger, idmap_slot(&bigger, m->keys[i]), m->keys[i], m->vals[i]);
    idmap_free(m);
    *m = bigger;
    return 0;
}

/* Inserts unless present (the first one wins). */
static int idmap_put(idmap *m, uint64_t key, int64_t val)
{
    size_t j;
    int err;

    if ((err = idmap_reserve(m)) != 0)
        return err;
    j = idmap_slot(m, key);
    if (m->vals[j] == -1)
        idmap_set_slot(m, j, key, val);
    return 0;
}

static int is_runtime_cat(const char *cat)
{
    return strcasecmp(cat, "cuda_runtime") == 0 || strcasecmp(cat, "cuda_driver") == 0 ||
           strcasecmp(cat, "runtime") == 0;
}

int pg_trace_nest(pg_trace *t)
{
    idmap tracks = {0}, dtracks = {0}, corr = {0}, ext = {0};
    size_t *stack_top = NULL;  /* per track: index of its innermost open event, or SIZE_MAX */
    size_t i, ntracks = 0;
    int err;

    if (t->nevents == 0)
        return 0;
    qsort(t->events, t->nevents, sizeof(*t->events), event_cmp);
    if ((err = idmap_init(&tracks)) != 0 || (err = idmap_init(&dtracks)) != 0 || (err = idmap_init(&corr)) != 0 ||
        (err = idmap_init(&ext)) != 0)
        goto cleanup;
    if (!(stack_top = malloc(t->nevents * sizeof(*stack_top)))) {
        err = pg_error_set(PG_ENOMEM, "out of memory nesting %zu trace events", t->nevents);
        goto cleanup;
    }
    /*
     * One pass in start order. Each track keeps the chain of open events
     * through the parent links: an event's parent is the innermost open
     * event that still contains it; events that end before it starts (or
     * overlap it only partly) are closed first. GPU events nest in tracks
     * of their own even where a file gives them a CPU thread's ids: a CPU
     * event never hangs under GPU work, so the links below (GPU work to
     * the CPU call that launched it) can never close a circle.
     */
    for (i = 0; i < t->nevents; i++) {
        pg_trace_event *e = &t->events[i];
        uint64_t key = ((uint64_t)e->pid << 32) | e->tid;
        idmap *tm = e->device ? &dtracks : &tracks;
        int64_t tr = idmap_get(tm, key);
        size_t top;

        if (tr == -1) {
            if ((err = idmap_put(tm, key, (int64_t)ntracks)) != 0)
                goto cleanup;
            tr = (int64_t)ntracks;
            stack_top[ntracks++] = SIZE_MAX;
        }
        top = stack_top[tr];
        while (top != SIZE_MAX && t->events[top].ts + t->events[top].dur < e->ts + e->dur)
            top = t->events[top].parent < 0 ? SIZE_MAX : (size_t)t->events[top].parent;
        e->parent = top == SIZE_MAX ? -1 : (int32_t)top;
        stack_top[tr] = i;
        if (!e->device) {
            int runtime = is_runtime_cat(pg_trace_str(t, e->cat));
            if (e->correlation >= 0 && runtime && (err = idmap_put(&corr, (uint64_t)e->correlation, (int64_t)i)) != 0)
                goto cleanup;
            if (e->external_id >= 0 && !runtime && (err = idmap_put(&ext, (uint64_t)e->external_id, (int64_t)i)) != 0)
                goto cleanup;
        }
    }
    /* Runtime calls that carry a correlation but no runtime category still count. */
    for (i = 0; i < t->nevents; i++) {
        const pg_trace_event *e = &t->events[i];
        if (!e->device && e->correlation >= 0 && (err = idmap_put(&corr, (uint64_t)e->correlation, (int64_t)i)) != 0)
            goto cleanup;
    }
    /* GPU work belongs to the CPU call that launched it, not to the GPU stream's timeline. */
    for (i = 0; i < t->nevents; i++) {
        pg_trace_event *e = &t->events[i];
        int64_t by = -1;
        if (!e->device)
            continue;
        if (e->correlation >= 0)
            by = idmap_get(&corr, (uint64_t)e->correlation);
        if (by < 0 && e->external_id >= 0)
            by = idmap_get(&ext, (uint64_t)e->external_id);
        if (by >= 0)
            e->parent = (int32_t)by;
    }
    err = 0;

cleanup:
    free(stack_top);
    idmap_free(&tracks);
    idmap_free(&dtracks);
    idmap_free(&corr);
    idmap_free(&ext);
    return err;
}

int pg_trace_inside(const pg_trace *t, size_t ev, size_t anc)
{
    int32_t p = t->events[ev].parent;
    size_t guard = 0;

    /* The guard stops a cycle that a GPU link could close in a malformed trace. */
    while (p >= 0 && guard++ < t->nevents) {
        if ((size_t)p == anc)
            return 1;
        p = t->events[p].parent;
    }
    return 0;
}
