/*
 * outcome_test.c - the outcome of a comparison where cases did not run or
 * are new: a case the baseline does not have (absent from its build) is
 * NEW, and new cases alone against a baseline are a PASS that says so; a
 * base build measured alongside that failed is an ERROR with its cause; a
 * stored baseline that failed leaves the case UNSURE with its cause; any
 * ERROR case makes the comparison ERROR (exit 3) unless a case REGRESSED.
 */
#include "support.h"

#include "base/util.h"
#include "verdict/verdict.h"

#include <stdlib.h>
#include <string.h>

static pg_run *head, *base;
static pg_comparison *cmp;

static void setup(void)
{
    pg_assert_ok(pg_run_new(&head));
    pg_assert_ok(pg_run_new(&base));
    cmp = NULL;
}

static void teardown(void)
{
    pg_comparison_free(cmp);
    pg_run_free(head);
    pg_run_free(base);
}

TestSuite(outcome, .init = setup, .fini = teardown);

/* Appends case `name` to `run`: 12 samples at `t` seconds when `t` > 0, else the status and message given. */
static pg_result *add(pg_run *run, const char *name, double t, pg_status status, const char *message)
{
    pg_result *r;
    size_t i;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__asprintf("s/%s@1:cpu", name);
    r->suite = pg__strdup("s");
    r->name = pg__strdup(name);
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    if (t <= 0) {
        r->status = status;
        r->message = message ? pg__strdup(message) : NULL;
        return r;
    }
    r->samples = malloc(12 * sizeof(double));
    for (i = 0; i < 12; i++)
        r->samples[i] = t * (1 + 1e-4 * (double)(i % 3));
    r->nsamples = 12;
    r->summary.n = 12;
    r->summary.median = t;
    return r;
}

static void compare_them(int with_base, double threshold)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    const pg_run *bases[1];

    bases[0] = base;
    o.threshold = threshold;
    pg_assert_ok(pg_compare(&cmp, head, bases, with_base ? 1 : 0, &o));
}

static const pg_case_verdict *find(const char *name)
{
    size_t i;

    for (i = 0; i < cmp->ncases; i++)
        if (strcmp(cmp->cases[i].name, name) == 0)
            return &cmp->cases[i];
    cr_assert_fail("no case %s", name);
    return NULL;
}

Test(outcome, cases_the_base_build_lacks_are_new_and_pass_saying_so)
{
    add(head, "new_symbol", 1e-3, PG_STATUS_OK, NULL);
    add(head, "new_file", 2e-3, PG_STATUS_OK, NULL);
    pg__result_absent(add(base, "new_symbol", 0, PG_STATUS_ERROR, NULL),
                      "base build: plugin 'b/lib.so' has no benchmark 'new_symbol' (it has: old)");
    /* The other one is not in the base run at all. */
    compare_them(1, -1);
    cr_assert_eq(find("new_symbol")->verdict, PG_VERDICT_NEW);
    cr_assert_str_eq(find("new_symbol")->reason,
                     "not in the baseline (base build: plugin 'b/lib.so' has no benchmark 'new_symbol' (it has: old))");
    cr_assert_eq(find("new_file")->verdict, PG_VERDICT_NEW);
    cr_assert_eq(cmp->outcome, PG_OUTCOME_PASS);
    cr_assert_eq(pg_outcome_exit_code(cmp), 0);
    cr_assert_str_eq(cmp->outcome_reason, "2 new cases, nothing to compare them with yet");
}

Test(outcome, new_cases_without_any_baseline_still_compare_nothing)
{
    add(head, "a", 1e-3, PG_STATUS_OK, NULL);
    compare_them(0, -1);
    cr_assert_eq(find("a")->verdict, PG_VERDICT_NEW);
    cr_assert_eq(cmp->outcome, PG_OUTCOME_NOTHING_COMPARED);
    cr_assert_eq(pg_outcome_exit_code(cmp), 4);
}

Test(outcome, a_new_case_beside_an_unsure_one_still_compares_nothing)
{
    add(head, "a", 1e-3, PG_STATUS_OK, NULL);
    add(head, "b", 1e-3, PG_STATUS_OK, NULL);
    add(base, "b", 0, PG_STATUS_SKIPPED, "no CUDA device");
    compare_them(1, -1);
    cr_assert_eq(find("a")->verdict, PG_VERDICT_NEW);
    cr_assert_eq(find("b")->verdict, PG_VERDICT_UNSURE);
    cr_assert(strstr(find("b")->reason, "the baseline skipped this case (no CUDA device)") != NULL, "%s",
              find("b")->reason);
    cr_assert_eq(cmp->outcome, PG_OUTCOME_NOTHING_COMPARED);
}

Test(outcome, a_stored_baseline_that_failed_says_why_and_leaves_the_case_unsure)
{
    add(head, "a", 1e-3, PG_STATUS_OK, NULL);
    add(base, "a", 0, PG_STATUS_ERROR, "the benchmark process crashed with signal 11 (Segmentation fault)");
    compare_them(1, -1);
    cr_assert_eq(find("a")->verdict, PG_VERDICT_UNSURE);
    cr_assert_str_eq(find("a")->reason, "the baseline could not measure this case (the benchmark process crashed with "
                                        "signal 11 (Segmentation fault)): nothing to compare with until a baseline "
                                        "run measures it");
}

Test(outcome, a_base_build_that_failed_alongside_is_an_error_with_its_cause)
{
    add(head, "a", 1e-3, PG_STATUS_OK, NULL);
    add(head, "b", 1e-3, PG_STATUS_OK, NULL);
    add(base, "a", 0, PG_STATUS_ERROR, "base build: the benchmark process crashed with signal 11");
    add(base, "b", 1e-3, PG_STATUS_OK, NULL);
    base->mode = PG_MODE_INTERLEAVED_BASE;
    compare_them(1, 0.2);
    cr_assert_eq(find("a")->verdict, PG_VERDICT_ERROR);
    cr_assert_str_eq(find("a")->reason, "base build: the benchmark process crashed with signal 11");
    cr_assert_eq(find("b")->verdict, PG_VERDICT_SAME);
    /* One ERROR and one SAME: never a pass. */
    cr_assert_eq(cmp->outcome, PG_OUTCOME_ERROR);
    cr_assert_eq(pg_outcome_exit_code(cmp), 3);
    cr_assert_str_eq(cmp->outcome_reason, "1 case could not be measured, so nothing vouches for it: s/a@1:cpu: base "
                                          "build: the benchmark process crashed with signal 11");
    cr_assert_str_eq(pg_outcome_name(cmp->outcome), "ERROR");
}

Test(outcome, a_regression_fails_even_beside_an_error)
{
    add(head, "slow", 2e-3, PG_STATUS_OK, NULL);
    add(head, "broken", 0, PG_STATUS_ERROR, "head build: exited with status 1");
    add(base, "slow", 1e-3, PG_STATUS_OK, NULL);
    add(base, "broken", 1e-3, PG_STATUS_OK, NULL);
    compare_them(1, 0.05);
    cr_assert_eq(find("slow")->verdict, PG_VERDICT_REGRESSED);
    cr_assert_eq(find("broken")->verdict, PG_VERDICT_ERROR);
    cr_assert_eq(cmp->outcome, PG_OUTCOME_FAIL);
    cr_assert_eq(pg_outcome_exit_code(cmp), 1);
}
