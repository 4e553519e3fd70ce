/*
 * artifacts_test.c - `perfgate db fetch` against the fake GitHub: the newest
 * unexpired artifact of main from the repository itself (not a fork's, not
 * another branch's) is downloaded without the token from its signed URL,
 * unzipped (deflated and stored, zips written by Python's zipfile), checked
 * as a store and moved into place; "nothing to restore" has its own exit
 * code; a corrupt archive or a file that is not a store leaves PATH as it was
 * and no temporary file behind. Also the zip reader on its own.
 */
#include "fakegh.h"
#include "fixture.h"
#include "support.h"

#include "post/artifacts.h"
#include "store/store.h"
#include "base/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOKEN "ghs_FETCHTOKEN_not_for_storage_88"

/* A store at `path` holding the fixed model's head run (or no run). */
static void make_store(const char *path, int with_run)
{
    pg_store *st = NULL;
    pg_test_model m;

    pg_assert_ok(pg_store_open(&st, path));
    if (with_run) {
        pg_test_fixed_model(&m);
        pg_assert_ok(pg_store_save_run(st, m.head));
        pg_test_model_free(&m);
    }
    pg_store_close(st);
}

/* Zips `file` as `entry` with Python's zipfile ("deflated" or "stored") and returns the archive's bytes. */
static char *make_zip(size_t *len, const char *tmp, const char *file, const char *entry, const char *method)
{
    char *zip = pg__asprintf("%s/a.zip", tmp), *cmd, *bytes = NULL;

    unlink(zip);
    cmd = pg__asprintf("python3 -c 'import sys, zipfile\n"
                       "with zipfile.ZipFile(sys.argv[1], \"w\", zipfile.ZIP_%s) as z: z.write(sys.argv[2], sys.argv[3])' "
                       "'%s' '%s' '%s'",
                       strcmp(method, "stored") == 0 ? "STORED" : "DEFLATED", zip, file, entry);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    pg_assert_ok(pg__read_file(&bytes, len, zip));
    unlink(zip);
    free(zip);
    free(cmd);
    return bytes;
}

static char *vars[8];

static void env_for(const fakegh *s)
{
    vars[0] = pg__asprintf("GITHUB_TOKEN=%s", TOKEN);
    vars[1] = pg__asprintf("GITHUB_API_URL=%s", fakegh_url(s));
    vars[2] = pg__asprintf("GITHUB_REPOSITORY=acme/kernels");
    vars[3] = pg__asprintf("PERFGATE_DEBUG=1");
    vars[4] = NULL;
}

static void env_free(void)
{
    int i;

    for (i = 0; vars[i]; i++) {
        free(vars[i]);
        vars[i] = NULL;
    }
}

static void fetch(pg_proc *p, const char *tmp, const char *out)
{
    const char *argv[] = {"db", "fetch", "--artifact", "perfgate-db", "--out", out, NULL};

    pg_test_run(p, tmp, (const char *const *)vars, argv);
    cr_assert(strstr(p->out, TOKEN) == NULL && strstr(p->err, TOKEN) == NULL, "the token was printed");
}

/* Files in `dir` whose name contains ".fetch-" (temporaries left behind). */
static int leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    while (d && (de = readdir(d)) != NULL)
        n += strstr(de->d_name, ".fetch-") != NULL;
    if (d)
        closedir(d);
    return n;
}

