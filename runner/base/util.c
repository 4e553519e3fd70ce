/* util.c - small internal helpers: strings, growable buffers, files, time. */
#include "base/util.h"

#include "perfgate/config.h"
#include "perfgate/errors.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *pg__strdup(const char *s)
{
    size_t n;
    char *p;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *pg__asprintf(const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    p = malloc((size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

int pg__buf_grow(pg_buf *b, size_t extra)
{
    size_t want = b->len + extra + 1;
    size_t cap;
    char *p;

    if (want <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap < want)
        cap *= 2;
    p = realloc(b->ptr, cap);
    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory growing a buffer to %zu bytes", cap);
    b->ptr = p;
    b->cap = cap;
    return 0;
}

int pg__buf_put(pg_buf *b, const char *data, size_t len)
{
    int err = pg__buf_grow(b, len);

    if (err)
        return err;
    memcpy(b->ptr + b->len, data, len);
    b->len += len;
    b->ptr[b->len] = '\0';
    return 0;
}

int pg__buf_puts(pg_buf *b, const char *s)
{
    return pg__buf_put(b, s, strlen(s));
}

int pg__buf_printf(pg_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n, err;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return pg_error_set(PG_EINVAL, "bad format string");
    if ((err = pg__buf_grow(b, (size_t)n)) != 0)
        return err;
    va_start(ap, fmt);
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *pg__buf_detach(pg_buf *b)
{
    char *p = b->ptr;

    if (!p)
        p = pg__strdup("");
    b->ptr = NULL;
    b->len = b->cap = 0;
    return p;
}

void pg__buf_clear(pg_buf *b)
{
    free(b->ptr);
    b->ptr = NULL;
    b->len = b->cap = 0;
}

int pg__read_file(char **out, size_t *out_len, const char *path)
{
    FILE *f = NULL;
    pg_buf b = PG_BUF_INIT;
    char chunk[65536];
    size_t n;
    int err = PG_EIO;

    *out = NULL;
    f = fopen(path, "rb");
    if (!f) {
        err = pg_error_set(errno == ENOENT ? PG_ENOTFOUND : PG_EIO,
                           "%s: cannot open: %s", path, strerror(errno));
        goto cleanup;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if ((err = pg__buf_put(&b, chunk, n)) != 0)
            goto cleanup;
    if (ferror(f)) {
        err = pg_error_set(PG_EIO, "%s: read error: %s", path, strerror(errno));
        goto cleanup;
    }
    if (out_len)
        *out_len = b.len;
    *out = pg__buf_detach(&b);
    err = *out ? 0 : PG_ENOMEM;

cleanup:
    if (f)
        fclose(f);
    pg__buf_clear(&b);
    return err;
}

/* A size for messages: "52.4 MB", "4 MiB"-style powers of 1024 kept exact. */
static void size_text(char out[32], uint64_t bytes)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(out, 32, "%llu MiB", (unsigned long long)(bytes >> 20));
    else if (bytes >= 1000000)
        snprintf(out, 32, "%.1f MB", (double)bytes / 1e6);
    else
        snprintf(out, 32, "%llu bytes", (unsigned long long)bytes);
}

static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    return "a special file";
}

int pg__open_input(FILE **out, uint64_t *size, const char *path, const char *what, uint64_t max_bytes)
{
    struct stat st;
    int fd, flags;
    FILE *f;

    *out = NULL;
    /*
     * O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer; with it the open returns and fstat says what the file is.
     */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return pg_error_set(PG_ENOTFOUND, "%s: no such %s file", path, what);
        return pg_error_set(PG_EIO, "%s: cannot open %s file: %s", path, what, strerror(errno));
    }
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return pg_error_set(PG_EIO, "%s: cannot stat %s file: %s", path, what, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return pg_error_set(PG_EINVAL, "%s: is %s, not a regular %s file", path, file_kind(st.st_mode), what);
    }
    if (max_bytes && (uint64_t)st.st_size > max_bytes) {
        char have[32], cap[32];
        close(fd);
        size_text(have, (uint64_t)st.st_size);
        size_text(cap, max_bytes);
        return pg_error_set(PG_EINVAL, "%s: %s is over the %s limit for a %s file", path, have, cap, what);
    }
    if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
        !(f = fdopen(fd, "rb"))) {
        int e = errno;
        close(fd);
        return pg_error_set(PG_EIO, "%s: cannot open %s file: %s", path, what, strerror(e));
    }
    if (size)
        *size = (uint64_t)st.st_size;
    *out = f;
    return 0;
}

int pg__read_input(char **out, size_t *out_len, const char *path, const char *what, uint64_t max_bytes)
{
    FILE *f = NULL;
    pg_buf b = PG_BUF_INIT;
    char chunk[65536];
    uint64_t size = 0;
    size_t n;
    int err;

    *out = NULL;
    if ((err = pg__open_input(&f, &size, path, what, max_bytes)) != 0)
        return err;
    if ((err = pg__buf_grow(&b, (size_t)size + 1)) != 0)
        goto cleanup;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (max_bytes && b.len + n > max_bytes) {
            char cap[32];
            size_text(cap, max_bytes);
            err = pg_error_set(PG_EINVAL, "%s: grew past the %s limit for a %s file while read", path, cap, what);
            goto cleanup;
        }
        if ((err = pg__buf_put(&b, chunk, n)) != 0)
            goto cleanup;
    }
    if (ferror(f)) {
        err = pg_error_set(PG_EIO, "%s: read error: %s", path, strerror(errno));
        goto cleanup;
    }
    if (out_len)
        *out_len = b.len;
    *out = pg__buf_detach(&b);
    err = *out ? 0 : PG_ENOMEM;

cleanup:
    fclose(f);
    pg__buf_clear(&b);
    return err;
}

void pg__iso_time(char out[32], int64_t unix_seconds)
{
    time_t t = (time_t)unix_seconds;
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int64_t pg__now_unix(void)
{
    return (int64_t)time(NULL);
}

int64_t pg__mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int pg__glob(const char *pattern, const char *s)
{
    return fnmatch(pattern, s, 0) == 0;
}

int pg__buf_json_string(pg_buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const char *run = s;
    int err;

    if ((err = pg__buf_put(b, "\"", 1)) != 0)
        return err;
    /* Plain runs are copied at once: trace export writes millions of names. */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        if ((err = pg__buf_put(b, run, (size_t)(s - run))) != 0)
            return err;
        if (c == '"' || c == '\\') {
            esc[1] = (char)c;
            err = pg__buf_put(b, esc, 2);
        } else {
            err = pg__buf_put(b, esc, 6);
        }
        if (err)
            return err;
        run = s + 1;
    }
    if ((err = pg__buf_put(b, run, (size_t)(s - run))) != 0)
        return err;
    return pg__buf_put(b, "\"", 1);
}

static uint64_t key_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

/* Places `key` in the first free slot of its probe sequence (the caller checked it is absent). */
static void keymap_place(pg_keymap *m, const char *key, size_t val)
{
    size_t i = (size_t)key_hash(key) & (m->cap - 1);

    while (m->keys[i])
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
}

int pg__keymap_put(pg_keymap *m, const char *key, size_t val)
{
    size_t dummy, i;

    if (!key || pg__keymap_get(m, key, &dummy))
        return 0;
    /* At most half full: probes stay short. */
    if (2 * (m->n + 1) > m->cap) {
        pg_keymap g = PG_KEYMAP_INIT;
        g.cap = m->cap ? 2 * m->cap : 64;
        g.keys = calloc(g.cap, sizeof(*g.keys));
        g.vals = calloc(g.cap, sizeof(*g.vals));
        if (!g.keys || !g.vals) {
            pg__keymap_clear(&g);
            return pg_error_set(PG_ENOMEM, "out of memory indexing keys");
        }
        for (i = 0; i < m->cap; i++)
            if (m->keys[i])
                keymap_place(&g, m->keys[i], m->vals[i]);
        pg__keymap_clear(m);
        *m = g;
    }
    keymap_place(m, key, val);
    return 0;
}

int pg__keymap_get(const pg_keymap *m, const char *key, size_t *val)
{
    size_t i;

    if (!m->cap || !key)
        return 0;
    for (i = (size_t)key_hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (strcmp(m->keys[i], key) == 0) {
            *val = m->vals[i];
            return 1;
        }
    return 0;
}

void pg__keymap_clear(pg_keymap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

static int companion_readable(const char *path)
{
    return path && access(path, R_OK) == 0;
}

char *pg__mkdtemp(const char *prefix)
{
    const char *base = getenv("TMPDIR");
    char *dir = pg__asprintf("%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);

    if (!dir) {
        errno = ENOMEM;
        return NULL;
    }
    if (!mkdtemp(dir)) {
        int e = errno;
        free(dir);
        errno = e;
        return NULL;
    }
    return dir;
}

/* Whether directory `dir` is `root` or lies below it (both resolved). */
static int dir_within(const char *dir, const char *root)
{
    char *d, *r;
    int in = 0;

    if (!root || !*root)
        return 0;
    d = realpath(dir, NULL);
    r = realpath(root, NULL);
    if (d && r) {
        size_t len = strlen(r);
        in = strncmp(d, r, len) == 0 && (d[len] == '\0' || d[len] == '/');
    }
    free(d);
    free(r);
    return in;
}

char *pg__find_companion(const char *name, const char *build_dir)
{
    char exe[4096], *slash, *p = NULL;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    int in_build = 1;

    if (n > 0) {
        exe[n] = '\0';
        if ((slash = strrchr(exe, '/')) != NULL) {
            *slash = '\0';
            p = pg__asprintf("%s/%s", exe, name);
            if (!companion_readable(p)) {
                free(p);
                p = pg__asprintf("%s/%s/%s", exe, PG_PKGLIBDIR_FROM_BINDIR, name);
            }
            /* An installed program never reaches into the tree it was built in. */
            in_build = dir_within(exe, build_dir);
        }
    }
    if (!companion_readable(p) && in_build) {
        free(p);
        p = pg__asprintf("%s/%s", build_dir, name);
    }
    if (!companion_readable(p)) {
        free(p);
        p = NULL;
    }
    return p;
}
