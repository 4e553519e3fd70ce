/* cmd_doctor.c - `perfgate doctor`: the machine fingerprint stored with every run, and the
   noise hazards seen now. */
#include "cli.h"

#include "backend/cuda_api.h"
#include "fingerprint.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char doctor_desc[] =
    "Prints the fingerprint perfgate stores with every run (CPU model, cores, SMT,\n"
    "governor, boost, ASLR, kernel, libc, OpenBLAS version, core type and config,\n"
    "thread settings) and the hazards that make timings noisy on this machine now:\n"
    "a governor other than 'performance', boost on, high load, a virtual machine,\n"
    "or fewer cores than the threads you intend to measure at. Runs compare only\n"
    "with runs whose machine id (the hash of CPU model, cores and BLAS core type)\n"
    "matches.\n\n"
    "examples:\n"
    "  perfgate doctor --threads 4\n"
    "  perfgate doctor --json";

/* The GPU section: the device fingerprint, or why there is no device. */
static void print_gpu(void)
{
    char *text = NULL;
    json_t *g = NULL, *v;
    const char *k;

    printf("\ngpu:\n");
    if (pg__cuda_fingerprint(&text) != 0 || !(g = json_loads(text, 0, NULL))) {
        printf("  %s\n", pg__cuda_probe() != 0 ? pg_error_last() : "device fingerprint unreadable");
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

int pg_cmd_doctor(int argc, char **argv)
{
    char *json = NULL, *hash = NULL, *hazards = NULL;
    long threads = 1;
    int as_json = 0, nargs, rc, err;
    const pg_opt opts[] = {
        {"threads", 't', PG_OPT_INT, &threads, "N", "thread count you intend to measure at (default 1)"},
        {"json", 0, PG_OPT_FLAG, &as_json, NULL, "print {machine, fingerprint, hazards} as JSON"},
        {0},
    };
    const pg_cmd_spec spec = {"doctor", "[options]", "Print this machine's fingerprint and the noise hazards seen now.",
                              doctor_desc, opts, 0, 0};
    json_t *o;

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (threads < 1) {
        fprintf(stderr, "perfgate doctor: --threads must be at least 1\n");
        return 2;
    }
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
    free(json);
    free(hash);
    free(hazards);
    return 0;
}
