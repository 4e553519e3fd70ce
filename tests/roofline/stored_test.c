/* stored_test.c - the roofs belong to the machine: the first run measures and stores them, later runs reuse
   them (their peak is the MFU ceiling), `doctor --roofs` measures them again, another machine id or BLAS
   measures its own, and --no-store reads them without writing. The bandwidth footprint follows the cache. */
#include "compile.h"
#include "support.h"

#include "machine/roofline.h"
#include "store/store.h"
#include "base/util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char suite[] = "suite: roofs\n"
                            "defaults: {min_run_time: 0.05s, warmup: 10ms, min_samples: 5}\n"
                            "benchmarks:\n"
                            "  - {name: add, kernel: add, params: {n: 4096}}\n"
                            "  - {name: sgemm, kernel: sgemm, params: {n: 64}}\n";

/* `perfgate run` with the roofs on; its JSON report, parsed (caller decrefs); what it printed into *err. */
static json_t *run_json(const char *dir, const char *const *extra_env, const char *const *args, char **err)
{
    const char *env[8] = {"PERFGATE_ROOFLINE=on"};
    const char *argv[16] = {"run", "--json", "r.json"};
    char *path = pg__asprintf("%s/r.json", dir), *doc = NULL;
    size_t i, n = 3;
    json_t *o;
    pg_proc p;

    for (i = 0; extra_env && extra_env[i]; i++)
        env[i + 1] = extra_env[i];
    for (i = 0; args[i]; i++)
        argv[n++] = args[i];
    pg_test_run(&p, dir, env, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    if (err)
        *err = pg__asprintf("%s%s", p.out, p.err);
    pg_proc_free(&p);
    pg_assert_ok(pg__read_file(&doc, NULL, path));
    o = json_loads(doc, 0, NULL);
    cr_assert_not_null(o);
    free(doc);
    unlink(path);
    free(path);
    return o;
}

/* The run's roofs at 1 thread (borrowed from `o`). */
static json_t *roofs1(json_t *o)
{
    json_t *r = json_object_get(
        json_object_get(json_object_get(json_object_get(json_object_get(o, "machine"), "fingerprint"), "roofline"),
                        "cpu"),
        "1");

    cr_assert_not_null(r, "the run holds its roofs at 1 thread");
    return r;
}

static double num(json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* The sgemm result's MFU ceiling source, from its details. */
static const char *sgemm_ceiling_source(json_t *o)
{
    json_t *r;
    size_t i;

    json_array_foreach(json_object_get(o, "results"), i, r)
        if (strstr(json_string_value(json_object_get(r, "key")), "sgemm"))
            return json_string_value(json_object_get(json_object_get(r, "extra"), "mfu_ceiling_source"));
    return NULL;
}

/* The first line sqlite3 prints for `query` on `db` (caller frees). */
static char *sql_value(const char *db, const char *query)
{
    char *out = NULL, *cmd = pg__asprintf("sqlite3 '%s' \"%s\"", db, query);

    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s: %s", cmd, out);
    free(cmd);
    out[strcspn(out, "\n")] = '\0';
    return out;
}

static void sql(const char *db, const char *statement)
{
    free(sql_value(db, statement));
}

Test(roofs_stored, the_first_run_measures_and_stores_them_and_later_runs_reuse_them, .timeout = 300)
{
    char *tmp = pg_test_tmpdir(), *path = pg_test_write(tmp, "roofs.yaml", suite), *err = NULL, *v;
    char *db = pg__asprintf("%s/pg.db", tmp);
    const char *args[] = {"--db", db, path, NULL};
    json_t *first, *second, *third, *r;

    first = run_json(tmp, NULL, args, &err);
    r = roofs1(first);
    cr_assert(json_is_false(json_object_get(r, "reused")), "the first run on a machine measures its roofs");
    cr_assert(strstr(err, "roofline: measuring this machine's peak FLOP/s and memory bandwidth") != NULL, "%s", err);
    cr_assert(strstr(err, "the machine's roofs were measured and stored: later runs on this machine reuse them") !=
                  NULL,
              "%s", err);
    free(err);
    cr_assert_gt(num(r, "triad_gbs"), 0);
    v = sql_value(db, "SELECT COUNT(*) || ' ' || machine_hash || ' ' || threads FROM roofs");
    cr_assert_eq(strncmp(v, "1 ", 2), 0, "one row: %s", v);
    cr_assert(strstr(v, json_string_value(json_object_get(json_object_get(first, "machine"), "hash"))) != NULL,
              "kept under the run's machine id: %s", v);
    free(v);
    /* Its own sgemm 1024^3 (a case may beat it on a loaded machine and raise it). */
    cr_assert(strstr(sgemm_ceiling_source(first), "sgemm 1024^3") != NULL, "%s", sgemm_ceiling_source(first));
    cr_assert(strstr(sgemm_ceiling_source(first), "stored") == NULL, "%s", sgemm_ceiling_source(first));

    /* A stored roof nobody could measure shows up as is: the next run measured nothing. */
    sql(db, "UPDATE roofs SET triad_gbs = 1234.5, copy_gbs = 1000.25, peak_gflops = 4321.5");
    second = run_json(tmp, NULL, args, &err);
    r = roofs1(second);
    cr_assert(json_is_true(json_object_get(r, "reused")));
    cr_assert_float_eq(num(r, "triad_gbs"), 1234.5, 1e-9);
    cr_assert_float_eq(num(r, "copy_gbs"), 1000.25, 1e-9);
    cr_assert_float_eq(num(r, "peak_gflops"), 4321.5, 1e-9);
    cr_assert_eq(json_integer_value(json_object_get(r, "measured_at")),
                 json_integer_value(json_object_get(roofs1(first), "measured_at")));
    cr_assert(strstr(err, "measuring this machine's peak") == NULL, "%s", err);
    cr_assert(strstr(err, "roofs were measured") == NULL, "%s", err);
    free(err);
    /* Its peak is the MFU ceiling too (none of this machine's cases beats 4.3 TFLOP/s): no sgemm of its own. */
    cr_assert_str_eq(sgemm_ceiling_source(second),
                     "the machine's stored roof: sgemm 1024^3 at the same threads, fastest of its samples");

    /* The doctor measures them again and replaces them; the next run takes the new ones. */
    {
        const char *doc[] = {"doctor", "--roofs", "--db", db, NULL};
        pg_proc p;
        pg_test_run(&p, tmp, NULL, doc);
        cr_assert_eq(p.status, 0, "%s", p.err);
        cr_assert(strstr(p.out, "stored                   yes in") != NULL, "%s", p.out);
        pg_proc_free(&p);
    }
    v = sql_value(db, "SELECT COUNT(*) || ' ' || (triad_gbs = 1234.5) FROM roofs");
    cr_assert_str_eq(v, "1 0", "one row, measured again");
    free(v);
    third = run_json(tmp, NULL, args, NULL);
    r = roofs1(third);
    cr_assert(json_is_true(json_object_get(r, "reused")));
    cr_assert(num(r, "triad_gbs") != 1234.5 && num(r, "triad_gbs") > 0);
    v = sql_value(db, "SELECT triad_gbs FROM roofs");
    cr_assert_float_eq(num(r, "triad_gbs"), strtod(v, NULL), 1e-6 * num(r, "triad_gbs"));
    free(v);
    json_decref(first);
    json_decref(second);
    json_decref(third);
    pg_test_rmtree(tmp);
    free(tmp);
    free(path);
    free(db);
}

Test(roofs_stored, another_machine_id_or_blas_measures_its_own, .timeout = 300)
{
    char *tmp = pg_test_tmpdir(), *path = pg_test_write(tmp, "roofs.yaml", suite), *v;
    char *db = pg__asprintf("%s/pg.db", tmp);
    const char *args[] = {"--db", db, path, NULL};
    const char *zen[] = {"OPENBLAS_CORETYPE=Zen", NULL};
    json_t *a, *b, *c;

    a = run_json(tmp, NULL, args, NULL);
    sql(db, "UPDATE roofs SET triad_gbs = 1234.5");
    /* OPENBLAS_CORETYPE is part of the machine id: another id, its own roofs, the first machine's kept. */
    b = run_json(tmp, zen, args, NULL);
    cr_assert_str_neq(json_string_value(json_object_get(json_object_get(a, "machine"), "hash")),
                      json_string_value(json_object_get(json_object_get(b, "machine"), "hash")));
    cr_assert(json_is_false(json_object_get(roofs1(b), "reused")));
    cr_assert(num(roofs1(b), "triad_gbs") != 1234.5);
    v = sql_value(db, "SELECT COUNT(*) || ' ' || SUM(triad_gbs = 1234.5) FROM roofs");
    cr_assert_str_eq(v, "2 1");
    free(v);
    /* The peak is an sgemm of one BLAS: roofs stored with another BLAS version are measured again. */
    sql(db, "UPDATE roofs SET blas = '0.0.1' WHERE triad_gbs = 1234.5");
    c = run_json(tmp, NULL, args, NULL);
    cr_assert(json_is_false(json_object_get(roofs1(c), "reused")));
    cr_assert(num(roofs1(c), "triad_gbs") != 1234.5);
    v = sql_value(db, "SELECT COUNT(*) || ' ' || SUM(blas = '0.0.1') FROM roofs");
    cr_assert_str_eq(v, "2 0", "replaced, not added");
    free(v);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    pg_test_rmtree(tmp);
    free(tmp);
    free(path);
    free(db);
}

Test(roofs_stored, no_store_reads_an_existing_database_and_writes_nothing, .timeout = 300)
{
    char *tmp = pg_test_tmpdir(), *path = pg_test_write(tmp, "roofs.yaml", suite), *err = NULL, *v;
    char *db = pg__asprintf("%s/pg.db", tmp), *none = pg__asprintf("%s/none.db", tmp);
    const char *store[] = {"--db", db, path, NULL};
    const char *nostore[] = {"--no-store", "--db", db, path, NULL};
    const char *nodb[] = {"--no-store", "--db", none, path, NULL};
    json_t *a, *b, *c;
    struct stat sb;

    a = run_json(tmp, NULL, store, NULL);
    sql(db, "UPDATE roofs SET triad_gbs = 1234.5");
    b = run_json(tmp, NULL, nostore, NULL);
    cr_assert(json_is_true(json_object_get(roofs1(b), "reused")));
    cr_assert_float_eq(num(roofs1(b), "triad_gbs"), 1234.5, 1e-9);
    v = sql_value(db, "SELECT (SELECT COUNT(*) FROM runs) || ' ' || (SELECT COUNT(*) FROM roofs)");
    cr_assert_str_eq(v, "1 1", "the --no-store run was not stored");
    free(v);
    /* No database: the roofs are measured for this run, said so, and nothing is created. */
    c = run_json(tmp, NULL, nodb, &err);
    cr_assert(json_is_false(json_object_get(roofs1(c), "reused")));
    cr_assert(strstr(err, "measured for this run only: --no-store keeps nothing") != NULL, "%s", err);
    cr_assert_neq(stat(none, &sb), 0, "--no-store created no database");
    free(err);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    pg_test_rmtree(tmp);
    free(tmp);
    free(path);
    free(db);
    free(none);
}

Test(roofs_stored, the_bandwidth_footprint_is_four_times_the_last_level_cache)
{
    char *out = NULL;
    size_t llc = pg_roofline_llc_bytes(), all;

    cr_assert_eq(pg_roofline_bandwidth_bytes(32u << 20), 128u << 20);
    cr_assert_eq(pg_roofline_bandwidth_bytes(1u << 20), 64u << 20, "never under 64 MiB");
    cr_assert_eq(pg_roofline_bandwidth_bytes((size_t)1 << 30), (size_t)1 << 30, "never over 1 GiB");
    cr_assert_gt(llc, 0);
    /* lscpu's own reading of the caches: the highest level's size over all its instances. */
    if (pg_test_sh(&out, "lscpu -B -C=LEVEL,ALL-SIZE | tail -n +2 | sort -n | tail -1") != 0 || !out || !*out) {
        free(out);
        cr_skip_test("lscpu -C cannot list the caches here");
    }
    all = (size_t)strtoull(strchr(out, ' ') ? strrchr(out, ' ') + 1 : out, NULL, 10);
    free(out);
    if (sysconf(_SC_NPROCESSORS_ONLN) == sysconf(_SC_NPROCESSORS_CONF) && all > 0) {
        char *aff = NULL;
        /* With every CPU allowed, the caches this process reaches are all of them. */
        if (pg_test_sh(&aff, "test \"$(nproc)\" = \"$(nproc --all)\"") == 0)
            cr_assert_eq(llc, all, "sysfs %zu bytes, lscpu %zu", llc, all);
        free(aff);
    }
}
