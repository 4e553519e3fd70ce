/* meta.c - commit, branch and CI provenance of a run. */
#include "machine/meta.h"

#include "machine/fingerprint.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *pg__git_line(const char *args)
{
    char cmd[256], line[512];
    FILE *p;
    size_t n;

    snprintf(cmd, sizeof(cmd), "git %s 2>/dev/null", args);
    p = popen(cmd, "r");
    if (!p)
        return NULL;
    if (!fgets(line, sizeof(line), p)) {
        pclose(p);
        return NULL;
    }
    if (pclose(p) != 0)
        return NULL;
    n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    return n ? pg__strdup(line) : NULL;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);

    return v && *v ? v : NULL;
}

int pg_meta_fill(pg_run *run, const pg_meta_options *opts)
{
    const char *v;
    int err;

    if (opts && opts->commit)
        run->commit = pg__strdup(opts->commit);
    else if ((v = env("GITHUB_SHA")) != NULL)
        run->commit = pg__strdup(v);
    else
        run->commit = pg__git_line("rev-parse HEAD");

    if (opts && opts->branch)
        run->branch = pg__strdup(opts->branch);
    else if ((v = env("GITHUB_HEAD_REF")) != NULL) /* pull requests: the source branch */
        run->branch = pg__strdup(v);
    else if ((v = env("GITHUB_REF_NAME")) != NULL)
        run->branch = pg__strdup(v);
    else
        run->branch = pg__git_line("rev-parse --abbrev-ref HEAD");
    if (!run->branch)
        run->branch = pg__strdup("local");

    if ((v = env("GITHUB_REF")) != NULL)
        run->ref = pg__strdup(v);
    if (env("GITHUB_SERVER_URL") && env("GITHUB_REPOSITORY") && env("GITHUB_RUN_ID"))
        run->ci_url = pg__asprintf("%s/%s/actions/runs/%s", env("GITHUB_SERVER_URL"),
                                   env("GITHUB_REPOSITORY"), env("GITHUB_RUN_ID"));
    free(run->tool_version);
    run->tool_version = pg__strdup(PG_VERSION_STRING);
    if (!run->machine_json && (err = pg_fingerprint_read(&run->machine_json, &run->machine_hash)) != 0)
        return err;
    if (!run->started_at)
        run->started_at = pg__now_unix();
    return 0;
}
