/*
 * seq_sim.c - the sequential rule of interleaved gates in simulation: how
 * often it fails an unchanged suite (A/A), how often it catches +5 % and
 * +10 %, and how many rounds each case takes, against the fixed-count rule
 * (every case R rounds, Wilcoxon signed-rank and Tukey's interval).
 *
 * Model of one gate: `cases` cases, each with per-round log ratios
 * d = shift + sigma_c * T, T Student t with `df` degrees of freedom scaled
 * so that 1.4826 * MAD(T) = 1 (heavy tails: the odd round 3-5 sigma off),
 * sigma_c log-uniform in [sig_lo, sig_hi] per case. Case 0 carries the
 * shift of the series. Both rules get the same draws.
 *
 * The sequential rule is the library's (pg_ab_seq_look, runner/ab/paired.c):
 * a look after every round from PG_AB_MIN_ROUNDS on, a case stops once
 * REGRESSED, SAME or IMPROVED, at most R rounds.
 *
 * Two estimators (runner/verdict/model.h, "Two estimators"): each round also
 * has the log ratio of the sides' fastest tenths, dl = shift_low + the same
 * kind of noise, scaled by low_scale and correlated rho with d's. Every
 * series runs the rule on the median alone (as before) and on both on the
 * same draws; the series "+10% fast regime only" moves dl alone (a change
 * that shows only where the process runs fast: the median must not call it
 * SAME).
 *
 * With replay=FILE (the output of bench_ab_rounds: per case, the log ratios
 * of real interleaved rounds) the noise is this machine's instead of the
 * model's: each case of a gate is one case of FILE (cases= is ignored), each
 * round a value drawn from that case's measured rounds with a random sign.
 * Identical builds are exchangeable within a round, so an A/A log ratio is as
 * likely to be -d as d; the sign makes each case's median exactly 0 as the
 * error rates need, and keeps the measured spread and tails. The shifted
 * case is the one whose key starts with shifted=PREFIX (default: the first).
 *
 * With replay2=FILE (the output of bench_ab_rounds ... blocks: every block of
 * every round) both estimators come from this machine: each drawn round is
 * one measured round's pair (d, dl), both signs flipped together.
 *
 * usage: bench_seq_sim [trials=10000] [cases=20] [rounds=20] [df=3]
 *        [sig_lo=0.005] [sig_hi=0.04] [alpha=0.05] [low_scale=1] [rho=0.5]
 *        [replay=FILE | replay2=FILE] [shifted=PREFIX]
 * Prints one table row per series; reproducible (fixed seeds).
 */
#include "ab/ab.h"
#include "stats/stats.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim {
    int trials, cases, rounds;
    double df, sig_lo, sig_hi, alpha;
    double low_scale, rho;    /* the fastest tenth's noise: scale against the median's, correlation */
    double **pool;            /* replay: per case, its measured log ratios */
    double **pool_low;        /* replay2: the fastest tenths' log ratios of the same rounds */
    size_t *npool;
} sim;

static double unif(pg_rng *g)
{
    return ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;
}

static double gauss(pg_rng *g)
{
    return sqrt(-2 * log(unif(g))) * cos(2 * M_PI * unif(g));
}

/* Student t with df degrees of freedom (df > 0), as normal / sqrt(chi2/df); chi2 by sums of squares
 * for integer df, else by the gamma route through Marsaglia-Tsang. */
static double gamma_draw(pg_rng *g, double k)
{
    double d, c, x, v, u;

    if (k < 1)
        return gamma_draw(g, k + 1) * pow(unif(g), 1 / k);
    d = k - 1.0 / 3;
    c = 1 / sqrt(9 * d);
    for (;;) {
        do {
            x = gauss(g);
            v = 1 + c * x;
        } while (v <= 0);
        v = v * v * v;
        u = unif(g);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v;
    }
}

static double student(pg_rng *g, double df)
{
    return gauss(g) / sqrt(2 * gamma_draw(g, df / 2) / df);
}

