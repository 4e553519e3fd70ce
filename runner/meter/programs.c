/*
 * programs.c - the programs a counting instrument runs (perfgate-meter, the
 * allocation counter's library, Valgrind), whether they are here, and what
 * they add to a counted run's fingerprint: counts depend on the Valgrind
 * version and the pinned OpenBLAS kernel as much as on the code.
 */
#include "meter/meter.h"

#include "machine/fingerprint.h"
#include "meter/internal.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- finding the programs ---------------------------------------------- */

static int executable(const char *path)
{
    return path && access(path, X_OK) == 0;
}

static int readable(const char *path)
{
    return path && access(path, R_OK) == 0;
}

/* `name` beside this process's executable, or NULL. */
static char *beside_self(const char *name)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;

    if (n <= 0)
        return NULL;
    self[n] = '\0';
    if (!(slash = strrchr(self, '/')))
        return NULL;
    *slash = '\0';
    return pg__asprintf("%s/%s", self, name);
}

#ifndef PG_METER_BUILD_DIR
#define PG_METER_BUILD_DIR ""
#endif

/* The option, $PERFGATE_METER, beside perfgate or in an installed tree's companions' directory. */
char *pg__meter_find_program(const pg_meter_options *o)
{
    const char *env = getenv("PERFGATE_METER");
    char *found;

    if (o->program)
        return pg__strdup(o->program);
    if (env && *env)
        return pg__strdup(env);
    if ((found = pg__find_companion("perfgate-meter", PG_METER_BUILD_DIR)) != NULL)
        return found;
    /* None: the path it was looked for first, for the message. */
    return beside_self("perfgate-meter");
}

char *pg__meter_find_shim(const pg_meter_options *o, const char *program)
{
    const char *env = getenv("PERFGATE_MEMSHIM");
    const char *slash;

    if (o->shim)
        return pg__strdup(o->shim);
    if (env && *env)
        return pg__strdup(env);
    if (!program || !(slash = strrchr(program, '/')))
        return NULL;
    return pg__asprintf("%.*s/libperfgate-memshim.so", (int)(slash - program), program);
}

/* Valgrind: $PERFGATE_VALGRIND, else the first `valgrind` on PATH; NULL when none. */
char *pg__meter_find_valgrind(void)
{
    const char *env = getenv("PERFGATE_VALGRIND"), *path = getenv("PATH"), *p;

    if (env)
        return *env && executable(env) ? pg__strdup(env) : NULL;
    for (p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        char *cand = pg__asprintf("%.*s/valgrind", (int)len, p);
        if (executable(cand))
            return cand;
        free(cand);
        p += len + (p[len] == ':');
    }
    return NULL;
}

int pg_meter_ready(unsigned instruments, const pg_meter_options *opts)
{
    pg_meter_options dflt = PG_METER_OPTIONS_INIT;
    char *program, *shim = NULL, *vg = NULL;
    int err = 0;

    if (!opts)
        opts = &dflt;
    if (!(instruments & (PG_INSTRUMENT_INSTRUCTIONS | PG_INSTRUMENT_MEMORY)))
        return 0;
    program = pg__meter_find_program(opts);
    if ((instruments & PG_INSTRUMENT_INSTRUCTIONS) && !(vg = pg__meter_find_valgrind()))
        err = pg_error_set(PG_EUSAGE, "instrument 'instructions' needs Valgrind, and %s; install it "
                                      "(Debian: apt-get install valgrind; ci/install-deps.sh does) or measure with "
                                      "--instrument time",
                           getenv("PERFGATE_VALGRIND") ? "$PERFGATE_VALGRIND is not an executable"
                                                       : "no 'valgrind' is on PATH");
    else if (!executable(program))
        err = pg_error_set(PG_EUSAGE, "the counting instruments need perfgate-meter, installed with perfgate; "
                                      "'%s' is not an executable (set PERFGATE_METER)",
                           program ? program : "perfgate-meter");
    else if ((instruments & PG_INSTRUMENT_MEMORY) && !readable(shim = pg__meter_find_shim(opts, program)))
        err = pg_error_set(PG_EUSAGE, "instrument 'memory' needs libperfgate-memshim.so, installed beside perfgate-meter; "
                                      "'%s' is not readable (set PERFGATE_MEMSHIM)",
                           shim ? shim : "libperfgate-memshim.so");
    free(program);
    free(shim);
    free(vg);
    return err;
}

/* OpenBLAS's kernel under the instruments: the caller's choice, else one Valgrind runs on every x86-64 CPU. */
const char *pg__meter_pinned_coretype(void)
{
    const char *env = getenv("OPENBLAS_CORETYPE");

    if (env && *env)
        return env;
#if defined(__x86_64__)
    return "Haswell";
#elif defined(__aarch64__)
    return "ARMV8";
#else
    return NULL;
#endif
}

