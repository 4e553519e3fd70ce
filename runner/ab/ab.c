/* ab.c - interleaved A/B runs of one suite against two builds. */
#include "ab/ab.h"
#include "ab/internal.h"

#include "measure/child.h"
#include "exec/exec.h"
#include "perfgate/errors.h"
#include "plugin/plugin.h"
#include "measure/progress.h"
#include "stats/stats.h"
#include "base/util.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>

/* One build: a library file, or a directory for {build}. */
typedef struct side {
    char *path;               /* absolute */
    int is_dir;
    char *dir;                /* the directory {build} expands to; NULL: the suite as written */
    double extra;             /* an injected change of real work on this side (the head's), 0: none */
    int64_t unit;             /* blocks are multiples of this many iterations (with an injected change) */
} side;


int64_t pg_ab_extra_unit(double extra, int64_t *whole)
{
    int64_t u;

    for (u = 1; u <= 1000; u++)
        if (fabs(u * extra - llround(u * extra)) < 1e-6 && llround(u * extra) > 0) {
            *whole = llround(u * extra);
            return u;
        }
    *whole = llround(1000 * extra);
    return 1000;
}

static int side_init(side *s, const char *path, const char *which, const pg_ab_options *o)
{
    struct stat st;
    const char *slash;
    int64_t whole;

    memset(s, 0, sizeof(*s));
    if (o->extra_work > 0) {
        s->unit = pg_ab_extra_unit(o->extra_work, &whole);
        if (strcmp(which, "head") == 0)
            s->extra = (double)whole / (double)s->unit;
    }
    /* An injected change compares the suite with itself: no build to substitute. */
    if (!path && o->extra_work > 0)
        return 0;
    if (!path)
        return pg_error_set(PG_EUSAGE, "--%s is required", which);
    if (stat(path, &st) != 0)
        return pg_error_set(PG_ENOTFOUND, "--%s %s: no such file or directory", which, path);
    /* Absolute: plugin paths are otherwise taken relative to the suite file. */
    if (!(s->path = realpath(path, NULL)))
        return pg_error_set(PG_EIO, "--%s %s: cannot resolve the path", which, path);
    s->is_dir = S_ISDIR(st.st_mode);
    if (s->is_dir) {
        s->dir = pg__strdup(s->path);
    } else {
        slash = strrchr(s->path, '/');
        s->dir = pg__asprintf("%.*s", (int)(slash - s->path), s->path);
    }
    return s->dir ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

/*
 * A copy of `c` measured for one round of one side: the build substituted,
 * sampled for `round_time`. Only `plugin` and `command` are owned by the copy.
 */
static int round_case(pg_case *out, const pg_case *c, const side *s, const pg_ab_options *o)
{
    size_t n = 0, i;
    int err;

    *out = *c;
    out->plugin = NULL;
    out->command = NULL;
    /* min_run_time/4 of sampling (at least 20 ms) and the case's whole warm-up. Rounds of /8, and a
       warm-up scaled down with the round, left the rounds' ratios wider: more UNSURE cases, and +10 %
       missed in 2 of 10 gates of one series (docs/statistics.md, "Set-up out of turns"). */
    out->min_run_time = o->round_time > 0 ? o->round_time : fmax(c->min_run_time / 4, 0.02);
    out->max_run_time = fmin(c->max_run_time, fmax(10 * out->min_run_time, 1.0));
    out->min_samples = o->round_samples > 0 ? o->round_samples : 5;
    out->extra_work = s->extra;
    out->block_unit = s->unit;
    if (c->plugin) {
        if (s->path && !s->is_dir)
            out->plugin = pg__strdup(s->path);
        else if ((err = pg_plugin_path(&out->plugin, c, s->dir)) != 0)
            return err;
        if (!out->plugin)
            return pg_error_set(PG_ENOMEM, "out of memory");
    }
    if (c->command) {
        while (c->command[n])
            n++;
        out->command = calloc(n + 1, sizeof(char *));
        if (!out->command)
            return pg_error_set(PG_ENOMEM, "out of memory");
        for (i = 0; i < n; i++)
            if ((err = pg_plugin_subst(&out->command[i], c->command[i], c, s->dir)) != 0)
                return err;
    }
    return 0;
}

static void round_case_clear(pg_case *rc)
{
    size_t i;

    free(rc->plugin);
    for (i = 0; rc->command && rc->command[i]; i++)
        free(rc->command[i]);
    free(rc->command);
}

/* PERFGATE_ROUND_TIME=SEC, where set: the sampling per side per round when no option gave one. */
static int round_time_env(double *out)
{
    const char *v = getenv("PERFGATE_ROUND_TIME");
    char *end = NULL;
    double t;

    if (!v || !*v)
        return 0;
    t = strtod(v, &end);
    if (end == v || *end || !(t > 0) || t > 3600)
        return pg_error_set(PG_EUSAGE, "PERFGATE_ROUND_TIME=%s: expected seconds of sampling per side per round, "
                            "e.g. 0.05", v);
    *out = t;
    return 0;
}

/* Measures one round of one side of case `ac`. */
static int measure_round(ab_case *ac, int which, const side *s, const pg_ab_options *o)
{
    pg_case rc;
    pg_result r;
    int err;

    memset(&r, 0, sizeof(r));
    r.mfu = -1;
    if ((err = round_case(&rc, ac->c, s, o)) != 0) {
        round_case_clear(&rc);
        return err;
    }
    err = pg_exec_case(&r, &rc, NULL);
    round_case_clear(&rc);
    if (err) {
        pg__result_clear(&r);
        return err;
    }
    return pg__ab_keep(ac, which, &r, o);
}

/*
 * The worker processes of a gate (exec.h): each plugin case's round copies
 * for both builds, made once, and how often the workers are replaced.
 */
typedef struct ab_workers {
    pg_exec_workers *ex;      /* NULL: fresh processes every round */
    pg_case *rc[2];           /* per case, as each build measures it (plugin cases; others zeroed) */
    const pg_case **ptr[2];
    size_t n;
    int period;               /* rounds per pair of workers */
    unsigned replaced;
    unsigned started;         /* processes of workers given up on */
} ab_workers;

/* Workers give up after this many replacements in one gate: the rest of the rounds use fresh processes. */
#define AB_MAX_REPLACED 3

static int workers_init(ab_workers *aw, const ab_case *cases, size_t n, const side *sides, const pg_ab_options *o)
{
    const char *env = getenv("PERFGATE_FRESH_PROCESSES"), *per = getenv("PERFGATE_WORKER_ROUNDS");
    size_t i;
    int s, err, any = 0;

    memset(aw, 0, sizeof(*aw));
    /* Workers only when asked for: docs/statistics.md, "Workers against fresh processes", measured them
       finding +10 % in fewer calm gates than fresh processes, for little wall time saved. */
    aw->period = o->worker_rounds > 0 ? o->worker_rounds : per && atoi(per) > 0 ? atoi(per) : 0;
    for (i = 0; i < n; i++)
        any |= cases[i].c->plugin != NULL;
    if (!any || aw->period <= 0 || o->sequential || o->fresh || (env && strcmp(env, "1") == 0))
        return 0;
    aw->n = n;
    for (s = 0; s < 2; s++)
        if (!(aw->rc[s] = calloc(n, sizeof(pg_case))) || !(aw->ptr[s] = calloc(n, sizeof(pg_case *))))
            return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < n; i++)
        for (s = 0; s < 2 && cases[i].c->plugin; s++) {
            if ((err = round_case(&aw->rc[s][i], cases[i].c, &sides[s], o)) != 0)
                return err;
            aw->ptr[s][i] = &aw->rc[s][i];
        }
    return pg_exec_workers_new(&aw->ex, (const pg_case *const *const[2]){aw->ptr[0], aw->ptr[1]}, n, NULL);
}

