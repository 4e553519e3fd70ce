/*
 * artifacts.c - the newest database artifact of a branch, downloaded,
 * unzipped, checked and moved into place (see artifacts.h).
 *
 * The zip reader is deliberately small: it reads the central directory,
 * accepts exactly one file stored or deflated (what actions/upload-artifact
 * writes), checks its CRC-32 and size, and refuses everything else (ZIP64,
 * encryption, several files) with a message rather than guessing.
 */
#include "post/artifacts.h"

#include "perfgate/errors.h"
#include "store/store.h"
#include "base/outfile.h"
#include "base/proc.h"
#include "base/sink.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int pg__gh_status_error(const pg_gh_response *r, const char *what);
int pg__post_check_repo(const char *repo);

static char *jstr(json_t *v)
{
    return json_is_string(v) ? pg__strdup(json_string_value(v)) : NULL;
}

void pg_artifact_clear(pg_artifact *a)
{
    free(a->name);
    free(a->head_branch);
    free(a->head_sha);
    free(a->created_at);
    free(a->download_url);
    memset(a, 0, sizeof(*a));
}

/* Keeps `it` in `best` when it qualifies and is newer. @return 1 when it qualified. */
static int consider(pg_artifact *best, json_t *it, const char *name, const char *branch)
{
    json_t *wr = json_object_get(it, "workflow_run");
    json_t *id = json_object_get(it, "id"), *repo_id = json_object_get(wr, "repository_id");
    json_t *head_id = json_object_get(wr, "head_repository_id");
    const char *created = json_string_value(json_object_get(it, "created_at"));
    const char *hb = json_string_value(json_object_get(wr, "head_branch"));

    if (!json_is_integer(id) || !json_is_string(json_object_get(it, "archive_download_url")) || !created ||
        !json_is_string(json_object_get(it, "name")) || strcmp(json_string_value(json_object_get(it, "name")), name))
        return 0;
    if (json_is_true(json_object_get(it, "expired")) || !hb || strcmp(hb, branch) != 0)
        return 0;
    /* A fork's pull request runs in this repository and can upload under any name from a branch named 'main'. */
    if (!json_is_integer(repo_id) || !json_is_integer(head_id) ||
        json_integer_value(repo_id) != json_integer_value(head_id))
        return 0;
    /* ISO 8601 UTC times ("2026-12-01T10:00:00Z") order as strings. */
    if (best->created_at && strcmp(created, best->created_at) <= 0)
        return 1;
    pg_artifact_clear(best);
    best->id = (int64_t)json_integer_value(id);
    best->name = pg__strdup(name);
    best->head_branch = pg__strdup(hb);
    best->head_sha = jstr(json_object_get(wr, "head_sha"));
    best->created_at = pg__strdup(created);
    best->download_url = jstr(json_object_get(it, "archive_download_url"));
    best->size = json_is_integer(json_object_get(it, "size_in_bytes"))
                     ? (int64_t)json_integer_value(json_object_get(it, "size_in_bytes"))
                     : 0;
    return 1;
}

int pg__artifact_page(pg_artifact *best, size_t *seen, size_t *ok, const char *body, const char *name,
                      const char *branch)
{
    json_t *root = json_loads(body ? body : "", 0, NULL), *it;
    size_t i;

    if (!json_is_array(json_object_get(root, "artifacts"))) {
        json_decref(root);
        return pg_error_set(PG_ENET, "listing the repository's artifacts: GitHub's answer has no 'artifacts'");
    }
    json_array_foreach(json_object_get(root, "artifacts"), i, it)
    {
        const char *n = json_string_value(json_object_get(it, "name"));
        *seen += n && strcmp(n, name) == 0;
        *ok += (size_t)consider(best, it, name, branch);
    }
    json_decref(root);
    return 0;
}