Test(db_fetch, restores_the_newest_artifact_of_main_from_the_repository_itself)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    char *tmp = pg_test_tmpdir();
    char *good = pg__asprintf("%s/good.db", tmp), *empty = pg__asprintf("%s/empty.db", tmp);
    char *out = pg__asprintf("%s/baselines/perfgate.db", tmp), *dir = pg__asprintf("%s/baselines", tmp);
    char *zgood, *zempty;
    size_t lgood, lempty, i;
    int64_t want;
    pg_store *st = NULL;
    pg_check_report cr;
    pg_proc p;

    make_store(good, 1);
    make_store(empty, 0);
    zgood = make_zip(&lgood, tmp, good, "perfgate.db", "deflated");
    zempty = make_zip(&lempty, tmp, empty, "perfgate.db", "deflated");
    /* Listed newest first: each newer one is disqualified for another reason. */
    fakegh_add_artifact(s, "perfgate-db", "main", 1, 0, "2026-11-01T10:00:00Z", zempty, lempty);
    want = fakegh_add_artifact(s, "perfgate-db", "main", 1, 0, "2026-11-20T10:00:00Z", zgood, lgood);
    fakegh_add_artifact(s, "perfgate-db", "feature", 1, 0, "2026-11-21T10:00:00Z", zempty, lempty);
    fakegh_add_artifact(s, "perfgate-db", "main", 1, 1, "2026-11-22T10:00:00Z", zempty, lempty);
    fakegh_add_artifact(s, "perfgate-db", "main", 2, 0, "2026-11-23T10:00:00Z", zempty, lempty);
    fakegh_add_artifact(s, "other", "main", 1, 0, "2026-11-24T10:00:00Z", zempty, lempty);
    cr_assert_eq(mkdir(dir, 0700), 0);
    env_for(s);
    fetch(&p, tmp, out);
    cr_assert_eq(p.status, 0, "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "restored") && strstr(p.out, "1 runs"), "%s", p.out);
    {
        char *zip = pg__asprintf("/repos/acme/kernels/actions/artifacts/%lld/zip", (long long)want);
        cr_assert_eq(fakegh_count(s, "GET", zip), 1, "did not download artifact %lld", (long long)want);
        free(zip);
    }
    /* The signed storage URL got no token; the API did. */
    for (i = 0; i < fakegh_request_count(s); i++) {
        const fakegh_request *r = fakegh_request_at(s, i);
        if (strncmp(r->path, "/blobs/", 7) == 0)
            cr_assert(r->auth == NULL, "the token went to the storage URL");
        else
            cr_assert_str_eq(r->auth, "Bearer " TOKEN);
    }
    cr_assert_eq(fakegh_count(s, "GET", "/blobs/"), 1);
    pg_assert_ok(pg_store_open(&st, out));
    pg_assert_ok(pg_store_check(&cr, st));
    cr_assert(cr.ok && cr.runs == 1, "%s, %lld runs", cr.message, (long long)cr.runs);
    pg_store_close(st);
    cr_assert_eq(leftovers(dir), 0);
    pg_proc_free(&p);
    env_free();
    fakegh_stop(s);
    pg_test_rmtree(tmp);
    free(tmp);
    free(good);
    free(empty);
    free(out);
    free(dir);
    free(zgood);
    free(zempty);
}

Test(db_fetch, stored_zip_is_read_too)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    char *tmp = pg_test_tmpdir(), *good = pg__asprintf("%s/good.db", tmp), *out = pg__asprintf("%s/got.db", tmp);
    char *zip;
    size_t len;
    pg_proc p;

    make_store(good, 1);
    zip = make_zip(&len, tmp, good, "perfgate.db", "stored");
    fakegh_add_artifact(s, "perfgate-db", "main", 1, 0, "2026-11-20T10:00:00Z", zip, len);
    env_for(s);
    fetch(&p, tmp, out);
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert_eq(access(out, F_OK), 0);
    pg_proc_free(&p);
    env_free();
    fakegh_stop(s);
    pg_test_rmtree(tmp);
    free(tmp);
    free(good);
    free(out);
    free(zip);
}

Test(db_fetch, nothing_to_restore_has_its_own_exit_code)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    char *tmp = pg_test_tmpdir(), *out = pg__asprintf("%s/perfgate.db", tmp);
    pg_proc p;

    /* Only a fork's artifact from its own "main": never restored. */
    fakegh_add_artifact(s, "perfgate-db", "main", 2, 0, "2026-11-20T10:00:00Z", "PK", 2);
    env_for(s);
    fetch(&p, tmp, out);
    cr_assert_eq(p.status, 4, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "nothing to restore: 1 artifact named 'perfgate-db'") != NULL, "%s", p.err);
    cr_assert_neq(access(out, F_OK), 0, "a file was written");
    cr_assert_eq(fakegh_count(s, "GET", "/blobs/"), 0);
    pg_proc_free(&p);
    env_free();
    fakegh_stop(s);
    pg_test_rmtree(tmp);
    free(tmp);
    free(out);
}