static void workers_free(ab_workers *aw)
{
    size_t i;
    int s;

    pg_exec_workers_free(aw->ex);
    for (s = 0; s < 2; s++) {
        for (i = 0; aw->rc[s] && i < aw->n; i++)
            if (aw->ptr[s][i])
                round_case_clear(&aw->rc[s][i]);
        free(aw->rc[s]);
        free(aw->ptr[s]);
    }
    memset(aw, 0, sizeof(*aw));
}

/*
 * Starts a round of plugin case `ac` in two fresh processes (exec.h): they
 * set up and warm up on `setup` (NULL: where they start), then take turns on
 * `cpus`. `busy`: a pair started before and not finished.
 */
static int start_pair(pg_exec_pair **out, const ab_case *ac, const side *sides, const pg_ab_options *o,
                      uint64_t seed, const uint64_t *cpus, const uint64_t *setup, const pg_exec_pair *busy)
{
    /* Sizing starts at the block size of this case's last round (one block when it still fits). */
    const pg_exec_pair_round pr = {seed, cpus, ac->last[0].number_per_run, setup};
    pg_case rc[2];
    const pg_case *pair[2] = {&rc[0], &rc[1]};
    int err;

    memset(rc, 0, sizeof(rc));
    *out = NULL;
    if ((err = round_case(&rc[0], ac->c, &sides[0], o)) == 0 && (err = round_case(&rc[1], ac->c, &sides[1], o)) == 0)
        err = pg_exec_pair_start(out, pair, NULL, &pr, busy);
    round_case_clear(&rc[0]);
    round_case_clear(&rc[1]);
    return err;
}

