/* cmd_bisect.c - `perfgate bisect GOOD BAD --build CMD SUITE`: flags in, pg_bisect_run() (bisect.h), table out. */
#include "cli/cli.h"

#include "base/outfile.h"
#include "bisect/bisect.h"
#include "perfgate/errors.h"
#include "suite/suite.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char bisect_desc[] =
    "Finds the commit that made a case slower. The commits are BAD's first-parent\n"
    "chain back to GOOD; each is checked out once into a git worktree of its own\n"
    "and built there once with --build (run with bash in the worktree; it leaves\n"
    "its output in --build-dir, which the suites name {build}). Each step gates\n"
    "one commit's build against another's in interleaved rounds, as 'perfgate gate\n"
    "--base-build' does, and stops a case once its verdict is settled:\n\n"
    "  1. BAD against GOOD (all the cases the filter selects; the search follows\n"
    "     the REGRESSED one with the highest lower bound, and names the others);\n"
    "  2. the midpoint against the last commit known not to be slower, halving\n"
    "     the range; a step that ends UNSURE widens instead of guessing: the other\n"
    "     half is gated, and when both halves are UNSURE the change is spread;\n"
    "  3. the first slower commit against its parent, when no step measured that.\n\n"
    "The family error (--alpha, default 0.05) is split over the steps: each of the\n"
    "ceil(log2 n) + 2 planned steps gets alpha / (planned + 1), and a step beyond\n"
    "them (a widening) half the share of the one before, so the shares never add\n"
    "up to more than alpha. The result is one of: 'first bad commit X: +10.3%\n"
    "[+8.0, +12.7] against its parent Y'; 'the change is spread over commits\n"
    "X..Y' (no single step beyond the threshold); 'not reproduced between GOOD and\n"
    "BAD'; or undecided (UNSURE at the ends: nothing is guessed; run it again\n"
    "with more --rounds and the ends are measured again).\n\n"
    "Builds are cached by commit and command, with the worktrees, in --work-dir\n"
    "(default .git/perfgate-bisect; remove it and run 'git worktree prune' to\n"
    "reclaim the space). Every step is saved to the state file as it ends: run\n"
    "the same command again after --max-time, a failure or Ctrl-C, and it goes\n"
    "on where it stopped.\n\n"
    "exit codes: 0 a result (first bad commit, spread, not reproduced, or a range\n"
    "whose commits do not build); 2 usage or invalid input (GOOD not an ancestor\n"
    "of BAD, a state of other inputs); 3 GOOD or BAD does not build, git or\n"
    "measurement failure; 4 nothing concluded (UNSURE at the ends, or stopped by\n"
    "--max-time: run again to go on).\n\n"
    "examples:\n"
    "  perfgate bisect v1.4 HEAD --build make --build-dir build perf/mine.yaml\n"
    "  perfgate bisect 3f2a1b0 main --build 'cmake -B build && cmake --build build' \\\n"
    "      --filter 'mine/jacobi*' --max-time 1800 --json bisect.json perf/";

/*
 * Writes `text` to `path` ("-": stdout): a new file through the one writer
 * (base/outfile.h), so it is whole or not there; the job summary, which
 * others write too, is appended to. @return 0 or 3 (printed).
 */
static int write_out(const char *path, const char *text, const char *what, int append)
{
    FILE *f;
    int err;

    if (!append) {
        err = pg__outfile_write(path, text, strlen(text), what);
        return err ? pg_cli_fail(err) : 0;
    }
    f = fopen(path, "a");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "perfgate bisect: cannot write %s: %s\n", path, strerror(errno));
        return 3;
    }
    return 0;
}

static void on_line(const char *line, void *payload)
{
    (void)payload;
    fprintf(stderr, "%s\n", line);
}

