/*
 * accept.c - a suite's `accept:` entries: regressions a team accepts on
 * purpose in history mode, for a number of commits (docs/suites.md,
 * "Accepting a regression").
 *
 *   accept:
 *     - case: "relax*"           # glob over the case keys within the suite
 *       reason: "the boundary fix costs 10 % (#123)"
 *       since: 4d3e6c7           # the commit that made the change
 *       commits: 5               # accepted for it and the next 4 recorded (default 10)
 *
 * The gate decides whether an entry still holds (gate.c); here each entry
 * is validated, with its position, and its glob must match a case.
 */
#include "suite/internal.h"

#include "base/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const accept_keys[] = {"case", "reason", "since", "commits", NULL};

/* 7 to 40 hex digits: a commit as git abbreviates it, or whole. */
static int commit_like(const char *s)
{
    size_t i;

    for (i = 0; s[i]; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return i >= 7 && i <= 40;
}

/* Whether `glob` matches a case of the suite, its key after "SUITE/" (counted metrics too). */
static int matches_a_case(const pg_suite *s, const char *glob)
{
    size_t i, skip = s->name ? strlen(s->name) + 1 : 0;

    for (i = 0; i < s->ncases; i++)
        if (strlen(s->cases[i].key) > skip && pg__glob(glob, s->cases[i].key + skip))
            return 1;
    return 0;
}

static int load_one(pg__loader *L, const pg_node *e, pg_accept *a)
{
    const pg_node *c = pg_node_get(e, "case"), *r = pg_node_get(e, "reason"), *since = pg_node_get(e, "since");
    const pg_node *n = pg_node_get(e, "commits");
    int bad = 0;

    a->node = e;
    a->commits = PG_ACCEPT_COMMITS;
    if (!c || !r || !since) {
        pg__diag_add(L->d, e, "an accept entry needs case, reason and since (the commit that made the change)");
        return -1;
    }
    bad |= pg__scalar_of(L->d, c, "case") != 0;
    bad |= pg__scalar_of(L->d, r, "reason") != 0;
    bad |= pg__scalar_of(L->d, since, "since") != 0;
    if (n && pg__get_int(L->d, &a->commits, n, "commits", 1, 100000) != 0)
        bad = 1;
    if (bad)
        return -1;
    if (!*r->scalar) {
        pg__diag_add(L->d, r, "reason is empty: say why the regression is accepted");
        return -1;
    }
    if (!commit_like(since->scalar)) {
        pg__diag_add(L->d, since, "since must be a commit (7 to 40 hex digits), not '%s'", since->scalar);
        return -1;
    }
    if (!matches_a_case(L->s, c->scalar)) {
        pg__diag_add(L->d, c, "case '%s' matches no case of this suite (a glob over keys such as '%s')", c->scalar,
                     L->s->ncases && L->s->name ? L->s->cases[0].key + strlen(L->s->name) + 1 : "name[p=1]@1:cpu");
        return -1;
    }
    a->glob = pg__strdup(c->scalar);
    a->reason = pg__strdup(r->scalar);
    a->since = pg__strdup(since->scalar);
    return a->glob && a->reason && a->since ? 0 : -1;
}

void pg__load_accepts(pg__loader *L, const pg_node *list)
{
    size_t i;

    if (list->type != PG_NODE_SEQ || list->count == 0) {
        pg__diag_add(L->d, list, "accept must be a list of entries (each '- case: GLOB'), not %s",
                     list->type == PG_NODE_SEQ ? "an empty list" : pg_node_kind(list));
        return;
    }
    if (!(L->s->accepts = calloc(list->count, sizeof(*L->s->accepts))))
        return;
    for (i = 0; i < list->count; i++) {
        const pg_node *e = list->items[i];
        pg_accept *a = &L->s->accepts[L->s->naccepts];
        if (e->type != PG_NODE_MAP) {
            pg__diag_add(L->d, e, "an accept entry is a mapping (case, reason, since, commits), not %s",
                         pg_node_kind(e));
            continue;
        }
        if (pg__keys_known(L->d, e, accept_keys, "an accept entry", NULL, 0))
            continue;
        if (load_one(L, e, a) == 0)
            L->s->naccepts++;
        else
            pg_accept_clear(a);
    }
}

void pg_accept_clear(pg_accept *a)
{
    free(a->glob);
    free(a->reason);
    free(a->since);
    memset(a, 0, sizeof(*a));
}
