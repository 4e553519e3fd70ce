/* outfile.c - the one writer of output files (outfile.h). */
#include "base/outfile.h"

#include "perfgate/errors.h"
#include "base/proc.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* A named temporary file is given to the guard (proc.h), which removes it if perfgate dies before it is renamed. */
static void remember(const char *path)
{
    pg__proc_guard_file(path, 1);
}

void pg__outfile_release(const char *tmp)
{
    if (tmp)
        pg__proc_guard_file(tmp, 0);
}

/* The folder of `path` ("." for a bare name) and its last part. */
static int split(char **dir, const char **base, const char *path)
{
    const char *slash = strrchr(path, '/');

    *base = slash ? slash + 1 : path;
    *dir = slash ? pg__asprintf("%.*s", (int)(slash - path + (slash == path)), path) : pg__strdup(".");
    return *dir ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

/* "DIR/.BASE.TAG-" plus six random letters: a name no other writer picks. */
static char *random_name(const char *path, const char *tag)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char rnd[6];
    char suffix[7];
    const char *base;
    char *dir = NULL, *out;
    size_t i;

    if (split(&dir, &base, path) != 0)
        return NULL;
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        uint64_t x = (uint64_t)pg__mono_ns() ^ ((uint64_t)getpid() << 32);
        memcpy(rnd, &x, sizeof(rnd));
    }
    for (i = 0; i < sizeof(rnd); i++)
        suffix[i] = letters[rnd[i] % (sizeof(letters) - 1)];
    suffix[6] = '\0';
    out = pg__asprintf("%s/.%s.%s-%s", dir, base, tag, suffix);
    free(dir);
    return out;
}

char *pg__outfile_temp(const char *path, const char *tag)
{
    int tries, fd = -1;
    char *tmp = NULL;

    for (tries = 0; tries < 100 && fd < 0; tries++) {
        free(tmp);
        if (!(tmp = random_name(path, tag))) {
            pg_error_set(PG_ENOMEM, "out of memory");
            return NULL;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) {
            int e = errno;
            pg_error_set(PG_EIO, "%s: cannot create a temporary file: %s", tmp, strerror(e));
            free(tmp);
            errno = e; /* for a caller that words its own message */
            return NULL;
        }
    }
    if (fd < 0) {
        pg_error_set(PG_EIO, "%s: cannot create a temporary file", path);
        free(tmp);
        return NULL;
    }
    close(fd);
    remember(tmp);
    return tmp;
}

int pg__outfile_open(pg_outfile *o, const char *path, const char *what)
{
    pg_outfile init = PG_OUTFILE_INIT;
    struct stat st;
    const char *base;
    char *dir = NULL;
    mode_t mask;
    int fd, e;

    *o = init;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        o->in_place = 1;
        return 0;
    }
    if (!(o->path = pg__strdup(path)))
        return pg_error_set(PG_ENOMEM, "out of memory writing %s", path);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* A device or a FIFO (/dev/stdout, a pipe a script reads) cannot be replaced: written in place. */
        o->in_place = 1;
        if (!(o->f = fopen(path, "w"))) {
            e = errno;
            pg__outfile_abort(o);
            return pg_error_set(PG_EIO, "%s: cannot write the %s: %s", path, what, strerror(e));
        }
        return 0;
    }
    if (split(&dir, &base, path) != 0) {
        pg__outfile_abort(o);
        return PG_ENOMEM;
    }
    mask = umask(0);
    umask(mask);
    /* Unnamed until committed: nothing can be left behind, whatever stops perfgate. */
    fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666 & ~mask);
    free(dir);
    if (fd >= 0) {
        o->fd = fd;
    } else {
        if (!(o->tmp = pg__outfile_temp(path, "tmp"))) {
            e = errno;
            pg__outfile_abort(o);
            return pg_error_set(PG_EIO, "%s: cannot write the %s: %s", path, what, strerror(e));
        }
        if ((fd = open(o->tmp, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0 || fchmod(fd, 0666 & ~mask) != 0) {
            e = errno;
            if (fd >= 0)
                close(fd);
            pg__outfile_abort(o);
            return pg_error_set(PG_EIO, "%s: cannot write the %s: %s", path, what, strerror(e));
        }
    }
    if (!(o->f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        o->fd = -1;
        pg__outfile_abort(o);
        return pg_error_set(PG_EIO, "%s: cannot write the %s: %s", path, what, strerror(e));
    }
    return 0;
}

/* Gives the unnamed file `fd` the name `path`, atomically replacing what is there. */
static int name_unnamed(int fd, const char *path)
{
    char proc[64];
    char *tmp = NULL;
    int tries, rc = -1;

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    /* linkat() cannot replace a file: link under a fresh hidden name, then rename that over the target. */
    for (tries = 0; tries < 100; tries++) {
        free(tmp);
        if (!(tmp = random_name(path, "tmp"))) {
            errno = ENOMEM;
            return -1;
        }
        rc = linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
        if (rc != 0 && errno == ENOENT)
            rc = linkat(fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH);
        if (rc == 0 || errno != EEXIST)
            break;
    }
    if (rc == 0 && (rc = rename(tmp, path)) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return rc;
}

static void sync_dir_of(const char *path)
{
    const char *base;
    char *dir = NULL;
    int fd;

    if (split(&dir, &base, path) != 0)
        return;
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int pg__outfile_commit(pg_outfile *o, const char *what)
{
    int ok, e = 0;

    if (!o->f)
        return pg_error_set(PG_EIO, "%s: the %s was not opened", o->path ? o->path : "-", what);
    if (o->in_place) {
        int err = 0;
        ok = fflush(o->f) == 0 && !ferror(o->f);
        e = errno;
        if (o->f != stdout)
            ok = fclose(o->f) == 0 && ok;
        o->f = NULL;
        if (!ok)
            err = pg_error_set(PG_EIO, "cannot write the %s to %s: %s", what, o->path ? o->path : "stdout",
                               strerror(e ? e : EIO));
        pg__outfile_abort(o);
        return err;
    }
    ok = fflush(o->f) == 0 && !ferror(o->f) && fsync(fileno(o->f)) == 0;
    if (!ok)
        e = errno;
    if (ok && o->fd >= 0)
        ok = name_unnamed(o->fd, o->path) == 0;
    else if (ok)
        ok = rename(o->tmp, o->path) == 0;
    if (!ok && !e)
        e = errno;
    ok = fclose(o->f) == 0 && ok;
    o->f = NULL;
    o->fd = -1;
    if (ok) {
        sync_dir_of(o->path);
        pg__outfile_release(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    {
        char *path = o->path;
        o->path = NULL;
        pg__outfile_abort(o);
        if (!ok) {
            int err = pg_error_set(PG_EIO, "%s: cannot write the %s: %s", path, what, strerror(e ? e : EIO));
            free(path);
            return err;
        }
        free(path);
    }
    return 0;
}

void pg__outfile_abort(pg_outfile *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    else if (o->fd >= 0)
        close(o->fd);
    if (o->tmp) {
        unlink(o->tmp);
        pg__outfile_release(o->tmp);
    }
    free(o->tmp);
    free(o->path);
    o->f = NULL;
    o->fd = -1;
    o->tmp = NULL;
    o->path = NULL;
}

int pg__outfile_write(const char *path, const char *text, size_t len, const char *what)
{
    pg_outfile o;
    int err;

    if ((err = pg__outfile_open(&o, path, what)) != 0)
        return err;
    /* A short write leaves the stream's error set: the commit reports it and removes the file. */
    if (len)
        (void)fwrite(text, 1, len, o.f);
    return pg__outfile_commit(&o, what);
}
