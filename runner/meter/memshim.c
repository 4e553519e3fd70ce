/*
 * memshim.c - the allocation counter of the memory instrument: a small
 * shared library preloaded (LD_PRELOAD) into the measuring child.
 *
 * It interposes the C allocator (malloc, calloc, realloc, free and the
 * aligned forms) and forwards every call to glibc's own (__libc_malloc and
 * friends, so no dlsym() bootstrap is needed). While counting is on it adds
 * each request's size and count, remembers the size of each live block in
 * a fixed table (requested sizes, not the allocator's rounded ones, so the
 * figures do not depend on the allocator's version), and keeps the peak of
 * the bytes allocated inside the region and not yet freed. A realloc
 * counts as freeing the old block and allocating the new size.
 *
 * The measuring child switches counting with pg_memshim_enable() around the
 * region and reads it with pg_memshim_read(). A command case counts its
 * whole process instead: PG_MEMSHIM_OUT names a file the totals are
 * written to at exit.
 *
 * Built as its own library without sanitizers: a sanitizer's allocator and
 * this one cannot both be first.
 */
#include "meter/meter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

#define PG_EXPORT __attribute__((visibility("default")))

/* Live blocks: open addressing on the pointer, 2^22 slots (64 MiB mapped on first use). */
#define SLOTS (1u << 22)
#define TOMB ((uintptr_t)1)

typedef struct slot {
    uintptr_t ptr;
    size_t size;
} slot;

static slot *table;
static atomic_flag lock = ATOMIC_FLAG_INIT;
static int counting, overflow;
static int64_t bytes, allocs, live, peak;

static void take(void)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void give(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

static size_t hash(uintptr_t p)
{
    return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> 42) & (SLOTS - 1);
}

static void remember(void *p, size_t n)
{
    size_t i, k;

    if (!p)
        return;
    take();
    if (counting && table) {
        bytes += (int64_t)n;
        allocs++;
        live += (int64_t)n;
        if (live > peak)
            peak = live;
        for (i = hash((uintptr_t)p), k = 0; k < SLOTS; i = (i + 1) & (SLOTS - 1), k++)
            if (table[i].ptr == 0 || table[i].ptr == TOMB) {
                table[i].ptr = (uintptr_t)p;
                table[i].size = n;
                break;
            }
        overflow |= k == SLOTS;
    }
    give();
}

static void forget(void *p)
{
    size_t i, k;

    if (!p)
        return;
    take();
    if (table) {
        for (i = hash((uintptr_t)p), k = 0; k < SLOTS && table[i].ptr != 0; i = (i + 1) & (SLOTS - 1), k++)
            if (table[i].ptr == (uintptr_t)p) {
                /* A block of the region freed after it ends no longer changes the region's figures. */
                if (counting)
                    live -= (int64_t)table[i].size;
                table[i].ptr = TOMB;
                break;
            }
    }
    give();
}

PG_EXPORT void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    remember(p, n);
    return p;
}

PG_EXPORT void *calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    remember(p, n * size);
    return p;
}

PG_EXPORT void *realloc(void *old, size_t n)
{
    void *p;

    forget(old);
    p = __libc_realloc(old, n);
    remember(p, n);
    return p;
}

PG_EXPORT void free(void *p)
{
    forget(p);
    __libc_free(p);
}

PG_EXPORT void *memalign(size_t align, size_t n)
{
    void *p = __libc_memalign(align, n);
    remember(p, n);
    return p;
}

PG_EXPORT void *aligned_alloc(size_t align, size_t n)
{
    return memalign(align, n);
}

PG_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    void *p;

    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    if (!(p = memalign(align, n)) && n)
        return ENOMEM;
    *out = p;
    return 0;
}

PG_EXPORT void *valloc(size_t n)
{
    return memalign(4096, n);
}

PG_EXPORT void pg_memshim_enable(int on)
{
    if (on && !table) {
        void *m = mmap(NULL, SLOTS * sizeof(slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        table = m == MAP_FAILED ? NULL : m;
        overflow |= table == NULL;
    }
    take();
    counting = on;
    give();
}

PG_EXPORT void pg_memshim_read(pg_meter_memory *out)
{
    take();
    out->bytes = bytes;
    out->allocs = allocs;
    out->peak = peak;
    out->live_end = live;
    out->overflow = overflow;
    give();
}

/* A command case: the whole process counts, and its totals go to PG_MEMSHIM_OUT at exit. */
__attribute__((constructor)) static void shim_start(void)
{
    if (getenv("PG_MEMSHIM_OUT"))
        pg_memshim_enable(1);
}

__attribute__((destructor)) static void shim_stop(void)
{
    const char *path = getenv("PG_MEMSHIM_OUT");
    pg_meter_memory m;
    FILE *f;

    if (!path)
        return;
    pg_memshim_enable(0);
    pg_memshim_read(&m);
    if ((f = fopen(path, "w")) != NULL) {
        fprintf(f, "ok\niterations 1\nalloc_bytes %lld\nallocs %lld\npeak %lld\nlive_end %lld\noverflow %d\n",
                (long long)m.bytes, (long long)m.allocs, (long long)m.peak, (long long)m.live_end, m.overflow);
        fclose(f);
    }
}
