/*
 * accepted.c - a suite's `accept:` entries applied to a history-mode gate
 * (gate.h): an entry accepts the REGRESSED cases it names while the
 * run's commit is its `since` commit or one of the next ones recorded on
 * the run's branch, `commits` in all. Counting commits in the store, not in
 * git, holds in a shallow clone and counts a commit measured on many nights
 * once.
 */
#include "gate/gate.h"

#include "perfgate/errors.h"

#include <stdlib.h>
#include <string.h>

/*
 * The commits recorded on the head's branch from the first run of `since`
 * to the head, both included; 0 when `since` is not among the newest
 * `most` + 1 of them (then the entry does not hold, or no longer).
 */
static int commits_since(int64_t *out, pg_store *store, const pg_run *head, const char *since, int64_t most)
{
    pg_run_filter filter = {0};
    pg_run_list list = {0};
    pg_keymap seen = PG_KEYMAP_INIT;
    size_t i, idx;
    int64_t n = 0;
    int err;

    *out = 0;
    if (head->commit && strncmp(head->commit, since, strlen(since)) == 0) {
        *out = 1;
        return 0;
    }
    filter.branch = head->branch;
    if ((err = pg_store_list_runs(&list, store, &filter)) != 0)
        return err;
    for (i = 0; i < list.count && n <= most; i++) {
        const char *c = list.items[i].commit;
        if (!c || pg__keymap_get(&seen, c, &idx))
            continue;
        if ((err = pg__keymap_put(&seen, c, i)) != 0)
            break;
        n++;
        if (strncmp(c, since, strlen(since)) == 0) {
            *out = n;
            break;
        }
    }
    pg__keymap_clear(&seen);
    pg_run_list_clear(&list);
    return err ? pg_error_set(PG_ENOMEM, "out of memory counting commits") : 0;
}

/* Accepts what `a` of suite `s` names, when it holds; says what it did in `said`. */
static int apply(pg_gate_result *r, const pg_suite *s, const pg_accept *a, const pg_gate_options *o, pg_buf *said)
{
    char *glob = NULL, *counted = NULL, *why = NULL;
    int64_t n;
    int err, k = 0, m = 0;

    if ((err = commits_since(&n, o->store, r->run, a->since, a->commits)) != 0)
        return err;
    if (n == 0 || n > a->commits) {
        pg__buf_printf(said, "%saccept: %s: %s", said->len ? "; " : "", a->glob,
                       n == 0 ? "its since commit is not among this branch's recorded runs: not applied"
                              : "expired: more commits recorded since than it holds for");
        return 0;
    }
    glob = pg__asprintf("%s/%s", s->name, a->glob);
    counted = pg__asprintf("%s/%s#*", s->name, a->glob);
    why = pg__asprintf("accepted by the suite (accept: %s, since %.12s, commit %lld of %lld): %s", a->glob, a->since,
                       (long long)n, (long long)a->commits, a->reason);
    if (!glob || !counted || !why)
        err = pg_error_set(PG_ENOMEM, "out of memory accepting a regression");
    if (!err && (k = pg_comparison_accept(r->cmp, glob, PG_ACCEPT_SUITE, NULL, why)) >= 0)
        m = pg_comparison_accept(r->cmp, counted, PG_ACCEPT_SUITE, NULL, why);
    if (!err && (k < 0 || m < 0))
        err = k < 0 ? k : m;
    if (!err && k + m > 0)
        pg__buf_printf(said, "%saccept: %s: %d regression%s accepted (commit %lld of %lld since %.12s)",
                       said->len ? "; " : "", a->glob, k + m, k + m == 1 ? "" : "s", (long long)n,
                       (long long)a->commits, a->since);
    free(glob);
    free(counted);
    free(why);
    return err;
}

int pg__gate_accept_suites(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o, pg_buf *said)
{
    size_t i, j, entries = 0;
    int err = 0;

    for (i = 0; i < set->count; i++)
        entries += set->suites[i]->naccepts;
    if (!entries || !r->cmp->counts[PG_VERDICT_REGRESSED])
        return 0;
    if (r->interleaved || !o->store) {
        pg__buf_puts(said, "accept: entries apply to history-mode gates on a branch; a pull request accepts a "
                           "regression with a label (perfgate post)");
        return 0;
    }
    for (i = 0; i < set->count && !err; i++)
        for (j = 0; j < set->suites[i]->naccepts && !err; j++)
            err = apply(r, set->suites[i], &set->suites[i]->accepts[j], o, said);
    return err;
}