int pg_artifact_latest(pg_artifact *out, size_t *listed, pg_gh *gh, const char *repo, const char *name,
                       const char *branch)
{
    pg_gh_response r = {0};
    char *page = NULL;
    const char *p;
    size_t seen = 0, ok = 0;
    int err;

    memset(out, 0, sizeof(*out));
    if (listed)
        *listed = 0;
    if ((err = pg__post_check_repo(repo)) != 0)
        return err;
    /* Artifact names are plain words in practice; anything else could bend the query. */
    for (p = name; *p; p++)
        if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') && !strchr("-_.", *p))
            return pg_error_set(PG_EUSAGE, "artifact name '%s': use letters, digits, '-', '_' and '.'", name);
    page = pg__asprintf("/repos/%s/actions/artifacts?name=%s&per_page=100", repo, name);
    if (!page)
        return pg_error_set(PG_ENOMEM, "out of memory listing artifacts");
    while (page) {
        if ((err = pg_gh_request(&r, gh, "GET", page, NULL)) != 0)
            goto cleanup;
        if (r.status != 200) {
            err = pg__gh_status_error(&r, "listing the repository's artifacts");
            goto cleanup;
        }
        if ((err = pg__artifact_page(out, &seen, &ok, r.body, name, branch)) != 0)
            goto cleanup;
        free(page);
        page = r.next;
        r.next = NULL;
        pg_gh_response_clear(&r);
    }
    if (listed)
        *listed = seen;
    if (!ok || !out->download_url)
        err = pg_error_set(PG_ENOTFOUND, "nothing to restore: %zu artifact%s named '%s' in %s, none unexpired from "
                                         "branch '%s' of the repository itself",
                           seen, seen == 1 ? "" : "s", name, repo, branch);

cleanup:
    if (err)
        pg_artifact_clear(out);
    pg_gh_response_clear(&r);
    free(page);
    return err;
}

static unsigned rd16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * Inflates a raw deflate stream into `out`, whose cap is the size the
 * archive declares: a stream that would inflate past it (a zip bomb) stops
 * there, one chunk beyond at most, whatever its ratio.
 */
static int inflate_to(pg_sink *out, const unsigned char *in, size_t len, uint32_t *crc)
{
    unsigned char chunk[65536];
    z_stream z;
    int zr = Z_OK, err = 0;

    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
        return pg_error_set(PG_ENOMEM, "cannot start zlib's inflate");
    z.next_in = (unsigned char *)in;
    z.avail_in = (uInt)len;
    while (zr != Z_STREAM_END) {
        size_t got;
        z.next_out = chunk;
        z.avail_out = sizeof(chunk);
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr != Z_OK && zr != Z_STREAM_END) {
            err = pg_error_set(PG_EFORMAT, "the archive's data is corrupt (zlib: %s)", z.msg ? z.msg : "truncated");
            break;
        }
        got = sizeof(chunk) - z.avail_out;
        if (zr == Z_OK && got == 0 && z.avail_in == 0) {
            err = pg_error_set(PG_EFORMAT, "the archive's data is truncated");
            break;
        }
        *crc = (uint32_t)crc32(*crc, chunk, (uInt)got);
        if ((err = pg__sink_put(out, chunk, got, "the archive's file")) != 0)
            break;
    }
    inflateEnd(&z);
    if (err && out->over)
        err = pg_error_set(PG_EFORMAT, "the archive's file inflates past the %llu bytes it declares; refusing",
                           (unsigned long long)out->max);
    return err;
}

