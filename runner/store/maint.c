/* maint.c - database maintenance: merge, prune, check. */
#include "store/store.h"

#include "store/engine.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int64_t pg_store_file_size(pg_store *store)
{
    const char *path = store->ops->filename(store);
    struct stat st;
    int64_t total = -1;
    char *wal;

    if (!path || stat(path, &st) != 0)
        return -1;
    total = (int64_t)st.st_size;
    wal = pg__asprintf("%s-wal", path);
    if (wal && stat(wal, &st) == 0)
        total += (int64_t)st.st_size;
    free(wal);
    return total;
}

/*
 * The decision of input run `in_id`, if it has one, onto run `out_id` of
 * the output (kept when already there). Its baseline ids stay those it was
 * decided on; its uuids name the same runs in any database.
 */
static int merge_decision(pg_store *out, pg_store *in, int64_t in_id, int64_t out_id)
{
    pg_decision d;
    int err = in->ops->load_decision(&d, in, in_id);

    if (err == PG_ENOTFOUND)
        return 0;
    if (err)
        return err;
    d.run_id = out_id;
    err = out->ops->save_decision(NULL, out, &d);
    pg_decision_clear(&d);
    return err;
}

int pg_store_merge(pg_merge_stats *stats, pg_store *out, const char *const *inputs, size_t ninputs)
{
    const char *out_path = out->ops->filename(out);
    size_t i, j;
    int err = 0;

    memset(stats, 0, sizeof(*stats));
    for (i = 0; i < ninputs; i++) {
        pg_store *in = NULL;
        pg_run_list list = {0};
        int server = pg__store_is_url(inputs[i]);
        char *real_in = server ? NULL : realpath(inputs[i], NULL);
        char *real_out = out_path ? realpath(out_path, NULL) : NULL;
        int same = real_in && real_out && strcmp(real_in, real_out) == 0;

        free(real_in);
        free(real_out);
        if (same)
            return pg_error_set(PG_EUSAGE, "%s: an input cannot also be the output", inputs[i]);
        if (!server && access(inputs[i], R_OK) != 0)
            return pg_error_set(PG_ENOTFOUND, "%s: no such database", inputs[i]);
        if ((err = pg_store_open(&in, inputs[i])) != 0)
            return err;
        if ((err = pg_store_list_runs(&list, in, NULL)) != 0) {
            pg_store_close(in);
            return err;
        }
        /* Oldest first, so ids in the output follow the inputs' order. */
        for (j = list.count; j-- > 0;) {
            pg_run *run = NULL;
            int added = 0;
            if ((err = pg_store_load_run(&run, in, list.items[j].id)) != 0)
                break;
            run->id = 0;
            err = out->ops->save_run(&added, out, run);
            if (!err && added)
                stats->runs_added++;
            if (!err)
                err = merge_decision(out, in, list.items[j].id, run->id);
            pg_run_free(run);
            if (err)
                break;
            stats->runs_seen++;
        }
        pg_run_list_clear(&list);
        pg_store_close(in);
        if (err)
            return err;
        stats->inputs++;
    }
    return 0;
}

/* Copies `from` into the open, empty `to_fd` and syncs it. */
static int copy_file(int to_fd, const char *from)
{
    char chunk[65536];
    ssize_t n;
    int in = open(from, O_RDONLY | O_CLOEXEC);

    if (in < 0)
        return pg_error_set(PG_EIO, "%s: cannot read: %s", from, strerror(errno));
    while ((n = read(in, chunk, sizeof(chunk))) > 0)
        if (write(to_fd, chunk, (size_t)n) != n) {
            close(in);
            return pg_error_set(PG_EIO, "cannot copy %s: %s", from, strerror(errno));
        }
    close(in);
    if (n < 0 || fsync(to_fd) != 0)
        return pg_error_set(PG_EIO, "cannot copy %s: %s", from, strerror(errno));
    return 0;
}

static void remove_db_files(const char *path)
{
    static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
    size_t i;

    for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        char *p = pg__asprintf("%s%s", path, sfx[i]);
        if (p)
            unlink(p);
        free(p);
    }
}

