/*
 * text.c - what `perfgate init` writes: the suite for what the scan found,
 * and the caller workflows (docs/ci.md, "Adopt perfgate in your
 * repository", shows them for a make-built repository; a test holds the two
 * to each other).
 */
#include "init/internal.h"

#include "perfgate/config.h"
#include "perfgate/errors.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- YAML scalars -------------------------------------------------------- */

/* Whether `s` reads back as the same string when written plain. */
static int plain_ok(const char *s)
{
    static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"};
    const char *p;
    size_t i;

    if (!*s || isdigit((unsigned char)*s) || strchr("-.+", *s) || s[strlen(s) - 1] == ' ')
        return 0;
    for (p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_./ -+=,", *p))
            return 0;
    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strcasecmp(s, words[i]) == 0)
            return 0;
    return 1;
}

int pg__init_yaml_scalar(pg_buf *out, const char *s)
{
    const unsigned char *p;

    if (plain_ok(s))
        return pg__buf_puts(out, s);
    pg__buf_puts(out, "\"");
    for (p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            pg__buf_printf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            pg__buf_printf(out, "\\x%02x", *p);
        else
            pg__buf_put(out, (const char *)p, 1);
    }
    return pg__buf_puts(out, "\"");
}

/* ---- the suite ----------------------------------------------------------- */

