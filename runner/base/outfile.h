/*
 * outfile.h - the one writer of output files: reports, HTML pages, exported
 * traces, count files, a restored database.
 *
 * A file is written beside its final name and put in place by a rename
 * only once every byte is written and synced, so a failed write (a full
 * disk) or a perfgate that is stopped half-way never leaves a cut or empty
 * file under the name, and an old file there stays whole until the new one
 * replaces it. Where the file system allows, the file being written has no
 * name at all (O_TMPFILE) until the moment it is renamed into place, so
 * nothing is left behind even by a SIGKILL; elsewhere it is a hidden
 * ".NAME.tmp-XXXXXX" that is removed on failure, and by the guard process
 * (proc.h) when perfgate ends before renaming it, however it ends. "-" is
 * standard output, and a path that names a device or a FIFO is written in
 * place.
 */
#ifndef PG_OUTFILE_H
#define PG_OUTFILE_H

#include <stdio.h>

typedef struct pg_outfile {
    FILE *f;          /* write here */
    char *path;       /* the final name */
    char *tmp;        /* the named temporary file, or NULL */
    int fd;           /* the descriptor of an unnamed one, or -1 */
    int in_place;     /* stdout, a device or a FIFO */
} pg_outfile;

#define PG_OUTFILE_INIT {NULL, NULL, NULL, -1, 0}

/**
 * Starts writing `path` ("-": stdout); `what` names it in messages ("HTML
 * report"). The new file gets the mode a plain create would (0666 less
 * the umask); it replaces `path` only at pg__outfile_commit().
 * @return 0; PG_EIO naming the path when it cannot be created.
 */
int pg__outfile_open(pg_outfile *o, const char *path, const char *what);

/**
 * Flushes, syncs and closes the file and renames it over its final name.
 * On any failure (a write error, a full disk) the temporary file is removed
 * and the final name is left as it was.
 * @return 0; PG_EIO naming the path and the cause.
 */
int pg__outfile_commit(pg_outfile *o, const char *what);

/** Closes and removes what pg__outfile_open() started; the final name is untouched. Safe after commit. */
void pg__outfile_abort(pg_outfile *o);

/** Writes `len` bytes of `text` to `path` as one file, through the above. */
int pg__outfile_write(const char *path, const char *text, size_t len, const char *what);

/**
 * A temporary path beside `path` ("DIR/.NAME.TAG-XXXXXX", created empty
 * with mode 0600) that the guard removes if perfgate ends, however, before
 * pg__outfile_release(): for a file another library must open by name (a
 * database checked before it is moved into place).
 * @return the path (caller frees), or NULL with the message and errno set.
 */
char *pg__outfile_temp(const char *path, const char *tag);

/** Stops guarding temporary file `tmp` (after it was renamed or removed). */
void pg__outfile_release(const char *tmp);

#endif