/* Whether /proc/cpuinfo lists `flag` among the CPU's flags. */
static int cpu_has(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    size_t n = strlen(flag);
    int has = 0;

    while (f && !has && fgets(line, sizeof(line), f)) {
        const char *p = line;
        if (strncmp(line, "flags", 5) != 0)
            continue;
        while (!has && (p = strstr(p, flag)) != NULL) {
            has = p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0');
            p += n;
        }
        break;
    }
    if (f)
        fclose(f);
    return has;
}

char *pg__meter_sigill_why(int under_valgrind)
{
    if (under_valgrind)
        return pg__asprintf(
            "died of SIGILL under Valgrind: Valgrind cannot run some of this CPU's instructions%s, which code "
            "built with -march=native uses here; build the counted code for x86-64-v3 (-march=x86-64-v3: AVX2, "
            "which Valgrind runs) and count that build",
            cpu_has("avx512f") ? " (AVX-512)" : "");
    return pg__asprintf("died of SIGILL (illegal instruction): it ran an instruction this CPU does not have, most "
                        "often because it was built for a newer CPU (build it for this one: -march=x86-64-v3 runs "
                        "on any x86-64 CPU with AVX2, -march=native on the machine that runs it), else a deliberate "
                        "trap (__builtin_trap, ud2)");
}

char *pg__meter_valgrind_version(const char *vg)
{
    static char cached[64];
    char *cmd;
    FILE *p;

    if (cached[0])
        return pg__strdup(cached);
    cmd = pg__asprintf("'%s' --version 2>/dev/null", vg);
    if (cmd && (p = popen(cmd, "r")) != NULL) {
        if (fgets(cached, sizeof(cached), p))
            cached[strcspn(cached, "\r\n")] = '\0';
        pclose(p);
    }
    free(cmd);
    return pg__strdup(cached[0] ? cached : "unknown");
}

/* ---- the fingerprint of counts ------------------------------------------ */

/* The ISA list without AVX-512: Valgrind hides it, so it cannot change what a counted process runs. */
static char *isa_without_avx512(const char *isa)
{
    pg_buf b = PG_BUF_INIT;
    const char *p = isa;

    while (p && *p) {
        size_t len = strcspn(p, " ");
        if (len && strncmp(p, "avx512", 6) != 0)
            pg__buf_printf(&b, "%s%.*s", b.len ? " " : "", (int)len, p);
        p += len + (p[len] == ' ');
    }
    return b.ptr ? pg__buf_detach(&b) : pg__strdup("");
}

int pg_meter_fingerprint_run(pg_run *run)
{
    static const char *const kept[] = {"arch", "libc", "openblas_version"};
    json_t *machine, *o;
    char *vg = NULL, *ver = NULL, *isa = NULL, *text, *hash;
    const char *coretype = pg__meter_pinned_coretype();
    size_t i;

    if (run->nresults == 0)
        return 0;
    for (i = 0; i < run->nresults; i++)
        if (!pg_meter_is_exact(run->results[i].metric))
            return 0;
    machine = run->machine_json ? json_loads(run->machine_json, 0, NULL) : json_object();
    if (!machine || !(o = json_object())) {
        json_decref(machine);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    json_object_set_new(o, "kind", json_string("counts"));
    for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        json_t *v = json_object_get(machine, kept[i]);
        json_object_set(o, kept[i], v ? v : json_null());
    }
    isa = isa_without_avx512(json_string_value(json_object_get(machine, "isa")));
    json_object_set_new(o, "isa", json_string(isa ? isa : ""));
    json_object_set_new(o, "openblas_coretype", coretype ? json_string(coretype) : json_null());
    vg = pg__meter_find_valgrind();
    ver = vg ? pg__meter_valgrind_version(vg) : NULL;
    json_object_set_new(o, "valgrind", ver ? json_string(ver) : json_null());
#ifdef __VERSION__
    json_object_set_new(o, "compiler", json_string(__VERSION__));
#endif
    json_object_set_new(o, "perfgate", run->tool_version ? json_string(run->tool_version) : json_null());
    /* The identity: everything above; the machine itself rides along, outside the hash. */
    text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    hash = text ? pg_fingerprint_hash(text) : NULL;
    free(text);
    json_object_set(o, "measured_on", machine);
    text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(o);
    json_decref(machine);
    free(vg);
    free(ver);
    free(isa);
    if (!text || !hash) {
        free(text);
        free(hash);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    free(run->machine_json);
    free(run->machine_hash);
    run->machine_json = text;
    run->machine_hash = hash;
    return 0;
}
