/*
 * bisect_test.c - `perfgate bisect` on real repositories of 32 commits
 * (tests/data/bisect/make_repo.sh): a small library of two kernels built
 * by its Makefile at every commit, gated in interleaved rounds.
 *
 * sharp:  commit 19 gives kern_a 10 % more sweeps, commit 7 gives kern_b 2 %
 *         more: the bisection names commit 19 with its interval in at most
 *         7 steps, and never commit 7. Stopped by --max-time first, then
 *         run again: it goes on from its state file.
 * spread: kern_a's 10 % comes in four steps of 2.5 % (commits 17 to 20):
 *         spread over them, never one commit.
 * flat:   commits 20 to 32 of sharp: not reproduced, in one step.
 * The verdicts are this machine's, so a loaded machine can make a step
 * UNSURE; the tests assert what the bisection then owes, never a speed.
 */
#include "support.h"

#include "compile.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char suite_yaml[] = "suite: kern\n"
                                 "defaults:\n"
                                 "  threads: 1\n"
                                 "  min_run_time: 0.4s\n"
                                 "benchmarks:\n"
                                 "  - name: a\n"
                                 "    plugin: \"{build}/libkern.so\"\n"
                                 "    symbol: kern_a\n"
                                 "  - name: b\n"
                                 "    plugin: \"{build}/libkern.so\"\n"
                                 "    symbol: kern_b\n";

typedef struct world {
    char *dir, *repo, *suite, *build;
} world;

static void world_make(world *w, const char *mode)
{
    char *script = pg_test_data("bisect/make_repo.sh"), *cmd, *out = NULL;

    w->dir = pg_test_tmpdir();
    w->repo = pg__asprintf("%s/repo", w->dir);
    w->suite = pg_test_write(w->dir, "kern.yaml", suite_yaml);
    w->build = pg__asprintf("make PERFGATE_INCLUDE='%s/include'", PG_TEST_SOURCE_DIR);
    cmd = pg__asprintf("bash '%s' '%s' %s", script, w->repo, mode);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s: %s", cmd, out);
    free(script);
    free(cmd);
    free(out);
}

static void world_free(world *w)
{
    pg_test_rmtree(w->dir);
    free(w->dir);
    free(w->repo);
    free(w->suite);
    free(w->build);
}

/* The SHA of `rev` in the repository. */
static char *rev_parse(const world *w, const char *rev)
{
    char *cmd = pg__asprintf("git -C '%s' rev-parse %s", w->repo, rev), *out = NULL;

    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s: %s", cmd, out);
    out[strcspn(out, "\n")] = '\0';
    free(cmd);
    return out;
}

/* perfgate bisect GOOD BAD ... with --json into the world's directory; the document read back. */
static json_t *bisect(const world *w, pg_proc *p, const char *good, const char *bad, const char *max_time,
                      const char *rounds)
{
    char *json = pg__asprintf("%s/bisect.json", w->dir);
    const char *argv[16];
    size_t n = 0;
    json_error_t je;
    json_t *doc;

    argv[n++] = "bisect";
    argv[n++] = good;
    argv[n++] = bad;
    argv[n++] = "--build";
    argv[n++] = w->build;
    argv[n++] = "--json";
    argv[n++] = json;
    if (max_time) {
        argv[n++] = "--max-time";
        argv[n++] = max_time;
    }
    if (rounds) {
        argv[n++] = "--rounds";
        argv[n++] = rounds;
    }
    argv[n++] = w->suite;
    argv[n] = NULL;
    unlink(json);
    pg_test_run(p, w->repo, NULL, argv);
    doc = json_load_file(json, 0, &je);
    cr_assert(doc || p->status != 0, "exit %d but no JSON (%s): %s", p->status, je.text, p->err);
    free(json);
    return doc;
}

static const char *result_kind(json_t *doc)
{
    return json_string_value(json_object_get(json_object_get(doc, "result"), "kind"));
}

static int undecided(const pg_proc *p, json_t *doc)
{
    const char *kind = result_kind(doc);

    return p->status == 4 && kind && strcmp(kind, "undecided") == 0;
}

