/*
 * tarball_test.c - perfgate's source tarball: it carries the commit it was
 * made from without a .git (cmake/commit.txt, filled in by git archive's
 * export-subst, or by ci/release/tarball.sh --worktree), and a perfgate
 * built and installed from it (ci/gh/install.sh, as the reusable workflows
 * install it; tests/support/installed.h builds it once per source tree)
 * prints that commit and holds its companions in the prefix. The time the
 * build took is printed: it is the price of every test that installs
 * perfgate, paid once per run.
 */
#include "compile.h"
#include "installed.h"
#include "support.h"

#include "base/util.h"
#include "perfgate/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *sh_out(const char *cmd)
{
    char *out = NULL;
    int rc = pg_test_sh(&out, cmd);

    cr_assert_eq(rc, 0, "%s\n%s", cmd, out);
    out[strcspn(out, "\n")] = '\0';
    return out;
}

Test(tarball, installs_from_its_tarball_and_names_its_commit, .timeout = 900)
{
    const pg_test_install *in = pg_test_installed();
    char *cmd, *out, *head = sh_out("git -C '" PG_TEST_SOURCE_DIR "' rev-parse HEAD");

    fprintf(stderr, "tarball: perfgate from its source tarball: %s (%.0f s to make, build and install)\n",
            in->seconds > 0 ? "built" : "already built for this source tree", in->seconds);
    /* What the tarball holds: perfgate-VERSION/, no .git, the commit in cmake/commit.txt. */
    cmd = pg__asprintf("tar -tzf '%s' | grep -c -e '/\\.git/' -e '/\\.git$' || true", in->tarball);
    out = sh_out(cmd);
    cr_assert_str_eq(out, "0", "the tarball holds a .git");
    free(out);
    free(cmd);
    cmd = pg__asprintf("tar -xzOf '%s' perfgate-" PG_VERSION_STRING "/cmake/commit.txt", in->tarball);
    out = sh_out(cmd);
    cr_assert(strncmp(out, head, 40) == 0 && (out[40] == '\0' || strcmp(out + 40, "-dirty") == 0), "%s vs %s", out,
              head);
    /* The installed perfgate knows it, though it was built without git. */
    cr_assert_str_eq(in->commit, out);
    free(out);
    free(cmd);
    cmd = pg__asprintf("'%s/bin/perfgate' --version", in->prefix);
    out = sh_out(cmd);
    cr_assert(strncmp(out, "perfgate " PG_VERSION_STRING, 9 + strlen(PG_VERSION_STRING)) == 0, "%s", out);
    free(out);
    free(cmd);
    cmd = pg__asprintf("ls '%s/lib/perfgate'", in->prefix);
    {
        char *all = NULL;
        pg_test_sh(&all, cmd);
        cr_assert(strstr(all, "perfgate-meter") && strstr(all, "libperfgate_count.so") &&
                      strstr(all, "libperfgate-memshim.so"),
                  "%s", all);
        free(all);
    }
    free(cmd);
    free(head);
}

Test(tarball, a_release_tarball_is_the_commit_exactly)
{
    char *tmp = pg_test_tmpdir(), *cmd, *out, *head = sh_out("git -C '" PG_TEST_SOURCE_DIR "' rev-parse HEAD");

    /* git archive of HEAD fills cmake/commit.txt in (export-subst): what GitHub's own tag archives hold too. */
    cmd = pg__asprintf("bash '" PG_TEST_SOURCE_DIR "/ci/release/tarball.sh' --out '%s' HEAD 2>/dev/null | tail -1", tmp);
    out = sh_out(cmd);
    free(cmd);
    cmd = pg__asprintf("tar -xzOf '%s' perfgate-" PG_VERSION_STRING "/cmake/commit.txt", out);
    free(out);
    out = sh_out(cmd);
    cr_assert_str_eq(out, head);
    free(out);
    free(cmd);
    /* Outside a checkout it refuses, rather than archive whatever repository holds it. */
    cmd = pg__asprintf("mkdir -p '%s/t/ci/release' && cp '" PG_TEST_SOURCE_DIR "/ci/release/tarball.sh' '%s/t/ci/release/' "
                       "&& bash '%s/t/ci/release/tarball.sh' --out '%s' 2>&1; echo \"exit $?\"",
                       tmp, tmp, tmp, tmp);
    out = NULL;
    pg_test_sh(&out, cmd);
    cr_assert(strstr(out, "is not a git checkout") && strstr(out, "exit 2"), "%s", out);
    free(out);
    free(cmd);
    pg_test_rmtree(tmp);
    free(tmp);
    free(head);
}