/* MAD of a standard t(df), by simulation once (1e6 draws): the scale that makes 1.4826 MAD = 1. */
static double t_mad(double df)
{
    enum { N = 1000000 };
    double *x = malloc(N * sizeof(*x)), m;
    pg_rng g;
    size_t i;

    pg_stats_rng_seed(&g, 99);
    for (i = 0; i < N; i++)
        x[i] = fabs(student(&g, df));
    m = pg_stats_median(x, N);
    free(x);
    return m;
}

/* One round's noise of case c for both estimators: the model's, or a measured round with a random sign (replay). */
static void noise(const sim *s, pg_rng *g, int c, double sigma, double scale, double *med, double *low)
{
    uint64_t u;
    double a, b;

    if (!s->pool) {
        a = student(g, s->df) / (1.4826 * scale);
        b = student(g, s->df) / (1.4826 * scale);
        *med = sigma * a;
        *low = s->low_scale * sigma * (s->rho * a + sqrt(1 - s->rho * s->rho) * b);
        return;
    }
    u = pg_stats_rng_next(g);
    *med = (u & 1 ? 1 : -1) * s->pool[c][(u >> 1) % s->npool[c]];
    /* Exchangeable sides flip both estimators of a round together. */
    *low = s->pool_low ? (u & 1 ? 1 : -1) * s->pool_low[c][(u >> 1) % s->npool[c]] : *med;
}

/* Reads bench_ab_rounds output: a line per case, its key then its values ('#' lines skipped). */
static int load_pool(sim *s, const char *path, const char *shifted)
{
    FILE *f = fopen(path, "r");
    char line[65536];

    if (!f) {
        fprintf(stderr, "bench_seq_sim: cannot open %s\n", path);
        return -1;
    }
    s->cases = 0;
    while (fgets(line, sizeof(line), f)) {
        char *p = line, *end;
        size_t n = 0, cap = 64;
        double *v;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "bench_seq_sim: %s: a line longer than %zu bytes\n", path, sizeof(line) - 1);
            fclose(f);
            return -1;
        }
        if (line[0] == '#' || !strchr(line, ' '))
            continue;
        v = malloc(cap * sizeof(*v));
        p = strchr(line, ' ');
        for (;;) {
            double x = strtod(p, &end);
            if (end == p)
                break;
            if (n == cap)
                v = realloc(v, (cap *= 2) * sizeof(*v));
            v[n++] = x;
            p = end;
        }
        if (n == 0) {
            free(v);
            continue;
        }
        s->pool = realloc(s->pool, (size_t)(s->cases + 1) * sizeof(*s->pool));
        s->npool = realloc(s->npool, (size_t)(s->cases + 1) * sizeof(*s->npool));
        s->pool[s->cases] = v;
        s->npool[s->cases++] = n;
        /* The shifted case goes first: the series shift case 0. */
        if (shifted && strncmp(line, shifted, strlen(shifted)) == 0) {
            int last = s->cases - 1;
            s->pool[last] = s->pool[0];
            s->npool[last] = s->npool[0];
            s->pool[0] = v;
            s->npool[0] = n;
            shifted = NULL;
        }
    }
    fclose(f);
    if (s->cases == 0) {
        fprintf(stderr, "bench_seq_sim: no rounds in %s\n", path);
        return -1;
    }
    if (shifted) {
        fprintf(stderr, "bench_seq_sim: no case of %s starts with '%s' (shifted=)\n", path, shifted);
        return -1;
    }
    return 0;
}

/* One measured round of a case in bench_ab_rounds blocks output: both sides' blocks, read one line at a time. */
typedef struct pool2_round {
    char key[512];
    int round, have;
    double med[2], low[2], busy;
} pool2_round;

