/*
 * blas_kernel.c - the OpenBLAS core in use against the CPU's ISA, and the
 * measured cost of the difference (blas_kernel.h).
 */
#include "machine/blas_kernel.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

char *openblas_get_corename(void);
void openblas_set_num_threads(int n);

/* The vector ISA each OpenBLAS x86-64 core's kernels use: 4 AVX-512, 3 AVX2, 2 AVX, 1 SSE4.2, 0 SSE2/3. */
static const struct {
    const char *core;
    int rank;
} cores[] = {
    {"SkylakeX", 4},    {"Cooperlake", 4}, {"SapphireRapids", 4}, {"Haswell", 3},  {"Zen", 3},
    {"Sandybridge", 2}, {"Bulldozer", 2},  {"Piledriver", 2},     {"Steamroller", 2}, {"Excavator", 2},
    {"Nehalem", 1},     {"Barcelona", 1},  {"Bobcat", 1},         {"Prescott", 0}, {"Core2", 0},
    {"Penryn", 0},      {"Dunnington", 0}, {"Atom", 0},           {"Opteron", 0},  {"Opteron_SSE3", 0},
};

static const struct {
    const char *flag, *isa, *core;
} isas[] = {
    {"avx512f", "AVX-512", "SkylakeX"}, {"avx2", "AVX2", "Haswell"}, {"avx", "AVX", "Sandybridge"},
    {"sse4_2", "SSE4.2", "Nehalem"},    {"sse2", "SSE2", "Prescott"},
};

static int core_rank(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(cores) / sizeof(cores[0]); i++)
        if (strcasecmp(cores[i].core, name) == 0)
            return cores[i].rank;
    return -1;
}

/* The widest ISA whose flag /proc/cpuinfo lists; its index in isas[], or -1. */
static int cpu_isa(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    int best = -1;
    size_t i;

    if (!f)
        return -1;
    while (best < 0 && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        for (i = 0; i < sizeof(isas) / sizeof(isas[0]) && best < 0; i++) {
            size_t l = strlen(isas[i].flag);
            const char *p = line;
            while ((p = strstr(p, isas[i].flag)) != NULL) {
                if (p[-1] == ' ' && (p[l] == ' ' || p[l] == '\n')) {
                    best = (int)i;
                    break;
                }
                p += l;
            }
        }
    }
    fclose(f);
    return best;
}

double pg_blas_probe_sgemm(void)
{
    enum { N = 256 };
    float *a = malloc(sizeof(float) * N * N), *b = malloc(sizeof(float) * N * N), *c = malloc(sizeof(float) * N * N);
    double best = INFINITY;
    int i;

    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return -1;
    }
    for (i = 0; i < N * N; i++) {
        a[i] = (float)(i % 17) * 0.01f;
        b[i] = (float)(i % 13) * 0.02f;
        c[i] = 0;
    }
    openblas_set_num_threads(1);
    for (i = 0; i < 23; i++) {
        int64_t t0 = pg__mono_ns();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
        if (i >= 3)
            best = fmin(best, (double)(pg__mono_ns() - t0) * 1e-9);
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* Runs `probe` with OPENBLAS_CORETYPE=core (NULL: as inherited); the seconds it prints, or <= 0. */
static double run_probe(char *const probe[], const char *core)
{
    size_t n = 0, i, j = 0;
    char **env, buf[128] = "";
    int fds[2], status;
    posix_spawn_file_actions_t fa;
    pid_t pid;
    ssize_t got, len = 0;

    while (environ[n])
        n++;
    if (!(env = calloc(n + 2, sizeof(char *))) || pipe(fds) != 0) {
        free(env);
        return -1;
    }
    for (i = 0; i < n; i++)
        if (!core || strncmp(environ[i], "OPENBLAS_CORETYPE=", 18) != 0)
            env[j++] = environ[i];
    if (core)
        env[j++] = pg__asprintf("OPENBLAS_CORETYPE=%s", core);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    fflush(stdout);
    if (posix_spawn(&pid, probe[0], &fa, NULL, probe, env) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    while (pid > 0 && len < (ssize_t)sizeof(buf) - 1 &&
           (got = read(fds[0], buf + len, sizeof(buf) - 1 - (size_t)len)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        len += got;
    }
    buf[len] = '\0';
    close(fds[0]);
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    if (core)
        free(env[j - 1]);
    free(env);
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? strtod(buf, NULL) : -1;
}

int pg_blas_kernel_check(pg_blas_kernel *out, char *const probe[], int always)
{
    const char *core = openblas_get_corename();
    int isa = cpu_isa(), rank;

    memset(out, 0, sizeof(*out));
    snprintf(out->core, sizeof(out->core), "%s", core ? core : "?");
    if (isa < 0)
        return pg_error_set(PG_ENOTFOUND, "no vector ISA flags in /proc/cpuinfo (not an x86-64 Linux machine?)");
    snprintf(out->isa, sizeof(out->isa), "%s", isas[isa].isa);
    snprintf(out->expected, sizeof(out->expected), "%s", isas[isa].core);
    rank = core_rank(out->core);
    /* isas[] runs widest first: index 0 is rank 4. */
    out->narrower = rank >= 0 && rank < 4 - isa;
    if (!(out->narrower || always) || !probe)
        return 0;
    out->t_core = run_probe(probe, NULL);
    out->t_expected = run_probe(probe, out->expected);
    if (out->t_core > 0 && out->t_expected > 0)
        out->factor = out->t_core / out->t_expected;
    return 0;
}
