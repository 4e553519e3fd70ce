/* select.c - choosing the runs to compare, and named baseline sets. */
#include "store/select.h"

#include "store/engine.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void pg_selection_clear(pg_selection *sel)
{
    if (!sel)
        return;
    free(sel->ids);
    free(sel->described);
    free(sel->searched);
    free(sel->elsewhere);
    free(sel->skipped);
    memset(sel, 0, sizeof(*sel));
}

/* Appends `part` (owned, may be NULL after a failed allocation) to *s, after `sep` when *s is not empty. */
static int append(char **s, const char *sep, char *part)
{
    char *joined;

    if (!part)
        return pg_error_set(PG_ENOMEM, "out of memory selecting runs");
    if (!*s) {
        *s = part;
        return 0;
    }
    joined = pg__asprintf("%s%s%s", *s, sep, part);
    free(part);
    if (!joined)
        return pg_error_set(PG_ENOMEM, "out of memory selecting runs");
    free(*s);
    *s = joined;
    return 0;
}

static int parse_id(int64_t *out, const char *s)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v <= 0)
        return -1;
    *out = v;
    return 0;
}

int pg_select_head(int64_t *out_id, pg_store *store, const char *selector)
{
    pg_run_list list = {0};
    pg_run_filter f = {0};
    int err;

    *out_id = 0;
    if (selector && strcmp(selector, "latest") != 0) {
        if (parse_id(out_id, selector) == 0)
            return 0;
        if (strncmp(selector, "commit:", 7) == 0)
            f.commit = selector + 7;
        else if (strncmp(selector, "branch:", 7) == 0)
            f.branch = selector + 7;
        else
            return pg_error_set(PG_EUSAGE, "unknown run selector '%s' (use an id, latest, commit:SHA or branch:NAME)",
                                selector);
    }
    f.limit = 1;
    if ((err = pg_store_list_runs(&list, store, &f)) != 0)
        return err;
    if (list.count == 0) {
        pg_run_list_clear(&list);
        return pg_error_set(PG_ENOTFOUND, "no stored run matches '%s'", selector ? selector : "latest");
    }
    *out_id = list.items[0].id;
    pg_run_list_clear(&list);
    return 0;
}

/* The listing entry of run `id` (a one-item list the caller frees). */
static int run_info(pg_run_list *out, pg_store *store, int64_t id)
{
    pg_run_filter f = {0};
    int err;

    f.before_id = id + 1;
    f.limit = 1;
    if ((err = pg_store_list_runs(out, store, &f)) != 0)
        return err;
    if (out->count == 0 || out->items[0].id != id) {
        pg_run_list_clear(out);
        return pg_error_set(PG_ENOTFOUND, "no stored run with id %lld", (long long)id);
    }
    return 0;
}

static int same_machine(const pg_run_info *a, const pg_run_info *b)
{
    /* Imported runs may carry no fingerprint: nothing to hold against them. */
    return !a->machine_hash || !b->machine_hash || strcmp(a->machine_hash, b->machine_hash) == 0;
}

static int refuse_machine(const pg_run_info *head, const pg_run_info *base, const char *what)
{
    return pg_error_set(PG_EMACHINE,
                        "%s (run %lld) was measured on another machine (fingerprint %.12s, this run %.12s): timings "
                        "do not compare across machines; pass --allow-other-machine to compare anyway",
                        what, (long long)base->id, base->machine_hash, head->machine_hash);
}

/* The CPU model in a run's machine fingerprint; "unknown" when the run or its fingerprint lacks one. */
static char *cpu_of(pg_store *store, int64_t id)
{
    pg_run *run = NULL;
    json_t *fp = NULL;
    char *cpu;

    if (pg_store_load_run(&run, store, id) == 0 && run->machine_json)
        fp = json_loads(run->machine_json, 0, NULL);
    cpu = pg__strdup(json_string_value(json_object_get(fp, "cpu_model")));
    json_decref(fp);
    pg_run_free(run);
    return cpu ? cpu : pg__strdup("unknown");
}

/* At most this many runs from other machines are counted for the message. */
#define ELSEWHERE_MAX 1000

/*
 * Notes in out->elsewhere the runs of `list` (which matched `what` on any
 * machine) that another machine measured: the default selection leaves them
 * out, and the message that nothing was compared must say they exist.
 */
static int from_other_machine(const pg_run_info *r, const pg_run_info *head)
{
    return r->id != head->id && r->machine_hash && !same_machine(r, head);
}

