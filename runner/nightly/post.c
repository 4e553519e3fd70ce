/*
 * post.c - the night posted (nightly.h): the open issues read, a new
 * issue for each change point without one, and every other open issue's
 * case compared with the nights before its change.
 */
#include "nightly/nightly.h"

#include "bisect/bisect.h"
#include "gate/gate.h"
#include "nightly/internal.h"
#include "perfgate/errors.h"
#include "verdict/verdict.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct posting {
    pg_nightly *n;
    pg_store *store;
    pg_gh *gh;
    const pg_nightly_options *o;
    const char *server, *label;
    pg_issue *issues;
    pg__nightly_state *states;   /* per issue; hash[0] == 0: not one to act on */
    unsigned char *handled;      /* per issue */
    size_t nissues;
} posting;

/* The bisection of case `c` as markdown, when its file is there; NULL otherwise. */
static char *bisection(const posting *p, const pg_nightly_case *c)
{
    char *path, *url;
    pg_bisect_result r;
    pg_buf b = PG_BUF_INIT;

    if (!p->o->bisect_dir || !(path = pg__asprintf("%s/%s.json", p->o->bisect_dir, c->hash)))
        return NULL;
    if (access(path, F_OK) != 0 || pg_bisect_read(&r, path) != 0) {
        free(path);
        return NULL;
    }
    url = p->o->repo ? pg__asprintf("%s/%s/commit/", p->server, p->o->repo) : NULL;
    pg_bisect_format(&b, &r, 1, url);
    pg_bisect_result_clear(&r);
    free(url);
    free(path);
    return pg__buf_detach(&b);
}

static int open_issue(posting *p, pg_nightly_case *c)
{
    pg_buf body = PG_BUF_INIT;
    char *bis = bisection(p, c), *title = pg__nightly_title(c, c->since);
    int err = !title ? pg_error_set(PG_ENOMEM, "out of memory")
                     : pg__nightly_body(&body, p->n, c, bis, p->server, p->o->repo);

    if (!err && !p->o->dry_run)
        err = pg_issues_open(&c->issue, p->gh, p->o->repo, title, body.ptr, p->label, p->n->run_url);
    if (!err)
        p->n->opened++;
    pg__buf_clear(&body);
    free(bis);
    free(title);
    return err;
}

/* Acts on an open issue's case for tonight: its verdict against the nights before the change is in `c`. */
static int follow_issue(posting *p, pg_nightly_case *c, const pg_issue *is, const pg__nightly_state *st)
{
    int regressed = c->verdict == PG_VERDICT_REGRESSED;
    int back = c->verdict == PG_VERDICT_SAME || c->verdict == PG_VERDICT_IMPROVED || c->back == PG_VERDICT_IMPROVED;
    char *body = NULL;
    pg_buf comment = PG_BUF_INIT;
    int err = 0;

    c->issue = is->number;
    c->action = regressed ? (st->recovered ? PG_NIGHTLY_AGAIN : PG_NIGHTLY_STILL)
                          : back && !st->recovered ? PG_NIGHTLY_RECOVERED : PG_NIGHTLY_NONE;
    /* A recovered issue's nights stop being added until its case is slower again. */
    if (st->recovered && !regressed)
        return 0;
    if ((err = pg__nightly_next_body(&body, is->body, p->n, c, c->action == PG_NIGHTLY_RECOVERED, p->server,
                                     p->o->repo)) != 0)
        return err;
    if (!p->o->dry_run)
        err = pg_issues_edit(p->gh, p->o->repo, is->number, NULL, body, p->n->run_url);
    if (!err)
        p->n->updated++;
    if (!err && (c->action == PG_NIGHTLY_RECOVERED || c->action == PG_NIGHTLY_AGAIN)) {
        err = pg__nightly_comment(&comment, p->n, c, c->action == PG_NIGHTLY_AGAIN, p->server, p->o->repo);
        if (!err && !p->o->dry_run)
            err = pg_issues_comment(p->gh, p->o->repo, is->number, comment.ptr, p->n->run_url);
        if (!err)
            p->n->commented++;
    }
    pg__buf_clear(&comment);
    free(body);
    return err;
}

/* Tonight against the runs `uuids`: the verdict of the case whose key hashes to `hash`; NULL when not compared. */
static int compare(pg_stored_comparison *sc, const posting *p, const char *uuids, const char *hash,
                   const pg_case_verdict **out)
{
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    char h[17];
    size_t k;
    int err;

    *out = NULL;
    if ((err = pg_stored_compare_uuids(sc, p->store, p->n->tonight_id, uuids, &co)) != 0)
        return err;
    for (k = 0; k < sc->cmp->ncases && !*out; k++) {
        pg_nightly_hash(h, sc->cmp->cases[k].key);
        if (strcmp(h, hash) == 0)
            *out = &sc->cmp->cases[k];
    }
    return 0;
}

/* The runs of the nights since the change (from the run `night` on, before tonight), the five newest, by uuid. */
static char *nights_since(const posting *p, const char *night)
{
    pg_run_filter f = {0};
    pg_run_list l = {0};
    pg_buf b = PG_BUF_INIT;
    int64_t first = -1;
    size_t i, k = 0;

    f.branch = p->n->branch;
    if (!night || !*night || pg_store_list_runs(&l, p->store, &f) != 0)
        return NULL;
    for (i = 0; i < l.count; i++)
        if (l.items[i].uuid && strcmp(l.items[i].uuid, night) == 0)
            first = l.items[i].id;
    for (i = 0; first >= 0 && i < l.count && k < 5; i++) {
        const pg_run_info *r = &l.items[i];
        if (r->id >= p->n->tonight_id || r->id < first || (r->mode && strncmp(r->mode, "interleaved", 11) == 0))
            continue;
        pg__buf_printf(&b, "%s%s", k++ ? " " : "", r->uuid);
    }
    pg_run_list_clear(&l);
    return pg__buf_detach(&b);
}

