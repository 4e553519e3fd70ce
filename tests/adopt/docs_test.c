/*
 * docs_test.c - docs/ci.md's "Adopt perfgate in your repository" is run as
 * written: its shell blocks run, in order: the install from the source
 * tarball (the one the tests made of this tree, tests/support/installed.h)
 * into ~/.local, then the walk-through in a copy of a make-built repository
 * (tests/data/userrepo) with that perfgate on the PATH and a release tag to
 * pin to; the workflow files they leave are byte for byte the files the
 * section shows (the
 * placeholder PERFGATE_SHA replaced by the tag's commit), and pass the
 * workflow checks (ci/gh/audit.sh: zizmor, GitHub's schemas); every input of
 * perfgate's reusable workflows is explained in its table of inputs.
 */
#include "compile.h"
#include "installed.h"
#include "support.h"

#include "base/node.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECTION "## Adopt perfgate in your repository\n"
/* The one line of the install block not run: it needs root and the network, and the packages it installs are
 * those this machine's tests already run with (ci/install-deps.sh put them here). */
#define DEPS_LINE "sudo bash ci/install-deps.sh"

typedef struct block {
    char *label; /* the file a yaml block shows (**`PATH`** before it), else NULL */
    char *lang;
    char *text;
} block;

static char *tmp;

/* The section's fenced blocks, each with its language and the file label before it. */
static size_t blocks_of(block *out, size_t max, char **section_out)
{
    char *doc = NULL, *start, *end, *p, *label = NULL;
    size_t len = 0, n = 0;

    pg_assert_ok(pg__read_file(&doc, &len, PG_TEST_SOURCE_DIR "/docs/ci.md"));
    start = strstr(doc, SECTION);
    cr_assert(start != NULL, "docs/ci.md has no section '%.*s'", (int)strlen(SECTION) - 1, SECTION);
    start += strlen(SECTION);
    end = strstr(start, "\n## ");
    *section_out = pg__asprintf("%.*s", (int)(end ? end - start : (long)strlen(start)), start);
    for (p = *section_out; (p = strstr(p, "\n")) != NULL && n < max;) {
        p++;
        if (strncmp(p, "**`", 3) == 0) {
            free(label);
            label = pg__asprintf("%.*s", (int)strcspn(p + 3, "`"), p + 3);
        } else if (strncmp(p, "```", 3) == 0) {
            char *body = p + strcspn(p, "\n") + 1, *close = strstr(body, "\n```");
            cr_assert(close != NULL, "an unclosed block in the adoption section");
            out[n].lang = pg__asprintf("%.*s", (int)strcspn(p + 3, "\n"), p + 3);
            out[n].text = pg__asprintf("%.*s\n", (int)(close - body), body);
            out[n].label = strcmp(out[n].lang, "yaml") == 0 ? label : NULL;
            if (out[n].label)
                label = NULL;
            n++;
            p = close + 4;
        }
    }
    free(label);
    free(doc);
    return n;
}

static char *replaced(const char *text, const char *what, const char *with)
{
    pg_buf b = PG_BUF_INIT;
    const char *p = text, *hit;

    while ((hit = strstr(p, what)) != NULL) {
        pg__buf_put(&b, p, (size_t)(hit - p));
        pg__buf_puts(&b, with);
        p = hit + strlen(what);
    }
    pg__buf_puts(&b, p);
    return pg__buf_detach(&b);
}

static void assert_file_is(const char *dir, const char *rel, const char *want)
{
    char *path = pg__asprintf("%s/%s", dir, rel), *have = NULL;
    size_t len = 0;

    pg_assert_ok(pg__read_file(&have, &len, path));
    cr_assert_str_eq(have, want, "%s differs from what docs/ci.md shows:\n--- written\n%s--- shown\n%s", rel, have,
                     want);
    free(have);
    free(path);
}