static int note_elsewhere(pg_selection *out, pg_store *store, const pg_run_list *list, const pg_run_info *head,
                          const char *what)
{
    const pg_run_info *newest = NULL;
    size_t i, j, n = 0, machines = 0;
    char *cpu, *part;

    for (i = 0; i < list->count; i++) {
        const pg_run_info *r = &list->items[i];
        if (!from_other_machine(r, head))
            continue;
        for (j = 0; j < i; j++)
            if (from_other_machine(&list->items[j], head) && strcmp(list->items[j].machine_hash, r->machine_hash) == 0)
                break;
        machines += j == i;
        if (!newest)
            newest = r;
        n++;
    }
    if (!n)
        return 0;
    cpu = cpu_of(store, newest->id);
    if (machines == 1)
        part = pg__asprintf("%zu%s run%s of %s from another machine (cpu '%s', fingerprint %.12s)", n,
                            list->count >= ELSEWHERE_MAX ? "+" : "", n == 1 ? "" : "s", what, cpu ? cpu : "unknown",
                            newest->machine_hash);
    else
        part = pg__asprintf("%zu%s runs of %s from %zu other machines (newest: cpu '%s', fingerprint %.12s)", n,
                            list->count >= ELSEWHERE_MAX ? "+" : "", what, machines, cpu ? cpu : "unknown",
                            newest->machine_hash);
    free(cpu);
    return append(&out->elsewhere, "; ", part);
}

/* A run named explicitly (by id or pin) that was measured otherwise than the head is no baseline for it. */
static int refuse_mode(const pg_run_info *head, const pg_run_info *base, const char *what)
{
    return pg_error_set(PG_EUSAGE,
                        "%s (run %lld) was measured as %s and this run as %s: their samples are different "
                        "measurements and do not compare; choose a run measured as %s",
                        what, (long long)base->id, base->mode ? base->mode : "plain", head->mode ? head->mode : "plain",
                        head->mode ? head->mode : "plain");
}

static int same_mode(const pg_run_info *a, const pg_run_info *b)
{
    return strcmp(a->mode ? a->mode : "plain", b->mode ? b->mode : "plain") == 0;
}

/* How many runs newer than this the mode note looks at beyond the ones it takes. */
#define MODE_SCAN 200

/*
 * Notes in out->skipped the runs `f` matched (on any mode) that were
 * measured otherwise than the head and are newer than the oldest run taken
 * (all of them when none was taken): what a selection blind to modes would
 * have pooled.
 */
static int note_other_modes(pg_selection *out, pg_store *store, pg_run_filter f, const pg_run_info *head,
                            size_t want, const char *what)
{
    pg_run_list list = {0};
    int64_t oldest = out->count ? out->ids[out->count - 1] : 0;
    size_t i, n = 0;
    const char *first = NULL;
    int mixed = 0;
    char *part;
    int err;

    f.mode = NULL;
    f.limit = want + MODE_SCAN;
    if ((err = pg_store_list_runs(&list, store, &f)) != 0)
        return err;
    for (i = 0; i < list.count && list.items[i].id > oldest; i++) {
        const pg_run_info *r = &list.items[i];
        const char *mode = r->mode ? r->mode : "plain";
        if (r->id == head->id || same_mode(r, head))
            continue;
        mixed |= first && strcmp(first, mode) != 0;
        first = first ? first : mode;
        n++;
    }
    if (n == 0) {
        pg_run_list_clear(&list);
        return 0;
    }
    part = pg__asprintf("%zu run%s of %s measured otherwise (%s%s), which do%s not pool with this %s run", n,
                        n == 1 ? "" : "s", what, first, mixed ? " and others" : "", n == 1 ? "es" : "",
                        head->mode ? head->mode : "plain");
    pg_run_list_clear(&list);
    return append(&out->skipped, "; ", part);
}

static char *describe(const pg_run_info *b, const char *prefix, size_t more)
{
    int64_t age = pg__now_unix() - b->started_at;

    return pg__asprintf("%srun %lld (%s @ %.12s, %lld min old)%s", prefix ? prefix : "", (long long)b->id,
                        b->branch ? b->branch : "?", b->commit ? b->commit : "no commit", (long long)(age / 60),
                        more ? " and earlier runs" : "");
}

static int add_id(pg_selection *out, int64_t id)
{
    int64_t *p = realloc(out->ids, (out->count + 1) * sizeof(*p));

    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory selecting runs");
    out->ids = p;
    out->ids[out->count++] = id;
    return 0;
}