/* Tonight against the runs before the change of issue i (and, unless REGRESSED, the nights since): into `c`. */
static int judge(posting *p, size_t i, pg_nightly_case *c, int *found)
{
    const pg__nightly_state *st = &p->states[i];
    pg_stored_comparison sc, since;
    const pg_case_verdict *v, *w = NULL;
    char *slow = NULL;
    int err;

    *found = 0;
    memset(&since, 0, sizeof(since));
    if ((err = compare(&sc, p, st->reference, st->hash, &v)) != 0 || !v)
        goto done;
    *found = 1;
    c->key = pg__strdup(v->key);
    memcpy(c->hash, st->hash, sizeof(c->hash));
    c->verdict = v->verdict;
    c->ratio = v->est.ratio;
    c->ci_lo = v->est.ci_lo;
    c->ci_hi = v->est.ci_hi;
    c->reason = pg__strdup(v->reason);
    c->reference = pg__strdup(st->reference);
    c->since = pg__strdup(st->since);
    c->night = pg__strdup(st->night);
    c->back = PG_VERDICT_UNSURE;
    if (!c->key || !c->reference || !c->since || !c->night) {
        err = pg_error_set(PG_ENOMEM, "out of memory");
        goto done;
    }
    /* Not slower than before, yet not provably the same: did it come back down from the nights since? */
    if (v->verdict != PG_VERDICT_REGRESSED && (slow = nights_since(p, st->night)) != NULL && *slow &&
        (err = compare(&since, p, slow, st->hash, &w)) == 0 && w) {
        c->back = w->verdict;
        c->back_ratio = w->est.ratio;
        c->back_lo = w->est.ci_lo;
        c->back_hi = w->est.ci_hi;
    }
done:
    free(slow);
    pg_stored_clear(&since);
    pg_stored_clear(&sc);
    return err;
}

/* Every open issue that no change point of tonight took: compared with the nights before its change. */
static int follow_open_issues(posting *p)
{
    size_t i;
    int err = 0;

    for (i = 0; i < p->nissues && !err; i++) {
        pg_nightly_case c, *grown;
        int found;
        if (p->handled[i] || !p->states[i].hash[0])
            continue;
        memset(&c, 0, sizeof(c));
        if ((err = judge(p, i, &c, &found)) != 0 || !found ||
            !(grown = realloc(p->n->cases, (p->n->ncases + 1) * sizeof(*grown)))) {
            /* A case no longer measured tonight: its issue is left as it is. */
            free(c.key);
            free(c.reason);
            free(c.reference);
            free(c.since);
            free(c.night);
            if (!err && found)
                err = pg_error_set(PG_ENOMEM, "out of memory");
            continue;
        }
        p->n->cases = grown;
        grown[p->n->ncases] = c;
        p->handled[i] = 1;
        err = follow_issue(p, &grown[p->n->ncases++], &p->issues[i], &p->states[i]);
    }
    return err;
}

/* The open issue of a key, by its marker's hash; SIZE_MAX when none. */
static size_t issue_of(const posting *p, const char *hash)
{
    size_t i;

    for (i = 0; i < p->nissues; i++)
        if (p->states[i].hash[0] && strcmp(p->states[i].hash, hash) == 0)
            return i;
    return (size_t)-1;
}

static int read_issues(posting *p)
{
    size_t i;
    int err;

    if ((err = pg_issues_list(&p->issues, &p->nissues, p->gh, p->o->repo, p->label, PG__NIGHTLY_MARKER)) != 0)
        return err;
    if (p->nissues && (!(p->states = calloc(p->nissues, sizeof(*p->states))) ||
                       !(p->handled = calloc(p->nissues, 1))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < p->nissues; i++)
        pg__nightly_parse(&p->states[i], p->issues[i].body);
    return 0;
}

static void drop(pg_nightly *n, size_t i)
{
    pg_nightly_case *c = &n->cases[i];

    free(c->key);
    free(c->reason);
    free(c->reference);
    free(c->since);
    free(c->night);
    memmove(c, c + 1, (n->ncases - i - 1) * sizeof(*c));
    n->ncases--;
}

int pg_nightly_post(pg_nightly *n, pg_store *store, pg_gh *gh, const pg_nightly_options *o)
{
    const char *env = getenv("GITHUB_SERVER_URL");
    posting p;
    size_t i, planned = n->ncases;
    int err;

    memset(&p, 0, sizeof(p));
    p.n = n;
    p.store = store;
    p.gh = gh;
    p.o = o;
    p.server = o->server_url ? o->server_url : env && *env ? env : "https://github.com";
    p.label = o->label ? o->label : PG_NIGHTLY_LABEL;
    if ((err = read_issues(&p)) != 0)
        goto done;
    /* Tonight's change points: a case that already has an open issue is that issue's (below), never a second one. */
    for (i = 0; i < planned && !err;) {
        pg_nightly_case *c = &n->cases[i];
        if (issue_of(&p, c->hash) != (size_t)-1) {
            drop(n, i);
            planned--;
            continue;
        }
        if (c->action == PG_NIGHTLY_OPEN)
            err = open_issue(&p, c);
        i++;
    }
    if (!err)
        err = follow_open_issues(&p);
done:
    for (i = 0; i < p.nissues; i++)
        pg__nightly_state_clear(&p.states[i]);
    free(p.states);
    free(p.handled);
    pg_issues_free(p.issues, p.nissues);
    return err;
}