/* Runs a fetch of a bad archive over an existing good database; it must survive byte for byte. */
static void bad_archive_leaves_the_file(const char *zip, size_t len, const char *expect)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    char *tmp = pg_test_tmpdir(), *out = pg__asprintf("%s/perfgate.db", tmp);
    char *before = NULL, *after = NULL;
    size_t lb = 0, la = 0;
    pg_proc p;

    make_store(out, 1);
    pg_assert_ok(pg__read_file(&before, &lb, out));
    fakegh_add_artifact(s, "perfgate-db", "main", 1, 0, "2026-11-20T10:00:00Z", zip, len);
    env_for(s);
    fetch(&p, tmp, out);
    cr_assert_eq(p.status, 3, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, expect) != NULL, "%s", p.err);
    pg_assert_ok(pg__read_file(&after, &la, out));
    cr_assert(la == lb && memcmp(before, after, lb) == 0, "the good database was changed");
    cr_assert_eq(leftovers(tmp), 0, "a temporary file was left");
    pg_proc_free(&p);
    env_free();
    fakegh_stop(s);
    pg_test_rmtree(tmp);
    free(tmp);
    free(out);
    free(before);
    free(after);
}

Test(db_fetch, corrupt_zip_writes_nothing)
{
    char *tmp = pg_test_tmpdir(), *good = pg__asprintf("%s/good.db", tmp), *zip;
    size_t len, i;

    make_store(good, 1);
    zip = make_zip(&len, tmp, good, "perfgate.db", "deflated");
    /* Damage the compressed data in the middle; the directory stays readable. */
    for (i = len / 4; i < len / 4 + 64; i++)
        zip[i] ^= 0x5a;
    bad_archive_leaves_the_file(zip, len, "perfgate db fetch: the archive");
    /* Truncated: no central directory at all. */
    bad_archive_leaves_the_file(zip, len / 2, "not a zip archive");
    pg_test_rmtree(tmp);
    free(tmp);
    free(good);
    free(zip);
}

Test(db_fetch, a_file_that_is_not_a_store_writes_nothing)
{
    char *tmp = pg_test_tmpdir(), *text = pg_test_write(tmp, "notes.txt", "not a database\n"), *zip;
    size_t len;

    zip = make_zip(&len, tmp, text, "perfgate.db", "deflated");
    bad_archive_leaves_the_file(zip, len, "not a SQLite database");
    pg_test_rmtree(tmp);
    free(tmp);
    free(text);
    free(zip);
}

Test(zip_reader, one_file_only_and_its_crc_checked)
{
    char *tmp = pg_test_tmpdir(), *a = pg_test_write(tmp, "a.txt", "hello hello hello hello\n");
    char *two = pg__asprintf("%s/two.zip", tmp), *cmd, *bytes = NULL, *entry = NULL, *got = NULL;
    char *outp = pg__asprintf("%s/out", tmp);
    size_t len, glen;
    int fd;

    bytes = make_zip(&len, tmp, a, "dir/a.txt", "deflated");
    fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pg_assert_ok(pg_zip_extract_single(&entry, fd, (const unsigned char *)bytes, len));
    close(fd);
    cr_assert_str_eq(entry, "dir/a.txt");
    pg_assert_ok(pg__read_file(&got, &glen, outp));
    cr_assert_str_eq(got, "hello hello hello hello\n");
    free(got);
    free(entry);
    free(bytes);

    cmd = pg__asprintf("python3 -c 'import zipfile\nwith zipfile.ZipFile(\"%s\", \"w\") as z:\n"
                       " z.writestr(\"a\", \"1\"); z.writestr(\"b\", \"2\")'",
                       two);
    cr_assert_eq(system(cmd), 0);
    pg_assert_ok(pg__read_file(&bytes, &len, two));
    fd = open(outp, O_WRONLY | O_TRUNC);
    cr_assert_eq(pg_zip_extract_single(NULL, fd, (const unsigned char *)bytes, len), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "holds 2 files") != NULL, "%s", pg_error_last());
    /* A stored file whose bytes were changed fails its CRC. */
    free(bytes);
    bytes = make_zip(&len, tmp, a, "a.txt", "stored");
    bytes[len - 22 - 46 - 5 - 10] ^= 1;
    cr_assert_eq(pg_zip_extract_single(NULL, fd, (const unsigned char *)bytes, len), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "CRC-32") != NULL, "%s", pg_error_last());
    close(fd);
    free(bytes);
    free(cmd);
    free(two);
    free(outp);
    free(a);
    pg_test_rmtree(tmp);
    free(tmp);
}

