/*
 * select_test.c - baseline selectors on a real SQLite file: ids, commit:,
 * branch:, last:K, pin:NAME, machine refusal, and the default (the pull
 * request's base commit from a GitHub event file, else the default branch;
 * a nightly's and a local run's own branch, pooled), with what it searched
 * and the runs it left out when it found nothing.
 */
#include "support.h"

#include "store/select.h"
#include "store/store.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static char *tmp, *dbpath;
static pg_store *store;

static void setup(void)
{
    /* The tests decide what CI looks like; a real CI job must not leak in. */
    unsetenv("GITHUB_EVENT_PATH");
    unsetenv("GITHUB_EVENT_NAME");
    unsetenv("GITHUB_BASE_REF");
    tmp = pg_test_tmpdir();
    dbpath = pg__asprintf("%s/sel.db", tmp);
    pg_assert_ok(pg_store_open(&store, dbpath));
}

static void teardown(void)
{
    pg_store_close(store);
    pg_test_rmtree(tmp);
    free(tmp);
    free(dbpath);
}

TestSuite(select, .init = setup, .fini = teardown);

static int64_t save(const char *branch, const char *commit, const char *machine)
{
    pg_run *run;
    pg_result *r;
    int64_t id;

    pg_assert_ok(pg_run_new(&run));
    run->branch = pg__strdup(branch);
    run->commit = pg__strdup(commit);
    run->suite_set = pg__strdup("t");
    run->machine_hash = pg__strdup(machine);
    run->machine_json = pg__asprintf("{\"name\":\"%s\", \"cpu_model\":\"%s CPU\"}", machine, machine);
    run->started_at = run->finished_at = pg__now_unix();
    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__strdup("t/a@1:cpu");
    r->suite = pg__strdup("t");
    r->name = pg__strdup("a");
    r->params_json = pg__strdup("{}");
    r->device = pg__strdup("cpu");
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->threads = 1;
    r->samples = malloc(sizeof(double));
    r->samples[0] = 1e-3;
    r->nsamples = 1;
    r->summary.n = 1;
    r->summary.median = 1e-3;
    pg_assert_ok(pg_store_save_run(store, run));
    id = run->id;
    pg_run_free(run);
    return id;
}

static pg_selection sel_of(const char *selector, int64_t head, const pg_select_options *o)
{
    pg_selection s;

    pg_assert_ok(pg_select_base(&s, store, selector, head, o));
    return s;
}

Test(select, run_id_commit_and_branch)
{
    int64_t m1 = save("main", "aaaa1111", "M"), m2 = save("main", "bbbb2222", "M");
    int64_t f1 = save("feat", "cccc3333", "M"), head = save("feat", "dddd4444", "M");
    pg_selection s;

    s = sel_of("1", head, NULL);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.ids[0], m1);
    cr_assert(strstr(s.described, "run 1 (main @ aaaa1111") != NULL, "%s", s.described);
    pg_selection_clear(&s);
    s = sel_of("commit:bbbb", head, NULL);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.ids[0], m2);
    pg_selection_clear(&s);
    s = sel_of("branch:main", head, NULL);
    cr_assert_eq(s.ids[0], m2);
    pg_selection_clear(&s);
    s = sel_of("branch:feat", head, NULL);
    cr_assert_eq(s.ids[0], f1, "never the head itself");
    pg_selection_clear(&s);
    cr_assert_eq(pg_select_base(&s, store, "99", head, NULL), PG_ENOTFOUND);
    cr_assert_eq(pg_select_base(&s, store, "4", head, NULL), PG_EUSAGE, "the head is not its own baseline");
    cr_assert_eq(pg_select_base(&s, store, "tag:v1", head, NULL), PG_EUSAGE);
    cr_assert(strstr(pg_error_last(), "pin:NAME") != NULL, "%s", pg_error_last());
    s = sel_of("commit:ffff", head, NULL);
    cr_assert_eq(s.count, 0, "an unknown commit gives no baseline, not an error");
    pg_selection_clear(&s);
}