static void pool2_push(sim *s, char (*keys)[512], size_t *cap, const pool2_round *r)
{
    int c;

    if (r->have != 3 || r->busy >= 0.5)
        return;
    for (c = 0; c < s->cases && strcmp(keys[c], r->key) != 0; c++)
        ;
    if (c == s->cases) {
        s->pool = realloc(s->pool, (size_t)(c + 1) * sizeof(*s->pool));
        s->pool_low = realloc(s->pool_low, (size_t)(c + 1) * sizeof(*s->pool_low));
        s->npool = realloc(s->npool, (size_t)(c + 1) * sizeof(*s->npool));
        s->pool[c] = malloc(4096 * sizeof(double));
        s->pool_low[c] = malloc(4096 * sizeof(double));
        s->npool[c] = 0;
        snprintf(keys[c], 512, "%s", r->key);
        s->cases++;
    }
    if (s->npool[c] < 4096) {
        s->pool[c][s->npool[c]] = log(r->med[1] / r->med[0]);
        s->pool_low[c][s->npool[c]++] = log(r->low[1] / r->low[0]);
    }
    (void)cap;
}

/*
 * Reads bench_ab_rounds blocks output: per line one side of one round (KEY
 * ROUND SIDE WAITED STOLEN TRANSIENT BLOCKS...); each round's pair of sides
 * becomes one (d, dl) of the library's estimators (pg_stats_shape), rounds
 * that the gate would leave out for contention are skipped.
 */
static int load_pool2(sim *s, const char *path, const char *shifted)
{
    FILE *f = fopen(path, "r");
    static char line[1 << 20], keys[256][512];
    pool2_round cur;
    size_t cap = 0;
    int c;

    if (!f) {
        fprintf(stderr, "bench_seq_sim: cannot open %s\n", path);
        return -1;
    }
    memset(&cur, 0, sizeof(cur));
    s->cases = 0;
    while (fgets(line, sizeof(line), f) && s->cases < 256) {
        char key[512], side[8], *p, *end;
        int round, off = 0, which;
        double waited, stolen, transient, x[65536];
        size_t n = 0;
        pg_sample_shape sh;
        if (line[0] == '#' || sscanf(line, "%511s %d %7s %lf %lf %lf %n", key, &round, side, &waited, &stolen,
                                     &transient, &off) < 6)
            continue;
        for (p = line + off; n < 65536; p = end) {
            x[n] = strtod(p, &end);
            if (end == p)
                break;
            n++;
        }
        if (n == 0 || pg_stats_shape(&sh, x, n) != 0)
            continue;
        if (strcmp(key, cur.key) != 0 || round != cur.round) {
            pool2_push(s, keys, &cap, &cur);
            memset(&cur, 0, sizeof(cur));
            snprintf(cur.key, sizeof(cur.key), "%s", key);
            cur.round = round;
        }
        which = strcmp(side, "head") == 0;
        cur.med[which] = sh.median;
        cur.low[which] = sh.low;
        cur.busy = fmax(cur.busy, waited + stolen);
        cur.have |= 1 << which;
    }
    pool2_push(s, keys, &cap, &cur);
    fclose(f);
    if (s->cases == 0) {
        fprintf(stderr, "bench_seq_sim: no rounds in %s\n", path);
        return -1;
    }
    for (c = 0; shifted && c < s->cases; c++)
        if (strncmp(keys[c], shifted, strlen(shifted)) == 0) {
            double *t = s->pool[0], *tl = s->pool_low[0];
            size_t tn = s->npool[0];
            s->pool[0] = s->pool[c];
            s->pool_low[0] = s->pool_low[c];
            s->npool[0] = s->npool[c];
            s->pool[c] = t;
            s->pool_low[c] = tl;
            s->npool[c] = tn;
            shifted = NULL;
        }
    if (shifted) {
        fprintf(stderr, "bench_seq_sim: no case of %s starts with '%s' (shifted=)\n", path, shifted);
        return -1;
    }
    return 0;
}

/* What one rule did over a series. */
typedef struct rule_tally {
    int aa_regressed, aa_improved;   /* gates with a REGRESSED / IMPROVED among the unchanged cases */
    int hit, same0;                  /* case 0 REGRESSED; case 0 SAME (a miss called settled) */
} rule_tally;