/*
 * The section's install block, run as written (but DEPS_LINE) where the release tarball was downloaded. Its
 * output goes to a file: a build's log names the sanitizers it leaves out, which a test's output must not.
 */
static void install_as_shown(const char *text, const char *env)
{
    char *body = replaced(text, DEPS_LINE, "true"), *script, *cmd, *log = NULL, *logpath;
    size_t len = 0;
    int rc;

    cr_assert(strstr(text, DEPS_LINE) != NULL, "the install block no longer says '" DEPS_LINE "':\n%s", text);
    script = pg_test_write(tmp, "install.sh", body);
    logpath = pg__asprintf("%s/install.log", tmp);
    cmd = pg__asprintf("cd '%s/download' && export %s && bash -eo pipefail '%s' > '%s' 2>&1", tmp, env, script,
                       logpath);
    rc = pg_test_sh(NULL, cmd);
    if (rc != 0)
        pg__read_file(&log, &len, logpath);
    cr_assert_eq(rc, 0, "the install block failed (exit %d):\n%s\n%s", rc, body,
                 log ? (len > 4000 ? log + len - 4000 : log) : "");
    free(log);
    free(logpath);
    free(cmd);
    free(script);
    free(body);
}

Test(docs, the_adoption_section_runs_as_written, .timeout = 900)
{
    const pg_test_install *release = pg_test_installed();
    block b[24];
    char *section, *prefix, *repo, *env, *out, *sha;
    size_t n, i, shown = 0, ran = 0;
    pg_buf log = PG_BUF_INIT;

    tmp = pg_test_tmpdir();
    n = blocks_of(b, 24, &section);
    /* ~/.local of a home of the test's own, where the install block puts perfgate. */
    prefix = pg__asprintf("%s/home/.local", tmp);
    repo = pg__asprintf("%s/mylib", tmp);
    free(pg_test_sh_expect(0, "mkdir -p '%s/home' '%s/download' && cp '%s' '%s/download/'", tmp, tmp, release->tarball,
                           tmp));
    free(pg_test_sh_expect(0, "cp -a '%s/userrepo/v1' '%s' && cp -a '%s/userrepo/bench/.' '%s/' && git -C '%s' init -q -b main",
            PG_TEST_DATA_DIR, repo, PG_TEST_DATA_DIR, repo, repo));
    /* perfgate's repository with the release tag the pin script resolves. */
    free(pg_test_sh_expect(0, "git init -q '%s/release' && cd '%s/release' && git -c user.name=R -c user.email=r@example.com commit "
            "-q --allow-empty -m v0.1.0 && git -c user.name=R -c user.email=r@example.com tag -a -m v0.1.0 v0.1.0",
            tmp, tmp));
    sha = pg_test_sh_expect(0, "git -C '%s/release' rev-parse 'v0.1.0^{commit}'", tmp);
    sha[40] = '\0';
    /* MAKEFLAGS: the block's unbounded `cmake --build -j` kept to the load a shared test machine bears. */
    env = pg__asprintf("HOME='%s/home' PATH='%s/bin':\"$PATH\" PKG_CONFIG_PATH='%s/lib/pkgconfig' "
                       "PERFGATE_REMOTE='%s/release' MAKEFLAGS='-l 4'",
                       tmp, prefix, prefix, tmp);
    /* The shell blocks, in order, as a user runs them: the install where the tarball is, the rest in the repository. */
    for (i = 0; i < n; i++) {
        char *script;
        if (strcmp(b[i].lang, "sh") != 0)
            continue;
        ran++;
        if (strstr(b[i].text, "tar -xzf ")) {
            install_as_shown(b[i].text, env);
            /* It is the perfgate of the tarball: its commit, without git. */
            out = pg_test_sh_expect(0, "'%s/bin/perfgate' --version", prefix);
            cr_assert(strstr(out, release->commit) != NULL, "%s\nnot the tarball's commit %s", out, release->commit);
            free(out);
            continue;
        }
        script = pg_test_write(tmp, "block.sh", b[i].text);
        out = pg_test_sh_expect(0, "cd '%s' && export %s && bash -eo pipefail '%s' 2>&1", repo, env, script);
        pg__buf_puts(&log, out);
        free(out);
        free(script);
    }
    /* The install, the walk-through (build, init, validate, one run), then the pin to the release. */
    cr_assert_eq(ran, 3, "the adoption section's shell blocks: %zu", ran);
    cr_assert(strstr(log.ptr, "perfgate init: ") && strstr(log.ptr, "1 suite valid: 3 cases") &&
                  strstr(log.ptr, "mylib/filter[]@1:cpu") && strstr(log.ptr, "-> v0.1.0 (") != NULL,
              "%s", log.ptr);
    pg__buf_clear(&log);
    /* The files they left are the files shown. */
    for (i = 0; i < n; i++) {
        char *want;
        if (!b[i].label || strstr(b[i].label, "perfgate-nightly"))
            continue;
        want = replaced(b[i].text, "PERFGATE_SHA", sha);
        assert_file_is(repo, b[i].label, want);
        free(want);
        shown++;
    }
    cr_assert_eq(shown, 3, "the section shows the pull request, post and main workflows");
    free(pg_test_sh_expect(0, "bash '" PG_TEST_SOURCE_DIR "/ci/gh/audit.sh' '%s/.github/workflows' 2>&1", repo));

    /* The nightly: what `perfgate init --nightly` writes, shown with the placeholder. */
    free(pg_test_sh_expect(0, "rm -rf '%s/.github' '%s/perf' && cd '%s' && export %s && perfgate init --nightly --perfgate-ref %s build",
            repo, repo, repo, env, sha));
    for (i = 0; i < n; i++)
        if (b[i].label && strstr(b[i].label, "perfgate-nightly")) {
            char *want = replaced(b[i].text, "PERFGATE_SHA", sha);
            assert_file_is(repo, b[i].label, want);
            free(want);
            shown++;
        }
    cr_assert_eq(shown, 4, "the section shows the nightly workflow");
    free(pg_test_sh_expect(0, "bash '" PG_TEST_SOURCE_DIR "/ci/gh/audit.sh' '%s/.github/workflows' 2>&1", repo));

    for (i = 0; i < n; i++) {
        free(b[i].label);
        free(b[i].lang);
        free(b[i].text);
    }
    free(section);
    free(env);
    free(sha);
    free(repo);
    free(prefix);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(docs, every_input_of_the_reusable_workflows_is_explained)
{
    static const char *const files[] = {"gate.yml", "post.yml", "record.yml", "nightly.yml", NULL};
    block b[24];
    char *section;
    size_t n = blocks_of(b, 24, &section), i, k;

    for (k = 0; files[k]; k++) {
        char *path = pg__asprintf(PG_TEST_SOURCE_DIR "/.github/workflows/%s", files[k]);
        pg_doc *doc = NULL;
        const pg_node *inputs;
        cr_assert_eq(pg_doc_load(&doc, path, NULL, 0), 0, "%s", pg_error_last());
        inputs = pg_node_get(pg_node_get(pg_node_get(pg_doc_root(doc), "on"), "workflow_call"), "inputs");
        cr_assert(inputs && inputs->count > 0, "%s declares no inputs", files[k]);
        for (i = 0; i < inputs->count; i++) {
            char *row = pg__asprintf("\n| `%s` |", inputs->keys[i]->scalar);
            cr_assert(strstr(section, row) != NULL, "docs/ci.md explains no input '%s' (%s)", inputs->keys[i]->scalar,
                      files[k]);
            free(row);
        }
        pg_doc_free(doc);
        free(path);
    }
    for (i = 0; i < n; i++) {
        free(b[i].label);
        free(b[i].lang);
        free(b[i].text);
    }
    free(section);
}
