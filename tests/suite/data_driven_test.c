/*
 * data_driven_test.c - folders of suites paired with what they must give.
 *
 * tests/data/suites/bad/NAME.yaml ends with lines "#! LINE:COL: message":
 * exactly the diagnostics loading it must report, in order (the file name
 * prefix is left out). tests/data/suites/good/NAME.yaml is paired with
 * NAME.cases: one line per check and per expanded case, every setting
 * spelled out, compared line by line.
 */
#include "support.h"

#include "suite/suite.h"
#include "base/util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* The sorted names of the files in `dir` ending in `ext`. */
static size_t list_files(char ***out, const char *dir, const char *ext)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, elen = strlen(ext);

    cr_assert(d, "cannot open %s", dir);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len <= elen || strcmp(de->d_name + len - elen, ext) != 0)
            continue;
        names = realloc(names, (n + 1) * sizeof(*names));
        names[n++] = pg__strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    *out = names;
    return n;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Splits text into lines (the array and the copy of the text are returned together). */
static size_t split_lines(char ***out, char *text)
{
    char **lines = NULL, *p = text, *nl;
    size_t n = 0;

    while (*p) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lines = realloc(lines, (n + 1) * sizeof(*lines));
        lines[n++] = p;
        if (!nl)
            break;
        p = nl + 1;
    }
    *out = lines;
    return n;
}

Test(suite_bad, every_broken_suite_gives_exactly_its_messages)
{
    char **files, dir[512];
    size_t nfiles, i, j, checked = 0;

    snprintf(dir, sizeof(dir), "%s/suites/bad", PG_TEST_DATA_DIR);
    nfiles = list_files(&files, dir, ".yaml");
    cr_assert_geq(nfiles, 40, "the bad folder holds %zu suites; at least 40 are required", nfiles);
    for (i = 0; i < nfiles; i++) {
        char *path = pg__asprintf("%s/%s", dir, files[i]), *text = NULL, **lines;
        const char *expected[32];
        size_t len, nlines, nexp = 0, plen = strlen(path);
        pg_suite *s = NULL;
        pg_diags d = {0};
        int err;

        pg_assert_ok(pg__read_file(&text, &len, path));
        nlines = split_lines(&lines, text);
        for (j = 0; j < nlines; j++)
            if (strncmp(lines[j], "#! ", 3) == 0 && nexp < 32)
                expected[nexp++] = lines[j] + 3;
        cr_expect_gt(nexp, 0, "%s has no '#! ' expectation lines", files[i]);
        err = pg_suite_load(&s, path, NULL, &d);
        cr_expect_eq(err, PG_ESUITE, "%s: loading returned %d, not PG_ESUITE", files[i], err);
        cr_expect_null(s, "%s: a broken suite must not load", files[i]);
        cr_expect_eq(d.count, nexp, "%s: %zu messages, expected %zu (first: %s)", files[i], d.count, nexp,
                     d.count ? d.lines[0] : "none");
        for (j = 0; j < d.count && j < nexp; j++) {
            const char *got = d.lines[j];
            cr_expect(strncmp(got, path, plen) == 0 && got[plen] == ':', "%s: message lacks the file name: %s",
                      files[i], got);
            if (strncmp(got, path, plen) == 0 && got[plen] == ':')
                got += plen + 1;
            cr_expect_str_eq(got, expected[j], "%s: message %zu\n  got:      %s\n  expected: %s", files[i], j + 1,
                             got, expected[j]);
        }
        /* The error message of the call is the first diagnostic. */
        if (d.count)
            cr_expect_str_eq(pg_error_last(), d.lines[0], "%s: pg_error_last() is not the first message",
                             files[i]);
        checked++;
        pg_diags_clear(&d);
        pg_suite_free(s);
        free(lines);
        free(text);
        free(path);
    }
    cr_assert_eq(checked, nfiles);
    free_names(files, nfiles);
}