/*
 * The bisection run to a result as its user would run it: ends left UNSURE
 * by a noisy machine are run again with four times the rounds, as the
 * message advises (the ends are measured again). Still undecided, the test
 * fails saying so: the machine was too noisy to show anything.
 */
static json_t *bisect_decided(const world *w, pg_proc *p, const char *good, const char *bad)
{
    json_t *doc = bisect(w, p, good, bad, NULL, NULL);

    if (!undecided(p, doc))
        return doc;
    cr_assert(strstr(p->out, "run it again with more --rounds"), "%s", p->out);
    json_decref(doc);
    pg_proc_free(p);
    doc = bisect(w, p, good, bad, NULL, "160");
    cr_assert(strstr(p->err, "the ends were UNSURE in 40 rounds last time"), "%s", p->err);
    if (undecided(p, doc))
        cr_assert_fail("the ends were UNSURE in 40 and again in 160 rounds (a loaded machine; re-run alone): %s",
                       p->out);
    return doc;
}

static const char *commit_sha(json_t *doc, size_t i)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(doc, "commits"), i), "sha"));
}

Test(bisect_repo, commit_19_is_named_with_its_interval_and_commit_7_never, .timeout = 800)
{
    world w;
    pg_proc p;
    json_t *doc, *steps, *st;
    char *sha19, *sha7;
    const char *kind;
    char limit[16];
    size_t i, kept = 0;
    int seconds, finished = 0;

    world_make(&w, "sharp");
    sha19 = rev_parse(&w, "main~13");
    sha7 = rev_parse(&w, "main~25");
    /*
     * Stopped early by --max-time: nothing concluded (4), every finished step
     * kept, and a step that time cut short (its rounds or their confirmation)
     * not kept. A loaded machine may finish no step in 15 s: 60 then, in
     * which a quieter moment may finish them all (a result, 0).
     */
    for (seconds = 15; seconds <= 60 && kept == 0 && !finished; seconds *= 4) {
        snprintf(limit, sizeof(limit), "%d", seconds);
        doc = bisect(&w, &p, "main~31", "main", limit, NULL);
        kept = json_array_size(json_object_get(doc, "steps"));
        finished = seconds > 15 && p.status == 0 && result_kind(doc) && strcmp(result_kind(doc), "found") == 0;
        if (!finished) {
            cr_assert_eq(p.status, 4, "exit %d: %s%s", p.status, p.out, p.err);
            cr_assert_str_eq(result_kind(doc), "open", "%s", p.out);
            cr_assert(strstr(p.out, "stopped by --max-time") && strstr(p.out, "run the same command again"), "%s",
                      p.out);
        }
        json_decref(doc);
        pg_proc_free(&p);
    }
    cr_assert_gt(kept, 0, "no step ended within --max-time 60 (a loaded machine; re-run alone)");

    doc = bisect_decided(&w, &p, "main~31", "main");
    kind = result_kind(doc);
    cr_assert_eq(p.status, 0, "exit %d: %s%s", p.status, p.out, p.err);
    cr_assert_str_eq(kind, "found", "%s", p.out);
    cr_assert_str_eq(commit_sha(doc, 18), sha19);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "result"), "culprit")), 18);
    cr_assert(strstr(p.out, "first bad commit ") && strstr(p.out, "against its parent"), "%s", p.out);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "case")), "kern/a[]@1:cpu");
    steps = json_object_get(doc, "steps");
    cr_assert_leq(json_array_size(steps), 7, "%zu steps:\n%s", json_array_size(steps), p.out);
    /* It went on from the state of the first run. */
    cr_assert(strstr(p.err, "resuming from ") || strstr(p.out, "(resumed)"), "%s", p.err);
    /* The interval it names: the last step, commit 19 against commit 18, REGRESSED beyond 5 %. */
    st = json_array_get(steps, (size_t)json_integer_value(json_object_get(json_object_get(doc, "result"), "step")));
    cr_assert_eq(json_integer_value(json_object_get(st, "head")), 18);
    cr_assert_eq(json_integer_value(json_object_get(st, "base")), 17);
    cr_assert_str_eq(json_string_value(json_object_get(st, "verdict")), "REGRESSED");
    cr_assert_gt(json_real_value(json_object_get(st, "ci_lo")), 1.05);
    /* The +2 % of commit 7 is blamed nowhere: no REGRESSED step ends at commit 7 and the result names 19. */
    for (i = 0; i < json_array_size(steps); i++) {
        json_t *s = json_array_get(steps, i);
        cr_assert_str_eq(json_string_value(json_object_get(s, "case")), "kern/a[]@1:cpu");
        if (json_integer_value(json_object_get(s, "head")) == 6 && json_integer_value(json_object_get(s, "base")) == 5)
            cr_assert_str_neq(json_string_value(json_object_get(s, "verdict")), "REGRESSED");
    }
    cr_assert_null(strstr(p.out, sha7));
    json_decref(doc);
    pg_proc_free(&p);
    free(sha19);
    free(sha7);
    world_free(&w);
}

