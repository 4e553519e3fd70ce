/*
 * accept_test.c - regressions accepted on purpose: the ACCEPTED outcome
 * (exit 0, never a plain PASS) only when every regression is accepted and
 * nothing else fails; a failed exact check or a case in ERROR still decides;
 * taking a label's acceptance back fails the comparison again; the titles
 * and the status say who accepted what.
 */
#include "fixture.h"
#include "support.h"

#include "base/util.h"
#include "post/post.h"
#include "report/report.h"
#include "stats/stats.h"
#include "verdict/verdict.h"

#include <stdlib.h>
#include <string.h>

/* An exact count of `value` per iteration (two processes agreeing) for case `name`. */
static void count(pg_run *run, const char *name, double value)
{
    char *key = pg__asprintf("s/%s[]@1:cpu", name);

    pg_test_add_count(run, key, "instructions", value, NULL);
    free(key);
}

typedef struct pair {
    pg_run *base, *head;
    pg_comparison *cmp;
} pair;

/* `a` and `b` 10 % slower, `c` the same; `status` the head's status of `c` (ERROR: it crashed). */
static void compare(pair *p, pg_status c_status, int failed_check)
{
    pg_check_result *chk;

    pg_assert_ok(pg_run_new(&p->base));
    pg_assert_ok(pg_run_new(&p->head));
    count(p->base, "a", 1000);
    count(p->base, "b", 1000);
    count(p->base, "c", 1000);
    count(p->head, "a", 1100);
    count(p->head, "b", 1100);
    count(p->head, "c", 1000);
    if (c_status != PG_STATUS_OK) {
        p->head->results[2].status = c_status;
        p->head->results[2].message = pg__strdup("crashed with signal 11");
        p->head->results[2].nsamples = 0;
    }
    if (failed_check) {
        pg_assert_ok(pg_run_add_check(&chk, p->head));
        chk->suite = pg__strdup("s");
        chk->name = pg__strdup("flops");
        chk->kind = pg__strdup("flops");
        chk->passed = 0;
    }
    pg_assert_ok(pg_compare(&p->cmp, p->head, (const pg_run *const *)&p->base, 1, NULL));
}

static void pair_free(pair *p)
{
    pg_comparison_free(p->cmp);
    pg_run_free(p->base);
    pg_run_free(p->head);
}

static char *title(const pg_comparison *cmp)
{
    pg_buf b = PG_BUF_INIT;

    pg_assert_ok(pg_render_title(&b, cmp, NULL));
    return pg__buf_detach(&b);
}

Test(accept, every_regression_accepted_by_label_is_accepted_and_green)
{
    pair p;
    const char *state = NULL;
    pg_buf desc = PG_BUF_INIT;
    char *t;

    compare(&p, PG_STATUS_OK, 0);
    cr_assert_eq(p.cmp->outcome, PG_OUTCOME_FAIL);
    cr_assert_eq(pg_comparison_accept(p.cmp, NULL, PG_ACCEPT_LABEL, "@alice",
                                      "accepted by label perf-accepted, applied by @alice"),
                 2);
    cr_assert_eq(p.cmp->outcome, PG_OUTCOME_ACCEPTED);
    cr_assert_eq(pg_outcome_exit_code(p.cmp), 0);
    /* Still two regressions: the change is real and every report shows it. */
    cr_assert_eq(p.cmp->counts[PG_VERDICT_REGRESSED], 2);
    cr_assert_str_eq(pg_outcome_name(p.cmp->outcome), "ACCEPTED");
    t = title(p.cmp);
    cr_assert_str_eq(t, "perfgate: ACCEPTED — 2 regressions accepted by label, applied by @alice");
    free(t);
    pg_assert_ok(pg_post_status_for(&state, &desc, p.cmp));
    cr_assert_str_eq(state, "success");
    cr_assert_str_eq(desc.ptr, "2 regressions accepted by label, applied by @alice");
    pg__buf_clear(&desc);
    /* Accepted once: a second acceptance does not take over. */
    cr_assert_eq(pg_comparison_accept(p.cmp, NULL, PG_ACCEPT_LABEL, "@bob", "accepted by label x, applied by @bob"), 0);
    /* The label gone: the regressions fail again. */
    cr_assert_eq(pg_comparison_unaccept(p.cmp, PG_ACCEPT_LABEL), 2);
    cr_assert_eq(p.cmp->outcome, PG_OUTCOME_FAIL);
    cr_assert_null(p.cmp->accepted_by);
    pair_free(&p);
}

