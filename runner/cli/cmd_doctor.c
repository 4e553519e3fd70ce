/* cmd_doctor.c - `perfgate doctor`: the machine fingerprint stored with every run, and the
   noise hazards seen now. */
#include "cli/cli.h"

#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "machine/blas_kernel.h"
#include "machine/fingerprint.h"
#include "machine/roofline.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"
#include "store/store.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char doctor_desc[] =
    "Prints the fingerprint perfgate stores with every run (CPU model, cores, SMT,\n"
    "governor, boost, ASLR, kernel, libc, OpenBLAS version, core type and config,\n"
    "thread settings) and the hazards that make timings noisy on this machine now:\n"
    "a governor other than 'performance', boost on, high load, a virtual machine,\n"
    "or fewer cores than the threads you intend to measure at. Runs compare only\n"
    "with runs whose machine id (the hash of CPU model, cores and BLAS core type)\n"
    "matches.\n\n"
    "It also shows the machine's roofs at the thread count (peak FLOP/s: sgemm\n"
    "1024^3; memory bandwidth: a STREAM-like triad and copy over 4x the last-level\n"
    "cache): those stored in the database, which the first run on a machine\n"
    "measures and every later run reuses, else measured now and not kept.\n"
    "--roofs measures them again and stores them (after a hardware or BIOS change\n"
    "the machine id does not see); --no-measure (or PERFGATE_ROOFLINE=off) shows\n"
    "only stored ones. It checks that OpenBLAS runs the kernels of the CPU's\n"
    "widest ISA: a generic kernel (e.g. Prescott on an AVX-512 CPU) is flagged with\n"
    "the factor measured on sgemm 256^3 against the ISA's own core.\n\n"
    "--sensitivity SUITE asks instead whether a gate on this machine would catch a\n"
    "slowdown: every CPU plugin or kernel case of SUITE is gated against itself in\n"
    "interleaved rounds, the head doing --change PCT more of the case's own work\n"
    "(default twice the threshold: extra iterations of the same code in every\n"
    "block, uncounted, never a spin), and each case is caught (REGRESSED), missed\n"
    "(SAME) or UNSURE. Run it on every new runner. Exit 0 when every case was caught,\n"
    "1 when one was not.\n\n"
    "examples:\n"
    "  perfgate doctor --threads 4\n"
    "  perfgate doctor --roofs --threads 2 --db baselines/perfgate.db\n"
    "  perfgate doctor --json\n"
    "  perfgate doctor --sensitivity suites/mine.yaml\n"
    "  perfgate doctor --sensitivity suites/mine.yaml --change 5 --rounds 40";

/* The GPU section: the device fingerprint, or why there is no device. */
static void print_gpu(void)
{
    char *text = NULL;
    json_t *g = NULL, *v;
    const char *k;

    printf("\ngpu:\n");
    if (pg_cuda_fingerprint(&text) != 0 || !(g = json_loads(text, 0, NULL))) {
        printf("  %s\n", pg_cuda_probe() != 0 ? pg_error_last() : "device fingerprint unreadable");
        free(text);
        return;
    }
    json_object_foreach(g, k, v) {
        char *t = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);
        printf("  %-24s %s\n", k, json_is_string(v) ? json_string_value(v) : (t ? t : "?"));
        free(t);
    }
    json_decref(g);
    free(text);
}