Test(select, last_k_pools_newest_runs_of_one_machine)
{
    int64_t ids[6], head;
    pg_selection s;
    int i;

    for (i = 0; i < 6; i++)
        ids[i] = save("main", "aaaa", i == 4 ? "OTHER" : "M");
    head = save("main", "bbbb", "M");
    s = sel_of("last:3", head, NULL);
    cr_assert_eq(s.count, 3);
    cr_assert_eq(s.ids[0], ids[5]);
    cr_assert_eq(s.ids[1], ids[3], "run %lld from another machine is skipped", (long long)ids[4]);
    cr_assert_eq(s.ids[2], ids[2]);
    cr_assert(strstr(s.described, "and 2 earlier runs") != NULL, "%s", s.described);
    pg_selection_clear(&s);
    s = sel_of("last:100", head, NULL);
    cr_assert_eq(s.count, 5);
    pg_selection_clear(&s);
    s = sel_of("last:2:feat", head, NULL);
    cr_assert_eq(s.count, 0);
    pg_selection_clear(&s);
    cr_assert_eq(pg_select_base(&s, store, "last:0", head, NULL), PG_EUSAGE);
    cr_assert_eq(pg_select_base(&s, store, "last:x", head, NULL), PG_EUSAGE);
}

Test(select, other_machine_is_refused_unless_allowed)
{
    int64_t other = save("main", "aaaa", "OTHER"), head = save("feat", "bbbb", "M");
    pg_select_options o = PG_SELECT_OPTIONS_INIT;
    pg_selection s;

    cr_assert_eq(pg_select_base(&s, store, "1", head, NULL), PG_EMACHINE);
    cr_assert(strstr(pg_error_last(), "--allow-other-machine") != NULL, "%s", pg_error_last());
    cr_assert_eq(pg_select_base(&s, store, "branch:main", head, NULL), PG_EMACHINE);
    cr_assert_eq(pg_select_base(&s, store, "commit:aaaa", head, NULL), PG_EMACHINE);
    cr_assert_eq(pg_error_exit_code(PG_EMACHINE), 2);
    o.allow_other_machine = 1;
    s = sel_of("1", head, &o);
    cr_assert_eq(s.ids[0], other);
    pg_selection_clear(&s);
    s = sel_of("branch:main", head, &o);
    cr_assert_eq(s.ids[0], other);
    pg_selection_clear(&s);
    /* The default selection stays on this machine: no baseline rather than a wrong one, and it says why. */
    s = sel_of(NULL, head, NULL);
    cr_assert_eq(s.count, 0);
    cr_assert_str_eq(s.searched, "the previous 5 runs of branch 'feat', then the newest run of branch 'main' on "
                                 "machine M");
    cr_assert_str_eq(s.elsewhere, "1 run of branch 'main' from another machine (cpu 'OTHER CPU', fingerprint OTHER)");
    pg_selection_clear(&s);
}

Test(select, pinned_sets)
{
    int64_t a = save("main", "aaaa", "M"), b = save("main", "bbbb", "M"), c = save("main", "cccc", "M");
    int64_t head = save("feat", "dddd", "M");
    pg_baseline_list list;
    pg_selection s;
    size_t removed;

    pg_assert_ok(pg_baseline_pin(store, "release", a));
    pg_assert_ok(pg_baseline_pin(store, "release", c));
    pg_assert_ok(pg_baseline_pin(store, "release", c));
    pg_assert_ok(pg_baseline_pin(store, "nightly", b));
    cr_assert_eq(pg_baseline_pin(store, "release", 99), PG_ENOTFOUND);
    s = sel_of("pin:release", head, NULL);
    cr_assert_eq(s.count, 2);
    cr_assert_eq(s.ids[0], c);
    cr_assert_eq(s.ids[1], a);
    cr_assert(strstr(s.described, "pin 'release'") != NULL, "%s", s.described);
    pg_selection_clear(&s);
    pg_assert_ok(pg_baseline_list_get(&list, store, NULL));
    cr_assert_eq(list.count, 3);
    cr_assert_str_eq(list.items[0].name, "nightly");
    pg_baseline_list_clear(&list);
    pg_assert_ok(pg_baseline_unpin(&removed, store, "release", c));
    cr_assert_eq(removed, 1);
    s = sel_of("pin:release", head, NULL);
    cr_assert_eq(s.count, 1);
    pg_selection_clear(&s);
    pg_assert_ok(pg_baseline_unpin(&removed, store, "release", 0));
    cr_assert_eq(removed, 1);
    cr_assert_eq(pg_select_base(&s, store, "pin:release", head, NULL), PG_ENOTFOUND);
    pg_assert_ok(pg_baseline_pin(store, "foreign", save("main", "eeee", "OTHER")));
    cr_assert_eq(pg_select_base(&s, store, "pin:foreign", head, NULL), PG_EMACHINE);
}