/* The table to stdout (stderr when --json writes to stdout), --json, --md and the job summary. */
static int emit(const pg_bisect_result *r, const char *json, const char *md)
{
    pg_buf text = PG_BUF_INIT, mdtext = PG_BUF_INIT, js = PG_BUF_INIT;
    const char *summary = getenv("GITHUB_STEP_SUMMARY");
    int rc = 0;

    if (pg_bisect_format(&text, r, 0, NULL) != 0 || pg_bisect_format(&mdtext, r, 1, NULL) != 0 ||
        pg_bisect_to_json(&js, r) != 0) {
        rc = pg_cli_fail(PG_ENOMEM);
        goto done;
    }
    fputs(text.ptr, json && strcmp(json, "-") == 0 ? stderr : stdout);
    if (json)
        rc = write_out(json, js.ptr, "JSON report", 0);
    if (!rc && md)
        rc = write_out(md, mdtext.ptr, "markdown report", 0);
    if (!rc && summary && *summary)
        rc = write_out(summary, mdtext.ptr, "job summary", 1);
done:
    pg__buf_clear(&text);
    pg__buf_clear(&mdtext);
    pg__buf_clear(&js);
    return rc;
}

int pg_cmd_bisect(int argc, char **argv)
{
    pg_bisect_options o = PG_BISECT_OPTIONS_INIT;
    const char *json = NULL, *md = NULL;
    int nargs, rc, err, no_confirm = 0;
    long rounds = 0;
    pg_suite_set set = {0};
    pg_bisect_result r;
    const pg_opt opts[] = {
        {"build", 0, PG_OPT_STR, &o.build, "CMD", "builds a commit: run with bash in its worktree (required)"},
        {"build-dir", 0, PG_OPT_STR, &o.build_dir, "DIR",
         "where the build leaves its output, relative to the worktree: {build} (default build)"},
        {"filter", 'f', PG_OPT_STR, &o.filter, "GLOB", "only cases whose key matches GLOB"},
        {"threshold", 0, PG_OPT_DOUBLE, &o.threshold, "PCT", "minimum slowdown a step calls REGRESSED (default: each case's)"},
        {"alpha", 0, PG_OPT_DOUBLE, &o.alpha, "P", "family error of the whole bisection, split over its steps (0.05)"},
        {"rounds", 'r', PG_OPT_INT, &rounds, "R", "interleaved rounds per step at most (default 40)"},
        {"max-time", 0, PG_OPT_DOUBLE, &o.max_time, "SEC", "seconds for the whole bisection; run again to go on"},
        {"no-confirm", 0, PG_OPT_FLAG, &no_confirm, NULL, "a REGRESSED step is not confirmed by fresh rounds"},
        {"repo", 'C', PG_OPT_STR, &o.repo, "DIR", "the repository (default: the one holding the working directory)"},
        {"work-dir", 0, PG_OPT_STR, &o.work_dir, "DIR", "worktrees, builds, logs, state (default .git/perfgate-bisect)"},
        {"state", 0, PG_OPT_STR, &o.state, "FILE", "the state file (default: in --work-dir, named by the inputs)"},
        {"restart", 0, PG_OPT_FLAG, &o.restart, NULL, "forget the steps stored for these inputs and start over"},
        {"json", 0, PG_OPT_STR, &json, "FILE", "the bisection as JSON (- for stdout)"},
        {"md", 0, PG_OPT_STR, &md, "FILE", "the result and its table of steps as markdown"},
        {0},
    };
    const pg_cmd_spec spec = {"bisect", "GOOD BAD --build CMD [options] SUITE|DIR...",
                              "Find the commit that made a case slower, step by step with interleaved gates.",
                              bisect_desc, opts, 3, -1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (!o.build || !*o.build) {
        fprintf(stderr, "perfgate bisect: --build CMD is required (the command that builds a commit); see "
                        "'perfgate bisect --help'\n");
        return 2;
    }
    if (rounds < 0 || rounds > 10000 || o.max_time < 0) {
        fprintf(stderr, "perfgate bisect: --rounds is between 1 and 10000 and --max-time positive seconds\n");
        return 2;
    }
    o.good = argv[1];
    o.bad = argv[2];
    o.rounds = (int)rounds;
    o.confirm = !no_confirm;
    o.notify = on_line;
    o.ab_progress = stderr;
    if ((err = pg_cli_load_suites(&set, argv + 3, nargs - 2)) != 0)
        return pg_error_exit_code(err);
    err = pg_bisect_run(&r, &set, &o);
    rc = err ? pg_cli_fail(err) : emit(&r, json, md);
    if (!rc)
        rc = pg_bisect_exit_code(&r);
    pg_bisect_result_clear(&r);
    pg_suite_set_clear(&set);
    return rc;
}