/* The BLAS kernel against the ISA; the JSON object for --json. */
static json_t *blas_kernel_section(int print)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *probe[] = {exe, "doctor", "--blas-probe", NULL};
    pg_blas_kernel k;

    if (n <= 0 || (exe[n] = '\0', pg_blas_kernel_check(&k, probe, 0)) != 0) {
        if (print)
            printf("\nblas kernel:\n  %s\n", n <= 0 ? "cannot find this executable to probe" : pg_error_last());
        return json_null();
    }
    if (print) {
        printf("\nblas kernel:\n  %-24s %s\n  %-24s %s (OpenBLAS core %s)\n", "core in use", k.core, "cpu isa", k.isa,
               k.expected);
        if (!k.narrower)
            printf("  ok: the core uses the CPU's widest ISA\n");
        else if (k.factor > 0)
            printf("  - %s: OpenBLAS runs the %s kernel on an %s CPU: sgemm 256^3 takes %.0f us against %.0f us "
                   "with OPENBLAS_CORETYPE=%s, %.1fx slower; MFU against a ceiling measured with it reads high. "
                   "Use an OpenBLAS that knows this CPU, or unset OPENBLAS_CORETYPE\n",
                   k.factor >= PG_BLAS_SLOW_FACTOR ? "SLOW BLAS KERNEL" : "narrower BLAS kernel", k.core, k.isa,
                   k.t_core * 1e6, k.t_expected * 1e6, k.expected, k.factor);
        else
            printf("  - narrower BLAS kernel: %s on an %s CPU (the timing probe failed)\n", k.core, k.isa);
    }
    return json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:o}", "core", k.core, "isa", k.isa, "expected_core", k.expected,
                     "narrower", k.narrower, "sgemm256_s", k.t_core > 0 ? json_real(k.t_core) : json_null(),
                     "sgemm256_expected_s", k.t_expected > 0 ? json_real(k.t_expected) : json_null(), "factor",
                     k.factor > 0 ? json_real(k.factor) : json_null());
}

/* How the doctor gets the roofs: from the store only, measured when the store lacks them, measured and stored. */
enum { ROOFS_STORED_ONLY, ROOFS_MEASURE, ROOFS_STORE };

/* The stored roof at `t` for this machine and BLAS from the database at `db`, if it exists; 0 when found. */
static int stored_roof(pg_roof_entry *out, const char *db, const char *hash, const char *fingerprint, int t)
{
    const char *path = pg_store_path(db);
    pg_store *store = NULL;
    pg_roof_table table = {0};
    const pg_roof_entry *e;
    char blas[64];
    int rc = 1;

    /* A file is only read when it is there; a server the user named is asked. */
    if (pg_store_is_server(path) ? pg_store_open(&store, path) != 0 : !(store = pg_cli_open_existing(path)))
        return 1;
    pg_roofline_blas(blas, sizeof(blas), fingerprint);
    if (pg_store_roofs_load(&table, store, hash) == 0 && (e = pg_roof_table_find(&table, "cpu", t)) != NULL &&
        strcmp(e->blas, blas) == 0) {
        *out = *e;
        rc = 0;
    }
    pg_roof_table_clear(&table);
    pg_store_close(store);
    return rc;
}

/* Measures the roofs at `t` and stores them for this machine in `db` (created when absent). */
static int store_roof(pg_roof_entry *e, const char *db, const char *hash, const char *fingerprint, int t)
{
    pg_roof_table table = {0};
    pg_store *store = NULL;
    int err;

    if ((err = pg_roofline_measure(e, t)) != 0)
        return err;
    pg_roofline_blas(e->blas, sizeof(e->blas), fingerprint);
    if ((err = pg_store_open(&store, pg_store_path(db))) == 0 && (err = pg_roof_table_put(&table, e)) == 0)
        err = pg_store_roofs_save(store, hash, &table);
    pg_roof_table_clear(&table);
    pg_store_close(store);
    return err;
}

