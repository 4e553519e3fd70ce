/*
 * plan.c - tonight, the night before, and tonight's change points
 * (nightly.h), read from the database alone.
 */
#include "nightly/nightly.h"

#include "base/sha256.h"
#include "base/text.h"
#include "perfgate/errors.h"
#include "report/report.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pg_nightly_hash(char out[17], const char *key)
{
    pg_sha256 h;
    char hex[65];

    pg_sha256_init(&h);
    pg_sha256_update(&h, key, strlen(key));
    pg_sha256_hex(&h, hex);
    snprintf(out, 17, "%.16s", hex);
}

const char *pg_nightly_action_name(pg_nightly_action a)
{
    static const char *const names[] = {"none", "open", "skipped", "still", "recovered", "again"};

    return (unsigned)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}

/* The newest two runs of the branch measured as nights are (plain runs: not an interleaved gate's sides). */
static int nights(pg_run_info *out, size_t *n, pg_store *store, const char *branch)
{
    pg_run_filter f = {0};
    pg_run_list l = {0};
    size_t i;
    int err;

    *n = 0;
    f.branch = branch;
    if ((err = pg_store_list_runs(&l, store, &f)) != 0)
        return err;
    for (i = 0; i < l.count && *n < 2; i++) {
        if (l.items[i].mode && strncmp(l.items[i].mode, "interleaved", 11) == 0)
            continue;
        out[*n] = l.items[i];
        memset(&l.items[i], 0, sizeof(l.items[i]));
        (*n)++;
    }
    pg_run_list_clear(&l);
    return *n ? 0 : pg_error_set(PG_ENOTFOUND, "no nights on branch '%s' in the database", branch);
}

static void info_clear(pg_run_info *r)
{
    free(r->uuid);
    free(r->commit);
    free(r->branch);
    free(r->suite_set);
    free(r->machine_hash);
    free(r->source);
    free(r->mode);
}

static const pg_decision_case *decided(const pg_decision *d, const char *key)
{
    size_t i;

    for (i = 0; d && i < d->ncases; i++)
        if (d->cases[i].key && strcmp(d->cases[i].key, key) == 0)
            return &d->cases[i];
    return NULL;
}

static int by_lower_bound(const void *a, const void *b)
{
    const pg_nightly_case *x = a, *y = b;

    if (x->ci_lo != y->ci_lo)
        return x->ci_lo < y->ci_lo ? 1 : -1;
    return strcmp(x->key, y->key);
}

