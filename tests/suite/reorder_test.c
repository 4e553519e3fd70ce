/* reorder_test.c - case keys do not depend on the order of keys in a suite. */
#include "support.h"

#include "suite/suite.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted case keys of a suite (caller frees the array, not the strings). */
static const char **sorted_keys(const pg_suite *s)
{
    const char **keys = calloc(s->ncases + 1, sizeof(*keys));

    for (size_t i = 0; i < s->ncases; i++)
        keys[i] = s->cases[i].key;
    qsort(keys, s->ncases, sizeof(*keys), str_cmp);
    return keys;
}

Test(suite_reorder, files_with_keys_reordered_give_the_same_case_keys)
{
    pg_suite *a = NULL, *b = NULL;
    const char **ka, **kb;

    pg_assert_ok(pg_suite_load(&a, PG_TEST_DATA_DIR "/suites/reorder/a.yaml", NULL, NULL));
    pg_assert_ok(pg_suite_load(&b, PG_TEST_DATA_DIR "/suites/reorder/b.yaml", NULL, NULL));
    /* gemm: m 2 x n 2 x k 2 x threads 2; cmd: m 2 x (size, mode) 2 x threads 2. */
    cr_assert_eq(a->ncases, 24);
    cr_assert_eq(b->ncases, a->ncases);
    ka = sorted_keys(a);
    kb = sorted_keys(b);
    for (size_t i = 0; i < a->ncases; i++)
        cr_expect_str_eq(ka[i], kb[i]);
    cr_expect_str_eq(ka[0], "reorder/cmd[depth=3,m=16,mode=a,size=1024]@1:cpu");
    free(ka);
    free(kb);
    pg_suite_free(a);
    pg_suite_free(b);
}

/* Builds a benchmark entry with its keys and its params' keys in the given orders. */
static char *entry(const int *key_order, const int *param_order)
{
    static const char *const keys[] = {"name: g", "kernel: sgemm", "threads: [1, 2]", "min_run_time: 1s",
                                       "regression: {alpha: 0.01, threshold: 2%}", "params: {%s}"};
    static const char *const params[] = {"n: [64, 128, 256]", "m: [1, 2]", "k: 7"};
    pg_buf b = PG_BUF_INIT, p = PG_BUF_INIT;

    for (int i = 0; i < 3; i++)
        pg__buf_printf(&p, "%s%s", i ? ", " : "", params[param_order[i]]);
    pg__buf_puts(&b, "suite: perm\nbenchmarks:\n");
    for (int i = 0; i < 6; i++) {
        const char *k = keys[key_order[i]];
        pg__buf_puts(&b, i ? "    " : "  - ");
        if (strstr(k, "%s"))
            pg__buf_printf(&b, "params: {%s}\n", p.ptr);
        else
            pg__buf_printf(&b, "%s\n", k);
    }
    pg__buf_clear(&p);
    return pg__buf_detach(&b);
}

static int next_permutation(int *a, int n)
{
    int i = n - 2, j = n - 1;

    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return 0;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return 1;
}

Test(suite_reorder, every_permutation_of_keys_gives_the_same_cases_in_the_same_order)
{
    int ko[6] = {0, 1, 2, 3, 4, 5}, po[3] = {0, 1, 2};
    pg_suite *ref = NULL;
    size_t tried = 0;

    {
        char *y = entry(ko, po);
        pg_assert_ok(pg_suite_load_buffer(&ref, "perm.yaml", y, strlen(y), NULL, NULL));
        free(y);
    }
    cr_assert_eq(ref->ncases, 12);
    cr_assert_str_eq(ref->cases[0].key, "perm/g[k=7,m=1,n=64]@1:cpu");
    /*
     * All 720 orders of the entry's keys; the 6 orders of its params take
     * turns, so each of them meets 120 key orders.
     */
    do {
        static const int porders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        char *y = entry(ko, porders[tried % 6]);
        pg_suite *s = NULL;
        pg_assert_ok(pg_suite_load_buffer(&s, "perm.yaml", y, strlen(y), NULL, NULL));
        cr_assert_eq(s->ncases, ref->ncases);
        for (size_t i = 0; i < s->ncases; i++) {
            cr_assert_str_eq(s->cases[i].key, ref->cases[i].key, "%s", y);
            cr_assert_str_eq(s->cases[i].params_json, ref->cases[i].params_json);
            cr_assert_float_eq(s->cases[i].threshold, 0.02, 1e-12);
        }
        pg_suite_free(s);
        free(y);
        tried++;
    } while (next_permutation(ko, 6));
    cr_assert_eq(tried, 720);
    pg_suite_free(ref);
}