Test(accept, one_of_two_accepted_still_fails_and_says_so)
{
    pair p;
    char *t, *line;
    pg_buf b = PG_BUF_INIT;

    compare(&p, PG_STATUS_OK, 0);
    cr_assert_eq(pg_comparison_accept(p.cmp, "s/a*", PG_ACCEPT_SUITE, NULL, "accepted by the suite: on purpose"), 1);
    cr_assert_eq(p.cmp->outcome, PG_OUTCOME_FAIL);
    t = title(p.cmp);
    cr_assert_str_eq(t, "perfgate: FAIL (1 regression; 1 more accepted)");
    pg_assert_ok(pg_render_summary_line(&b, p.cmp));
    line = b.ptr;
    cr_assert(strncmp(line, "2 regressions (1 accepted)", 26) == 0, "%s", line);
    /* The suite's entry for the other one too: accepted, said as the suite's. */
    cr_assert_eq(pg_comparison_accept(p.cmp, "s/b*", PG_ACCEPT_SUITE, NULL, "accepted by the suite: also"), 1);
    cr_assert_eq(p.cmp->outcome, PG_OUTCOME_ACCEPTED);
    cr_assert_str_eq(p.cmp->outcome_reason, "2 regressions accepted by the suite's accept: entries");
    /* A report's claims of a label are taken back; the suite's stay. */
    cr_assert_eq(pg_comparison_unaccept(p.cmp, PG_ACCEPT_LABEL), 0);
    cr_assert_eq(p.cmp->outcome, PG_OUTCOME_ACCEPTED);
    pg__buf_clear(&b);
    free(t);
    pair_free(&p);
}

Test(accept, a_failed_check_or_a_case_in_error_is_not_accepted_away)
{
    pair p;

    compare(&p, PG_STATUS_OK, 1);
    pg_comparison_accept(p.cmp, NULL, PG_ACCEPT_LABEL, "@alice", "accepted by label perf-accepted, applied by @alice");
    cr_assert_eq(p.cmp->outcome, PG_OUTCOME_FAIL, "a failed exact check is no regression to accept");
    cr_assert_eq(pg_outcome_exit_code(p.cmp), 1);
    pair_free(&p);

    compare(&p, PG_STATUS_ERROR, 0);
    pg_comparison_accept(p.cmp, NULL, PG_ACCEPT_LABEL, "@alice", "accepted by label perf-accepted, applied by @alice");
    cr_assert_eq(p.cmp->outcome, PG_OUTCOME_ERROR, "a case that never ran is vouched for by nothing");
    cr_assert_eq(pg_outcome_exit_code(p.cmp), 3);
    pair_free(&p);
}

Test(accept, junit_and_annotations_show_an_accepted_regression_as_no_failure)
{
    pair p;
    pg_buf junit = PG_BUF_INIT, notes = PG_BUF_INIT;
    pg_report_data d;

    compare(&p, PG_STATUS_OK, 0);
    pg_comparison_accept(p.cmp, "s/a*", PG_ACCEPT_LABEL, "@alice", "accepted by label perf-accepted, applied by @alice");
    d.run = p.head;
    d.cmp = p.cmp;
    d.origin = NULL;
    pg_assert_ok(pg_render_junit(&junit, &d, NULL));
    pg_assert_ok(pg_render_annotations(&notes, &d, NULL));
    /* a accepted, b not: one failure, and a skipped that says who accepted it. */
    cr_assert(strstr(junit.ptr, "failures=\"1\"") != NULL, "%s", junit.ptr);
    cr_assert(strstr(junit.ptr, "<skipped message=\"accepted by label perf-accepted, applied by @alice; ") != NULL,
              "%s", junit.ptr);
    cr_assert(strstr(notes.ptr, "::warning title=perfgate REGRESSED (accepted)::s/a[]@1:cpu#instructions") != NULL,
              "%s", notes.ptr);
    cr_assert(strstr(notes.ptr, "::error title=perfgate REGRESSED::s/b[]@1:cpu#instructions") != NULL, "%s",
              notes.ptr);
    pg__buf_clear(&junit);
    pg__buf_clear(&notes);
    pair_free(&p);
}
