/* fingerprint.c - machine fingerprint and noise hazards. */
#include "fingerprint.h"

#include "backend/cuda_api.h"
#include "perfgate/errors.h"
#include "util.h"

#include <cblas.h>
#include <gnu/libc-version.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* openblas_get_config/corename are OpenBLAS extensions not in every cblas.h. */
char *openblas_get_config(void);
char *openblas_get_corename(void);

static char *read_first_line(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t n;

    if (!f)
        return NULL;
    if (!fgets(line, sizeof(line), f)) {
        fclose(f);
        return NULL;
    }
    fclose(f);
    n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
        line[--n] = '\0';
    return pg__strdup(line);
}

static char *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];

    if (!f)
        return pg__strdup("unknown");
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            size_t n;
            fclose(f);
            if (!p)
                return pg__strdup("unknown");
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
            n = strlen(p);
            while (n && (p[n - 1] == '\n' || p[n - 1] == ' '))
                p[--n] = '\0';
            return pg__strdup(p);
        }
    }
    fclose(f);
    return pg__strdup("unknown");
}

static void set_str(json_t *o, const char *key, const char *v)
{
    json_object_set_new(o, key, v ? json_string(v) : json_null());
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

int pg_fingerprint_read(char **out_json, char **out_hash)
{
    json_t *o = json_object();
    struct utsname u;
    char *model = cpu_model(), *gov, *boost, *aslr, *smt, *ident = NULL, *gpu_text = NULL;
    json_t *gpu = NULL;
    const char *gpu_name = NULL;
    const char *coretype = getenv("OPENBLAS_CORETYPE");
    const char *corename = openblas_get_corename();
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int err = 0;

    *out_json = *out_hash = NULL;
    if (!o || !model)
        return pg_error_set(PG_ENOMEM, "out of memory reading the machine fingerprint");
    gov = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    boost = read_first_line("/sys/devices/system/cpu/cpufreq/boost");
    if (!boost) {
        char *no_turbo = read_first_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
        if (no_turbo)
            boost = pg__strdup(strcmp(no_turbo, "1") == 0 ? "0" : "1");
        free(no_turbo);
    }
    aslr = read_first_line("/proc/sys/kernel/randomize_va_space");
    smt = read_first_line("/sys/devices/system/cpu/smt/active");

    set_str(o, "cpu_model", model);
    json_object_set_new(o, "online_cores", json_integer(online));
    set_str(o, "smt", smt);
    set_str(o, "governor", gov);
    set_str(o, "boost", boost);
    set_str(o, "aslr", aslr);
    if (uname(&u) == 0) {
        set_str(o, "kernel", u.release);
        set_str(o, "arch", u.machine);
        set_str(o, "hostname", u.nodename);
    }
    set_str(o, "libc", gnu_get_libc_version());
    set_str(o, "blas", "OpenBLAS");
    set_str(o, "openblas_config", openblas_get_config());
    set_str(o, "openblas_corename", corename);
    set_str(o, "openblas_coretype_env", coretype);
    json_object_set_new(o, "openblas_threads_max", json_integer(openblas_get_num_threads()));
    /* The GPU (null without one). Its name joins the identity only when there
     * is one, so CPU-only machines keep their hash. */
    if (pg__cuda_fingerprint(&gpu_text) == 0)
        gpu = json_loads(gpu_text, 0, NULL);
    json_object_set_new(o, "gpu", gpu ? gpu : json_null());
    gpu_name = gpu ? json_string_value(json_object_get(gpu, "name")) : NULL;

    ident = pg__asprintf("%s|%ld|%s|%s%s%s", model, online, corename ? corename : "", coretype ? coretype : "",
                         gpu_name ? "|gpu:" : "", gpu_name ? gpu_name : "");
    *out_json = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    *out_hash = ident ? pg__asprintf("%016llx", (unsigned long long)fnv1a(ident)) : NULL;
    if (!*out_json || !*out_hash) {
        free(*out_json);
        free(*out_hash);
        *out_json = *out_hash = NULL;
        err = pg_error_set(PG_ENOMEM, "out of memory encoding the machine fingerprint");
    }
    free(ident);
    free(gpu_text);
    free(model);
    free(gov);
    free(boost);
    free(aslr);
    free(smt);
    json_decref(o);
    return err;
}

int pg_fingerprint_hazards(char **out_text, int requested_threads)
{
    pg_buf b = PG_BUF_INIT;
    char *gov = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    char *boost = read_first_line("/sys/devices/system/cpu/cpufreq/boost");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    double load[3];

    if (gov && strcmp(gov, "performance") != 0)
        pg__buf_printf(&b, "frequency governor is '%s', not 'performance': clocks will wander\n", gov);
    if (boost && strcmp(boost, "1") == 0)
        pg__buf_puts(&b, "CPU boost is on: clocks depend on temperature and load\n");
    if (getloadavg(load, 3) == 3 && load[0] > 0.5 * (double)online)
        pg__buf_printf(&b, "load average is %.2f on %ld cores: other work competes for the CPU\n", load[0],
                       online);
    if (requested_threads > online)
        pg__buf_printf(&b, "%d threads requested but only %ld cores are online\n", requested_threads, online);
    if (!gov)
        pg__buf_puts(&b, "frequency governor is not readable (virtual machine?): clock scaling unknown\n");
    free(gov);
    free(boost);
    *out_text = pg__buf_detach(&b);
    return *out_text ? 0 : PG_ENOMEM;
}