/* Keeps both sides of a round (`r`, taken), or clears them after an error. */
static int keep_pair(ab_case *ac, pg_result r[2], const pg_ab_options *o, int err)
{
    int i;

    for (i = 0; i < 2; i++) {
        if (!err)
            err = pg__ab_keep(ac, i, &r[i], o);
        else
            pg__result_clear(&r[i]);
    }
    return err;
}

/* Takes the turns of a started pair of case `ac` and keeps its round. */
static int finish_pair(ab_case *ac, pg_exec_pair *pair, const pg_ab_options *o)
{
    pg_result r[2];

    memset(r, 0, sizeof(r));
    return keep_pair(ac, r, o, pg_exec_pair_finish(r, pair));
}

/*
 * One round of a plugin case by the workers: both sides in lockstep, block
 * by block (exec.h); when a worker failed, the round is measured again by two
 * fresh processes.
 */
static int measure_workers(ab_case *ac, size_t idx, const side *sides, const pg_ab_options *o, uint64_t seed,
                           ab_workers *aw, pg_progress *prog, const uint64_t *cpus)
{
    pg_result r[2];
    pg_exec_pair *pair;
    char *replaced = NULL;
    int err;

    memset(r, 0, sizeof(r));
    r[0].mfu = r[1].mfu = -1;
    err = pg_exec_workers_pair(r, aw->ex, idx, seed, &replaced);
    if (err || !replaced)
        return keep_pair(ac, r, o, err);
    aw->replaced++;
    pg_progress_line(prog, "%s: a worker process failed (%s); this round is measured again in fresh "
                     "processes%s", ac->c->key, replaced,
                     aw->replaced >= AB_MAX_REPLACED ? ", and so are the rounds left" : "");
    free(replaced);
    if (aw->replaced >= AB_MAX_REPLACED) {
        aw->started += pg_exec_workers_started(aw->ex);
        pg_exec_workers_free(aw->ex);
        aw->ex = NULL;
    }
    if ((err = start_pair(&pair, ac, sides, o, seed, cpus, NULL, NULL)) != 0)
        return err;
    return finish_pair(ac, pair, o);
}

/*
 * The CPUs of one round: `threads` of this thread's allowed CPUs (`saved`),
 * from a start drawn by `pick`. Both sides of a round then run on the same
 * CPUs. On a shared or virtual machine CPUs differ in speed by more than the
 * changes a gate looks for, and a process that picks its own CPU would turn
 * that into noise between the sides. Rounds draw afresh, so they sample
 * every CPU. Returns 1 when chosen (0: too few CPUs, or none readable).
 */