static void print_roofs(const pg_roof_entry *e, int t, int capped, int stored, const char *db)
{
    char when[32] = "?";
    time_t at = (time_t)e->measured_at;
    struct tm tm;
    char *shown = pg_store_redacted(pg_store_path(db)); /* a server URL's password masked */

    if (gmtime_r(&at, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
    printf("\nroofs at %d thread%s%s:\n", t, t == 1 ? "" : "s", capped ? " (the online CPUs)" : "");
    printf("  %-24s %.3g GFLOP/s (sgemm 1024^3, fastest of its samples)\n", "peak", e->peak_gflops);
    printf("  %-24s %.3g GB/s triad, %.3g GB/s copy (over %zu MiB: 4x the last-level cache of %.0f MiB)\n",
           "bandwidth", e->triad_gbs, e->copy_gbs, pg_roofline_bandwidth_bytes((size_t)e->llc_bytes) >> 20,
           e->llc_bytes / (1 << 20));
    printf("  %-24s %.3g FLOP/byte: below it a case is memory-bound, above compute-bound\n", "ridge",
           e->triad_gbs > 0 ? e->peak_gflops / e->triad_gbs : 0);
    if (stored)
        printf("  %-24s %s in %s, measured %s; runs reuse them (--roofs measures them again)\n", "stored", "yes",
               shown ? shown : "the database", when);
    else
        printf("  %-24s no: measured now and not kept; --roofs stores them for every later run\n", "stored");
    free(shown);
}

/*
 * The roofs at `threads` (capped at the online CPUs); the JSON object for --json, null when none.
 * *failed is set when --roofs could not measure or store them.
 */
static json_t *roofs_section(int *failed, long threads, int print, int mode, const char *db, const char *hash,
                             const char *fingerprint)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int t = (int)(online > 0 && threads > online ? online : threads), stored = 0, err = 0;
    pg_roof_entry e;

    if (mode == ROOFS_STORE) {
        err = store_roof(&e, db, hash, fingerprint, t);
        stored = !err;
    } else if (stored_roof(&e, db, hash, fingerprint, t) == 0) {
        stored = 1;
    } else if (mode == ROOFS_MEASURE) {
        err = pg_roofline_measure(&e, t);
    } else {
        if (print) {
            char *shown = pg_store_redacted(pg_store_path(db));
            printf("\nroofs at %d thread%s:\n  none stored for this machine in %s (--roofs measures and stores "
                   "them)\n", t, t == 1 ? "" : "s", shown ? shown : "the database");
            free(shown);
        }
        return json_null();
    }
    if (err) {
        if (mode == ROOFS_STORE)
            *failed = err;
        else if (print)
            printf("\nroofs:\n  %s\n", pg_error_last());
        return json_null();
    }
    if (print)
        print_roofs(&e, t, t != threads, stored, db);
    return json_pack("{s:i, s:f, s:f, s:f, s:f, s:I, s:b}", "threads", t, "peak_gflops", e.peak_gflops, "triad_gbs",
                     e.triad_gbs, "copy_gbs", e.copy_gbs, "llc_bytes", e.llc_bytes, "measured_at",
                     (json_int_t)e.measured_at, "stored", stored);
}

int pg_cmd_doctor(int argc, char **argv)
{
    char *json = NULL, *hash = NULL, *hazards = NULL;
    long threads = 1;
    int as_json = 0, nargs, rc, err, no_measure = 0, blas_probe = 0, store_roofs = 0, mode, failed = 0;
    const char *roof_env = getenv("PERFGATE_ROOFLINE"), *db = NULL, *sensitivity = NULL, *filter = NULL;
    double change = 0;
    long rounds = 0;
    const pg_opt opts[] = {
        {"threads", 't', PG_OPT_INT, &threads, "N", "thread count you intend to measure at (default 1)"},
        {"json", 0, PG_OPT_FLAG, &as_json, NULL, "print {machine, fingerprint, hazards, roofs, blas_kernel} as JSON"},
        {"roofs", 0, PG_OPT_FLAG, &store_roofs, NULL,
         "measure the roofs at --threads again and store them for this machine (every later run reuses them)"},
        {"db", 0, PG_OPT_STR, &db, "PATH",
         "database the roofs are read from and --roofs stores them in (default $PERFGATE_DB, else "
         "baselines/perfgate.db)"},
        {"no-measure", 0, PG_OPT_FLAG, &no_measure, NULL,
         "never measure the roofs (peak FLOP/s, bandwidth): show the stored ones only"},
        {"blas-probe", 0, PG_OPT_FLAG, &blas_probe, NULL,
         "print the seconds of one sgemm 256^3 and exit (what the BLAS kernel check runs)"},
        {"sensitivity", 0, PG_OPT_STR, &sensitivity, "SUITE",
         "gate SUITE's cases against themselves with a known slowdown of real work: caught, missed or UNSURE here"},
        {"change", 0, PG_OPT_DOUBLE, &change, "PCT", "--sensitivity: the slowdown injected (default twice the threshold)"},
        {"rounds", 'r', PG_OPT_INT, &rounds, "R", "--sensitivity: interleaved rounds at most (default 20)"},
        {"filter", 'f', PG_OPT_STR, &filter, "GLOB", "--sensitivity: only cases whose key matches GLOB"},
        {0},
    };
    json_t *roofs = NULL, *blas = NULL;
    const pg_cmd_spec spec = {"doctor", "[options]", "Print this machine's fingerprint and the noise hazards seen now.",
                              doctor_desc, opts, 0, 0};
    json_t *o;

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (threads < 1) {
        fprintf(stderr, "perfgate doctor: --threads must be at least 1\n");
        return 2;
    }
    if (blas_probe) {
        printf("%.9f\n", pg_blas_probe_sgemm());
        return 0;
    }
    if (!sensitivity && (change != 0 || rounds != 0 || filter)) {
        fprintf(stderr, "perfgate doctor: --change, --rounds and --filter go with --sensitivity SUITE\n");
        return 2;
    }
    if (sensitivity) {
        if (change < 0 || change > 100 || rounds < 0 || rounds > 10000) {
            fprintf(stderr, "perfgate doctor: --change must be in (0, 100] percent and --rounds in 1..10000\n");
            return 2;
        }
        return pg_cli_sensitivity(sensitivity, change, rounds, filter);
    }
    if (store_roofs && no_measure) {
        fprintf(stderr, "perfgate doctor: --roofs measures the roofs and --no-measure never does; give one\n");
        return 2;
    }
    no_measure |= roof_env && strcmp(roof_env, "off") == 0 && !store_roofs;
    mode = store_roofs ? ROOFS_STORE : no_measure ? ROOFS_STORED_ONLY : ROOFS_MEASURE;
    if ((err = pg_fingerprint_read(&json, &hash)) != 0 ||
        (err = pg_fingerprint_hazards(&hazards, (int)threads)) != 0) {
        free(json);
        free(hash);
        return pg_cli_fail(err);
    }
    o = json_loads(json, 0, NULL);
    if (as_json) {
        json_t *top = json_object(), *hz = json_array();
        char *line = hazards, *nl, *text;
        for (; *line; line = nl + 1) {
            if (!(nl = strchr(line, '\n')))
                break;
            json_array_append_new(hz, json_stringn(line, (size_t)(nl - line)));
        }
        json_object_set_new(top, "machine", json_string(hash));
        json_object_set(top, "fingerprint", o ? o : json_null());
        json_object_set_new(top, "hazards", hz);
        json_object_set_new(top, "cuda_backend", json_boolean(PG_HAS_CUDA));
        json_object_set_new(top, "blas_kernel", blas_kernel_section(0));
        json_object_set_new(top, "roofs", roofs_section(&failed, threads, 0, mode, db, hash, json));
        text = json_dumps(top, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("%s\n", text ? text : "{}");
        free(text);
        json_decref(top);
    } else {
        printf("machine %s\n", hash);
        if (o) {
            const char *k;
            json_t *v;
            json_object_foreach(o, k, v) {
                char *t;
                if (json_is_object(v) || (json_is_null(v) && strcmp(k, "gpu") == 0))
                    continue; /* the GPU has its own section below */
                size_t kl = strlen(k);
                /* An environment variable that is null was not set; any other null could not be read. */
                const char *none = kl > 4 && strcmp(k + kl - 4, "_env") == 0 ? "(unset)" : "(not readable)";
                t = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);
                printf("  %-24s %s\n", k, json_is_string(v) ? json_string_value(v) : json_is_null(v) ? none : (t ? t : "?"));
                free(t);
            }
        }
        printf("  %-24s %s\n", "cuda_backend", PG_HAS_CUDA ? "built" : "not built");
        print_gpu();
        blas = blas_kernel_section(1);
        roofs = roofs_section(&failed, threads, 1, mode, db, hash, json);
        printf("\nnoise hazards at %ld thread%s:\n", threads, threads == 1 ? "" : "s");
        if (*hazards) {
            char *line = hazards, *nl;
            for (; *line && (nl = strchr(line, '\n')) != NULL; line = nl + 1)
                printf("  - %.*s\n", (int)(nl - line), line);
        } else {
            printf("  none seen\n");
        }
    }
    json_decref(o);
    json_decref(roofs);
    json_decref(blas);
    free(json);
    free(hash);
    free(hazards);
    return failed ? pg_cli_fail(failed) : 0;
}