/* One line per case with every setting, in the format of the .cases files. */
static char *describe_case(const pg_case *c)
{
    pg_buf b = PG_BUF_INIT;
    size_t i;

    pg__buf_printf(&b, "case %s", c->key);
    if (c->kernel)
        pg__buf_printf(&b, " kernel=%s", c->kernel);
    if (c->plugin)
        pg__buf_printf(&b, " plugin=%s symbol=%s", c->plugin, c->symbol);
    if (c->command) {
        pg__buf_puts(&b, " command=");
        for (i = 0; c->command[i]; i++)
            pg__buf_printf(&b, "%s%s", i ? "|" : "", c->command[i]);
        pg__buf_printf(&b, " timeout=%g metrics=%s output=%s", c->timeout, c->metrics ? c->metrics : "none",
                       c->keep_output ? "keep" : "discard");
    }
    for (i = 0; i < c->nenv; i++)
        pg__buf_printf(&b, "%s%s", i ? "," : " env=", c->env[i]);
    pg__buf_printf(&b, " device=%s threads=%d", c->device, c->threads);
    if (c->cold)
        pg__buf_puts(&b, " cold");
    pg__buf_printf(&b, " min_run_time=%g max_run_time=%g warmup=%g min_samples=%lld threshold=%g alpha=%g",
                   c->min_run_time, c->max_run_time, c->warmup, (long long)c->min_samples, c->threshold, c->alpha);
    pg__buf_printf(&b, " params=%s", c->params_json);
    for (i = 0; i < c->nparams; i++)
        if (!c->params[i].is_number)
            pg__buf_printf(&b, " %s:text", c->params[i].name);
    if (c->ntags) {
        pg__buf_puts(&b, " tags=");
        for (i = 0; i < c->ntags; i++)
            pg__buf_printf(&b, "%s%s", i ? "," : "", c->tags[i]);
    }
    return pg__buf_detach(&b);
}

static char *describe_check(const pg_check *ck)
{
    pg_buf b = PG_BUF_INIT;

    pg__buf_printf(&b, "check %s kind=%s", ck->name, ck->kind);
    if (ck->workload)
        pg__buf_printf(&b, " workload@%d:%d", ck->workload->line, ck->workload->col);
    if (ck->trace)
        pg__buf_printf(&b, " trace=%s", ck->trace->scalar);
    if (ck->schedule)
        pg__buf_printf(&b, " schedule=%lld,%lld,%lld,%lld,%lld", (long long)ck->skip_first, (long long)ck->wait,
                       (long long)ck->warmup, (long long)ck->active, (long long)ck->repeat);
    if (ck->steps)
        pg__buf_printf(&b, " steps=%lld", (long long)ck->steps);
    pg__buf_printf(&b, " expect@%d:%d", ck->expect->line, ck->expect->col);
    return pg__buf_detach(&b);
}

Test(suite_good, every_good_suite_expands_case_by_case)
{
    char **files, dir[512];
    size_t nfiles, i, j;

    snprintf(dir, sizeof(dir), "%s/suites/good", PG_TEST_DATA_DIR);
    nfiles = list_files(&files, dir, ".yaml");
    cr_assert_geq(nfiles, 8);
    for (i = 0; i < nfiles; i++) {
        char *path = pg__asprintf("%s/%s", dir, files[i]);
        char *exp_path = pg__asprintf("%.*s.cases", (int)(strlen(path) - 5), path);
        char *text = NULL, **lines;
        size_t len, nlines, k = 0;
        pg_suite *s = NULL;
        pg_diags d = {0};

        pg_assert_ok(pg__read_file(&text, &len, exp_path));
        nlines = split_lines(&lines, text);
        cr_expect_eq(pg_suite_load(&s, path, NULL, &d), 0, "%s: %s", files[i], d.count ? d.lines[0] : "");
        cr_expect_eq(d.count, 0);
        if (s) {
            size_t total = s->nchecks + s->ncases;
            cr_expect_eq(total, nlines, "%s: %zu checks and cases, %zu lines in the .cases file", files[i],
                         total, nlines);
            for (j = 0; j < s->nchecks; j++, k++) {
                char *got = describe_check(&s->checks[j]);
                cr_expect(k < nlines && strcmp(got, lines[k]) == 0, "%s line %zu\n  got:      %s\n  expected: %s",
                          files[i], k + 1, got, k < nlines ? lines[k] : "(none)");
                free(got);
            }
            for (j = 0; j < s->ncases; j++, k++) {
                char *got = describe_case(&s->cases[j]);
                cr_expect(k < nlines && strcmp(got, lines[k]) == 0, "%s line %zu\n  got:      %s\n  expected: %s",
                          files[i], k + 1, got, k < nlines ? lines[k] : "(none)");
                free(got);
            }
        }
        pg_suite_free(s);
        pg_diags_clear(&d);
        free(lines);
        free(text);
        free(exp_path);
        free(path);
    }
    free_names(files, nfiles);
}