typedef struct tally {
    int gates;
    rule_tally seq, fixed;
    long rounds_total;               /* case-rounds of the sequential rule */
    int *rounds;                     /* per case of every gate */
    size_t nrounds;
    long cs_miss;                    /* cases whose sequence ever excluded the true median (20 looks) */
    long cs_cases;
} tally;

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/*
 * The fixed-count rule on R rounds per case: Wilcoxon one-sided p in the HL
 * direction, Holm, Tukey at 1 - alpha; with two estimators the library's
 * dual analysis (pg_ab_paired_analyse_dual) and rule.
 */
static void fixed_rule(pg_verdict *out, double *const *d, double *const *dl, const sim *s, double threshold, int dual)
{
    double *p = malloc((size_t)s->cases * sizeof(*p)), *adj = malloc((size_t)s->cases * sizeof(*adj));
    double *zero = calloc((size_t)s->rounds, sizeof(double)), *hm = malloc((size_t)s->rounds * sizeof(double)),
           *hl = malloc((size_t)s->rounds * sizeof(double)), *one = malloc((size_t)s->rounds * sizeof(double));
    pg_paired_analysis *pa = malloc((size_t)s->cases * sizeof(*pa));
    int c, r;

    for (r = 0; r < s->rounds; r++)
        one[r] = 1;
    (void)zero;
    for (c = 0; c < s->cases; c++) {
        for (r = 0; r < s->rounds; r++) {
            hm[r] = exp(d[c][r]);
            hl[r] = exp(dl[c][r]);
        }
        if (dual) {
            pg_ab_paired_analyse_dual(&pa[c], one, hm, one, hl, (size_t)s->rounds, s->alpha);
            p[c] = pg_verdict_dual_p(pa[c].ratio >= 1 ? pa[c].p_slower : pa[c].p_faster,
                                     pa[c].low.ratio >= 1 ? pa[c].low_p_slower : pa[c].low_p_faster);
        } else {
            pg_ab_paired_analyse(&pa[c], one, hm, (size_t)s->rounds, 1 - s->alpha);
            p[c] = pa[c].ratio >= 1 ? pa[c].p_slower : pa[c].p_faster;
        }
    }
    pg_stats_holm(adj, p, (size_t)s->cases);
    for (c = 0; c < s->cases; c++) {
        if (dual) {
            pg_estimator_bounds m = {pa[c].ratio, pa[c].ci_lo, pa[c].ci_hi, pa[c].claim_lo, pa[c].claim_hi};
            pg_decided_by by;
            out[c] = pg_verdict_rule_dual(&by, &m, &pa[c].low, adj[c], threshold, s->alpha);
        } else {
            out[c] = pg_verdict_rule(pa[c].ci_lo, pa[c].ci_hi, adj[c], threshold, s->alpha);
        }
    }
    free(p);
    free(adj);
    free(zero);
    free(hm);
    free(hl);
    free(one);
    free(pa);
}

static void count(rule_tally *t, const pg_verdict *v, const sim *s, int shifted)
{
    int c, any_reg = 0, any_imp = 0;

    for (c = 0; c < s->cases; c++) {
        if (c == 0 && shifted) {
            t->hit += v[c] == PG_VERDICT_REGRESSED;
            t->same0 += v[c] == PG_VERDICT_SAME;
        } else {
            any_reg |= v[c] == PG_VERDICT_REGRESSED;
            any_imp |= v[c] == PG_VERDICT_IMPROVED;
        }
    }
    t->aa_regressed += any_reg;
    t->aa_improved += any_imp;
}

