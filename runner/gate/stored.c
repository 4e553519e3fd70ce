/*
 * stored.c - a stored run against its stored baseline (gate.h): select the
 * baseline, load its runs, compare. Written once for `gate`, `compare`,
 * `report` and `post`; and a stored run with the decision the gate stored
 * for it, which `report` and `post` show instead of comparing again.
 */
#include "gate/gate.h"

#include "cause/cause.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int pg_stored_select(pg_stored_comparison *out, pg_store *store, const pg_run *head, const char *base_sel,
                     const pg_select_options *so)
{
    size_t i;
    int err;

    assert(out && store && head);
    memset(out, 0, sizeof(*out));
    out->head = head;
    if ((err = pg_select_base(&out->selection, store, base_sel, head->id, so)) != 0)
        return err;
    if (!(out->bases = calloc(out->selection.count + 1, sizeof(*out->bases))))
        return pg_error_set(PG_ENOMEM, "out of memory loading baseline runs");
    for (i = 0; i < out->selection.count; i++) {
        if ((err = pg_store_load_run(&out->bases[out->nbases], store, out->selection.ids[i])) != 0)
            return err;
        out->nbases++;
    }
    return 0;
}

/*
 * Without a baseline the comparison only knows that it had none; the
 * selection knows what it searched and which runs it left out, and the
 * reason has to say both, with the fix that fits.
 */
static int explain_no_baseline(pg_comparison *cmp, const pg_selection *sel)
{
    const char *searched = sel->searched ? sel->searched : "the default baseline";
    char *reason;

    if (sel->elsewhere)
        reason = pg__asprintf("no baseline on this machine: %s, not used because timings do not compare across "
                              "machines (searched for %s); measure the base build here with --base-build, run on a "
                              "dedicated runner, or pass --allow-other-machine",
                              sel->elsewhere, searched);
    else if (sel->skipped)
        reason = pg__asprintf("no baseline measured as this run was: %s (searched for %s); record the baseline the "
                              "way this run is measured, or measure the base build alongside with --base-build",
                              sel->skipped, searched);
    else
        reason = pg__asprintf("no baseline yet: searched for %s and found none (a first run, or the database was "
                              "not restored); this run is stored for later gates; to compare now, measure the base "
                              "build with --base-build",
                              searched);
    if (!reason)
        return pg_error_set(PG_ENOMEM, "out of memory explaining the outcome");
    free(cmp->outcome_reason);
    cmp->outcome_reason = reason;
    return 0;
}

int pg_stored_compare(pg_stored_comparison *c, const pg_compare_options *co)
{
    int err;

    assert(c && c->head && !c->cmp);
    if ((err = pg_compare(&c->cmp, c->head, (const pg_run *const *)c->bases, c->nbases, co)) != 0)
        return err;
    return c->nbases == 0 && c->cmp->outcome == PG_OUTCOME_NOTHING_COMPARED ? explain_no_baseline(c->cmp, &c->selection)
                                                                            : 0;
}

/* The run `head_sel` selects (NULL: the latest), loaded. */
static int load_head(pg_run **out, pg_store *store, const char *head_sel)
{
    int64_t id;
    int err;

    *out = NULL;
    return (err = pg_select_head(&id, store, head_sel)) != 0 ? err : pg_store_load_run(out, store, id);
}

/* The loaded `head` (taken) compared with its baseline. */
static int compare_loaded(pg_stored_comparison *out, pg_store *store, pg_run *head, const char *base_sel,
                          const pg_select_options *so, const pg_compare_options *co)
{
    int err = pg_stored_select(out, store, head, base_sel, so);

    out->own_head = head;
    if (!err)
        err = pg_stored_compare(out, co);
    /* What changed behind each change, as far as the stored results say (counts, traces). */
    return err ? err : pg_cause_attach(out->cmp);
}

int pg_stored_compare_head(pg_stored_comparison *out, pg_store *store, const char *head_sel, const char *base_sel,
                      const pg_select_options *so, const pg_compare_options *co)
{
    pg_run *head = NULL;
    int err;

    assert(out && store);
    memset(out, 0, sizeof(*out));
    return (err = load_head(&head, store, head_sel)) != 0 ? err : compare_loaded(out, store, head, base_sel, so, co);
}

void pg_stored_clear(pg_stored_comparison *c)
{
    size_t i;

    if (!c)
        return;
    pg_comparison_free(c->cmp);
    for (i = 0; i < c->nbases; i++)
        pg_run_free(c->bases[i]);
    free(c->bases);
    pg_run_free(c->own_head);
    pg_run_free(c->base_stub);
    pg_selection_clear(&c->selection);
    pg_decision_clear(&c->decision);
    pg_report_origin_clear(&c->origin);
    memset(c, 0, sizeof(*c));
}