/* Tonight's change points: REGRESSED tonight, not the night before. */
static int change_points(pg_nightly *n, const pg_decision *tonight, const pg_decision *before, size_t max)
{
    size_t i;

    if (tonight->ncases && !(n->cases = calloc(tonight->ncases, sizeof(*n->cases))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < tonight->ncases; i++) {
        const pg_decision_case *t = &tonight->cases[i], *b;
        pg_nightly_case *c;
        if (!t->key || !t->verdict || strcmp(t->verdict, "REGRESSED") != 0)
            continue;
        if ((b = decided(before, t->key)) != NULL && b->verdict && strcmp(b->verdict, "REGRESSED") == 0)
            continue;
        c = &n->cases[n->ncases++];
        c->key = pg__strdup(t->key);
        pg_nightly_hash(c->hash, t->key);
        c->verdict = PG_VERDICT_REGRESSED;
        c->ratio = t->ratio;
        c->ci_lo = t->ci_lo;
        c->ci_hi = t->ci_hi;
        c->reason = pg__strdup(t->reason);
        c->reference = pg__strdup(tonight->base_uuids);
        c->since = pg__strdup(n->tonight);
        c->night = pg__strdup(n->tonight_uuid);
        c->back = PG_VERDICT_UNSURE;
        if (!c->key || (t->reason && !c->reason) || (tonight->base_uuids && !c->reference) || !c->since || !c->night)
            return pg_error_set(PG_ENOMEM, "out of memory");
    }
    if (n->ncases)
        qsort(n->cases, n->ncases, sizeof(*n->cases), by_lower_bound);
    for (i = 0; i < n->ncases; i++)
        n->cases[i].action = i < max ? PG_NIGHTLY_OPEN : PG_NIGHTLY_SKIPPED;
    return 0;
}

int pg_nightly_plan(pg_nightly *out, pg_store *store, const pg_nightly_options *o)
{
    pg_run_info runs[2];
    pg_decision tonight, before;
    int have_tonight = 0, have_before = 0;
    pg_run *run = NULL;
    size_t n = 0, i;
    int err;

    memset(out, 0, sizeof(*out));
    memset(runs, 0, sizeof(runs));
    memset(&tonight, 0, sizeof(tonight));
    memset(&before, 0, sizeof(before));
    out->branch = pg__strdup(o->branch ? o->branch : "nightly");
    if (!out->branch)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if ((err = nights(runs, &n, store, out->branch)) != 0)
        goto done;
    out->tonight_id = runs[0].id;
    out->tonight_uuid = pg__strdup(runs[0].uuid);
    out->tonight = pg__strdup(runs[0].commit);
    out->previous = n > 1 ? pg__strdup(runs[1].commit) : NULL;
    out->tonight_at = runs[0].started_at;
    if ((err = pg_store_load_run(&run, store, runs[0].id)) != 0)
        goto done;
    out->run_url = pg__strdup(run->ci_url);
    /* A night without a decision (no gate ran, or the first night) has no change point. */
    if ((err = pg_store_load_decision(&tonight, store, runs[0].id)) == 0)
        have_tonight = 1;
    else if (err != PG_ENOTFOUND)
        goto done;
    if (n > 1 && (err = pg_store_load_decision(&before, store, runs[1].id)) == 0)
        have_before = 1;
    else if (n > 1 && err != PG_ENOTFOUND)
        goto done;
    err = have_tonight ? change_points(out, &tonight, have_before ? &before : NULL,
                                       o->max_issues ? o->max_issues : PG_NIGHTLY_MAX_ISSUES)
                       : 0;
done:
    for (i = 0; i < 2; i++)
        info_clear(&runs[i]);
    if (have_tonight)
        pg_decision_clear(&tonight);
    if (have_before)
        pg_decision_clear(&before);
    pg_run_free(run);
    return err;
}

void pg_nightly_clear(pg_nightly *n)
{
    size_t i;

    if (!n)
        return;
    for (i = 0; i < n->ncases; i++) {
        free(n->cases[i].key);
        free(n->cases[i].reason);
        free(n->cases[i].reference);
        free(n->cases[i].since);
        free(n->cases[i].night);
    }
    free(n->cases);
    free(n->tonight_uuid);
    free(n->branch);
    free(n->tonight);
    free(n->previous);
    free(n->run_url);
    memset(n, 0, sizeof(*n));
}

int pg_nightly_describe(pg_buf *out, const pg_nightly *n)
{
    size_t i, start = out->len;

    pg__buf_printf(out, "night %.12s on branch %s", n->tonight ? n->tonight : "-", n->branch);
    if (n->previous)
        pg__buf_printf(out, " (the night before: %.12s)", n->previous);
    pg__buf_puts(out, "\n");
    if (n->ncases == 0)
        pg__buf_puts(out, "  nothing to act on: no change point tonight\n");
    for (i = 0; i < n->ncases; i++) {
        const pg_nightly_case *c = &n->cases[i];
        char ch[96];
        pg_fmt_change_ci(ch, sizeof(ch), c->ratio, c->ci_lo, c->ci_hi);
        pg__buf_printf(out, "  %-9s %s %s %s", pg_nightly_action_name(c->action), c->key, pg_verdict_name(c->verdict),
                       ch);
        if (c->issue)
            pg__buf_printf(out, " (issue #%lld)", (long long)c->issue);
        if (c->action == PG_NIGHTLY_SKIPPED)
            pg__buf_puts(out, " (beyond --max-issues tonight: not filed)");
        pg__buf_puts(out, "\n");
    }
    if (!out->ptr)
        return pg_error_set(PG_ENOMEM, "out of memory");
    /* Keys and branches as plain text for the terminal (base/text.h). */
    pg__text_plain_inplace(out->ptr + start, 1);
    return 0;
}