static int round_cpus(cpu_set_t *want, cpu_set_t *saved, int threads, uint64_t pick)
{
    int allowed[CPU_SETSIZE], n = 0, cpu, i;

    if (sched_getaffinity(0, sizeof(*saved), saved) != 0)
        return 0;
    for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, saved))
            allowed[n++] = cpu;
    if (threads < 1 || threads > n)
        return 0;
    CPU_ZERO(want);
    for (i = 0; i < threads; i++)
        CPU_SET(allowed[(pick % (uint64_t)n + (uint64_t)i) % (uint64_t)n], want);
    return 1;
}

/* What a round draws for a case: which side goes first (sides in sequence), its CPUs, its turns' order. */
typedef struct ab_draw {
    int head_first;
    uint64_t pick;
    uint64_t seed;
} ab_draw;

/* A plugin case measured in lockstep by two fresh processes this round (not workers, not in sequence). */
static int fresh_pair(const ab_case *ac, const pg_ab_options *o, const ab_workers *aw)
{
    return ac->c->plugin && !o->sequential && !aw->ex;
}

/*
 * With PERFGATE_OVERLAP_SETUP=1: starts the pair of the next case this round
 * measures, when it is a fresh pair and CPUs are left beside the round's
 * `busy_set` (where `busy` takes its turns meanwhile): it sets up and warms
 * up on those, never on the CPUs being measured. Nothing starts on a machine
 * with no CPU to spare. Off by default: the set-up beside the measured pair
 * widened the per-round ratios as much as it saved (docs/statistics.md,
 * "Set-up out of turns").
 */
static int start_next(pg_exec_pair **out, size_t *out_i, const ab_case *cases, size_t ncases, size_t i,
                      const pg_ab_seq *seq, const ab_draw *draws, const side *sides, const pg_ab_options *o,
                      const ab_workers *aw, cpu_set_t *allowed, const cpu_set_t *busy_set, const pg_exec_pair *busy)
{
    uint64_t turns[PG_CHILD_CPU_WORDS], setup[PG_CHILD_CPU_WORDS];
    cpu_set_t spare, next_set;
    const char *env = getenv("PERFGATE_OVERLAP_SETUP");
    size_t j;
    int chosen;

    if (!env || strcmp(env, "1") != 0)
        return 0;
    for (j = i + 1; j < ncases && (cases[j].failed[0] || cases[j].failed[1] || seq[j].settled_at); j++)
        ;
    if (j == ncases || !fresh_pair(&cases[j], o, aw))
        return 0;
    chosen = round_cpus(&next_set, allowed, cases[j].c->threads, draws[j].pick);
    /* The allowed CPUs the measured pair does not use (it was given some of them). */
    CPU_XOR(&spare, allowed, busy_set);
    CPU_AND(&spare, &spare, allowed);
    if (!chosen || CPU_COUNT(&spare) == 0)
        return 0;
    *out_i = j;
    return start_pair(out, &cases[j], sides, o, draws[j].seed, pg_child_cpus_to_words(turns, &next_set),
                      pg_child_cpus_to_words(setup, &spare), busy);
}

/* The two sides' runs, named by their builds; each the side of one gate, pooled with no other run (model.h). */
static int side_runs(pg_ab_result *out, const pg_ab_options *o)
{
    int err;

    if ((err = pg_run_new(&out->base)) != 0 || (err = pg_run_new(&out->head)) != 0)
        return err;
    free(out->base->source);
    free(out->head->source);
    out->base->source = pg__strdup("ab-base");
    out->head->source = pg__strdup("ab-head");
    /* No build named (an injected change on the suite as written): no ref. */
    out->base->ref = o->base ? pg__strdup(o->base) : NULL;
    out->head->ref = o->head ? pg__strdup(o->head) : NULL;
    out->base->mode = PG_MODE_INTERLEAVED_BASE;
    out->head->mode = PG_MODE_INTERLEAVED_HEAD;
    if (!out->base->source || !out->head->source || (o->base && !out->base->ref) || (o->head && !out->head->ref))
        return pg_error_set(PG_ENOMEM, "out of memory");
    return 0;
}