Test(select, default_outside_ci_pools_the_branch_else_the_default_branch)
{
    int64_t m1 = save("main", "aaaa", "M"), f[7], g1, head;
    pg_selection s;
    int i;

    for (i = 0; i < 7; i++)
        f[i] = save("feat", "bbbb", i == 5 ? "OTHER" : "M");
    head = save("feat", "cccc", "M");
    g1 = save("other", "dddd", "M");
    s = sel_of(NULL, head, NULL);
    cr_assert_eq(s.count, PG_SELECT_DEFAULT_POOL, "drift is measured on a pool, not assumed from one run");
    cr_assert_eq(s.ids[0], f[6]);
    cr_assert_eq(s.ids[1], f[4], "the other machine's run is left out");
    cr_assert_eq(s.ids[4], f[1]);
    cr_assert(strstr(s.described, "and 4 earlier runs") != NULL, "%s", s.described);
    cr_assert_str_eq(s.searched, "the previous 5 runs of branch 'feat' on machine M");
    pg_selection_clear(&s);
    /* A branch's first run falls back to the default branch. */
    s = sel_of(NULL, g1, NULL);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.ids[0], m1);
    cr_assert(strstr(s.described, "default branch main") != NULL, "%s", s.described);
    pg_selection_clear(&s);
}

Test(select, default_in_ci_is_the_pull_request_base_commit)
{
    int64_t m1 = save("main", "1111aaaa", "M"), m2 = save("main", "2222bbbb", "M");
    int64_t f1 = save("feat", "3333cccc", "M"), head = save("feat", "4444dddd", "M");
    pg_select_options o = PG_SELECT_OPTIONS_INIT;
    char *ev;
    pg_selection s;

    (void)m2;
    (void)f1;
    ev = pg_test_write(tmp, "event.json",
                       "{\"pull_request\": {\"number\": 7, \"base\": {\"sha\": \"1111aaaa\", \"ref\": \"main\"}},"
                       " \"repository\": {\"default_branch\": \"main\"}}");
    o.event_path = ev;
    s = sel_of(NULL, head, &o);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.ids[0], m1, "the base commit, not the newest main run or the previous feat run");
    cr_assert(strstr(s.described, "base commit 1111aaaa") != NULL, "%s", s.described);
    pg_selection_clear(&s);
    free(ev);
}

Test(select, default_in_ci_without_the_base_commit_is_the_default_branch)
{
    int64_t t1 = save("trunk", "1111aaaa", "M"), t2 = save("trunk", "2222bbbb", "M");
    int64_t f1 = save("feat", "3333cccc", "M"), head = save("feat", "4444dddd", "M");
    pg_select_options o = PG_SELECT_OPTIONS_INIT;
    char *ev;
    pg_selection s;

    (void)t1;
    (void)f1;
    /* The base commit was never measured; the repository's default branch is "trunk". */
    ev = pg_test_write(tmp, "event.json",
                       "{\"pull_request\": {\"base\": {\"sha\": \"9999ffff\"}},"
                       " \"repository\": {\"default_branch\": \"trunk\"}}");
    o.event_path = ev;
    s = sel_of(NULL, head, &o);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.ids[0], t2);
    pg_selection_clear(&s);
    /* GITHUB_BASE_REF names the branch the pull request targets: it wins over the event's default branch. */
    setenv("GITHUB_BASE_REF", "feat", 1);
    s = sel_of(NULL, head, &o);
    cr_assert_eq(s.ids[0], f1);
    pg_selection_clear(&s);
    unsetenv("GITHUB_BASE_REF");
    free(ev);
}

