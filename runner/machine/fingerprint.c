/*
 * fingerprint.c - machine fingerprint and noise hazards.
 *
 * Everything is read from /proc, /sys, uname, glibc and OpenBLAS at the
 * moment of the call; fields that are not readable (a container without
 * cpufreq, say) are null rather than guessed.
 */
#include "machine/fingerprint.h"

#include "backend/cuda_api.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <cblas.h>
#include <ctype.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* openblas_get_config/corename are OpenBLAS extensions not in every cblas.h. */
char *openblas_get_config(void);
char *openblas_get_corename(void);
int openblas_get_parallel(void);

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

/* The first "key : value" line of /proc/cpuinfo whose key is `key`; NULL when absent. */
static char *cpuinfo_field(const char *key)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    size_t klen = strlen(key);

    if (!f)
        return NULL;
    while (fgets(line, sizeof(line), f)) {
        char *p;
        size_t n;
        if (strncmp(line, key, klen) != 0 || (line[klen] != ' ' && line[klen] != '\t' && line[klen] != ':'))
            continue;
        fclose(f);
        if (!(p = strchr(line, ':')))
            return NULL;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        n = strlen(p);
        while (n && isspace((unsigned char)p[n - 1]))
            p[--n] = '\0';
        return pg__strdup(p);
    }
    fclose(f);
    return NULL;
}

static char *cpu_model(void)
{
    char *m = cpuinfo_field("model name");

    /* Arm kernels have no "model name"; the implementer/part pair is what identifies the core. */
    if (!m)
        m = cpuinfo_field("CPU part");
    return m ? m : pg__strdup("unknown");
}

/* Whether the space-separated `flags` contain the word `name`. */
static int has_flag(const char *flags, const char *name)
{
    const char *p = flags;
    size_t n = strlen(name);

    while ((p = strstr(p, name)) != NULL) {
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

/* The vector ISA extensions that decide which BLAS kernels run, from the cpu flags. */
static char *isa_flags(void)
{
    static const char *const wanted[] = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_bf16", "amx_tile",
                                         "asimd", "sve", NULL};
    char *flags = cpuinfo_field("flags");
    pg_buf b = PG_BUF_INIT;
    size_t i;

    if (!flags)
        flags = cpuinfo_field("Features");
    if (!flags)
        return NULL;
    for (i = 0; wanted[i]; i++)
        if (has_flag(flags, wanted[i]))
            pg__buf_printf(&b, "%s%s", b.len ? " " : "", wanted[i]);
    free(flags);
    return b.len ? pg__buf_detach(&b) : pg__strdup("");
}

/* Physical cores: distinct (physical id, core id) pairs; 0 when the kernel does not say. */
static long physical_cores(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    long pkg = 0, ids[4096], n = 0, i;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        long v;
        if (sscanf(line, "physical id : %ld", &v) == 1)
            pkg = v;
        else if (sscanf(line, "core id : %ld", &v) == 1) {
            long key = pkg * 65536 + v;
            for (i = 0; i < n && ids[i] != key; i++)
                ;
            if (i == n && n < 4096)
                ids[n++] = key;
        }
    }
    fclose(f);
    return n;
}

/* OpenBLAS's config string starts with "OpenBLAS 0.3.21 ..."; the version is its second word. */
static char *openblas_version(const char *config)
{
    const char *p;
    size_t n = 0;

    if (!config || strncmp(config, "OpenBLAS ", 9) != 0)
        return NULL;
    p = config + 9;
    while (p[n] && p[n] != ' ')
        n++;
    return n ? pg__asprintf("%.*s", (int)n, p) : NULL;
}

/* The "hypervisor" cpu flag: a guest shares its host, so steal time and neighbours add noise. */
static int virtualized(void)
{
    char *flags = cpuinfo_field("flags");
    int v = flags && has_flag(flags, "hypervisor");

    free(flags);
    return v;
}