/*
 * Takes up to `want` runs matching `f` (the head excluded), on the head's
 * machine unless `allow`. When none is on this machine but some are on
 * another, `refuse` turns that into PG_EMACHINE; otherwise the selection
 * stays empty and out->elsewhere names them (`what`: "branch 'main'").
 */
static int pick(pg_selection *out, pg_store *store, pg_run_filter f, const pg_run_info *head, size_t want, int allow,
                int refuse, const char *what, const char *prefix)
{
    pg_run_list list = {0};
    size_t i;
    int err;

    f.machine_hash = allow ? NULL : head->machine_hash;
    f.mode = head->mode ? head->mode : "plain";
    f.limit = want + 1;
    if ((err = pg_store_list_runs(&list, store, &f)) != 0)
        return err;
    for (i = 0; i < list.count && out->count < want; i++) {
        if (list.items[i].id == head->id)
            continue;
        if ((err = add_id(out, list.items[i].id)) != 0)
            goto cleanup;
        if (out->count == 1 && !(out->described = describe(&list.items[i], prefix, 0))) {
            err = pg_error_set(PG_ENOMEM, "out of memory selecting runs");
            goto cleanup;
        }
    }
    if (out->count > 1) {
        char *d = pg__asprintf("%s and %zu earlier runs", out->described, out->count - 1);
        free(out->described);
        out->described = d;
    }
    if ((err = note_other_modes(out, store, f, head, want, what)) != 0)
        goto cleanup;
    if (out->count == 0 && f.machine_hash) {
        pg_run_list_clear(&list);
        f.machine_hash = NULL;
        f.limit = refuse ? 2 : ELSEWHERE_MAX;
        if ((err = pg_store_list_runs(&list, store, &f)) != 0)
            return err;
        if (!refuse) {
            err = note_elsewhere(out, store, &list, head, what);
            goto cleanup;
        }
        for (i = 0; i < list.count; i++)
            if (list.items[i].id != head->id) {
                err = refuse_machine(head, &list.items[i], what);
                goto cleanup;
            }
    }
    err = 0;

cleanup:
    pg_run_list_clear(&list);
    return err;
}

/* The pull request's base commit and the repository's default branch from a GitHub event file. */
static void read_event(char **out_base_sha, char **out_default_branch, const char *path)
{
    json_error_t jerr;
    json_t *ev = path && *path ? json_load_file(path, 0, &jerr) : NULL;
    const char *s;

    *out_base_sha = *out_default_branch = NULL;
    if (!ev)
        return;
    s = json_string_value(json_object_get(json_object_get(json_object_get(ev, "pull_request"), "base"), "sha"));
    *out_base_sha = pg__strdup(s);
    s = json_string_value(json_object_get(json_object_get(ev, "repository"), "default_branch"));
    *out_default_branch = pg__strdup(s);
    json_decref(ev);
}

/* Events that measure a branch on its own, like a nightly: they compare with that branch's earlier runs. */
static int own_branch_event(const char *event_name)
{
    return event_name && (strcmp(event_name, "schedule") == 0 || strcmp(event_name, "workflow_dispatch") == 0);
}

/* One step of the default search: notes it in out->searched, then picks. `label` names the runs for messages. */
static int search(pg_selection *out, pg_store *store, pg_run_filter f, const pg_run_info *head, size_t want,
                  const pg_select_options *o, const char *searched, const char *label, const char *prefix)
{
    int err;

    if ((err = append(&out->searched, ", then ", pg__strdup(searched))) != 0)
        return err;
    return pick(out, store, f, head, want, o->allow_other_machine, 0, label, prefix);
}