/* A case a side could not measure, with the cause, as a head-side failure is told; NEW where the base lacks it. */
static void say_failed(pg_progress *prog, const ab_case *ac, int round, int rounds)
{
    const pg_result *bad = &ac->last[ac->failed[0] ? 0 : 1];

    pg_progress_line(prog, "[round %d/%d] %s  %s the %s build: %s; left out of the other rounds", round + 1, rounds,
                     ac->c->key, bad->absent && ac->failed[0] ? "NEW, not in" : "ERROR on",
                     ac->failed[0] ? "base" : "head", bad->message ? bad->message : "no reason given");
}

static int wanted(const pg_ab_options *o, const char *key)
{
    size_t i;

    if (!o->keys)
        return 1;
    for (i = 0; i < o->nkeys; i++)
        if (strcmp(o->keys[i], key) == 0)
            return 1;
    return 0;
}

/* One A/B job: what every step of pg_ab_run() shares. */
typedef struct ab_job {
    pg_ab_options o;
    side sides[2];
    ab_case *cases;
    size_t ncases;
    pg_ab_seq *seq;
    ab_draw *draws;
    ab_workers aw;
    pg_progress prog;
    pg_rng rng_state;         /* splitmix64: the order and CPUs are reproducible from the seed */
    cpu_set_t saved;
    pg_exec_pair *pending;    /* the next case's pair, setting up while one takes its turns */
    size_t pending_i;
    int64_t t0;
} ab_job;

