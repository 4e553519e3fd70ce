/*
 * actions_test.c - the Actions emulator (actions.h) does what Actions does
 * where the lifecycle tests rely on it: if: conditions (the implicit
 * success(), always(), failure(), step outputs and outcomes), file
 * commands, a reusable workflow's inputs (a boolean one typed) and
 * permissions, pinned actions only, and caches scoped to their branch.
 */
#include "actions.h"
#include "compile.h"
#include "fakegh.h"
#include "support.h"
#include "world.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static char *tmp;
static fakegh *api;
static gha *gh;
static char sha[41];

static void setup(void)
{
    char *dir, *repo;

    tmp = pg_test_tmpdir();
    api = fakegh_start("ghs_t", "bot");
    dir = pg__asprintf("%s/github", tmp);
    gh = gha_new(dir, api, "ghs_t");
    repo = pg__asprintf("%s/repo", tmp);
    free(lc_sh_ok("mkdir -p '%s/.github/workflows' && git -C '%s' init -q -b main && echo hi > '%s/README'", repo, repo,
                  repo));
    free(pg_test_write(repo, ".github/workflows/r.yml",
                       "on:\n  workflow_call:\n    inputs:\n      need: {type: string, required: true}\n"
                       "      opt: {type: string, default: dflt}\n"
                       "permissions: {}\njobs:\n  j:\n    runs-on: ubuntu-latest\n    permissions: {contents: read}\n"
                       "    steps:\n      - env: {NEED: '${{ inputs.need }}', OPT: '${{ inputs.opt }}'}\n"
                       "        run: echo \"need=$NEED opt=$OPT\"\n"));
    /* An opt-in job: no permissions of its own (it holds the caller's), run only when `on` is true. */
    free(pg_test_write(repo, ".github/workflows/b.yml",
                       "on:\n  workflow_call:\n    inputs:\n      on: {type: boolean, default: false}\n"
                       "jobs:\n  w:\n    if: inputs.on\n    runs-on: ubuntu-latest\n"
                       "    steps:\n      - run: echo \"opted in, depth ${{ inputs.on && '0' || '1' }}\"\n"));
    lc_commit(repo, sha, "r");
    gha_add_repo(gh, "acme/repo", repo);
    free(repo);
    free(dir);
}

static void teardown(void)
{
    gha_free(gh);
    fakegh_stop(api);
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(actions, .init = setup, .fini = teardown, .timeout = 120);

/* Runs the workflow `text` on a push to main (or `ref`). */
static int run_text(gha_run *r, const char *text, const char *ref)
{
    char *file = pg_test_write(tmp, "w.yml", text);
    gha_event ev = {"push", "{}", "acme/repo", sha, ref ? ref : "refs/heads/main", sha, NULL, NULL, "main"};
    int rc = gha_run_workflow(r, gh, file, &ev);

    free(file);
    return rc;
}

static int has(const gha_run *r, const char *file)
{
    char *path = pg__asprintf("%s/%s", r->jobs[0].workspace, file);
    int yes = lc_exists(path);

    free(path);
    return yes;
}

Test(actions, conditions_outputs_and_file_commands)
{
    gha_run r;

    run_text(&r,
             "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
             "      - id: a\n        run: |\n          echo x=1 >> \"$GITHUB_OUTPUT\"\n"
             "          echo FROM_ENV=carried >> \"$GITHUB_ENV\"\n          mkdir bin && echo \"$PWD/bin\" >> \"$GITHUB_PATH\"\n"
             "          printf '#!/bin/sh\\necho tool\\n' > bin/mytool && chmod +x bin/mytool\n"
             "      - if: steps.a.outputs.x == '1' && steps.a.outcome == 'success'\n"
             "        run: test \"$FROM_ENV\" = carried && mytool > ran-when-true\n"
             "      - if: ${{ steps.a.outputs.x != '1' }}\n        run: touch ran-when-false\n"
             "      - id: bad\n        run: exit 3\n"
             "      - run: touch after-failure\n"
             "      - if: always()\n        run: touch always\n"
             "      - if: failure() && steps.bad.outcome == 'failure'\n        run: touch on-failure\n",
             NULL);
    cr_assert_eq(r.njobs, 1, "%s", r.log);
    cr_assert_str_eq(r.jobs[0].conclusion, "failure", "%s", r.log);
    cr_assert(has(&r, "ran-when-true"), "%s", r.log);
    cr_assert(!has(&r, "ran-when-false"));
    /* A condition without a status function holds only while the job succeeds. */
    cr_assert(!has(&r, "after-failure"), "%s", r.log);
    cr_assert(has(&r, "always") && has(&r, "on-failure"), "%s", r.log);
    gha_run_clear(&r);
}

Test(actions, reusable_inputs_and_permissions_are_checked)
{
    gha_run r;

    cr_assert_eq(run_text(&r,
                          "on: push\npermissions: {}\njobs:\n  c:\n    uses: ./.github/workflows/r.yml\n"
                          "    permissions: {contents: read}\n    with: {need: given}\n",
                          NULL),
                 0, "%s", r.log);
    cr_assert_str_eq(r.jobs[0].name, "c/j");
    cr_assert(strstr(r.log, "need=given opt=dflt") != NULL, "%s", r.log);
    gha_run_clear(&r);
    /* The called job asks contents: read; the caller grants nothing. */
    cr_assert_neq(run_text(&r,
                           "on: push\npermissions: {}\njobs:\n  c:\n    uses: ./.github/workflows/r.yml\n"
                           "    with: {need: given}\n",
                           NULL),
                  0);
    cr_assert(strstr(r.log, "asks for more 'contents' permission") != NULL, "%s", r.log);
    gha_run_clear(&r);
    cr_assert_neq(run_text(&r,
                           "on: push\njobs:\n  c:\n    uses: ./.github/workflows/r.yml\n"
                           "    permissions: {contents: read}\n    with: {need: x, typo: y}\n",
                           NULL),
                  0);
    cr_assert(strstr(r.log, "input 'typo' is not defined") != NULL, "%s", r.log);
    gha_run_clear(&r);
    cr_assert_neq(run_text(&r,
                           "on: push\njobs:\n  c:\n    uses: ./.github/workflows/r.yml\n"
                           "    permissions: {contents: read}\n",
                           NULL),
                  0);
    cr_assert(strstr(r.log, "input 'need' is required") != NULL, "%s", r.log);
    gha_run_clear(&r);
}

/* A boolean input is a boolean, as on Actions: false (given or by default) skips the job it guards. */
Test(actions, a_boolean_input_that_is_false_skips_its_job)
{
    static const char *const calls[] = {"", "    with: {on: false}\n", "    with: {on: \"${{ vars.NONE == 'x' }}\"}\n"};
    gha_run r;
    size_t i;

    for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        char *text = pg__asprintf("on: push\njobs:\n  c:\n    uses: ./.github/workflows/b.yml\n%s", calls[i]);
        cr_assert_eq(run_text(&r, text, NULL), 0, "%s", r.log);
        cr_assert_str_eq(r.jobs[0].conclusion, "skipped", "%s: %s", calls[i], r.log);
        gha_run_clear(&r);
        free(text);
    }
    cr_assert_eq(run_text(&r, "on: push\njobs:\n  c:\n    uses: ./.github/workflows/b.yml\n    with: {on: true}\n", NULL),
                 0, "%s", r.log);
    cr_assert_str_eq(r.jobs[0].conclusion, "success", "%s", r.log);
    cr_assert(strstr(r.log, "opted in, depth 0") != NULL, "%s", r.log);
    gha_run_clear(&r);
    cr_assert_neq(run_text(&r, "on: push\njobs:\n  c:\n    uses: ./.github/workflows/b.yml\n    with: {on: maybe}\n", NULL),
                  0);
    cr_assert(strstr(r.log, "input 'on' is a boolean") != NULL, "%s", r.log);
    gha_run_clear(&r);
}