static long allowed_cpus(void)
{
    cpu_set_t set;

    return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
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

char *pg_fingerprint_hash(const char *text)
{
    return pg__asprintf("%016llx", (unsigned long long)fnv1a(text));
}

int pg_fingerprint_read(char **out_json, char **out_hash)
{
    json_t *o = json_object();
    struct utsname u;
    char *model = cpu_model(), *gov, *boost, *aslr, *smt, *ident = NULL, *isa = isa_flags(), *driver, *max_khz;
    char *gpu_text = NULL;
    json_t *gpu = NULL;
    const char *gpu_name = NULL;
    const char *coretype = getenv("OPENBLAS_CORETYPE");
    const char *corename = openblas_get_corename();
    const char *config = openblas_get_config();
    char *blas_version = openblas_version(config);
    int parallel = openblas_get_parallel();
    long cores = physical_cores();
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
    driver = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
    max_khz = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    smt = read_first_line("/sys/devices/system/cpu/smt/active");

    set_str(o, "cpu_model", model);
    json_object_set_new(o, "online_cores", json_integer(online));
    json_object_set_new(o, "physical_cores", cores > 0 ? json_integer(cores) : json_null());
    json_object_set_new(o, "allowed_cpus", json_integer(allowed_cpus()));
    set_str(o, "isa", isa);
    set_str(o, "smt", smt);
    json_object_set_new(o, "virtualized", json_boolean(virtualized()));
    set_str(o, "governor", gov);
    set_str(o, "scaling_driver", driver);
    json_object_set_new(o, "cpu_max_mhz", max_khz ? json_integer(atol(max_khz) / 1000) : json_null());
    set_str(o, "boost", boost);
    set_str(o, "aslr", aslr);
    if (uname(&u) == 0) {
        set_str(o, "kernel", u.release);
        set_str(o, "arch", u.machine);
        set_str(o, "hostname", u.nodename);
    }
    set_str(o, "libc", gnu_get_libc_version());
    set_str(o, "blas", "OpenBLAS");
    set_str(o, "openblas_version", blas_version);
    set_str(o, "openblas_config", config);
    set_str(o, "openblas_corename", corename);
    set_str(o, "openblas_coretype_env", coretype);
    set_str(o, "openblas_parallel", parallel == 0 ? "sequential" : parallel == 1 ? "pthreads"
                                    : parallel == 2 ? "openmp" : "unknown");
    json_object_set_new(o, "openblas_threads_max", json_integer(openblas_get_num_threads()));
    set_str(o, "openblas_num_threads_env", getenv("OPENBLAS_NUM_THREADS"));
    set_str(o, "omp_num_threads_env", getenv("OMP_NUM_THREADS"));
    /* Cases pin their own counts (default 1); this is what a case without `threads` gets. */
    json_object_set_new(o, "default_threads", json_integer(1));
    /* The GPU (null without one). Its name joins the identity only when there
     * is one, so CPU-only machines keep their hash. */
    if (pg_cuda_fingerprint(&gpu_text) == 0)
        gpu = json_loads(gpu_text, 0, NULL);
    json_object_set_new(o, "gpu", gpu ? gpu : json_null());
    gpu_name = gpu ? json_string_value(json_object_get(gpu, "name")) : NULL;

    ident = pg__asprintf("%s|%ld|%s|%s%s%s", model, online, corename ? corename : "", coretype ? coretype : "",
                         gpu_name ? "|gpu:" : "", gpu_name ? gpu_name : "");
    *out_json = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    *out_hash = ident ? pg_fingerprint_hash(ident) : NULL;
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
    free(isa);
    free(driver);
    free(max_khz);
    free(blas_version);
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
    else if (allowed_cpus() > 0 && requested_threads > allowed_cpus())
        pg__buf_printf(&b, "%d threads requested but this process may run on only %ld CPUs (affinity/cgroup)\n",
                       requested_threads, allowed_cpus());
    else if (physical_cores() > 0 && requested_threads > physical_cores())
        pg__buf_printf(&b, "%d threads requested but only %ld physical cores: SMT siblings share a core\n",
                       requested_threads, physical_cores());
    if (virtualized())
        pg__buf_puts(&b, "running in a virtual machine: steal time and neighbours on the host add noise\n");
    if (getenv("OPENBLAS_CORETYPE"))
        pg__buf_printf(&b, "OPENBLAS_CORETYPE=%s overrides the BLAS kernel choice: results match only runs with it\n",
                       getenv("OPENBLAS_CORETYPE"));
    if (!gov)
        pg__buf_puts(&b, "frequency governor is not readable (virtual machine?): clock scaling unknown\n");
    free(gov);
    free(boost);
    *out_text = pg__buf_detach(&b);
    return *out_text ? 0 : PG_ENOMEM;
}