/* One series: `shift` moves case 0's median blocks, `shift_low` its fastest tenths. */
static void run_series(const sim *s, double shift, double shift_low, double threshold, int dual, double scale,
                       uint64_t seed, tally *t)
{
    double **d = malloc((size_t)s->cases * sizeof(*d)), **dl = malloc((size_t)s->cases * sizeof(*dl));
    double *sigma = malloc((size_t)s->cases * sizeof(*sigma));
    pg_ab_seq *seq = malloc((size_t)s->cases * sizeof(*seq));
    pg_verdict *v = malloc((size_t)s->cases * sizeof(*v));
    int shifted = shift != 0 || shift_low != 0;
    pg_rng g;
    int trial, c, r;

    memset(t, 0, sizeof(*t));
    t->rounds = malloc((size_t)s->trials * (size_t)s->cases * sizeof(int));
    pg_stats_rng_seed(&g, seed);
    for (c = 0; c < s->cases; c++) {
        d[c] = malloc((size_t)s->rounds * sizeof(double));
        dl[c] = malloc((size_t)s->rounds * sizeof(double));
    }
    for (trial = 0; trial < s->trials; trial++) {
        int open = s->cases;
        for (c = 0; c < s->cases; c++) {
            pg_ab_seq init = PG_AB_SEQ_INIT;
            sigma[c] = s->sig_lo * pow(s->sig_hi / s->sig_lo, unif(&g));
            for (r = 0; r < s->rounds; r++) {
                double a, b;
                noise(s, &g, c, sigma[c], scale, &a, &b);
                d[c][r] = (c == 0 ? log(1 + shift) : 0) + a;
                dl[c][r] = (c == 0 ? log(1 + shift_low) : 0) + b;
            }
            seq[c] = init;
            seq[c].d = d[c];
            seq[c].dl = dual ? dl[c] : NULL;
            seq[c].threshold = threshold;
            seq[c].alpha = s->alpha;
        }
        /* The sequential rule: one more round for every open case, then a look. */
        for (r = 1; r <= s->rounds && open > 0; r++) {
            for (c = 0; c < s->cases; c++)
                if (!seq[c].settled_at)
                    seq[c].n = (size_t)r;
            open = pg_ab_seq_look(seq, (size_t)s->cases, PG_AB_MIN_ROUNDS);
        }
        for (c = 0; c < s->cases; c++) {
            v[c] = seq[c].settled;
            t->rounds[t->nrounds++] = (int)seq[c].n;
            t->rounds_total += (long)seq[c].n;
        }
        count(&t->seq, v, s, shifted);
        /* Validity of the median's sequence itself: looked at after every round, all rounds. */
        for (c = 0; c < s->cases; c++) {
            double truth = c == 0 ? log(1 + shift) : 0;
            int miss = 0;
            for (r = 1; r <= s->rounds && !miss; r++) {
                pg_sign_cs cs;
                pg_stats_sign_cs(&cs, d[c], (size_t)r, s->alpha, NULL, 0);
                miss = cs.lo > truth || cs.hi < truth;
            }
            t->cs_miss += miss;
            t->cs_cases++;
        }
        fixed_rule(v, d, dl, s, threshold, dual);
        count(&t->fixed, v, s, shifted);
        t->gates++;
    }
    for (c = 0; c < s->cases; c++) {
        free(d[c]);
        free(dl[c]);
    }
    free(d);
    free(dl);
    free(sigma);
    free(seq);
    free(v);
}

static void print_row(const char *name, const sim *s, double threshold, const tally *t, int shifted, int dual)
{
    int *rs = t->rounds;
    size_t n = t->nrounds;
    char hit[64] = "-", same[64] = "-";

    qsort(rs, n, sizeof(int), cmp_int);
    if (shifted) {
        snprintf(hit, sizeof(hit), "%.1f%% / %.1f%%", 100.0 * t->seq.hit / t->gates, 100.0 * t->fixed.hit / t->gates);
        snprintf(same, sizeof(same), "%.2f%% / %.2f%%", 100.0 * t->seq.same0 / t->gates,
                 100.0 * t->fixed.same0 / t->gates);
    }
    printf("| %s | %s | %.0f%% | %d | %d / %d | %d / %d | %s | %s | %d / %d / %.1f | %.0f%% | %.4f |\n", name,
           dual ? "both" : "median", 100 * threshold, t->gates, t->seq.aa_regressed, t->fixed.aa_regressed,
           t->seq.aa_improved, t->fixed.aa_improved, hit, same, rs[n / 2], rs[n - 1], (double)t->rounds_total / (double)n,
           100.0 * (double)t->rounds_total / ((double)n * s->rounds), (double)t->cs_miss / (double)t->cs_cases);
}