Test(bisect_repo, a_change_spread_over_four_commits_is_spread_never_one_commit, .timeout = 800)
{
    world w;
    pg_proc p;
    json_t *doc, *span;
    const char *kind;
    json_int_t lo, hi;

    world_make(&w, "spread");
    doc = bisect_decided(&w, &p, "main~31", "main");
    kind = result_kind(doc);
    cr_assert(kind, "exit %d: %s%s", p.status, p.out, p.err);
    cr_assert_str_neq(kind, "found", "one commit was blamed for a spread change:\n%s", p.out);
    cr_assert_str_eq(kind, "spread", "%s", p.out);
    cr_assert_eq(p.status, 0);
    /* Commits 17..20 of the repository are 16..19 of the chain: the range holds some of them and none far off. */
    span = json_object_get(json_object_get(doc, "result"), "span");
    lo = json_integer_value(json_array_get(span, 0));
    hi = json_integer_value(json_array_get(span, 1));
    cr_assert(lo + 1 <= 18 && hi >= 17 && lo >= 7 && hi <= 23, "spread over %lld..%lld:\n%s", (long long)lo + 1,
              (long long)hi, p.out);
    cr_assert(strstr(p.out, "the change is spread over commits "), "%s", p.out);
    json_decref(doc);
    pg_proc_free(&p);
    world_free(&w);
}

Test(bisect_repo, a_range_without_a_change_is_not_reproduced, .timeout = 600)
{
    world w;
    pg_proc p;
    json_t *doc;

    world_make(&w, "sharp");
    /* Commits 20 to 32: after both changes, nothing moves. */
    doc = bisect_decided(&w, &p, "main~12", "main");
    cr_assert_eq(p.status, 0, "exit %d: %s%s", p.status, p.out, p.err);
    cr_assert_str_eq(result_kind(doc), "not_reproduced");
    cr_assert_eq(json_array_size(json_object_get(doc, "steps")), 1);
    cr_assert(strstr(p.out, "not reproduced between GOOD and BAD"), "%s", p.out);
    json_decref(doc);
    pg_proc_free(&p);
    world_free(&w);
}

Test(bisect_repo, undecided_ends_are_measured_again_when_run_again, .timeout = 300)
{
    world w;
    pg_proc p;
    json_t *doc, *steps;

    world_make(&w, "flat");
    /* Two rounds cannot decide anything at the ends' share of alpha: undecided (4), whatever the machine. */
    doc = bisect(&w, &p, "main~4", "main", NULL, "2");
    cr_assert(undecided(&p, doc), "exit %d: %s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "nothing is bisected on a guess: run it again with more --rounds"), "%s", p.out);
    cr_assert_eq(json_array_size(json_object_get(doc, "steps")), 1);
    json_decref(doc);
    pg_proc_free(&p);
    /* Run again: the stored UNSURE is not the answer again; the ends are measured anew, with the new rounds. */
    doc = bisect(&w, &p, "main~4", "main", NULL, "3");
    cr_assert(undecided(&p, doc), "exit %d: %s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.err, "the ends were UNSURE in 2 rounds last time") && strstr(p.err, "measuring them again"),
              "%s", p.err);
    steps = json_object_get(doc, "steps");
    cr_assert_eq(json_array_size(steps), 1);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(steps, 0), "rounds")), 3, "%s", p.out);
    json_decref(doc);
    pg_proc_free(&p);
    world_free(&w);
}