static int sync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? pg__asprintf("%.*s", (int)(slash - path + (slash == path)), path) : pg__strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, rc = 0;

    if (fd >= 0) {
        rc = fsync(fd);
        close(fd);
    }
    free(dir);
    return rc;
}

int pg_store_merge_file(pg_merge_stats *stats, const char *out_path, const char *const *inputs, size_t ninputs)
{
    const char *slash = strrchr(out_path, '/');
    char *tmp = NULL, *real_out = realpath(out_path, NULL);
    pg_store *out = NULL;
    struct stat st;
    size_t i;
    int err = 0, fd = -1, exists = stat(out_path, &st) == 0;

    memset(stats, 0, sizeof(*stats));
    if (pg_store_is_server(out_path)) {
        free(real_out);
        if ((err = pg_store_open(&out, out_path)) != 0)
            return err;
        err = pg_store_merge(stats, out, inputs, ninputs);
        pg_store_close(out);
        return err;
    }
    for (i = 0; i < ninputs && real_out; i++) {
        char *real_in = realpath(inputs[i], NULL);
        int same = real_in && strcmp(real_in, real_out) == 0;
        free(real_in);
        if (same) {
            free(real_out);
            return pg_error_set(PG_EUSAGE, "%s: an input cannot also be the output", inputs[i]);
        }
    }
    free(real_out);
    if (exists) {
        /* Opened and closed first: a valid database, its write-ahead log folded into the file. */
        if ((err = pg_store_open(&out, out_path)) != 0)
            return err;
        pg_store_close(out);
        out = NULL;
    }
    tmp = slash ? pg__asprintf("%.*s.%s.merge-%ld", (int)(slash - out_path + 1), out_path, slash + 1, (long)getpid())
                : pg__asprintf(".%s.merge-%ld", out_path, (long)getpid());
    if (!tmp)
        return pg_error_set(PG_ENOMEM, "out of memory");
    remove_db_files(tmp);
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
        err = pg_error_set(PG_EIO, "%s: cannot create the merge's temporary file: %s", tmp, strerror(errno));
        goto cleanup;
    }
    if (exists && (err = copy_file(fd, out_path)) != 0)
        goto cleanup;
    close(fd);
    fd = -1;
    if ((err = pg_store_open(&out, tmp)) != 0)
        goto cleanup;
    err = pg_store_merge(stats, out, inputs, ninputs);
    pg_store_close(out);
    if (err)
        goto cleanup;
    if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) < 0 || fsync(fd) != 0 || rename(tmp, out_path) != 0 ||
        sync_dir_of(out_path) != 0) {
        err = pg_error_set(PG_EIO, "%s: cannot put the merged database in place: %s", out_path, strerror(errno));
        goto cleanup;
    }

cleanup:
    if (fd >= 0)
        close(fd);
    if (err)
        remove_db_files(tmp);
    free(tmp);
    return err;
}

int pg_store_prune(pg_prune_stats *stats, pg_store *store, const pg_prune_options *opts)
{
    int err;

    memset(stats, 0, sizeof(*stats));
    if (!opts->keep_runs && !opts->older_than)
        return pg_error_set(PG_EUSAGE, "prune needs --keep-runs N or --older-than AGE");
    stats->bytes_before = pg_store_file_size(store);
    if ((err = store->ops->prune(stats, store, opts)) != 0)
        return err;
    stats->bytes_after = pg_store_file_size(store);
    return 0;
}

int pg_store_quick_check(pg_store *store)
{
    return store->ops->quick_check ? store->ops->quick_check(store) : 0;
}

int pg_store_check(pg_check_report *out, pg_store *store)
{
    memset(out, 0, sizeof(*out));
    out->ok = 1;
    snprintf(out->message, sizeof(out->message), "ok");
    out->schema_version = pg_store_schema_version(store);
    out->schema_latest = store->ops->schema_latest;
    return store->ops->check(out, store);
}
