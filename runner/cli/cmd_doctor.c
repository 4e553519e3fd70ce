/* cmd_doctor.c - `perfgate doctor`: fingerprint and noise hazards. */
#include "cli.h"

#include "backend/cuda_api.h"
#include "fingerprint.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

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
    int nargs, rc, err;
    const pg_opt opts[] = {
        {"threads", 't', PG_OPT_INT, &threads, "N", "thread count you intend to measure at (default 1)"},
        {0},
    };
    const pg_cmd_spec spec = {"doctor", "[options]", "Print this machine's fingerprint and the noise hazards seen now.",
                              NULL, opts, 0, 0};
    json_t *o;

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if ((err = pg_fingerprint_read(&json, &hash)) != 0 ||
        (err = pg_fingerprint_hazards(&hazards, (int)threads)) != 0)
        return pg_cli_fail(err);
    o = json_loads(json, 0, NULL);
    printf("machine %s\n", hash);
    if (o) {
        const char *k;
        json_t *v;
        json_object_foreach(o, k, v) {
            char *t;
            if (json_is_object(v) || (json_is_null(v) && strcmp(k, "gpu") == 0))
                continue; /* the GPU has its own section below */
            t = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);
            printf("  %-24s %s\n", k, json_is_string(v) ? json_string_value(v) : (t ? t : "?"));
            free(t);
        }
        json_decref(o);
    }
    printf("  %-24s %s\n", "cuda_backend", PG_HAS_CUDA ? "built" : "not built");
    print_gpu();
    printf("\nnoise hazards:\n%s", *hazards ? hazards : "  none seen\n");
    free(json);
    free(hash);
    free(hazards);
    return 0;
}
