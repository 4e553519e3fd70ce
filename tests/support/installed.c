/* installed.c - perfgate from its source tarball, installed once per source tree (installed.h). */
#include "installed.h"

#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static pg_test_install installed;

static char *trimmed(char *s)
{
    s[strcspn(s, "\r\n")] = '\0';
    return s;
}

/* The git tree of the tracked files as they are: the key of one build. */
static char *source_tree(void)
{
    char *out = NULL, *tree;
    int rc = pg_test_sh(&out, "cd '" PG_TEST_SOURCE_DIR "' && s=$(git -c user.name=perfgate -c "
                              "user.email=perfgate@localhost stash create) && git rev-parse \"${s:-HEAD}^{tree}\"");

    cr_assert_eq(rc, 0, "the source tree's git tree: %s", out);
    tree = pg__strdup(trimmed(out));
    free(out);
    return tree;
}

static int exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

/* Makes the tarball, unpacks it, installs it with its own ci/gh/install.sh, under `dir`. */
static void build(const char *dir)
{
    char *out = NULL, *cmd;
    int64_t t0 = pg__mono_ns();
    int rc;

    cmd = pg__asprintf("rm -rf '%s' && mkdir -p '%s/src' && bash '" PG_TEST_SOURCE_DIR
                       "/ci/release/tarball.sh' --worktree --out '%s'",
                       dir, dir, dir);
    rc = pg_test_sh(&out, cmd);
    cr_assert_eq(rc, 0, "%s\n%s", cmd, out);
    free(cmd);
    /* tarball.sh prints the tarball's path last. */
    trimmed(out);
    installed.tarball = pg__strdup(strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out);
    free(out);
    /* The unpacked tarball installs itself: no .git, so install.sh builds the tree it sits in. */
    cmd = pg__asprintf("tar -xzf '%s' -C '%s/src' && bash '%s'/src/perfgate-*/ci/gh/install.sh '%s/prefix' "
                       "> '%s/build.log' 2>&1",
                       installed.tarball, dir, dir, dir, dir);
    rc = pg_test_sh(&out, cmd);
    free(out);
    out = NULL;
    {
        char *logpath = pg__asprintf("%s/build.log", dir);
        size_t len = 0;
        pg__read_file(&out, &len, logpath);
        free(logpath);
    }
    cr_assert_eq(rc, 0, "installing perfgate from its tarball failed (%d):\n%s", rc, out ? out : "");
    free(out);
    free(cmd);
    installed.seconds = (double)(pg__mono_ns() - t0) / 1e9;
    free(pg_test_write(dir, "done", "installed\n"));
}

const pg_test_install *pg_test_installed(void)
{
    char *bdir, *root, *dir, *lock, *done, *out = NULL, *cmd;
    int fd, rc;

    if (installed.prefix)
        return &installed;
    bdir = pg_test_build_dir();
    root = pg__asprintf("%s/tests/installed", bdir);
    cr_assert(mkdir(root, 0755) == 0 || exists(root), "%s", root);
    {
        char *tree = source_tree();
        dir = pg__asprintf("%s/%s", root, tree);
        free(tree);
    }
    lock = pg__asprintf("%s/.lock", root);
    fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    cr_assert(fd >= 0 && flock(fd, LOCK_EX) == 0, "cannot lock %s", lock);
    done = pg__asprintf("%s/done", dir);
    if (!exists(done)) {
        /* Trees of earlier sources are of no more use. */
        cmd = pg__asprintf("find '%s' -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +", root);
        pg_test_sh(NULL, cmd);
        free(cmd);
        build(dir);
    } else {
        char *t = pg__asprintf("%s/perfgate-*.tar.gz", dir);
        cmd = pg__asprintf("ls %s", t);
        pg_test_sh(&out, cmd);
        installed.tarball = pg__strdup(trimmed(out));
        free(out);
        free(cmd);
        free(t);
    }
    flock(fd, LOCK_UN);
    close(fd);
    installed.prefix = pg__asprintf("%s/prefix", dir);
    cmd = pg__asprintf("ls -d '%s'/src/perfgate-*", dir);
    rc = pg_test_sh(&out, cmd);
    cr_assert_eq(rc, 0, "%s", out);
    installed.source = pg__strdup(trimmed(out));
    free(out);
    free(cmd);
    cmd = pg__asprintf("'%s/bin/perfgate' --version | sed -n 's/^commit: //p'", installed.prefix);
    rc = pg_test_sh(&out, cmd);
    cr_assert(rc == 0 && out[0], "the installed perfgate names no commit: %s", out);
    installed.commit = pg__strdup(trimmed(out));
    free(out);
    free(cmd);
    {
        char *logpath = pg__asprintf("%s/build.log", dir);
        size_t len = 0;
        if (pg__read_file(&installed.log, &len, logpath) != 0)
            installed.log = pg__strdup("");
        free(logpath);
    }
    free(done);
    free(lock);
    free(dir);
    free(root);
    free(bdir);
    return &installed;
}
