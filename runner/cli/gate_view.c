/*
 * gate_view.c - what `perfgate run` and `gate` print while the gate works
 * and after it: the steps as they happen, then the comparison, the reports
 * and the post.
 */
#include "cli/report_cli.h"

#include "perfgate/errors.h"

void pg_cli_gate_step(const pg_gate_result *r, pg_gate_step step, const char *text, void *payload)
{
    const pg_cli_gate_view *v = payload;

    switch (step) {
    case PG_GATE_NOTE:
        if (v->human)
            fprintf(v->human, "%s\n", text);
        break;
    case PG_GATE_MEASURED:
        if (v->human)
            pg_report_run_terminal(v->human, r->run, &v->outs->style);
        break;
    case PG_GATE_STORED:
        fprintf(v->outs->human, "\nstored run %lld (%s @ %.12s) in %s\n", (long long)r->run->id, r->run->branch,
                r->run->commit ? r->run->commit : "no commit", v->db_path);
        break;
    case PG_GATE_BASELINE:
        /* Without a baseline the comparison's outcome says what was searched, at the end where it is read. */
        if (r->nbases)
            fprintf(v->outs->human, "\nbaseline: %s\n\n", r->described ? r->described : "stored run");
        break;
    }
}

/* Which exit code wins: 3 over 2 over a regression (1) over "nothing compared" (4) over a pass. */
static int worse(int a, int b)
{
    static const int rank[] = {0, 2, 3, 4, 1}; /* the rank of exit codes 0..4 */

    if (a < 0 || a > 4)
        return a;
    if (b < 0 || b > 4)
        return b;
    return rank[a] >= rank[b] ? a : b;
}

/*
 * --post and --webhook. In a workflow_run job the pull request and SHA come
 * from the trusted event, checked as `post` checks them (the run's own PR
 * is a claim): a gate is never the way around those checks.
 */
static void post(const pg_cli_gate_view *v, const pg_gate_result *r)
{
    pg_cli_post_flags pf = {0};
    pg_report_origin trusted = {0}, claim = {0};
    pg_post_trust t = {0};
    pg_report_data d = {r->run, r->cmp, &v->outs->origin};

    pf.no_comment = pf.no_status = !v->rep->post;
    pf.webhook = v->rep->webhook;
    pf.comment = v->rep->comment;
    if (v->rep->post && pg_post_trust_from_env(&t) != 0) {
        fprintf(stderr, "perfgate: not posting: %s\n", pg_error_last());
        return;
    }
    if (t.workflow_run) {
        claim.pr = r->run->pr;
        if (pg_cli_trusted_target(&trusted, &pf, &t, &claim, v->outs->origin.repository,
                                  v->outs->origin.run_url) >= 0) {
            pg_post_trust_clear(&t);
            return;
        }
        d.origin = &trusted;
    }
    (void)pg_cli_post(&d, &pf);
    pg_report_origin_clear(&trusted);
    pg_post_trust_clear(&t);
}

int pg_cli_gate_finish(const pg_cli_gate_view *v, const pg_gate_result *r)
{
    int rc = r->exit_code;

    if (v->human && r->interleaved) {
        const pg_base_build *b = &r->cmp->build;
        fprintf(v->human, "\nbaseline: build %s", b->path ? b->path : r->base_build);
        if (b->commit)
            fprintf(v->human, " at %.12s", b->commit);
        if (b->sha256)
            fprintf(v->human, " (sha256 %.16s)", b->sha256);
        fprintf(v->human, ", interleaved with the head over %s%d rounds (seed %llu)%s%s\n\n",
                r->rounds < r->max_rounds ? "up to " : "", r->rounds, (unsigned long long)r->seed,
                r->time_out ? "; --max-time ended the rounds" : "",
                r->busy_stop ? "; stopped early: the machine was too busy to measure" : "");
        pg_report_compare_terminal(v->human, r->cmp, &v->outs->style);
    } else if (v->human && r->nbases) {
        pg_report_compare_terminal(v->human, r->cmp, &v->outs->style);
    }
    /* `run` compared nothing, but a run in which nothing ran is no run: say so (exit 3). */
    if (r->all_failed)
        fprintf(v->outs->human, "\nperfgate: every measured case ended in ERROR (%zu of %zu); nothing was measured\n",
                r->cmp->counts[PG_VERDICT_ERROR], r->run->nresults);
    /* Printed even with --style none: a gate that compared nothing, or whose case never ran, must not pass. */
    else if (r->exit_code == PG_EXIT_NOTHING_COMPARED || r->cmp->outcome == PG_OUTCOME_ERROR ||
             r->cmp->outcome == PG_OUTCOME_ACCEPTED ||
             (r->compared && r->cmp->outcome == PG_OUTCOME_PASS && r->cmp->outcome_reason))
        pg_report_outcome_terminal(v->outs->human, r->cmp);
    /* A report that could not be written hides a pass or a "nothing compared", never a regression. */
    if (pg_cli_outputs_emit(v->outs, r->run, r->cmp) != 0 && rc != 1)
        rc = 3;
    /* Posting problems are printed and never change the exit code: the verdict decides it, an outage does not. */
    if (v->rep->post || v->rep->webhook)
        post(v, r);
    return worse(rc, r->check_error_code);
}