/* The runs named by uuid in `uuids` (space-separated; ids change in a merge): those still stored. */
static int load_bases_by_uuid(pg_stored_comparison *c, pg_store *store, const char *uuids)
{
    char *list = uuids ? pg__strdup(uuids) : NULL, *save = NULL, *uuid;
    size_t n = 1;
    int err = 0;

    if (uuids && !list)
        return pg_error_set(PG_ENOMEM, "out of memory loading baseline runs");
    for (uuid = list; uuid && *uuid; uuid++)
        n += *uuid == ' ';
    if (!(c->bases = calloc(n, sizeof(*c->bases)))) {
        free(list);
        return pg_error_set(PG_ENOMEM, "out of memory loading baseline runs");
    }
    for (uuid = list ? strtok_r(list, " ", &save) : NULL; uuid && !err; uuid = strtok_r(NULL, " ", &save)) {
        pg_run_list found = {0};
        pg_run_filter f = {0};
        f.uuid = uuid;
        f.limit = 1;
        if ((err = pg_store_list_runs(&found, store, &f)) == 0 && found.count == 1 &&
            (err = pg_store_load_run(&c->bases[c->nbases], store, found.items[0].id)) == 0)
            c->nbases++;
        pg_run_list_clear(&found);
    }
    free(list);
    return err;
}

/* The baseline runs a stored decision names. */
static int load_decided_bases(pg_stored_comparison *c, pg_store *store)
{
    return load_bases_by_uuid(c, store, c->decision.base_uuids);
}

/* The selection a stored decision made: the runs still stored, and how they were chosen. */
static int decided_selection(pg_stored_comparison *c)
{
    size_t i;

    if (c->nbases && !(c->selection.ids = calloc(c->nbases, sizeof(*c->selection.ids))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < c->nbases; i++)
        c->selection.ids[c->selection.count++] = c->bases[i]->id;
    if (c->decision.base_described && !(c->selection.described = pg__strdup(c->decision.base_described)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    return 0;
}

int pg_stored_decision_head(pg_stored_comparison *out, pg_store *store, const char *head_sel)
{
    pg_decision d;
    pg_run *head = NULL;
    int err;

    assert(out && store);
    memset(out, 0, sizeof(*out));
    if ((err = load_head(&head, store, head_sel)) != 0)
        return err;
    /* No decision was stored for this run: compare it now, as `compare` does. */
    if ((err = pg_store_load_decision(&d, store, head->id)) == PG_ENOTFOUND)
        return compare_loaded(out, store, head, NULL, NULL, NULL);
    out->head = out->own_head = head;
    if (err)
        return err;
    out->decision = d;
    out->decided = 1;
    if ((err = load_decided_bases(out, store)) != 0 || (err = decided_selection(out)) != 0 ||
        (err = pg_decision_origin(&out->origin, &out->decision)) != 0)
        return err;
    return pg_decision_to(&out->cmp, &out->base_stub, &out->decision, head, (const pg_run *const *)out->bases,
                          out->nbases);
}

int pg_stored_compare_uuids(pg_stored_comparison *out, pg_store *store, int64_t head_id, const char *uuids,
                            const pg_compare_options *co)
{
    char sel[32];
    int err;

    assert(out && store);
    memset(out, 0, sizeof(*out));
    snprintf(sel, sizeof(sel), "%lld", (long long)head_id);
    if ((err = load_head(&out->own_head, store, sel)) != 0 || (err = load_bases_by_uuid(out, store, uuids)) != 0)
        return err;
    out->head = out->own_head;
    if ((err = decided_selection(out)) != 0)
        return err;
    return pg_stored_compare(out, co);
}

int pg_stored_decision_differs(pg_stored_comparison *c, pg_store *store)
{
    size_t i, j;
    int err;

    if (!c->decided) {
        pg_decision_clear(&c->decision);
        if ((err = pg_store_load_decision(&c->decision, store, c->head->id)) != 0)
            return 0;
    }
    if (strcmp(c->decision.outcome, pg_outcome_name(c->cmp->outcome)) != 0 || c->decision.ncases != c->cmp->ncases)
        return 1;
    for (i = 0; i < c->cmp->ncases; i++) {
        const pg_case_verdict *v = &c->cmp->cases[i];
        for (j = 0; j < c->decision.ncases && strcmp(c->decision.cases[j].key, v->key) != 0; j++)
            ;
        if (j == c->decision.ncases || strcmp(c->decision.cases[j].verdict, pg_verdict_name(v->verdict)) != 0)
            return 1;
    }
    return 0;
}
