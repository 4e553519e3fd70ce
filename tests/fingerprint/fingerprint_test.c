/* fingerprint_test.c - the machine fingerprint against what the system says directly, its
   identity hash, the noise hazards, and `perfgate doctor` run as a process. */
#include "support.h"

#include "machine/fingerprint.h"
#include "base/util.h"

#include <cblas.h>
#include <gnu/libc-version.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

char *openblas_get_corename(void);

static json_t *read_fp(char **hash)
{
    char *json = NULL;
    json_t *o;

    pg_assert_ok(pg_fingerprint_read(&json, hash));
    o = json_loads(json, 0, NULL);
    cr_assert_not_null(o, "not JSON: %s", json);
    free(json);
    return o;
}

Test(fingerprint, fields_match_the_system)
{
    static const char *const keys[] = {"cpu_model", "online_cores", "physical_cores", "smt", "governor", "boost",
                                       "aslr", "kernel", "arch", "libc", "isa", "openblas_version",
                                       "openblas_config", "openblas_corename", "openblas_coretype_env",
                                       "openblas_parallel", "openblas_threads_max", "omp_num_threads_env",
                                       "default_threads", "virtualized", "allowed_cpus", NULL};
    char *hash = NULL;
    json_t *o = read_fp(&hash);
    struct utsname u;
    size_t i;

    for (i = 0; keys[i]; i++)
        cr_expect(json_object_get(o, keys[i]) != NULL, "missing %s", keys[i]);
    cr_expect_eq(json_integer_value(json_object_get(o, "online_cores")), sysconf(_SC_NPROCESSORS_ONLN));
    cr_assert_eq(uname(&u), 0);
    cr_expect_str_eq(json_string_value(json_object_get(o, "kernel")), u.release);
    cr_expect_str_eq(json_string_value(json_object_get(o, "libc")), gnu_get_libc_version());
    cr_expect_str_eq(json_string_value(json_object_get(o, "openblas_corename")), openblas_get_corename());
    cr_expect(strncmp(json_string_value(json_object_get(o, "openblas_config")), "OpenBLAS ", 9) == 0);
    cr_expect(strstr(json_string_value(json_object_get(o, "openblas_config")),
                     json_string_value(json_object_get(o, "openblas_version"))) != NULL);
    cr_expect(strlen(json_string_value(json_object_get(o, "cpu_model"))) > 0);
    cr_expect(strlen(hash) == 16 && strspn(hash, "0123456789abcdef") == 16, "hash %s", hash);
    json_decref(o);
    free(hash);
}

Test(fingerprint, identity_is_stable_and_follows_the_blas_core_type)
{
    char *h1 = NULL, *h2 = NULL, *h3 = NULL, *saved = getenv("OPENBLAS_CORETYPE") ? pg__strdup(getenv("OPENBLAS_CORETYPE")) : NULL;
    json_t *a, *b, *c;

    /* The identity without a forced core type, whatever the machine's environment holds. */
    unsetenv("OPENBLAS_CORETYPE");
    a = read_fp(&h1);
    b = read_fp(&h2);
    cr_expect_str_eq(h1, h2);
    /* A forced OpenBLAS core type runs other kernels: a different machine for comparisons. */
    setenv("OPENBLAS_CORETYPE", "Haswell", 1);
    c = read_fp(&h3);
    cr_expect_str_neq(h1, h3);
    cr_expect_str_eq(json_string_value(json_object_get(c, "openblas_coretype_env")), "Haswell");
    if (saved)
        setenv("OPENBLAS_CORETYPE", saved, 1);
    else
        unsetenv("OPENBLAS_CORETYPE");
    free(saved);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    free(h1);
    free(h2);
    free(h3);
}

Test(fingerprint, hazards_name_too_many_threads_and_forced_core_type)
{
    char *text = NULL, *saved = getenv("OPENBLAS_CORETYPE") ? pg__strdup(getenv("OPENBLAS_CORETYPE")) : NULL;

    setenv("OPENBLAS_CORETYPE", "Haswell", 1);
    pg_assert_ok(pg_fingerprint_hazards(&text, 100000));
    cr_expect(strstr(text, "100000 threads requested") != NULL, "%s", text);
    cr_expect(strstr(text, "OPENBLAS_CORETYPE=Haswell") != NULL, "%s", text);
    free(text);
    unsetenv("OPENBLAS_CORETYPE");
    pg_assert_ok(pg_fingerprint_hazards(&text, 1));
    cr_expect(strstr(text, "threads requested") == NULL, "%s", text);
    cr_expect(strstr(text, "OPENBLAS_CORETYPE") == NULL, "%s", text);
    free(text);
    if (saved)
        setenv("OPENBLAS_CORETYPE", saved, 1);
    free(saved);
}

Test(doctor, prints_fingerprint_and_hazards)
{
    pg_proc p;
    const char *argv[] = {"doctor", "--threads", "100000", NULL};
    char *hash = NULL;
    json_t *o = read_fp(&hash);

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "status %d: %s", p.status, p.err);
    cr_expect(strncmp(p.out, "machine ", 8) == 0 && strstr(p.out, hash) != NULL, "%s", p.out);
    cr_expect(strstr(p.out, "openblas_corename") != NULL);
    cr_expect(strstr(p.out, json_string_value(json_object_get(o, "cpu_model"))) != NULL);
    cr_expect(strstr(p.out, "noise hazards at 100000 threads:") != NULL, "%s", p.out);
    cr_expect(strstr(p.out, "100000 threads requested") != NULL, "%s", p.out);
    pg_proc_free(&p);
    json_decref(o);
    free(hash);
}

Test(doctor, json_output_parses)
{
    pg_proc p;
    const char *argv[] = {"doctor", "--json", NULL};
    json_t *o, *fp;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "status %d: %s", p.status, p.err);
    o = json_loads(p.out, 0, NULL);
    cr_assert_not_null(o, "%s", p.out);
    fp = json_object_get(o, "fingerprint");
    cr_expect(json_is_string(json_object_get(fp, "openblas_version")));
    cr_expect(json_is_array(json_object_get(o, "hazards")));
    cr_expect_eq(strlen(json_string_value(json_object_get(o, "machine"))), 16);
    json_decref(o);
    pg_proc_free(&p);
}

Test(doctor, bad_thread_count_exits_2)
{
    pg_proc p;
    const char *argv[] = {"doctor", "--threads", "0", NULL};

    pg_test_run(&p, NULL, NULL, argv);
    cr_expect_eq(p.status, 2, "status %d", p.status);
    pg_proc_free(&p);
}