/* A GitHub event file of the given kind: a scheduled nightly carries no pull request. */
static char *schedule_event(void)
{
    return pg_test_write(tmp, "event.json", "{\"schedule\": \"17 3 * * *\", \"repository\": {\"default_branch\": "
                                            "\"main\"}}");
}

Test(select, a_nightly_compares_with_its_own_previous_nights)
{
    pg_select_options o = PG_SELECT_OPTIONS_INIT;
    int64_t n1, n2;
    pg_selection s;
    char *ev = schedule_event();

    o.event_path = ev;
    o.event_name = "schedule";
    save("main", "1111aaaa", "M");
    n1 = save("nightly", "2222bbbb", "M");
    /* The first night: main's runs are another configuration, so nothing is compared, and it says what it searched. */
    s = sel_of(NULL, n1, &o);
    cr_assert_eq(s.count, 0);
    cr_assert_str_eq(s.searched, "the previous 5 runs of branch 'nightly' on machine M");
    cr_assert_null(s.elsewhere);
    pg_selection_clear(&s);
    save("main", "3333cccc", "M");
    n2 = save("nightly", "4444dddd", "M");
    /* The second night compares with the first, not with the newest main run. */
    s = sel_of(NULL, n2, &o);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.ids[0], n1);
    pg_selection_clear(&s);
    /* workflow_dispatch is a nightly run by hand: the same rule. */
    o.event_name = "workflow_dispatch";
    s = sel_of(NULL, n2, &o);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.ids[0], n1);
    pg_selection_clear(&s);
    free(ev);
}

Test(select, an_explicit_branch_in_ci_pools_its_own_runs)
{
    pg_select_options o = PG_SELECT_OPTIONS_INIT;
    int64_t b1, b2, head;
    pg_selection s;
    char *ev = pg_test_write(tmp, "event.json", "{\"repository\": {\"default_branch\": \"main\"}}");

    o.event_path = ev;
    o.event_name = "push";
    save("main", "1111aaaa", "M");
    b1 = save("bench", "2222bbbb", "M");
    b2 = save("bench", "3333cccc", "M");
    head = save("bench", "4444dddd", "M");
    /* A push without --branch compares with the default branch ... */
    s = sel_of(NULL, head, &o);
    cr_assert_eq(s.count, 1);
    cr_assert(s.ids[0] != b1 && s.ids[0] != b2);
    pg_selection_clear(&s);
    /* ... a branch named on purpose with its own earlier runs, pooled. */
    o.own_branch = 1;
    s = sel_of(NULL, head, &o);
    cr_assert_eq(s.count, 2);
    cr_assert_eq(s.ids[0], b2);
    cr_assert_eq(s.ids[1], b1);
    pg_selection_clear(&s);
    free(ev);
}

Test(select, an_empty_pull_request_search_names_the_base_commit_and_branch_not_the_head)
{
    pg_select_options o = PG_SELECT_OPTIONS_INIT;
    int64_t head;
    pg_selection s;
    char *ev = pg_test_write(tmp, "event.json",
                             "{\"pull_request\": {\"number\": 7, \"base\": {\"sha\": \"1111aaaa2222bbbb\"}},"
                             " \"repository\": {\"default_branch\": \"main\"}}");

    save("main", "1111aaaa2222bbbb", "OTHER");
    save("main", "5555eeee", "OTHER");
    save("main", "6666ffff", "THIRD");
    head = save("7/merge", "3333cccc", "M");
    o.event_path = ev;
    o.own_branch = 1; /* a PR's base commit wins over --branch */
    s = sel_of(NULL, head, &o);
    cr_assert_eq(s.count, 0);
    cr_assert_str_eq(s.searched, "the pull request's base commit 1111aaaa2222, then the newest run of branch "
                                 "'main' on machine M");
    cr_assert(strstr(s.searched, "7/merge") == NULL);
    cr_assert_str_eq(s.elsewhere, "1 run of the base commit 1111aaaa2222 from another machine (cpu 'OTHER CPU', "
                                  "fingerprint OTHER); 3 runs of branch 'main' from 2 other machines (newest: cpu "
                                  "'THIRD CPU', fingerprint THIRD)");
    pg_selection_clear(&s);
    free(ev);
}