int pg_zip_extract_single(char **entry, int fd, const unsigned char *zip, size_t len)
{
    const unsigned char *eocd = NULL, *cd, *file = NULL;
    size_t i, nfiles = 0, cd_off, cd_size, entries, pos;
    uint32_t crc = 0;
    uint64_t size = 0;
    int err;
    pg_sink sink = PG_SINK_INIT(fd, 0);

    if (entry)
        *entry = NULL;
    if (len < 22)
        return pg_error_set(PG_EFORMAT, "the artifact is not a zip archive (%zu bytes)", len);
    /* The end record sits in the last 22 bytes plus a comment of at most 65535. */
    for (i = len - 22 + 1; i-- > 0 && len - i <= 22 + 65535;)
        if (rd32(zip + i) == 0x06054b50 && i + 22 + rd16(zip + i + 20) == len) {
            eocd = zip + i;
            break;
        }
    if (!eocd)
        return pg_error_set(PG_EFORMAT, "the artifact is not a zip archive (no end of central directory)");
    entries = rd16(eocd + 10);
    cd_size = rd32(eocd + 12);
    cd_off = rd32(eocd + 16);
    if (entries == 0xFFFF || cd_off == 0xFFFFFFFFu)
        return pg_error_set(PG_EFORMAT, "the artifact is a ZIP64 archive, which perfgate does not read");
    if (rd16(eocd + 4) != 0 || rd16(eocd + 6) != 0 || cd_off > len || cd_size > len - cd_off)
        return pg_error_set(PG_EFORMAT, "the archive's central directory is out of bounds");
    cd = zip + cd_off;
    for (pos = 0, i = 0; i < entries; i++) {
        const unsigned char *h = cd + pos;
        size_t nlen, hlen;
        if (pos + 46 > cd_size || rd32(h) != 0x02014b50)
            return pg_error_set(PG_EFORMAT, "the archive's central directory is corrupt (entry %zu)", i + 1);
        nlen = rd16(h + 28);
        hlen = 46 + nlen + rd16(h + 30) + rd16(h + 32);
        if (pos + hlen > cd_size)
            return pg_error_set(PG_EFORMAT, "the archive's central directory is corrupt (entry %zu)", i + 1);
        if (!(nlen > 0 && h[46 + nlen - 1] == '/')) {
            nfiles++;
            file = h;
        }
        pos += hlen;
    }
    if (nfiles != 1)
        return pg_error_set(PG_EFORMAT, "the artifact holds %zu files; expected the database alone", nfiles);
    {
        unsigned flags = rd16(file + 8), method = rd16(file + 10), nlen = rd16(file + 28);
        uint32_t want_crc = rd32(file + 16);
        size_t csize = rd32(file + 20), usize = rd32(file + 24), loff = rd32(file + 42), data;
        const unsigned char *lh = zip + loff;

        if (csize == 0xFFFFFFFFu || usize == 0xFFFFFFFFu || loff == 0xFFFFFFFFu)
            return pg_error_set(PG_EFORMAT, "the artifact is a ZIP64 archive, which perfgate does not read");
        sink.max = usize;
        if (flags & 1)
            return pg_error_set(PG_EFORMAT, "the artifact's file is encrypted");
        if (method != 0 && method != 8)
            return pg_error_set(PG_EFORMAT, "the artifact's file uses compression method %u (stored or deflate only)",
                                method);
        /* The local header's name and extra lengths may differ from the central copy's. */
        if (loff > len || len - loff < 30 || rd32(lh) != 0x04034b50)
            return pg_error_set(PG_EFORMAT, "the archive's local header is corrupt");
        data = loff + 30 + rd16(lh + 26) + rd16(lh + 28);
        if (data > len || csize > len - data)
            return pg_error_set(PG_EFORMAT, "the archive is truncated");
        if (usize > PG_ARTIFACT_MAX_DB_BYTES)
            return pg_error_set(PG_EFORMAT, "the artifact's file declares %zu bytes, over the %llu MiB limit", usize,
                                (unsigned long long)(PG_ARTIFACT_MAX_DB_BYTES >> 20));
        if (method == 0) {
            if (csize != usize)
                return pg_error_set(PG_EFORMAT, "the archive's stored file has inconsistent sizes");
            crc = (uint32_t)crc32(0, zip + data, (uInt)csize);
            if ((err = pg__sink_put(&sink, zip + data, csize, "the extracted database")) != 0)
                return err;
        } else if ((err = inflate_to(&sink, zip + data, csize, &crc)) != 0) {
            return err;
        }
        size = sink.total;
        if (size != usize || crc != want_crc)
            return pg_error_set(PG_EFORMAT, "the archive's file fails its check (%s mismatch)",
                                size != usize ? "size" : "CRC-32");
        if (entry)
            *entry = pg__asprintf("%.*s", (int)nlen, (const char *)file + 46);
    }
    return 0;
}

/*
 * The companions SQLite makes beside a database it opens (the restored file
 * is checked by opening it): removed with it, and guarded with it until
 * it is in place (base/outfile.h).
 */
