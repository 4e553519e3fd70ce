/* rough_edges_test.c - what a new user meets first: doctor's wording, machine-readable output of every command. */
#include "support.h"

#include "util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

Test(rough_edges, doctor_says_unset_for_an_unset_variable)
{
    char *tmp = pg_test_tmpdir();
    const char *argv[] = {"doctor", NULL};
    const char *env[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS=3", NULL}; /* no '=': removed */
    pg_proc p;

    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "omp_num_threads_env      (unset)\n") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "openblas_num_threads_env 3\n") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "_env      (not readable)") == NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
}