int main(int argc, char **argv)
{
    sim s = {10000, 20, 20, 3, 0.005, 0.04, 0.05, 1.0, 0.5, NULL, NULL, NULL};
    const char *replay = NULL, *replay2 = NULL, *shifted = NULL;
    struct {
        const char *name;
        double shift, shift_low, threshold;
    } series[] = {{"A/A", 0, 0, 0.05},          {"+5%", 0.05, 0.05, 0.05},  {"+10%", 0.10, 0.10, 0.05},
                  {"+10% fast regime only", 0, 0.10, 0.05}, {"+5%", 0.05, 0.05, 0.02}, {"A/A", 0, 0, 0.02}};
    double scale;
    int i, dual;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "trials=", 7))
            s.trials = atoi(a + 7);
        else if (!strncmp(a, "cases=", 6))
            s.cases = atoi(a + 6);
        else if (!strncmp(a, "rounds=", 7))
            s.rounds = atoi(a + 7);
        else if (!strncmp(a, "df=", 3))
            s.df = atof(a + 3);
        else if (!strncmp(a, "sig_lo=", 7))
            s.sig_lo = atof(a + 7);
        else if (!strncmp(a, "sig_hi=", 7))
            s.sig_hi = atof(a + 7);
        else if (!strncmp(a, "alpha=", 6))
            s.alpha = atof(a + 6);
        else if (!strncmp(a, "low_scale=", 10))
            s.low_scale = atof(a + 10);
        else if (!strncmp(a, "rho=", 4))
            s.rho = atof(a + 4);
        else if (!strncmp(a, "replay=", 7))
            replay = a + 7;
        else if (!strncmp(a, "replay2=", 8))
            replay2 = a + 8;
        else if (!strncmp(a, "shifted=", 8))
            shifted = a + 8;
        else {
            fprintf(stderr, "bench_seq_sim: unknown argument '%s'\n", a);
            return 2;
        }
    }
    if ((replay && load_pool(&s, replay, shifted) != 0) || (replay2 && load_pool2(&s, replay2, shifted) != 0))
        return 2;
    scale = replay || replay2 ? 1 : t_mad(s.df);
    if (replay || replay2)
        printf("# seq_sim: %d gates per series of the %d cases of %s, at most %d rounds (looks from round %d), "
               "per-round log ratios drawn from the measured ones with a random sign%s, alpha %.2f\n",
               s.trials, s.cases, replay ? replay : replay2, s.rounds, PG_AB_MIN_ROUNDS,
               replay2 ? " (both estimators of a measured round together)" : "", s.alpha);
    else
        printf("# seq_sim: %d gates per series of %d cases, at most %d rounds (looks from round %d), per-round log "
               "ratio noise t(%g) with robust sd log-uniform in [%.1f%%, %.1f%%], the fastest tenth's %gx that with "
               "correlation %g, alpha %.2f\n",
               s.trials, s.cases, s.rounds, PG_AB_MIN_ROUNDS, s.df, 100 * s.sig_lo, 100 * s.sig_hi, s.low_scale, s.rho,
               s.alpha);
    printf("# figures are sequential / fixed %d rounds; estimators: the median block alone (the rule before) or both "
           "(the median block and the fastest tenth)\n\n", s.rounds);
    printf("| series | estimators | threshold | gates | gates with a false REGRESSED | with a false IMPROVED | case 0 "
           "REGRESSED | case 0 SAME | rounds per case median / max / mean | of the fixed rounds | sequence miss rate "
           "per case |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < (int)(sizeof(series) / sizeof(series[0])); i++)
        for (dual = 0; dual < 2; dual++) {
            tally t;
            run_series(&s, series[i].shift, series[i].shift_low, series[i].threshold, dual, scale, 1000 + (uint64_t)i,
                       &t);
            print_row(series[i].name, &s, series[i].threshold, &t, series[i].shift != 0 || series[i].shift_low != 0,
                      dual);
            free(t.rounds);
        }
    for (i = 0; i < (s.pool ? s.cases : 0); i++) {
        free(s.pool[i]);
        if (s.pool_low)
            free(s.pool_low[i]);
    }
    free(s.pool);
    free(s.pool_low);
    free(s.npool);
    return 0;
}