Test(actions, actions_must_be_pinned_and_credentials_not_persisted)
{
    gha_run r;

    run_text(&r,
             "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
             "      - uses: actions/checkout@v4\n        with: {persist-credentials: false}\n",
             NULL);
    cr_assert(strstr(r.log, "not pinned to a full commit SHA") != NULL, "%s", r.log);
    gha_run_clear(&r);
    run_text(&r,
             "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
             "      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1\n",
             NULL);
    cr_assert(strstr(r.log, "without persist-credentials: false") != NULL, "%s", r.log);
    gha_run_clear(&r);
    run_text(&r,
             "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
             "      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1\n"
             "        with: {path: src, persist-credentials: false}\n",
             NULL);
    cr_assert_str_eq(r.jobs[0].conclusion, "success", "%s", r.log);
    cr_assert(has(&r, "src/README"), "%s", r.log);
    gha_run_clear(&r);
}

Test(actions, a_pull_request_sees_its_own_and_the_default_branch_caches)
{
    static const char save[] = "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
                               "      - run: echo $GITHUB_REF > f\n"
                               "      - uses: actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae\n"
                               "        with: {path: f, key: 'k-${{ github.ref_name }}'}\n";
    static const char restore[] = "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
                                  "      - id: c\n"
                                  "        uses: actions/cache/restore@27d5ce7f107fe9357f9df03efb73ab90386fccae\n"
                                  "        with: {path: f, key: nothing, restore-keys: k-}\n"
                                  "      - env: {M: '${{ steps.c.outputs.cache-matched-key }}'}\n"
                                  "        run: echo \"matched=[$M] $(cat f 2>/dev/null)\"\n";
    gha_run r;

    run_text(&r, save, "refs/pull/1/merge");
    cr_assert(strstr(r.log, "cache save k-1/merge (refs/pull/1/merge)") != NULL, "%s", r.log);
    gha_run_clear(&r);
    run_text(&r, restore, "refs/pull/2/merge");
    /* Another pull request's cache is not visible. */
    cr_assert(strstr(r.log, "matched=[]") != NULL, "%s", r.log);
    gha_run_clear(&r);
    run_text(&r, save, "refs/heads/main");
    cr_assert(strstr(r.log, "cache save k-main (refs/heads/main)") != NULL, "%s", r.log);
    gha_run_clear(&r);
    run_text(&r, restore, "refs/pull/2/merge");
    cr_assert(strstr(r.log, "matched=[k-main] refs/heads/main") != NULL, "%s", r.log);
    gha_run_clear(&r);
    run_text(&r, restore, "refs/pull/1/merge");
    /* The newest entry a prefix matches among what is visible: the default branch's, saved last. */
    cr_assert(strstr(r.log, "matched=[k-main]") != NULL, "%s", r.log);
    gha_run_clear(&r);
}