static int select_default(pg_selection *out, pg_store *store, const pg_run_info *head, const pg_select_options *o)
{
    const char *event_path = o->event_path ? o->event_path : getenv("GITHUB_EVENT_PATH");
    const char *event_name = o->event_name ? o->event_name : getenv("GITHUB_EVENT_NAME");
    const char *base_ref = getenv("GITHUB_BASE_REF"), *branch;
    char *base_sha = NULL, *event_branch = NULL, *prefix = NULL, *text = NULL, *label = NULL;
    int ci = event_path && *event_path, err = 0;
    pg_run_filter f = {0};

    read_event(&base_sha, &event_branch, event_path);
    branch = o->default_branch           ? o->default_branch
             : base_ref && *base_ref     ? base_ref
             : event_branch              ? event_branch
                                         : "main";
    if (base_sha) {
        /*
         * A pull request: its base commit, as measured on the base branch, is
         * what the change is measured against. Another branch that happens to
         * hold the same commit is another gate's history, not this one's.
         */
        f.commit = base_sha;
        f.branch = branch;
        prefix = pg__asprintf("the pull request's base commit %.12s: ", base_sha);
        text = pg__asprintf("the pull request's base commit %.12s", base_sha);
        label = pg__asprintf("the base commit %.12s", base_sha);
        if (!prefix || !text || !label) {
            err = pg_error_set(PG_ENOMEM, "out of memory selecting runs");
            goto cleanup;
        }
        if ((err = search(out, store, f, head, 1, o, text, label, prefix)) != 0 || out->count)
            goto cleanup;
        f.commit = NULL;
    } else if (!ci || o->own_branch || own_branch_event(event_name)) {
        /*
         * A nightly, a branch named on purpose, or a run outside CI: its own
         * earlier runs, pooled, so the spread between runs is measured rather
         * than assumed. A nightly never falls back to another branch: what
         * runs on main is another configuration.
         */
        f.branch = head->branch;
        f.before_id = head->id;
        free(text);
        free(label);
        text = pg__asprintf("the previous %d runs of branch '%s'", PG_SELECT_DEFAULT_POOL,
                            head->branch ? head->branch : "?");
        label = pg__asprintf("branch '%s'", head->branch ? head->branch : "?");
        if (!text || !label) {
            err = pg_error_set(PG_ENOMEM, "out of memory selecting runs");
            goto cleanup;
        }
        if ((err = search(out, store, f, head, PG_SELECT_DEFAULT_POOL, o, text, label, NULL)) != 0 || out->count ||
            ci || (head->branch && strcmp(head->branch, branch) == 0))
            goto cleanup;
    }
    f.branch = branch;
    f.before_id = head->id;
    free(prefix);
    free(text);
    free(label);
    prefix = pg__asprintf("the default branch %s: ", branch);
    text = pg__asprintf("the newest run of branch '%s'", branch);
    label = pg__asprintf("branch '%s'", branch);
    if (!prefix || !text || !label) {
        err = pg_error_set(PG_ENOMEM, "out of memory selecting runs");
        goto cleanup;
    }
    err = search(out, store, f, head, 1, o, text, label, prefix);

cleanup:
    free(base_sha);
    free(event_branch);
    free(prefix);
    free(text);
    free(label);
    return err;
}

static int select_pin(pg_selection *out, pg_store *store, const char *name, const pg_run_info *head, int allow)
{
    pg_baseline_list pins = {0};
    pg_run_list info = {0};
    size_t i;
    int err;

    if ((err = pg_baseline_list_get(&pins, store, name)) != 0)
        return err;
    if (pins.count == 0) {
        err = pg_error_set(PG_ENOTFOUND, "no baseline pinned as '%s' (see perfgate baseline list)", name);
        goto cleanup;
    }
    for (i = 0; i < pins.count; i++) {
        if (pins.items[i].run_id == head->id)
            continue;
        if ((err = run_info(&info, store, pins.items[i].run_id)) != 0)
            goto cleanup;
        if ((!allow && !same_machine(head, &info.items[0])) || !same_mode(head, &info.items[0])) {
            char *what = pg__asprintf("pinned baseline '%s'", name);
            err = same_mode(head, &info.items[0]) ? refuse_machine(head, &info.items[0], what ? what : "a pinned baseline")
                                                  : refuse_mode(head, &info.items[0], what ? what : "a pinned baseline");
            free(what);
            goto cleanup;
        }
        if (out->count == 0)
            out->described = describe(&info.items[0], NULL, 0);
        pg_run_list_clear(&info);
        if ((err = add_id(out, pins.items[i].run_id)) != 0)
            goto cleanup;
    }
    if (out->described) {
        char *d = pg__asprintf("pin '%s': %s%s", name, out->described,
                               out->count > 1 ? " and the other pinned runs" : "");
        free(out->described);
        out->described = d;
    }
    err = 0;

cleanup:
    pg_run_list_clear(&info);
    pg_baseline_list_clear(&pins);
    return err;
}

