/* maint.c - database maintenance: merge, prune, check. */
#include "store/store.h"

#include "store/engine.h"
#include "perfgate/errors.h"
#include "base/util.h"

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
        /* Inputs are read, never written: a read-only file in a read-only folder merges too. */
        if ((err = pg_store_open_read(&in, inputs[i])) != 0)
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

/*
 * Into the output itself, never a copy renamed over it: gates may be writing
 * runs into the same file meanwhile, and each run is merged in a
 * transaction of its own (a writer waits for it, as for any other writer).
 * A merge stopped half-way leaves whole runs only; running it again adds
 * the rest, as runs are keyed by uuid.
 */
int pg_store_merge_file(pg_merge_stats *stats, const char *out_path, const char *const *inputs, size_t ninputs)
{
    pg_store *out = NULL;
    int err;

    memset(stats, 0, sizeof(*stats));
    if ((err = pg_store_open(&out, out_path)) != 0)
        return err;
    if ((err = pg_store_quick_check(out)) == 0)
        err = pg_store_merge(stats, out, inputs, ninputs);
    pg_store_close(out);
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
