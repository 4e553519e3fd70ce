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
 * With replay=FILE (the output of bench_ab_rounds: per case, the log ratios
 * of real interleaved rounds) the noise is this machine's instead of the
 * model's: each case of a gate is one case of FILE (cases= is ignored), each
 * round a value drawn from that case's measured rounds with a random sign.
 * Identical builds are exchangeable within a round, so an A/A log ratio is as
 * likely to be -d as d; the sign makes each case's median exactly 0 as the
 * error rates need, and keeps the measured spread and tails. The shifted
 * case is the one whose key starts with shifted=PREFIX (default: the first).
 *
 * usage: bench_seq_sim [trials=10000] [cases=20] [rounds=20] [df=3]
 *        [sig_lo=0.005] [sig_hi=0.04] [alpha=0.05] [replay=FILE [shifted=PREFIX]]
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
    double **pool;            /* replay: per case, its measured log ratios */
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

/* One round's noise of case c: the model's, or a measured round with a random sign (replay). */
static double noise(const sim *s, pg_rng *g, int c, double sigma, double scale)
{
    uint64_t u;

    if (!s->pool)
        return sigma * student(g, s->df) / (1.4826 * scale);
    u = pg_stats_rng_next(g);
    return (u & 1 ? 1 : -1) * s->pool[c][(u >> 1) % s->npool[c]];
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

typedef struct tally {
    int gates;
    int aa_regressed, aa_improved;   /* gates with a REGRESSED / IMPROVED among the unchanged cases */
    int hit, same0;                  /* case 0 REGRESSED; case 0 SAME (a miss called settled) */
    int fixed_aa_regressed, fixed_aa_improved, fixed_hit, fixed_same0;
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

/* The fixed-count rule on R rounds per case: Wilcoxon one-sided p in the HL direction, Holm, Tukey 95 %. */
static void fixed_rule(pg_verdict *out, double *const *d, const sim *s, double threshold)
{
    double *p = malloc((size_t)s->cases * sizeof(*p)), *adj = malloc((size_t)s->cases * sizeof(*adj));
    pg_signed_rank *up = malloc((size_t)s->cases * sizeof(*up));
    int c;

    for (c = 0; c < s->cases; c++) {
        pg_signed_rank down;
        pg_stats_signed_rank(&up[c], d[c], (size_t)s->rounds, PG_ALT_GREATER, 0.95);
        pg_stats_signed_rank(&down, d[c], (size_t)s->rounds, PG_ALT_LESS, 0.95);
        p[c] = up[c].estimate >= 0 ? up[c].p : down.p;
    }
    pg_stats_holm(adj, p, (size_t)s->cases);
    for (c = 0; c < s->cases; c++)
        out[c] = pg_verdict_rule(exp(up[c].lo), exp(up[c].hi), adj[c], threshold, s->alpha);
    free(p);
    free(adj);
    free(up);
}

static void run_series(const sim *s, double shift, double threshold, double scale, uint64_t seed, tally *t)
{
    double **d = malloc((size_t)s->cases * sizeof(*d)), *sigma = malloc((size_t)s->cases * sizeof(*sigma));
    pg_ab_seq *seq = malloc((size_t)s->cases * sizeof(*seq));
    pg_verdict *fixed = malloc((size_t)s->cases * sizeof(*fixed));
    pg_rng g;
    int trial, c, r;

    memset(t, 0, sizeof(*t));
    t->rounds = malloc((size_t)s->trials * (size_t)s->cases * sizeof(int));
    pg_stats_rng_seed(&g, seed);
    for (c = 0; c < s->cases; c++)
        d[c] = malloc((size_t)s->rounds * sizeof(double));
    for (trial = 0; trial < s->trials; trial++) {
        int any_reg = 0, any_imp = 0, fany_reg = 0, fany_imp = 0, open = s->cases;
        for (c = 0; c < s->cases; c++) {
            pg_ab_seq init = PG_AB_SEQ_INIT;
            sigma[c] = s->sig_lo * pow(s->sig_hi / s->sig_lo, unif(&g));
            for (r = 0; r < s->rounds; r++)
                d[c][r] = (c == 0 ? log(1 + shift) : 0) + noise(s, &g, c, sigma[c], scale);
            seq[c] = init;
            seq[c].d = d[c];
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
            pg_verdict v = seq[c].settled;
            t->rounds[t->nrounds++] = (int)seq[c].n;
            t->rounds_total += (long)seq[c].n;
            if (c == 0 && shift != 0) {
                t->hit += v == PG_VERDICT_REGRESSED;
                t->same0 += v == PG_VERDICT_SAME;
            } else {
                any_reg |= v == PG_VERDICT_REGRESSED;
                any_imp |= v == PG_VERDICT_IMPROVED;
            }
        }
        t->aa_regressed += any_reg;
        t->aa_improved += any_imp;
        /* Validity of the sequence itself: looked at after every round, all rounds. */
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
        fixed_rule(fixed, d, s, threshold);
        for (c = 0; c < s->cases; c++) {
            if (c == 0 && shift != 0) {
                t->fixed_hit += fixed[c] == PG_VERDICT_REGRESSED;
                t->fixed_same0 += fixed[c] == PG_VERDICT_SAME;
            } else {
                fany_reg |= fixed[c] == PG_VERDICT_REGRESSED;
                fany_imp |= fixed[c] == PG_VERDICT_IMPROVED;
            }
        }
        t->fixed_aa_regressed += fany_reg;
        t->fixed_aa_improved += fany_imp;
        t->gates++;
    }
    for (c = 0; c < s->cases; c++)
        free(d[c]);
    free(d);
    free(sigma);
    free(seq);
    free(fixed);
}

static void print_row(const char *name, const sim *s, double threshold, const tally *t, int shifted)
{
    int *rs = t->rounds;
    size_t n = t->nrounds;

    qsort(rs, n, sizeof(int), cmp_int);
    printf("| %s | %.0f%% | %d | %d / %d | %d / %d | %s | %s | %d / %d / %.1f | %.0f%% | %.4f |\n", name,
           100 * threshold, t->gates, t->aa_regressed, t->fixed_aa_regressed, t->aa_improved, t->fixed_aa_improved,
           shifted ? pg__asprintf("%.1f%% / %.1f%%", 100.0 * t->hit / t->gates, 100.0 * t->fixed_hit / t->gates)
                   : "-",
           shifted ? pg__asprintf("%.2f%% / %.2f%%", 100.0 * t->same0 / t->gates, 100.0 * t->fixed_same0 / t->gates)
                   : "-",
           rs[n / 2], rs[n - 1], (double)t->rounds_total / (double)n,
           100.0 * (double)t->rounds_total / ((double)n * s->rounds), (double)t->cs_miss / (double)t->cs_cases);
}

int main(int argc, char **argv)
{
    sim s = {10000, 20, 20, 3, 0.005, 0.04, 0.05, NULL, NULL};
    const char *replay = NULL, *shifted = NULL;
    struct {
        const char *name;
        double shift, threshold;
    } series[] = {{"A/A", 0, 0.05}, {"+5%", 0.05, 0.05}, {"+10%", 0.10, 0.05}, {"+5%", 0.05, 0.02}, {"A/A", 0, 0.02}};
    double scale;
    int i;

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
        else if (!strncmp(a, "replay=", 7))
            replay = a + 7;
        else if (!strncmp(a, "shifted=", 8))
            shifted = a + 8;
        else {
            fprintf(stderr, "bench_seq_sim: unknown argument '%s'\n", a);
            return 2;
        }
    }
    if (replay && load_pool(&s, replay, shifted) != 0)
        return 2;
    scale = replay ? 1 : t_mad(s.df);
    if (replay)
        printf("# seq_sim: %d gates per series of the %d cases of %s, at most %d rounds (looks from round %d), "
               "per-round log ratios drawn from the measured ones with a random sign, alpha %.2f\n",
               s.trials, s.cases, replay, s.rounds, PG_AB_MIN_ROUNDS, s.alpha);
    else
        printf("# seq_sim: %d gates per series of %d cases, at most %d rounds (looks from round %d), per-round log "
               "ratio noise t(%g) with robust sd log-uniform in [%.1f%%, %.1f%%], alpha %.2f\n",
               s.trials, s.cases, s.rounds, PG_AB_MIN_ROUNDS, s.df, 100 * s.sig_lo, 100 * s.sig_hi, s.alpha);
    printf("# figures are sequential / fixed %d rounds\n\n", s.rounds);
    printf("| series | threshold | gates | gates with a false REGRESSED | with a false IMPROVED | case 0 REGRESSED | "
           "case 0 SAME | rounds per case median / max / mean | of the fixed rounds | sequence miss rate per case |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < (int)(sizeof(series) / sizeof(series[0])); i++) {
        tally t;
        run_series(&s, series[i].shift, series[i].threshold, scale, 1000 + (uint64_t)i, &t);
        print_row(series[i].name, &s, series[i].threshold, &t, series[i].shift != 0);
        free(t.rounds);
    }
    for (i = 0; i < (s.pool ? s.cases : 0); i++)
        free(s.pool[i]);
    free(s.pool);
    free(s.npool);
    return 0;
}
