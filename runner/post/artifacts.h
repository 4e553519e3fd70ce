/*
 * artifacts.h - restoring the default branch's database from a GitHub
 * Actions artifact, for when the Actions cache lost it (7 days unused).
 *
 * Each run on the default branch uploads the database as an artifact; on a
 * cache miss the newest one is found through the REST API, downloaded (the
 * archive's signed URL is fetched without the token), its single file
 * extracted from the zip, checked as a perfgate store, and only then moved
 * over the destination. A bad archive never replaces a good file.
 */
#ifndef PG_POST_ARTIFACTS_H
#define PG_POST_ARTIFACTS_H

#include <stddef.h>
#include <stdint.h>

#include "post/post.h"

/** The largest archive perfgate downloads, in bytes. */
#define PG_ARTIFACT_MAX_BYTES ((size_t)1 << 30)

/** The largest database an archive may declare (and inflate to), in bytes. */
#define PG_ARTIFACT_MAX_DB_BYTES ((uint64_t)2 << 30)

/** One artifact as the API lists it. Strings owned; free with pg_artifact_clear(). */
typedef struct pg_artifact {
    int64_t id;
    char *name;
    char *head_branch;        /* workflow_run.head_branch of the run that uploaded it */
    char *head_sha;           /* workflow_run.head_sha */
    char *created_at;         /* ISO 8601, UTC */
    char *download_url;       /* archive_download_url (under the API base) */
    int64_t size;             /* size_in_bytes of the archive */
} pg_artifact;

void pg_artifact_clear(pg_artifact *a);

/**
 * The newest artifact named `name` of `repo` uploaded by a run on `branch`
 * of the repository itself: expired ones are skipped, and so are those of
 * runs whose head repository is another one (a fork's pull request from a
 * branch that happens to be called `branch` uploads into this repository
 * too, with content it chose). All pages are read.
 * @param[out] out free with pg_artifact_clear().
 * @param[out] listed how many artifacts named `name` were listed (may be NULL).
 * @return 0; PG_ENOTFOUND when none qualifies (the message says why);
 *         PG_ENET/PG_ETIMEOUT/PG_ESKIP as the client's requests.
 */
int pg_artifact_latest(pg_artifact *out, size_t *listed, pg_gh *gh, const char *repo, const char *name,
                       const char *branch);

/**
 * Writes the only file in a zip archive held in memory to `fd`. Stored and
 * deflated entries are read; the CRC-32 and size are checked. Directory
 * entries are ignored; any other number of files than one is an error.
 * The size the archive declares is a cap: a file that would inflate past it
 * (a zip bomb) is refused there, with at most 64 KiB more written, and one
 * that declares more than PG_ARTIFACT_MAX_DB_BYTES is refused at once.
 * @param[out] entry the file's name inside the archive (caller frees; may be NULL).
 * @return 0; PG_EFORMAT naming the problem; PG_EIO when writing fails.
 */
int pg_zip_extract_single(char **entry, int fd, const unsigned char *zip, size_t len);

/** What pg_artifact_restore_db() restored. */
typedef struct pg_artifact_restore {
    pg_artifact artifact;     /* the artifact used; free with pg_artifact_clear() */
    size_t listed;            /* artifacts with the name, before filtering */
    int64_t bytes;            /* size of the database written */
    int64_t runs;             /* runs in it */
} pg_artifact_restore;

/**
 * Finds the newest qualifying artifact (pg_artifact_latest()), downloads it,
 * extracts its database next to `path`, opens and checks it as a perfgate
 * store, and renames it over `path`. On any failure `path` is untouched and
 * no temporary file is left.
 * @return 0; PG_ENOTFOUND when there is nothing to restore; PG_EFORMAT for a
 *         bad archive; PG_ESTORE/PG_ESCHEMA when the file is not a healthy
 *         store this perfgate can read; PG_ENET/PG_ETIMEOUT/PG_EIO otherwise.
 */
int pg_artifact_restore_db(pg_artifact_restore *out, pg_gh *gh, const char *repo, const char *name,
                           const char *branch, const char *path);

/**
 * Reads one page of GET /repos/R/actions/artifacts (an untrusted answer, as
 * memory): keeps in `best` the newest artifact named `name` from branch
 * `branch` of the repository itself, as pg_artifact_latest() does.
 * @param[in,out] seen artifacts named `name`; @param[in,out] ok those that qualified.
 * @return 0; PG_ENET when the answer has no 'artifacts' list.
 */
int pg__artifact_page(pg_artifact *best, size_t *seen, size_t *ok, const char *body, const char *name,
                      const char *branch);

#endif