/* A case name from `s`: letters, digits and _ - . + (suite names and keys allow no more). */
static char *case_name(const char *s)
{
    char *n = pg__strdup(*s ? s : "case"), *p;

    for (p = n; p && *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-.+", *p))
            *p = '_';
    return n;
}

/* `name`, or name-2, name-3, ... when an earlier case took it. */
static char *unique(char ***taken, size_t *n, const char *name)
{
    char *cand = pg__strdup(name), **grown;
    size_t i, k = 1;

    for (i = 0; i < *n; i++)
        if (strcmp((*taken)[i], cand) == 0) {
            free(cand);
            cand = pg__asprintf("%s-%zu", name, ++k);
            i = (size_t)-1;
        }
    if ((grown = realloc(*taken, (*n + 1) * sizeof(*grown))) != NULL) {
        *taken = grown;
        (*taken)[(*n)++] = cand;
    }
    return cand;
}

static void suite_head(pg_buf *b, const pg__init_vars *v)
{
    pg__buf_printf(b,
                   "# perfgate suite for %s, written by `perfgate init %s`: one case per\n"
                   "# benchmark found in the build directory. Edit it freely (the suite\n"
                   "# language: perfgate's docs/suites.md); check it with\n"
                   "#   perfgate validate %s\n"
                   "# {build} is the build directory: $PERFGATE_BUILD, else ./build; the CI\n"
                   "# workflows set it to %s.\n"
                   "suite: ",
                   v->suite_name, v->build_rel, v->suite_rel, v->build_rel);
    pg__init_yaml_scalar(b, v->suite_name);
    pg__buf_puts(b, "\n"
                    "defaults:\n"
                    "  threads: 1\n"
                    "  min_run_time: 0.3s\n"
                    "  warmup: 50ms\n"
                    "  min_samples: 20\n"
                    "  regression: {threshold: 5%, alpha: 0.05}\n"
                    "benchmarks:\n");
}

static void build_path(pg_buf *b, const char *rel)
{
    char *p = pg__asprintf("{build}/%s", rel);

    pg__init_yaml_scalar(b, p);
    free(p);
}

int pg__init_suite_text(pg_buf *out, const pg__init_found *f, const pg__init_vars *v)
{
    char **taken = NULL;
    size_t ntaken = 0, i, k;

    suite_head(out, v);
    for (i = 0; i < f->nplugins; i++) {
        const pg__init_plugin *p = &f->plugins[i];
        pg__buf_printf(out, "  # %s, plugin \"%s\": %zu benchmark%s\n", p->rel, p->name, p->n, p->n == 1 ? "" : "s");
        for (k = 0; k < p->n; k++) {
            char *base = case_name(p->benchmarks[k]), *name = unique(&taken, &ntaken, base);
            pg__buf_printf(out, "  - name: %s\n    plugin: ", name);
            build_path(out, p->rel);
            pg__buf_puts(out, "\n    symbol: ");
            pg__init_yaml_scalar(out, p->benchmarks[k]);
            pg__buf_puts(out, "\n");
            free(base);
        }
    }
    for (i = 0; i < f->nprograms; i++) {
        const char *slash = strrchr(f->programs[i], '/');
        char *base = case_name(slash ? slash + 1 : f->programs[i]), *name = unique(&taken, &ntaken, base);
        pg__buf_printf(out,
                       "  # %s: a program, timed whole as a process. Give it the arguments of\n"
                       "  # a representative run (docs/plugins.md, \"Command benchmarks\").\n"
                       "  - name: %s\n    command: [",
                       f->programs[i], name);
        build_path(out, f->programs[i]);
        pg__buf_puts(out, "]\n    timeout: 60s\n");
        free(base);
    }
    for (i = 0; i < ntaken; i++)
        free(taken[i]);
    free(taken);
    return out->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory writing the suite");
}

/* ---- the caller workflows ------------------------------------------------ */

const char *const pg__init_workflow_files[4] = {
    ".github/workflows/perfgate-pr.yml",
    ".github/workflows/perfgate-post.yml",
    ".github/workflows/perfgate-main.yml",
    ".github/workflows/perfgate-nightly.yml",
};

/*
 * The texts, with @NAME@ for what differs between repositories. Each pins
 * perfgate's reusable workflow by commit (@REF@) twice: in uses:, and as
 * perfgate-ref, which tells the workflow which perfgate to install (a
 * called workflow cannot see its own ref).
 */
static const char pr_text[] =
    "# perfgate: every pull request gated against its base commit. Both are\n"
    "# built here with your build command and measured against each other in\n"
    "# interleaved rounds; a significant slowdown fails the check, and\n"
    "# perfgate-post.yml comments on the pull request (perfgate's docs/ci.md).\n"
    "name: perfgate-pr\n"
    "on: pull_request\n"
    "permissions: {}\n"
    "concurrency:\n"
    "  group: perfgate-pr-${{ github.event.pull_request.number }}\n"
    "  cancel-in-progress: true\n"
    "jobs:\n"
    "  gate:\n"
    "    uses: @REPO@/.github/workflows/gate.yml@@REF@ # v@VERSION@\n"
    "    permissions:\n"
    "      contents: read\n"
    "    with:\n"
    "      perfgate-ref: @REF@\n"
    "      build: @BUILD@\n"
    "      build-dir: @BUILD_DIR@\n"
    "      suites: @SUITES@\n";

static const char post_text[] =
    "# perfgate: the gate's result on the pull request, as one comment kept up\n"
    "# to date and a commit status, for pull requests from forks too. It runs\n"
    "# perfgate's code with a write token and never your pull request's\n"
    "# (perfgate's docs/ci.md, \"Security model\").\n"
    "name: perfgate-post\n"
    "on:\n"
    "  # zizmor: ignore[dangerous-triggers] workflow_run is what makes fork PRs\n"
    "  # safe to comment on: post.yml never checks out or runs the PR's code,\n"
    "  # treats the artifact as data, and takes the PR and SHA from the event.\n"
    "  workflow_run:\n"
    "    workflows: [perfgate-pr]\n"
    "    types: [completed]\n"
    "permissions: {}\n"
    "jobs:\n"
    "  post:\n"
    "    uses: @REPO@/.github/workflows/post.yml@@REF@ # v@VERSION@\n"
    "    permissions:\n"
    "      contents: read\n"
    "      actions: read\n"
    "      pull-requests: write\n"
    "      statuses: write\n"
    "    with:\n"
    "      perfgate-ref: @REF@\n";

static const char main_text[] =
    "# perfgate: every push to @BRANCH@ built, measured and recorded: the\n"
    "# history of your benchmarks, and the cached base build of pull requests\n"
    "# on that commit (perfgate's docs/ci.md).\n"
    "name: perfgate-main\n"
    "on:\n"
    "  push:\n"
    "    branches: [@BRANCH@]\n"
    "permissions: {}\n"
    "jobs:\n"
    "  record:\n"
    "    uses: @REPO@/.github/workflows/record.yml@@REF@ # v@VERSION@\n"
    "    permissions:\n"
    "      contents: read\n"
    "      actions: read\n"
    "    with:\n"
    "      perfgate-ref: @REF@\n"
    "      build: @BUILD@\n"
    "      build-dir: @BUILD_DIR@\n"
    "      suites: @SUITES@\n";

static const char nightly_text[] =
    "# perfgate: every night measured on your own runner (a GPU machine) and\n"
    "# gated against the previous nights, whose history stays on that runner\n"
    "# (perfgate's docs/ci.md, \"The nightly on a self-hosted GPU runner\").\n"
    "name: perfgate-nightly\n"
    "on:\n"
    "  schedule:\n"
    "    - cron: \"17 3 * * *\"\n"
    "  workflow_dispatch:\n"
    "permissions: {}\n"
    "concurrency:\n"
    "  group: perfgate-nightly\n"
    "  cancel-in-progress: false\n"
    "jobs:\n"
    "  nightly:\n"
    "    uses: @REPO@/.github/workflows/nightly.yml@@REF@ # v@VERSION@\n"
    "    permissions:\n"
    "      contents: read\n"
    "    with:\n"
    "      perfgate-ref: @REF@\n"
    "      runs-on: @RUNS_ON@\n"
    "      build: @BUILD@\n"
    "      build-dir: @BUILD_DIR@\n"
    "      suites: @SUITES@\n";

/* `s` single-quoted (JSON label lists hold double quotes). */
static void single_quoted(pg_buf *b, const char *s)
{
    pg__buf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'')
            pg__buf_puts(b, "''");
        else
            pg__buf_put(b, s, 1);
    }
    pg__buf_puts(b, "'");
}