/* The cases of `set` the options select, each with its rounds' arrays and its sequential state. */
static int select_cases(ab_job *j, const pg_suite_set *set)
{
    const pg_ab_options *o = &j->o;
    size_t i, k, n = 0;
    int err;

    for (i = 0; i < set->count; i++)
        n += set->suites[i]->ncases;
    if (!(j->cases = calloc(n + 1, sizeof(*j->cases))) || !(j->seq = calloc(n + 1, sizeof(*j->seq))) ||
        !(j->draws = calloc(n + 1, sizeof(*j->draws))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < set->count; i++)
        for (k = 0; k < set->suites[i]->ncases; k++) {
            const pg_case *c = &set->suites[i]->cases[k];
            pg_ab_seq init = PG_AB_SEQ_INIT;
            pg_ab_seq *sq = &j->seq[j->ncases];
            if ((o->filter && !pg__glob(o->filter, c->key)) || !wanted(o, c->key))
                continue;
            *sq = init;
            sq->threshold = o->threshold >= 0 ? o->threshold : c->threshold;
            sq->alpha = o->alpha >= 0 ? o->alpha : c->alpha;
            if ((err = pg__ab_case_init(&j->cases[j->ncases], c, sq->threshold, o->rounds)) != 0)
                return err;
            j->ncases++;
            sq->d = j->cases[j->ncases - 1].d;
            sq->dl = j->cases[j->ncases - 1].dl;
        }
    if (j->ncases == 0)
        return pg_error_set(PG_EUSAGE, "no benchmark case matched%s%s", o->filter ? " the filter " : "",
                            o->filter ? o->filter : "");
    return 0;
}

/* Measures round `round` of case i on both sides (a fresh pair, the workers, or in this thread). */
static int measure_case(ab_job *j, size_t i)
{
    ab_case *ac = &j->cases[i];
    const ab_draw *dr = &j->draws[i];
    cpu_set_t round_set;
    uint64_t words[PG_CHILD_CPU_WORDS];
    int chosen = round_cpus(&round_set, &j->saved, ac->c->threads, dr->pick), pinned, err = 0, k;

    if (fresh_pair(ac, &j->o, &j->aw)) {
        /*
         * Two fresh processes, handed the round's CPUs: they set up and warm up where they
         * start (in parallel where two CPUs are free) and join those CPUs to take turns.
         * While they do, the next case's pair sets up and warms up on the CPUs left free.
         */
        pg_exec_pair *pair = j->pending_i == i ? j->pending : NULL;
        j->pending = NULL;
        j->pending_i = SIZE_MAX;
        if (!pair && (err = start_pair(&pair, ac, j->sides, &j->o, dr->seed,
                                       chosen ? pg_child_cpus_to_words(words, &round_set) : NULL, NULL, NULL)) != 0)
            return err;
        if (chosen && (err = start_next(&j->pending, &j->pending_i, j->cases, j->ncases, i, j->seq, j->draws, j->sides,
                                        &j->o, &j->aw, &j->saved, &round_set, pair)) != 0) {
            pg_exec_pair_cancel(pair);
            return err;
        }
        return finish_pair(ac, pair, &j->o);
    }
    /* Workers, commands and sides in sequence run where this thread does, pinned for the round. */
    pinned = chosen && sched_setaffinity(0, sizeof(round_set), &round_set) == 0;
    if (ac->c->plugin && !j->o.sequential) {
        err = measure_workers(ac, i, j->sides, &j->o, dr->seed, &j->aw, &j->prog,
                              chosen ? pg_child_cpus_to_words(words, &round_set) : NULL);
    } else {
        for (k = 0; k < 2 && !err; k++) {
            int which = dr->head_first ? 1 - k : k;
            err = measure_round(ac, which, &j->sides[which], &j->o);
        }
    }
    if (pinned)
        sched_setaffinity(0, sizeof(j->saved), &j->saved);
    return err;
}

/* One round of every open case, then a look. Returns the cases still open, or a negative PG_E* code. */
static int run_round(ab_job *j, pg_ab_result *out, int round)
{
    pg_rng *rng = &j->rng_state;
    size_t i, live = 0, settled = 0, left = 0;
    char what[128];
    int open = 0, err;

    /* Fresh workers every `period` rounds: the rounds sample process-level variation too. */
    if (j->aw.ex && round > 0 && round % j->aw.period == 0)
        pg_exec_workers_recycle(j->aw.ex);
    /* Drawn for every case up front, so that the next case's pair can start early. */
    for (i = 0; i < j->ncases; i++) {
        j->draws[i].head_first = (int)(pg_stats_rng_next(rng) & 1);
        j->draws[i].pick = pg_stats_rng_next(rng);
        j->draws[i].seed = pg_stats_rng_next(rng);
    }
    for (i = 0; i < j->ncases; i++) {
        ab_case *ac = &j->cases[i];
        if (ac->failed[0] || ac->failed[1])
            continue;
        if (j->seq[i].settled_at) {
            settled++;
            continue;
        }
        if (j->o.max_time > 0 && (double)(pg__mono_ns() - j->t0) * 1e-9 >= j->o.max_time) {
            out->time_out = 1;
            break;
        }
        out->order_head_first[(size_t)round * j->ncases + i] = j->draws[i].head_first;
        ac->round = round;
        pg_progress_running(&j->prog, ac->c->key);
        if ((err = measure_case(j, i)) != 0 || (err = pg__ab_settle(ac, &j->o)) < 0)
            return err;
        if (ac->failed[0] || ac->failed[1]) {
            j->seq[i].failed = 1;
            say_failed(&j->prog, ac, round, j->o.rounds);
        } else if (err == 1) {
            /* Both sides measured and kept: the pair's log ratios join the case's rounds. */
            j->seq[i].n = ac->n[1];
            live++;
        } else {
            left++;
        }
    }
    /* A pair started for a case the loop did not reach (--max-time ran out). */
    pg_exec_pair_cancel(j->pending);
    j->pending = NULL;
    j->pending_i = SIZE_MAX;
    if (!j->o.fixed && (open = pg_ab_seq_look(j->seq, j->ncases, PG_AB_MIN_ROUNDS)) < 0)
        return open;
    if (j->o.fixed)
        snprintf(what, sizeof(what), "%zu case%s measured on both builds", live, live == 1 ? "" : "s");
    else
        snprintf(what, sizeof(what), "%zu case%s measured on both builds, %zu settled before, %d open", live,
                 live == 1 ? "" : "s", settled, open);
    if (left)
        snprintf(what + strlen(what), sizeof(what) - strlen(what), ", %zu left out (machine busy)", left);
    pg_progress_finished(&j->prog, what, NULL);
    return j->o.fixed ? (int)j->ncases : open;
}

/* Whether every open case has had PG_AB_BUSY_ROUNDS rounds or more, each left out for contention. */
static int all_open_busy(const ab_job *j)
{
    size_t i, open = 0;

    for (i = 0; i < j->ncases; i++) {
        const ab_case *ac = &j->cases[i];
        if (ac->failed[0] || ac->failed[1] || j->seq[i].settled_at)
            continue;
        if (!pg__ab_case_starved(ac))
            return 0;
        open++;
    }
    return open > 0;
}

/* The two runs, each case's paired analysis (both estimators) and the paired verdict. */
static int decide(ab_job *j, pg_ab_result *out)
{
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    size_t i;
    int err;

    if ((err = side_runs(out, &j->o)) != 0)
        return err;
    if (!(out->paired = calloc(j->ncases, sizeof(*out->paired))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < j->ncases; i++) {
        ab_case *ac = &j->cases[i];
        pg_paired_analysis *pa = &out->paired[i];
        int want = j->o.fixed || !j->seq[i].settled_at ? j->o.rounds : (int)j->seq[i].settled_at;
        /* Rounds measured, kept or left out for contention (each case's reason says how many were left out). */
        if ((int)ac->notes.measured > out->rounds)
            out->rounds = (int)ac->notes.measured;
        if ((err = pg__ab_side_result(out->base, ac, 0, want)) != 0 ||
            (err = pg__ab_side_result(out->head, ac, 1, want)) != 0)
            return err;
        /* Every round kept both sides unless one failed, so the values pair up by index. */
        if (!ac->failed[0] && !ac->failed[1] && ac->n[0] == ac->n[1] &&
            (err = pg_ab_paired_analyse_dual(pa, ac->vals[0], ac->vals[1], ac->lows[0], ac->lows[1], ac->n[0],
                                             j->seq[i].alpha)) != 0)
            return err;
        if (ac->failed[0] || ac->failed[1])
            pg_ab_paired_analyse(pa, NULL, NULL, 0, 0.95);
        else if (!j->o.fixed && pa->n > 0)
            pg_ab_seq_to_paired(pa, &j->seq[i]);
        pg__ab_notes(&pa->notes, ac);
    }
    /*
     * No run-to-run drift between the sides: they were measured in the same
     * job, interleaved round by round, so the rounds' own spread already holds
     * the drift the statistics would otherwise have to assume.
     */
    co.drift = 0;
    /* The method is the sequential one even when no case could be looked at (every round left out). */
    co.sequential = !j->o.fixed;
    co.threshold = j->o.threshold;
    co.alpha = j->o.alpha;
    if ((err = pg_compare(&out->cmp, out->head, (const pg_run *const *)&out->base, 1, &co)) != 0)
        return err;
    /* The rounds pair the sides: each case is decided on its paired analysis. */
    return pg_verdict_paired(out->cmp, out->head, out->paired, &co);
}

static void job_clear(ab_job *j)
{
    size_t i;

    pg_exec_pair_cancel(j->pending);
    pg_progress_end(&j->prog);
    workers_free(&j->aw);
    free(j->draws);
    free(j->seq);
    for (i = 0; j->cases && i < j->ncases; i++)
        pg__ab_case_clear(&j->cases[i]);
    free(j->cases);
    for (i = 0; i < 2; i++) {
        free(j->sides[i].dir);
        free(j->sides[i].path);
    }
}

int pg_ab_run(pg_ab_result *out, const pg_suite_set *set, const pg_ab_options *opts)
{
    pg_ab_options dflt = PG_AB_OPTIONS_INIT;
    ab_job j;
    char *title = NULL;
    int round, err = 0, open;

    memset(out, 0, sizeof(*out));
    memset(&j, 0, sizeof(j));
    j.o = opts ? *opts : dflt;
    j.pending_i = SIZE_MAX;
    j.t0 = pg__mono_ns();
    if (j.o.rounds <= 0)
        j.o.rounds = PG_AB_DEFAULT_ROUNDS;
    if (j.o.round_time <= 0 && (err = round_time_env(&j.o.round_time)) != 0)
        goto cleanup;
    if (j.o.seed == 0)
        j.o.seed = (uint64_t)pg__mono_ns() ^ ((uint64_t)pg__now_unix() << 20);
    out->max_rounds = j.o.rounds;
    out->sequential = !j.o.fixed;
    out->seed = j.o.seed;
    pg_stats_rng_seed(&j.rng_state, j.o.seed);
    if ((err = side_init(&j.sides[0], j.o.base, "base", &j.o)) != 0 ||
        (err = side_init(&j.sides[1], j.o.head, "head", &j.o)) != 0 ||
        (err = select_cases(&j, set)) != 0)
        goto cleanup;
    if (!(out->order_head_first = calloc((size_t)j.o.rounds * j.ncases, sizeof(int)))) {
        err = pg_error_set(PG_ENOMEM, "out of memory");
        goto cleanup;
    }
    if ((err = workers_init(&j.aw, j.cases, j.ncases, j.sides, &j.o)) != 0)
        goto cleanup;

    /* The mode follows where the lines go (a terminal or a log), as the executor's does. */
    title = pg__asprintf("perfgate: interleaving %zu case%s over %s%d rounds", j.ncases, j.ncases == 1 ? "" : "s",
                         j.o.fixed ? "" : "at most ", j.o.rounds);
    pg_progress_begin(&j.prog, pg_progress_mode_for(j.o.progress), j.o.progress, (size_t)j.o.rounds, title);
    j.prog.label = "round ";
    /*
     * Rounds outside, cases inside: each case's rounds spread over the whole
     * job. After each round a look settles the cases whose verdict is known;
     * they are not measured again, and the rounds end when none is open, at
     * the maximum, or when --max-time is spent (the time left goes to the
     * cases still open).
     */
    open = (int)j.ncases;
    for (round = 0; round < j.o.rounds && open > 0 && !out->time_out && !out->busy_stop; round++) {
        if ((open = run_round(&j, out, round)) < 0) {
            err = open;
            goto cleanup;
        }
        out->busy_stop = !j.o.fixed && open > 0 && round + 1 < j.o.rounds && all_open_busy(&j);
    }
    out->worker_processes = j.aw.started + pg_exec_workers_started(j.aw.ex);
    if (out->worker_processes)
        pg_progress_line(&j.prog, "%u worker processes measured the plugin cases (fresh ones every %d rounds)",
                         out->worker_processes, j.aw.period);
    out->workers_replaced = j.aw.replaced;
    pg_exec_workers_free(j.aw.ex);
    j.aw.ex = NULL;
    /* Before the end: an ended progress prints nothing more. */
    if (out->time_out)
        pg_progress_line(&j.prog, "--max-time %.0fs spent after %d round%s; the open cases are decided on the rounds "
                         "they have", j.o.max_time, round, round == 1 ? "" : "s");
    if (out->busy_stop)
        pg_progress_line(&j.prog, "stopped after %d rounds: every round of the %d open case%s was left out (the "
                         "machine was busy), and the %d rounds left would tell no more",
                         round, open, open == 1 ? "" : "s", j.o.rounds - round);
    pg_progress_end(&j.prog);
    err = decide(&j, out);

cleanup:
    free(title);
    job_clear(&j);
    if (err)
        pg_ab_result_clear(out);
    return err;
}

void pg_ab_result_clear(pg_ab_result *r)
{
    if (!r)
        return;
    pg_comparison_free(r->cmp);
    pg_run_free(r->base);
    pg_run_free(r->head);
    free(r->paired);
    free(r->order_head_first);
    memset(r, 0, sizeof(*r));
}