int pg_select_base(pg_selection *out, pg_store *store, const char *selector, int64_t head_id,
                   const pg_select_options *opts)
{
    pg_select_options dflt = PG_SELECT_OPTIONS_INIT;
    pg_run_list head = {0}, info = {0};
    pg_run_filter f = {0};
    const pg_run_info *h;
    char *branch_copy = NULL;
    int64_t id = 0;
    int err;

    memset(out, 0, sizeof(*out));
    if (!opts)
        opts = &dflt;
    if ((err = run_info(&head, store, head_id)) != 0)
        return err;
    h = &head.items[0];
    f.before_id = head_id;
    if (!selector) {
        err = select_default(out, store, h, opts);
    } else if (parse_id(&id, selector) == 0) {
        if ((err = run_info(&info, store, id)) != 0)
            goto cleanup;
        if (id == head_id) {
            err = pg_error_set(PG_EUSAGE, "the baseline run %lld is the head run itself", (long long)id);
            goto cleanup;
        }
        if (!opts->allow_other_machine && !same_machine(h, &info.items[0])) {
            err = refuse_machine(h, &info.items[0], "the baseline");
            goto cleanup;
        }
        if (!same_mode(h, &info.items[0])) {
            err = refuse_mode(h, &info.items[0], "the baseline");
            goto cleanup;
        }
        if ((err = add_id(out, id)) == 0 && !(out->described = describe(&info.items[0], NULL, 0)))
            err = pg_error_set(PG_ENOMEM, "out of memory selecting runs");
    } else if (strncmp(selector, "commit:", 7) == 0 && selector[7]) {
        f.commit = selector + 7;
        f.before_id = 0;
        err = pick(out, store, f, h, 1, opts->allow_other_machine, 1, selector, NULL);
    } else if (strncmp(selector, "branch:", 7) == 0 && selector[7]) {
        f.branch = selector + 7;
        err = pick(out, store, f, h, 1, opts->allow_other_machine, 1, selector, NULL);
    } else if (strncmp(selector, "last:", 5) == 0) {
        char *end;
        long k = strtol(selector + 5, &end, 10);
        if (end == selector + 5 || k < 1 || k > 1000 || (*end && (*end != ':' || !end[1]))) {
            err = pg_error_set(PG_EUSAGE, "bad selector '%s': use last:K or last:K:BRANCH with 1 <= K <= 1000",
                               selector);
            goto cleanup;
        }
        f.branch = *end == ':' ? (branch_copy = pg__strdup(end + 1)) : h->branch;
        err = pick(out, store, f, h, (size_t)k, opts->allow_other_machine, 1, selector, NULL);
    } else if (strncmp(selector, "pin:", 4) == 0 && selector[4]) {
        err = select_pin(out, store, selector + 4, h, opts->allow_other_machine);
    } else {
        err = pg_error_set(PG_EUSAGE,
                           "unknown baseline selector '%s' (use an id, commit:SHA, branch:NAME, last:K or pin:NAME)",
                           selector);
    }

    /* What was left out for being measured otherwise is part of how the baseline was chosen. */
    if (!err && out->described && out->skipped)
        err = append(&out->described, "; left out ", pg__strdup(out->skipped));
    /* What was looked for, so that an empty selection can say so. */
    if (!err && selector)
        err = append(&out->searched, ", then ", pg__asprintf("'%s'", selector));
    if (!err)
        err = append(&out->searched, "",
                     opts->allow_other_machine || !h->machine_hash ? pg__strdup(" on any machine")
                                                                   : pg__asprintf(" on machine %.12s", h->machine_hash));

cleanup:
    pg_run_list_clear(&head);
    pg_run_list_clear(&info);
    free(branch_copy);
    if (err)
        pg_selection_clear(out);
    return err;
}

/* ---- named baseline sets ----------------------------------------------- */

int pg_baseline_pin(pg_store *store, const char *name, int64_t run_id)
{
    pg_run_list info = {0};
    int err;

    if (!name || !*name)
        return pg_error_set(PG_EUSAGE, "a baseline needs a name");
    if ((err = run_info(&info, store, run_id)) != 0)
        return err;
    pg_run_list_clear(&info);
    return store->ops->pin(store, name, run_id, pg__now_unix());
}

int pg_baseline_unpin(size_t *out_removed, pg_store *store, const char *name, int64_t run_id)
{
    if (out_removed)
        *out_removed = 0;
    return store->ops->unpin(out_removed, store, name, run_id);
}

int pg_baseline_list_get(pg_baseline_list *out, pg_store *store, const char *name)
{
    return store->ops->list_pins(out, store, name);
}

void pg_baseline_list_clear(pg_baseline_list *list)
{
    size_t i;

    if (!list)
        return;
    for (i = 0; i < list->count; i++) {
        free(list->items[i].name);
        free(list->items[i].commit);
        free(list->items[i].branch);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}
