/* cmd_doctor.c - `perfgate doctor`: the machine fingerprint stored with every run, and the
   noise hazards seen now. */
#include "cli/cli.h"

#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "machine/blas_kernel.h"
#include "machine/fingerprint.h"
#include "measure/measure.h"
#include "machine/roofline.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char doctor_desc[] =
    "Prints the fingerprint perfgate stores with every run (CPU model, cores, SMT,\n"
    "governor, boost, ASLR, kernel, libc, OpenBLAS version, core type and config,\n"
    "thread settings) and the hazards that make timings noisy on this machine now:\n"
    "a governor other than 'performance', boost on, high load, a virtual machine,\n"
    "or fewer cores than the threads you intend to measure at. Runs compare only\n"
    "with runs whose machine id (the hash of CPU model, cores and BLAS core type)\n"
    "matches.\n\n"
    "It also measures the roofs every run stores (peak FLOP/s: sgemm 1024^3; memory\n"
    "bandwidth: a STREAM-like triad and copy beyond the last-level cache) at the\n"
    "thread count, and checks that OpenBLAS runs the kernels of the CPU's widest\n"
    "ISA: a generic kernel (e.g. Prescott on an AVX-512 CPU) is flagged with the\n"
    "factor measured on sgemm 256^3 against the ISA's own core. --no-measure (or\n"
    "PERFGATE_ROOFLINE=off) skips the roofs.\n\n"
    "--sensitivity SUITE asks instead whether a gate on this machine would catch a\n"
    "slowdown: every CPU plugin or kernel case of SUITE is gated against itself in\n"
    "interleaved rounds, the head doing --change PCT more of the case's own work\n"
    "(default twice the threshold: extra iterations of the same code in every\n"
    "block, uncounted, never a spin), and each case is caught (REGRESSED), missed\n"
    "(SAME) or UNSURE. Run it on every new runner. Exit 0 when every case was caught,\n"
    "1 when one was not.\n\n"
    "examples:\n"
    "  perfgate doctor --threads 4\n"
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

/* Peak FLOP/s and bandwidth at `threads` (capped at the online CPUs); the JSON object for --json. */
static json_t *roofs_section(long threads, int print)
{
    pg_backend_options bo = PG_BACKEND_OPTIONS_INIT;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int t = (int)(online > 0 && threads > online ? online : threads), reliable;
    double peak, triad = 0, copy = 0;

    if (pg_measure_set_threads(NULL, t) != 0 || pg_roofline_bandwidth(&triad, &copy, t, 0) != 0) {
        if (print)
            printf("\nroofs:\n  %s\n", pg_error_last());
        return json_null();
    }
    peak = pg_backend_cpu_peak(t, &bo, &reliable) * 1e9;
    if (print) {
        printf("\nroofs at %d thread%s%s:\n", t, t == 1 ? "" : "s", t != threads ? " (the online CPUs)" : "");
        printf("  %-24s %.3g GFLOP/s (sgemm 1024^3, fastest of its samples)\n", "peak", peak * 1e-9);
        printf("  %-24s %.3g GB/s triad, %.3g GB/s copy (beyond the last-level cache)\n", "bandwidth", triad * 1e-9,
               copy * 1e-9);
        printf("  %-24s %.3g FLOP/byte: below it a case is memory-bound, above compute-bound\n", "ridge",
               peak > 0 ? peak / triad : 0);
    }
    return json_pack("{s:i, s:f, s:f, s:f}", "threads", t, "peak_gflops", peak * 1e-9, "triad_gbs", triad * 1e-9,
                     "copy_gbs", copy * 1e-9);
}

int pg_cmd_doctor(int argc, char **argv)
{
    char *json = NULL, *hash = NULL, *hazards = NULL;
    long threads = 1;
    int as_json = 0, nargs, rc, err, no_measure = 0, blas_probe = 0;
    const char *roof_env = getenv("PERFGATE_ROOFLINE"), *sensitivity = NULL, *filter = NULL;
    double change = 0;
    long rounds = 0;
    const pg_opt opts[] = {
        {"threads", 't', PG_OPT_INT, &threads, "N", "thread count you intend to measure at (default 1)"},
        {"json", 0, PG_OPT_FLAG, &as_json, NULL, "print {machine, fingerprint, hazards, roofs, blas_kernel} as JSON"},
        {"no-measure", 0, PG_OPT_FLAG, &no_measure, NULL, "skip measuring the roofs (peak FLOP/s, bandwidth)"},
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
    no_measure |= roof_env && strcmp(roof_env, "off") == 0;
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
        json_object_set_new(top, "roofs", no_measure ? json_null() : roofs_section(threads, 0));
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
        if (!no_measure)
            roofs = roofs_section(threads, 1);
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
    return 0;
}