static void put_var(pg_buf *out, const char *name, size_t len, const pg__init_vars *v)
{
#define IS(n) (len == sizeof(n) - 1 && strncmp(name, n, len) == 0)
    if (IS("REPO"))
        pg__buf_puts(out, v->repo);
    else if (IS("REF"))
        pg__buf_puts(out, v->ref);
    else if (IS("VERSION"))
        pg__buf_puts(out, PG_VERSION_STRING);
    else if (IS("BRANCH"))
        pg__init_yaml_scalar(out, v->branch);
    else if (IS("BUILD"))
        pg__init_yaml_scalar(out, v->build_command);
    else if (IS("BUILD_DIR"))
        pg__init_yaml_scalar(out, v->build_rel);
    else if (IS("SUITES"))
        pg__init_yaml_scalar(out, v->suite_rel);
    else if (IS("RUNS_ON"))
        single_quoted(out, v->runs_on);
#undef IS
}

int pg__init_workflow_text(pg_buf *out, pg__init_workflow which, const pg__init_vars *v)
{
    static const char *const texts[] = {pr_text, post_text, main_text, nightly_text};
    const char *p = texts[which], *at;

    while ((at = strchr(p, '@')) != NULL) {
        const char *end = strchr(at + 1, '@');
        pg__buf_put(out, p, (size_t)(at - p));
        /* "@@" is a literal @ before a name: the @ of a ref in uses:. */
        if (!end || end == at + 1) {
            pg__buf_put(out, at, 1);
            p = at + 1;
            continue;
        }
        put_var(out, at + 1, (size_t)(end - at - 1), v);
        p = end + 1;
    }
    pg__buf_puts(out, p);
    return out->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory writing the workflows");
}
