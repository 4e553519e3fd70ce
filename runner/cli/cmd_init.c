/* cmd_init.c - `perfgate init BUILD_DIR`: a starter suite and the CI workflows for a repository. */
#include "cli/cli.h"

#include "init/init.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char init_desc[] =
    "Scans BUILD_DIR for what perfgate can measure: plugins (shared libraries\n"
    "made with PG_PLUGIN_DEFINE, each benchmark a case) and programs (each a\n"
    "command case, timed as a process), and writes, in the repository:\n"
    "  perf/perfgate.yaml                  the suite (validated before it is written)\n"
    "  .github/workflows/perfgate-pr.yml   pull requests gated against their base\n"
    "  .github/workflows/perfgate-post.yml the result as a PR comment and a status\n"
    "  .github/workflows/perfgate-main.yml pushes to the default branch recorded\n"
    "  .github/workflows/perfgate-nightly.yml  with --nightly: nights on your GPU runner\n"
    "The workflows call perfgate's reusable workflows pinned to the commit this\n"
    "perfgate was built from (perfgate --version), and build your repository with\n"
    "its build command: make, CMake or Meson as found, else --build-command.\n"
    "No file that exists is overwritten: when one does, nothing is written.\n\n"
    "examples:\n"
    "  perfgate init build\n"
    "  perfgate init --build-command 'make -C src' --suite bench/perf.yaml out\n"
    "  perfgate init --nightly-runs-on '[\"self-hosted\", \"gpu-a100\"]' build";

static const char gpu_labels[] = "[\"self-hosted\", \"linux\", \"x64\", \"gpu\"]";

static void print_next(const pg_init_result *r)
{
    char cwd[4096];
    int elsewhere = !getcwd(cwd, sizeof(cwd)) || strcmp(cwd, r->root) != 0;
    size_t i;

    printf("\nnext%s%s%s:\n", elsewhere ? " (in " : "", elsewhere ? r->root : "", elsewhere ? ")" : "");
    printf("  perfgate validate %s\n", r->suite_rel);
    if (strcmp(r->build_rel, "build") == 0)
        printf("  perfgate run --no-store %s\n", r->suite_rel);
    else
        printf("  PERFGATE_BUILD=%s perfgate run --no-store %s\n", r->build_rel, r->suite_rel);
    printf("  git add");
    for (i = 0; i < r->nwritten; i++)
        printf(" %s", r->written[i]);
    printf(" && git commit -m \"perfgate: benchmarks and their CI gate\"\n");
}

static void print_result(const pg_init_result *r)
{
    size_t i;

    printf("perfgate init: %s\n", r->root);
    printf("  found in %s: %zu plugin%s with %zu benchmark%s, %zu program%s\n", r->build_rel, r->nplugins,
           r->nplugins == 1 ? "" : "s", r->nbenchmarks, r->nbenchmarks == 1 ? "" : "s", r->ncommands,
           r->ncommands == 1 ? "" : "s");
    for (i = 0; i < r->nwritten; i++)
        printf("  %s %s\n", i ? "     " : "wrote", r->written[i]);
    if (r->notes) {
        const char *line = r->notes;
        printf("  passed over:\n");
        while (*line) {
            size_t len = strcspn(line, "\n");
            printf("    %.*s\n", (int)len, line);
            line += len + (line[len] == '\n');
        }
    }
    if (r->nwritten > 1) {
        printf("  the workflows build with: %s\n", r->build_command);
        if (strcmp(r->perfgate_ref, PG_INIT_REF_PLACEHOLDER) == 0)
            printf("  the workflows name perfgate at %s: this perfgate was not built from a published\n"
                   "  commit. Pin them to a release before you commit them:\n"
                   "    pin-workflows.sh v%s   (share/perfgate/ of an installed perfgate)\n",
                   PG_INIT_REF_PLACEHOLDER, PG_VERSION_STRING);
        else
            printf("  they call perfgate's reusable workflows at %s (v%s)\n", r->perfgate_ref, PG_VERSION_STRING);
    }
    print_next(r);
}

int pg_cmd_init(int argc, char **argv)
{
    pg_init_options o = PG_INIT_OPTIONS_INIT;
    pg_init_result r;
    int nightly = 0, nargs, rc, err;
    const pg_opt opts[] = {
        {"build-command", 0, PG_OPT_STR, &o.build_command, "CMD",
         "how the workflows build the repository (default: make, CMake or Meson, as found)"},
        {"suite", 0, PG_OPT_STR, &o.suite, "PATH", "where the suite goes, in the repository (default perf/perfgate.yaml)"},
        {"root", 0, PG_OPT_STR, &o.root, "DIR", "the repository (default: the nearest directory up holding .git)"},
        {"branch", 0, PG_OPT_STR, &o.branch, "NAME", "the default branch, whose pushes are recorded (default: origin's)"},
        {"nightly", 0, PG_OPT_FLAG, &nightly, NULL, "also the nightly workflow, on a [self-hosted, linux, x64, gpu] runner"},
        {"nightly-runs-on", 0, PG_OPT_STR, &o.nightly_runs_on, "JSON",
         "the nightly, on the runner these labels name (a JSON list)"},
        {"no-workflows", 0, PG_OPT_FLAG, &o.no_workflows, NULL, "write the suite only"},
        {"perfgate-ref", 0, PG_OPT_STR, &o.perfgate_ref, "SHA",
         "the perfgate commit the workflows pin (default: the one this perfgate was built from)"},
        {"perfgate-repo", 0, PG_OPT_STR, &o.perfgate_repo, "OWNER/NAME",
         "where the reusable workflows live (default perfgate/perfgate)"},
        {0},
    };
    const pg_cmd_spec spec = {"init", "[options] BUILD_DIR",
                              "Write a starter suite for a build directory, and the CI workflows that gate the repository.",
                              init_desc, opts, 1, 1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    o.build_dir = argv[1];
    if (nightly && !o.nightly_runs_on)
        o.nightly_runs_on = gpu_labels;
    if ((err = pg_init_run(&r, &o)) != 0)
        return pg_cli_fail(err);
    print_result(&r);
    pg_init_result_clear(&r);
    return 0;
}