static void companions(const char *path, int remove, int guard)
{
    static const char *const sfx[] = {"-wal", "-shm"};
    size_t i;

    for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        char *p = pg__asprintf("%s%s", path, sfx[i]);
        if (p && remove)
            unlink(p);
        if (p && guard >= 0)
            pg__proc_guard_file(p, guard);
        free(p);
    }
}

/* Opens `path` as a perfgate store and checks it; nothing else may be moved into place. */
static int check_store(int64_t *runs, const char *path)
{
    static const char magic[16] = "SQLite format 3";
    char head[16];
    pg_check_report cr;
    pg_store *store = NULL;
    int fd = open(path, O_RDONLY), err;
    ssize_t n = fd >= 0 ? read(fd, head, sizeof(head)) : -1;

    if (fd >= 0)
        close(fd);
    /* SQLite would happily treat an empty or foreign file as a new database. */
    if (n != (ssize_t)sizeof(head) || memcmp(head, magic, sizeof(head)) != 0)
        return pg_error_set(PG_ESTORE, "the artifact's file is not a SQLite database");
    if ((err = pg_store_open(&store, path)) != 0 || (err = pg_store_check(&cr, store)) != 0) {
        pg_store_close(store);
        return err;
    }
    pg_store_close(store);
    if (!cr.ok)
        return pg_error_set(PG_ESTORE, "the artifact's database is damaged: %s", cr.message);
    *runs = cr.runs;
    return 0;
}

int pg_artifact_restore_db(pg_artifact_restore *out, pg_gh *gh, const char *repo, const char *name,
                           const char *branch, const char *path)
{
    pg_gh_response r = {0};
    char *tmp = NULL, *entry = NULL;
    int fd = -1, err;

    memset(out, 0, sizeof(*out));
    if ((err = pg_artifact_latest(&out->artifact, &out->listed, gh, repo, name, branch)) != 0)
        return err;
    if ((err = pg_gh_download(&r, gh, out->artifact.download_url, PG_ARTIFACT_MAX_BYTES)) != 0)
        goto cleanup;
    if (r.status != 200) {
        err = pg__gh_status_error(&r, "downloading the artifact");
        /* Here a 403/404 means no database: an infrastructure error, not a warning. */
        if (err == PG_ESKIP)
            err = PG_ENET; /* the message stays as set */
        goto cleanup;
    }
    /*
     * Beside the destination, so that the final rename stays on one file
     * system; guarded, so that a perfgate stopped meanwhile leaves nothing.
     */
    if (!(tmp = pg__outfile_temp(path, "fetch"))) {
        err = PG_EIO;
        goto cleanup;
    }
    companions(tmp, 0, 1);
    if ((fd = open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0) {
        err = pg_error_set(PG_EIO, "%s: cannot write a temporary file: %s", tmp, strerror(errno));
        goto cleanup;
    }
    if ((err = pg_zip_extract_single(&entry, fd, (const unsigned char *)r.body, r.len)) != 0)
        goto cleanup;
    if (fsync(fd) != 0 || close(fd) != 0) {
        fd = -1;
        err = pg_error_set(PG_EIO, "%s: %s", tmp, strerror(errno));
        goto cleanup;
    }
    fd = -1;
    if ((err = check_store(&out->runs, tmp)) != 0)
        goto cleanup;
    {
        struct stat st;
        out->bytes = stat(tmp, &st) == 0 ? (int64_t)st.st_size : -1;
    }
    /* A stale WAL of the file being replaced must not be replayed onto the restored one. */
    companions(path, 1, -1);
    if (rename(tmp, path) != 0) {
        err = pg_error_set(PG_EIO, "%s: cannot move the restored database into place: %s", path, strerror(errno));
        goto cleanup;
    }
    pg__outfile_release(tmp);
    companions(tmp, 0, 0);
    free(tmp);
    tmp = NULL;

cleanup:
    if (fd >= 0)
        close(fd);
    if (tmp) {
        unlink(tmp);
        pg__outfile_release(tmp);
        companions(tmp, 1, 0);
    }
    if (err)
        pg_artifact_clear(&out->artifact);
    pg_gh_response_clear(&r);
    free(entry);
    free(tmp);
    return err;
}
