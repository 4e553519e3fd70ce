/*
 * stored.c - a stored run against its stored baseline (gate.h): select the
 * baseline, load its runs, compare. Written once for `gate`, `compare`,
 * `report` and `post`.
 */
#include "gate/gate.h"

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

int pg_stored_compare_head(pg_stored_comparison *out, pg_store *store, const char *head_sel, const char *base_sel,
                      const pg_select_options *so, const pg_compare_options *co)
{
    pg_run *head = NULL;
    int64_t head_id;
    int err;

    assert(out && store);
    memset(out, 0, sizeof(*out));
    if ((err = pg_select_head(&head_id, store, head_sel)) != 0 || (err = pg_store_load_run(&head, store, head_id)) != 0)
        return err;
    err = pg_stored_select(out, store, head, base_sel, so);
    out->own_head = head;
    return err ? err : pg_stored_compare(out, co);
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
    pg_selection_clear(&c->selection);
    memset(c, 0, sizeof(*c));
}
