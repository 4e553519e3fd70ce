/*
 * bisect.c - `perfgate bisect` (bisect.h): the chain of commits, the state
 * it resumes from, and the steps: build both commits (cached), gate one
 * against the other in interleaved rounds at the step's share of the
 * family error, feed the verdict to the search (search.h), save.
 */
#include "bisect/bisect.h"

#include "bisect/internal.h"

#include "base/sha256.h"
#include "gate/gate.h"
#include "perfgate/errors.h"
#include "verdict/verdict.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct bisect_ctx {
    const pg_bisect_options *o;
    const pg_suite_set *set;
    pg_bisect_result *r;
    char *repo;               /* the repository's top directory */
    char *work_dir;
    const char *build_dir;
    int64_t t0;
    pg_bisect_search search;
} bisect_ctx;

static void say(const bisect_ctx *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void say(const bisect_ctx *x, const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    if (!x->o->notify)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    x->o->notify(line, x->o->payload);
}

static double elapsed(const bisect_ctx *x)
{
    return (double)(pg__mono_ns() - x->t0) * 1e-9;
}

/* Seconds of --max-time left; INFINITY without one. */
static double time_left(const bisect_ctx *x)
{
    return x->o->max_time > 0 ? x->o->max_time - elapsed(x) : INFINITY;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether a case runs what the build made: {build} in its plugin or its command. */
static int runs_build(const pg_case *c)
{
    size_t i;

    if (c->plugin && strstr(c->plugin, "{build}"))
        return 1;
    for (i = 0; c->command && c->command[i]; i++)
        if (strstr(c->command[i], "{build}"))
            return 1;
    return 0;
}

/* The cases the filter selects that run the build, sorted: part of what the bisection is of. */
static int list_cases(pg_bisect_result *r, const pg_suite_set *set, const char *filter)
{
    size_t i, j, n = 0, other = 0;

    for (i = 0; i < set->count; i++)
        n += set->suites[i]->ncases;
    if (n && !(r->cases = calloc(n, sizeof(*r->cases))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < set->count; i++)
        for (j = 0; j < set->suites[i]->ncases; j++) {
            const char *key = set->suites[i]->cases[j].key;
            if (filter && !pg__glob(filter, key))
                continue;
            /* A built-in kernel, or a plugin or command outside the build, is the same code at every commit. */
            if (!runs_build(&set->suites[i]->cases[j])) {
                other++;
                continue;
            }
            if (!(r->cases[r->ncases++] = pg__strdup(key)))
                return pg_error_set(PG_ENOMEM, "out of memory");
        }
    if (r->ncases == 0 && other)
        return pg_error_set(PG_EINVAL, "no case%s%s runs the build ({build} in its plugin or command), so every commit "
                                       "would measure the same code: nothing to bisect",
                            filter ? " matching " : "", filter ? filter : "");
    if (r->ncases == 0)
        return pg_error_set(PG_EINVAL, "no timed case matched%s%s: nothing to bisect", filter ? " the filter " : "",
                            filter ? filter : "");
    qsort(r->cases, r->ncases, sizeof(*r->cases), by_string);
    return 0;
}

/* A digest of everything the steps' verdicts depend on: a state of other inputs is not resumed. */
static int identity(pg_bisect_result *r)
{
    pg_sha256 h;
    char hex[65], num[64];
    size_t i;

    pg_sha256_init(&h);
    pg_sha256_update(&h, r->commits[0].sha, 41);
    pg_sha256_update(&h, r->commits[r->ncommits - 1].sha, 41);
    pg_sha256_update(&h, r->build, strlen(r->build) + 1);
    pg_sha256_update(&h, r->build_dir, strlen(r->build_dir) + 1);
    pg_sha256_update(&h, r->filter ? r->filter : "", strlen(r->filter ? r->filter : "") + 1);
    snprintf(num, sizeof(num), "%.17g %.17g", r->threshold, r->alpha);
    pg_sha256_update(&h, num, strlen(num) + 1);
    for (i = 0; i < r->ncases; i++)
        pg_sha256_update(&h, r->cases[i], strlen(r->cases[i]) + 1);
    pg_sha256_hex(&h, hex);
    r->identity = pg__strdup(hex);
    return r->identity ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

static int check_options(const pg_bisect_options *o)
{
    if (!o->good || !o->bad || !*o->good || !*o->bad)
        return pg_error_set(PG_EUSAGE, "bisect needs GOOD and BAD");
    if (!o->build || !*o->build)
        return pg_error_set(PG_EUSAGE, "bisect needs --build CMD: the command that builds a commit");
    if (o->build_dir && !pg__bisect_inside(o->build_dir))
        return pg_error_set(PG_EUSAGE, "--build-dir %s: a directory inside the checkout (relative, no '..')",
                            o->build_dir);
    if (o->alpha >= 0.5 || (o->threshold >= 0 && o->threshold > 10))
        return pg_error_set(PG_EUSAGE, "--alpha must be below 0.5 and --threshold a fraction");
    return 0;
}

/* The repository, the chain, the cases and where the work and the state go. */
static int prepare(bisect_ctx *x)
{
    const pg_bisect_options *o = x->o;
    pg_bisect_result *r = x->r;
    char *git_dir = NULL, *good = NULL, *bad = NULL;
    size_t n = 0;
    int err;

    if ((err = check_options(o)) != 0 || (err = pg__bisect_repo(&x->repo, &git_dir, o->repo ? o->repo : ".")) != 0)
        return err;
    if ((err = pg__bisect_resolve(&good, x->repo, o->good)) != 0 || (err = pg__bisect_resolve(&bad, x->repo, o->bad)) != 0 ||
        (err = pg__bisect_chain(&r->commits, &n, x->repo, good, bad)) != 0)
        goto done;
    r->ncommits = n + 1;
    r->planned = pg_bisect_planned_steps(n);
    r->good_rev = pg__strdup(o->good);
    r->bad_rev = pg__strdup(o->bad);
    r->build = pg__strdup(o->build);
    r->build_dir = pg__strdup(x->build_dir);
    r->filter = pg__strdup(o->filter);
    r->threshold = o->threshold >= 0 ? o->threshold : -1.0;
    r->alpha = o->alpha > 0 ? o->alpha : 0.05;
    if ((err = list_cases(r, x->set, o->filter)) != 0 || (err = identity(r)) != 0)
        goto done;
    x->work_dir = o->work_dir ? pg__strdup(o->work_dir) : pg__asprintf("%s/perfgate-bisect", git_dir);
    if (x->work_dir && mkdir(x->work_dir, 0777) != 0 && errno != EEXIST) {
        err = pg_error_set(PG_EIO, "cannot create %s: %s", x->work_dir, strerror(errno));
        goto done;
    }
    if (x->work_dir && x->work_dir[0] != '/') {
        char *abs = realpath(x->work_dir, NULL);
        free(x->work_dir);
        x->work_dir = abs;
    }
    r->state_path = o->state ? pg__strdup(o->state) : x->work_dir ? pg__asprintf("%s/state-%.16s.json", x->work_dir,
                                                                                  r->identity) : NULL;
    if (!x->work_dir || !r->state_path || !r->good_rev || !r->bad_rev || !r->build || !r->build_dir)
        err = pg_error_set(PG_ENOMEM, "out of memory");
done:
    free(git_dir);
    free(good);
    free(bad);
    return err;
}

/* An UNSURE step whose interval lay beyond the threshold: REGRESSED at first, not confirmed (search.h). */
static int beyond(const pg_bisect_step *s)
{
    return s->verdict == PG_VERDICT_UNSURE && isfinite(s->ci_lo) && isfinite(s->threshold) &&
           s->ci_lo > 1 + s->threshold;
}

/* Takes the steps, commits that did not build and the cases followed from a stored state of the same inputs. */
static int adopt(pg_bisect_result *r, pg_bisect_result *old)
{
    r->steps = old->steps;
    r->nsteps = r->resumed = old->nsteps;
    r->unbuilt = old->unbuilt;
    r->nunbuilt = old->nunbuilt;
    r->key = old->key;
    r->also = old->also;
    r->nalso = old->nalso;
    old->steps = NULL;
    old->nsteps = 0;
    old->unbuilt = NULL;
    old->nunbuilt = 0;
    old->key = NULL;
    old->also = NULL;
    old->nalso = 0;
    return 0;
}

/*
 * Ends that were UNSURE decided nothing: an undecided bisection run again
 * (with more --rounds, or on a quieter machine, as its message advises)
 * measures them again rather than repeating the old UNSURE.
 */
static void retake_undecided_ends(bisect_ctx *x)
{
    pg_bisect_result *r = x->r;

    if (r->nsteps != 1 || r->steps[0].purpose != PG_BISECT_ENDS || r->steps[0].verdict != PG_VERDICT_UNSURE)
        return;
    say(x, "the ends were UNSURE in %d rounds last time (%s): measuring them again", r->steps[0].rounds,
        r->state_path);
    pg__bisect_step_clear(&r->steps[0]);
    r->nsteps = r->resumed = 0;
}

/* Reads the state of an earlier run with the same inputs and replays its steps through the search. */
static int resume(bisect_ctx *x)
{
    pg_bisect_result *r = x->r, old;
    pg_bisect_purpose purpose;
    size_t i, b, h;
    int err;

    if (x->o->restart && unlink(r->state_path) != 0 && errno != ENOENT)
        return pg_error_set(PG_EIO, "cannot remove %s: %s", r->state_path, strerror(errno));
    if (access(r->state_path, F_OK) == 0) {
        if ((err = pg_bisect_read(&old, r->state_path)) != 0)
            return pg_error_set(err, "%s; --restart starts over", pg_error_last());
        if (!old.identity || strcmp(old.identity, r->identity) != 0) {
            pg_bisect_result_clear(&old);
            return pg_error_set(PG_EUSAGE, "%s holds a bisection of other inputs (GOOD, BAD, build, filter, "
                                           "threshold, alpha or cases); --restart starts over", r->state_path);
        }
        adopt(r, &old);
        pg_bisect_result_clear(&old);
        retake_undecided_ends(x);
    }
    if ((err = pg_bisect_search_init(&x->search, r->ncommits - 1)) != 0)
        return err;
    for (i = 0; i < r->nunbuilt; i++)
        pg_bisect_search_skip(&x->search, r->unbuilt[i].commit);
    for (i = 0; i < r->nsteps; i++) {
        if (!pg_bisect_search_next(&x->search, &b, &h, &purpose) || b != r->steps[i].base || h != r->steps[i].head)
            return pg_error_set(PG_EFORMAT, "%s: step %zu does not follow from the steps before it; --restart starts "
                                            "over", r->state_path, i + 1);
        pg_bisect_search_feed(&x->search, r->steps[i].verdict, beyond(&r->steps[i]));
    }
    if (r->nsteps)
        say(x, "resuming from %s: %zu step%s done", r->state_path, r->nsteps, r->nsteps == 1 ? "" : "s");
    return 0;
}

static void forward_note(const pg_gate_result *state, pg_gate_step step, const char *text, void *payload)
{
    (void)state;
    if (step == PG_GATE_NOTE && text && strncmp(text, "interleaving", 12) != 0)
        say(payload, "  %s", text);
}

static int rank(const pg_case_verdict *v)
{
    switch (v->verdict) {
    case PG_VERDICT_REGRESSED:
        return 4;
    case PG_VERDICT_UNSURE:
        return 3;
    case PG_VERDICT_SAME:
    case PG_VERDICT_IMPROVED:
        return 2;
    case PG_VERDICT_ERROR:
        return 1;
    default:
        return 0; /* NEW, MISSING, SKIPPED: not at both ends */
    }
}

/*
 * The case the ends step speaks for: the REGRESSED one with the highest
 * lower bound (the others are listed for bisections of their own); with
 * none, an UNSURE one (undecided), else the slowest SAME or IMPROVED (not
 * reproduced: every case held), else one that failed.
 */
static const pg_case_verdict *pick_ends(pg_bisect_result *r, const pg_comparison *cmp)
{
    const pg_case_verdict *best = NULL;
    size_t i;

    for (i = 0; i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        if (rank(v) == 0)
            continue;
        if (!best || rank(v) > rank(best) ||
            (rank(v) == rank(best) && (v->verdict == PG_VERDICT_REGRESSED ? v->est.ci_lo > best->est.ci_lo
                                                                          : v->est.ratio > best->est.ratio)))
            best = v;
    }
    for (i = 0; best && best->verdict == PG_VERDICT_REGRESSED && i < cmp->ncases; i++) {
        const pg_case_verdict *v = &cmp->cases[i];
        char **also;
        if (v == best || v->verdict != PG_VERDICT_REGRESSED || !(also = realloc(r->also, (r->nalso + 1) * sizeof(*also))))
            continue;
        r->also = also;
        r->also[r->nalso] = pg__strdup(v->key);
        r->nalso += r->also[r->nalso] != NULL;
    }
    return best;
}

static const pg_case_verdict *find_key(const pg_comparison *cmp, const char *key)
{
    size_t i;

    for (i = 0; key && i < cmp->ncases; i++)
        if (strcmp(cmp->cases[i].key, key) == 0)
            return &cmp->cases[i];
    return NULL;
}

/* What the step's comparison says of the case followed, into `s`. */
static int record(pg_bisect_step *s, const pg_case_verdict *v, int all_new)
{
    if (!v) {
        s->verdict = PG_VERDICT_ERROR;
        s->reason = pg__strdup(all_new ? "the cases are new at the base commit: they did not exist there yet"
                                       : "the case was not measured");
        return s->reason ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    }
    s->key = pg__strdup(v->key);
    s->verdict = v->verdict;
    s->ratio = v->est.ratio;
    s->ci_lo = v->est.ci_lo;
    s->ci_hi = v->est.ci_hi;
    s->p = v->est.p_adj;
    s->threshold = v->threshold;
    s->rounds = (int)v->est.head_n;
    s->reason = pg__strdup(v->reason);
    return s->key && (!v->reason || s->reason) ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

/* One gate of head's build against base's. *timed_out: --max-time ended its rounds. */
static int gate(bisect_ctx *x, pg_bisect_step *s, const char *base_dir, const char *head_dir, int *timed_out)
{
    const pg_bisect_options *o = x->o;
    pg_gate_options go = PG_GATE_OPTIONS_INIT;
    pg_gate_result res;
    const pg_case_verdict *v;
    const char *one[1];
    size_t i, news = 0;
    int err;

    go.compare = 1;
    go.base_build = base_dir;
    go.head_build = head_dir;
    go.threshold = o->threshold;
    go.alpha = s->alpha;
    go.rounds = o->rounds > 0 ? o->rounds : PG_BISECT_DEFAULT_ROUNDS;
    go.confirm = o->confirm;
    go.timed_only = 1;
    go.max_time = isfinite(time_left(x)) ? time_left(x) : 0;
    go.ab_progress = o->ab_progress;
    go.notify = forward_note;
    go.payload = x;
    /* The ends gate every case of the bisection; the other steps the case followed. */
    one[0] = x->r->key;
    go.keys = s->purpose == PG_BISECT_ENDS ? (const char *const *)x->r->cases : one;
    go.nkeys = s->purpose == PG_BISECT_ENDS ? x->r->ncases : 1;
    err = pg_gate_run(&res, x->set, &go);
    if (!err) {
        for (i = 0; i < res.cmp->ncases; i++)
            news += res.cmp->cases[i].verdict == PG_VERDICT_NEW;
        v = s->purpose == PG_BISECT_ENDS ? pick_ends(x->r, res.cmp) : find_key(res.cmp, x->r->key);
        err = record(s, v, news == res.cmp->ncases);
        *timed_out = res.time_out;
        if (!err && s->purpose == PG_BISECT_ENDS && v && v->verdict == PG_VERDICT_REGRESSED &&
            !(x->r->key = pg__strdup(v->key)))
            err = pg_error_set(PG_ENOMEM, "out of memory");
    }
    pg_gate_result_clear(&res);
    return err;
}

/* Builds commit i (cached), saying so when it builds now. */
static int build(bisect_ctx *x, size_t i, char **dir)
{
    pg_bisect_result *r = x->r;
    int built = 0, err;
    int64_t t = pg__mono_ns();

    err = pg__bisect_build(dir, &built, x->repo, x->work_dir, r->commits[i].sha, r->build, r->build_dir);
    if (!err && built)
        say(x, "built %.12s (%zu) in %.1fs", r->commits[i].sha, i, (double)(pg__mono_ns() - t) * 1e-9);
    return err;
}

static int add_unbuilt(bisect_ctx *x, size_t c)
{
    pg_bisect_unbuilt *u = realloc(x->r->unbuilt, (x->r->nunbuilt + 1) * sizeof(*u));

    if (!u)
        return pg_error_set(PG_ENOMEM, "out of memory");
    x->r->unbuilt = u;
    u[x->r->nunbuilt].commit = c;
    u[x->r->nunbuilt].why = pg__strdup(pg_error_last());
    x->r->nunbuilt++;
    pg_bisect_search_skip(&x->search, c);
    say(x, "%.12s (%zu) does not build; passed over: %s", x->r->commits[c].sha, c, pg_error_last());
    return pg__bisect_save(x->r, x->r->state_path);
}

static void announce(const bisect_ctx *x, const pg_bisect_step *s)
{
    char ch[96];

    pg_fmt_change_ci(ch, sizeof(ch), s->ratio, s->ci_lo, s->ci_hi);
    say(x, "step %zu (%s): %.12s (%zu) against %.12s (%zu): %s %s in %d rounds at alpha %.2g, %.1fs", x->r->nsteps,
        pg_bisect_purpose_name(s->purpose), x->r->commits[s->head].sha, s->head, x->r->commits[s->base].sha, s->base,
        pg_verdict_name(s->verdict), ch, s->rounds, s->alpha, s->seconds);
}

/* One step: both builds, the gate, the verdict fed and saved. *stop: --max-time is spent. */
static int step(bisect_ctx *x, size_t base, size_t head, pg_bisect_purpose purpose, int *stop)
{
    pg_bisect_result *r = x->r;
    pg_bisect_step s, *grown;
    char *bdir = NULL, *hdir = NULL;
    int64_t t = pg__mono_ns();
    int timed_out = 0, err;

    memset(&s, 0, sizeof(s));
    s.purpose = purpose;
    s.base = base;
    s.head = head;
    s.alpha = pg_bisect_step_alpha(r->alpha, r->ncommits - 1, r->nsteps + 1);
    s.ratio = s.ci_lo = s.ci_hi = s.p = NAN;
    if ((err = build(x, base, &bdir)) != 0)
        goto done;
    if ((err = build(x, head, &hdir)) != 0) {
        /* A midpoint that does not build is passed over; an end that does not build ends the bisection. */
        if (purpose == PG_BISECT_HALVE && err == PG_EKERNEL)
            err = add_unbuilt(x, head);
        goto done;
    }
    if ((err = gate(x, &s, bdir, hdir, &timed_out)) != 0)
        goto done;
    s.seconds = (double)(pg__mono_ns() - t) * 1e-9;
    /* Rounds that --max-time cut short are no evidence: the step is taken again when the bisection goes on. */
    if (timed_out && s.verdict == PG_VERDICT_UNSURE) {
        *stop = 1;
        goto done;
    }
    if (!(grown = realloc(r->steps, (r->nsteps + 1) * sizeof(*grown)))) {
        err = pg_error_set(PG_ENOMEM, "out of memory");
        goto done;
    }
    r->steps = grown;
    r->steps[r->nsteps++] = s;
    memset(&s, 0, sizeof(s));
    announce(x, &r->steps[r->nsteps - 1]);
    pg_bisect_search_feed(&x->search, r->steps[r->nsteps - 1].verdict, beyond(&r->steps[r->nsteps - 1]));
    err = pg__bisect_save(r, r->state_path);
done:
    pg__bisect_step_clear(&s);
    free(bdir);
    free(hdir);
    return err;
}

static void conclude(bisect_ctx *x, int open)
{
    pg_bisect_result *r = x->r;
    const pg_bisect_search *s = &x->search;

    r->kind = open ? PG_BISECT_OPEN : s->kind;
    r->culprit = r->kind == PG_BISECT_FOUND ? s->culprit : PG_BISECT_NONE;
    r->result_step = open ? PG_BISECT_NONE : s->result_step;
    r->span_lo = open ? s->lo : s->range_lo;
    r->span_hi = open ? s->hi : s->range_hi;
}

int pg_bisect_run(pg_bisect_result *out, const pg_suite_set *set, const pg_bisect_options *opts)
{
    bisect_ctx x;
    size_t base, head;
    pg_bisect_purpose purpose;
    int err, stop = 0;

    memset(out, 0, sizeof(*out));
    memset(&x, 0, sizeof(x));
    out->result_step = out->culprit = PG_BISECT_NONE;
    x.o = opts;
    x.set = set;
    x.r = out;
    x.t0 = pg__mono_ns();
    x.build_dir = opts->build_dir ? opts->build_dir : "build";
    if ((err = prepare(&x)) != 0 || (err = resume(&x)) != 0)
        goto done;
    while (!err && !stop && pg_bisect_search_next(&x.search, &base, &head, &purpose)) {
        if (time_left(&x) <= 0) {
            stop = 1;
            break;
        }
        err = step(&x, base, head, purpose, &stop);
    }
    if (!err) {
        conclude(&x, stop);
        out->seconds = elapsed(&x);
        if ((err = pg__bisect_describe(out)) == 0)
            err = pg__bisect_save(out, out->state_path);
    }
done:
    pg_bisect_search_clear(&x.search);
    free(x.repo);
    free(x.work_dir);
    return err;
}

void pg__bisect_step_clear(pg_bisect_step *s)
{
    free(s->key);
    free(s->reason);
    memset(s, 0, sizeof(*s));
}

static void free_strings(char **v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void pg_bisect_result_clear(pg_bisect_result *r)
{
    size_t i;

    if (!r)
        return;
    for (i = 0; i < r->ncommits; i++) {
        free(r->commits[i].sha);
        free(r->commits[i].subject);
    }
    free(r->commits);
    for (i = 0; i < r->nsteps; i++)
        pg__bisect_step_clear(&r->steps[i]);
    free(r->steps);
    for (i = 0; i < r->nunbuilt; i++)
        free(r->unbuilt[i].why);
    free(r->unbuilt);
    free_strings(r->cases, r->ncases);
    free_strings(r->also, r->nalso);
    free(r->good_rev);
    free(r->bad_rev);
    free(r->build);
    free(r->build_dir);
    free(r->filter);
    free(r->identity);
    free(r->key);
    free(r->text);
    free(r->state_path);
    memset(r, 0, sizeof(*r));
}

int pg_bisect_exit_code(const pg_bisect_result *r)
{
    switch (r->kind) {
    case PG_BISECT_FOUND:
    case PG_BISECT_SPREAD:
    case PG_BISECT_NOT_REPRODUCED:
    case PG_BISECT_UNBUILDABLE:
        return 0;
    case PG_BISECT_ERROR:
        return 3;
    default:
        return PG_EXIT_NOTHING_COMPARED;
    }
}