/*
 * A zip bomb: 64 MiB of zeros deflated (about 64 KiB) in an entry that
 * declares 100 bytes, its sizes rewritten in both headers as an attacker
 * would. The inflate stops at the declared size, so what is written stays
 * within one chunk of it, however far the data would inflate.
 */
static char *make_bomb(size_t *len, const char *tmp)
{
    char *path = pg__asprintf("%s/bomb.zip", tmp), *cmd, *bytes = NULL;

    cmd = pg__asprintf("python3 -c 'import struct, sys, zipfile\n"
                       "with zipfile.ZipFile(sys.argv[1], \"w\", zipfile.ZIP_DEFLATED) as z:\n"
                       "    z.writestr(\"perfgate.db\", bytes(64 << 20))\n"
                       "b = bytearray(open(sys.argv[1], \"rb\").read())\n"
                       "struct.pack_into(\"<I\", b, 22, 100)\n"
                       "c = b.rfind(b\"PK\\x01\\x02\")\n"
                       "struct.pack_into(\"<I\", b, c + 24, 100)\n"
                       "open(sys.argv[1], \"wb\").write(b)' '%s'",
                       path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    pg_assert_ok(pg__read_file(&bytes, len, path));
    unlink(path);
    free(path);
    free(cmd);
    return bytes;
}

Test(zip_reader, a_zip_bomb_stops_at_the_size_it_declares)
{
    char *tmp = pg_test_tmpdir(), *outp = pg__asprintf("%s/out", tmp), *bomb;
    struct stat st;
    size_t len;
    int64_t t0;
    int fd;

    bomb = make_bomb(&len, tmp);
    fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    t0 = pg__mono_ns();
    cr_assert_eq(pg_zip_extract_single(NULL, fd, (const unsigned char *)bomb, len), PG_EFORMAT);
    cr_log_info("a %zu-byte bomb declaring 100 bytes: refused after %.1f ms", len, (double)(pg__mono_ns() - t0) / 1e6);
    close(fd);
    cr_assert(strstr(pg_error_last(), "inflates past the 100 bytes it declares") != NULL, "%s", pg_error_last());
    cr_assert_eq(stat(outp, &st), 0);
    cr_assert_leq(st.st_size, 100 + 65536, "%lld bytes written for a file declaring 100",
                  (long long)st.st_size);
    free(bomb);
    free(outp);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(db_fetch, a_zip_bomb_writes_nothing)
{
    char *tmp = pg_test_tmpdir(), *bomb;
    size_t len;

    bomb = make_bomb(&len, tmp);
    bad_archive_leaves_the_file(bomb, len, "inflates past the 100 bytes it declares");
    free(bomb);
    pg_test_rmtree(tmp);
    free(tmp);
}

/* A store with `sql` run on it (objects perfgate never creates), zipped. */
static char *hostile_store_zip(size_t *len, const char *tmp, const char *sql)
{
    char *db = pg__asprintf("%s/hostile.db", tmp), *zip;
    sqlite3 *h;

    make_store(db, 1);
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_close(h);
    zip = make_zip(len, tmp, db, "perfgate.db", "deflated");
    free(db);
    return zip;
}

/*
 * Restored databases are held to the exact schema perfgate's migrations
 * create: a trigger that deletes every result as it is inserted (the next
 * import would say "imported 50 cases" and store none), a view in place of
 * a table, a trigger that aborts writes. Each is refused; PATH stays.
 */
Test(db_fetch, a_database_with_objects_perfgate_did_not_create_is_refused)
{
    static const struct {
        const char *sql, *expect;
    } cases[] = {
        {"CREATE TRIGGER eat AFTER INSERT ON results BEGIN DELETE FROM results WHERE id = NEW.id; END;",
         "trigger 'eat' on results is not perfgate's"},
        {"CREATE TRIGGER stop BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'no'); END;",
         "trigger 'stop' on runs is not perfgate's"},
        {"PRAGMA foreign_keys = OFF; DROP TABLE checks; CREATE VIEW checks AS SELECT 1 AS id;",
         "'checks' is a view where perfgate has a table"},
        {"CREATE INDEX extra ON runs(uuid, branch);", "index 'extra' on runs is not perfgate's"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *tmp = pg_test_tmpdir(), *zip;
        size_t len;
        zip = hostile_store_zip(&len, tmp, cases[i].sql);
        bad_archive_leaves_the_file(zip, len, cases[i].expect);
        free(zip);
        pg_test_rmtree(tmp);
        free(tmp);
    }
}

/*
 * The API may answer an archive's URL with the archive itself (200) rather
 * than a redirect: the body is refused as it arrives past the cap, never
 * buffered whole first. The fake server counts what the client took.
 */
Test(db_fetch, an_archive_answered_directly_is_refused_as_it_arrives)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    pg_gh_options go = PG_GH_OPTIONS_INIT;
    const size_t big = (size_t)48 << 20;
    char *body = malloc(big + 1);
    pg_gh_response r = {0};
    const fakegh_request *req;
    pg_gh *gh = NULL;

    cr_assert(body != NULL);
    memset(body, 'A', big);
    body[big] = '\0';
    fakegh_fail_next(s, "GET", "/repos/acme/kernels/actions/artifacts/1/zip", 200, NULL, body, 1);
    free(body);
    go.api_url = fakegh_url(s);
    go.token = TOKEN;
    pg_assert_ok(pg_gh_new(&gh, &go));
    cr_assert_eq(pg_gh_download(&r, gh, "/repos/acme/kernels/actions/artifacts/1/zip", (size_t)1 << 20), PG_EIO);
    cr_assert(strstr(pg_error_last(), "larger than") != NULL, "%s", pg_error_last());
    req = fakegh_request_at(s, fakegh_request_count(s) - 1);
    cr_log_info("a %zu-byte answer against a 1 MiB cap: the client took %lld bytes", big, (long long)req->sent);
    cr_assert_lt(req->sent, (int64_t)(big / 2), "the client read %lld of %zu bytes past a 1 MiB cap",
                 (long long)req->sent, big);
    pg_gh_response_clear(&r);
    pg_gh_free(gh);
    fakegh_stop(s);
}

/* A redirect to a host the token may not go to (plain http off the machine) is GitHub's fault: exit 3, as documented. */
Test(db_fetch, a_redirect_off_host_is_an_infrastructure_error)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    char *tmp = pg_test_tmpdir(), *out = pg__asprintf("%s/perfgate.db", tmp), *good = pg__asprintf("%s/g.db", tmp);
    char *zip;
    size_t len;
    int64_t id;
    pg_proc p;

    make_store(good, 1);
    zip = make_zip(&len, tmp, good, "perfgate.db", "deflated");
    id = fakegh_add_artifact(s, "perfgate-db", "main", 1, 0, "2026-11-20T10:00:00Z", zip, len);
    {
        char *prefix = pg__asprintf("/repos/acme/kernels/actions/artifacts/%lld/zip", (long long)id);
        fakegh_fail_next(s, "GET", prefix, 302, "Location: http://evil.example/steal\r\n", "", 1);
        free(prefix);
    }
    env_for(s);
    fetch(&p, tmp, out);
    cr_assert_eq(p.status, 3, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "redirect") != NULL, "%s", p.err);
    cr_assert_neq(access(out, F_OK), 0, "something was restored");
    pg_proc_free(&p);
    env_free();
    fakegh_stop(s);
    pg_test_rmtree(tmp);
    free(tmp);
    free(out);
    free(good);
    free(zip);
}
