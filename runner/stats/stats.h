/*
 * stats.h - statistics on sample arrays: descriptive summaries, the
 * Mann-Whitney U test, Hodges-Lehmann shift with Moses' interval, a seeded
 * bootstrap of the ratio of medians, Holm and Benjamini-Hochberg.
 *
 * Pure functions: no global state. Functions that return a double and take
 * unsorted input copy it into a temporary array (and return NAN when that
 * allocation fails); the int-returning functions return PG_ENOMEM instead.
 * Nothing else allocates. Conventions follow numpy/scipy so that the
 * reference tables in tests/data/stats/ (made by
 * tools/gen_stats_reference.py) can check every function.
 */
#ifndef PG_STATS_H
#define PG_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

/**
 * Quantile q in [0,1] of `x` (n > 0) with numpy's default linear
 * interpolation. `x` need not be sorted; it is not modified.
 */
double pg_stats_quantile(const double *x, size_t n, double q);

/** Same as pg_stats_quantile on an already sorted array, without copying. */
double pg_stats_quantile_sorted(const double *sorted, size_t n, double q);

/** Median of `x` (n > 0). */
double pg_stats_median(const double *x, size_t n);

/** Interquartile range q(0.75) - q(0.25), numpy's linear interpolation. */
double pg_stats_iqr(const double *x, size_t n);

/** Median absolute deviation from the median, unscaled (scipy's scale=1). */
double pg_stats_mad(const double *x, size_t n);

/**
 * pg_stats_mad() of an already sorted array (n > 0), without sorting:
 * `scratch` holds n doubles.
 */
double pg_stats_mad_sorted(const double *sorted, size_t n, double *scratch);

/** Sorts x ascending in place (no NaN): the sort every statistic here uses. */
void pg_stats_sort(double *x, size_t n);

/** Arithmetic mean (NAN for n == 0). */
double pg_stats_mean(const double *x, size_t n);

/** Sample standard deviation with n-1 in the denominator (0 for n < 2). */
double pg_stats_stddev(const double *x, size_t n);

/** Fills n, median, quartiles, IQR, mean, sample stddev, min and max. */
int pg_stats_summarize(pg_summary *out, const double *x, size_t n);

/* ---- distributions ---------------------------------------------------- */

/** Standard normal survival function P(Z > z), accurate in both tails. */
double pg_stats_norm_sf(double z);

/** Standard normal quantile: z with P(Z <= z) = p, for 0 < p < 1. */
double pg_stats_norm_ppf(double p);

/** Student t quantile with `df` > 0 degrees of freedom, for 0 < p < 1. */
double pg_stats_t_ppf(double p, double df);

/* ---- Mann-Whitney U --------------------------------------------------- */

typedef enum pg_alternative {
    PG_ALT_TWO_SIDED = 0,
    PG_ALT_GREATER,   /* x tends to be larger than y */
    PG_ALT_LESS       /* x tends to be smaller than y */
} pg_alternative;

typedef enum pg_mwu_method {
    PG_MWU_AUTO = 0,  /* scipy's rule: exact when min(nx, ny) <= 8 and no ties */
    PG_MWU_EXACT,     /* exact null distribution (ties are ignored, as in scipy) */
    PG_MWU_ASYMPTOTIC /* normal approximation, tie and continuity corrected */
} pg_mwu_method;

typedef struct pg_mwu {
    double u1;        /* U of x: sum of x's ranks minus nx(nx+1)/2 */
    double p;         /* p-value for the requested alternative */
    int exact;        /* 1 when p came from the exact distribution */
    int ties;         /* 1 when the pooled sample has ties */
} pg_mwu;

/**
 * Mann-Whitney U test of x against y, matching scipy.stats.mannwhitneyu
 * (use_continuity=True). Allocates O(nx+ny) temporaries, plus
 * O(min^2 (nx+ny)) for the exact distribution.
 * @param[out] out the statistic and p-value.
 * @return 0; PG_EINVAL when a side is empty or an exact distribution would
 *         be too large to compute (min(nx,ny) > 60); PG_ENOMEM.
 */
int pg_stats_mwu(pg_mwu *out, const double *x, size_t nx, const double *y, size_t ny, pg_alternative alt,
                 pg_mwu_method method);

/**
 * Exact null distribution of U for sample sizes nx, ny (no ties): fills
 * out[u] = P(U = u) for u = 0..nx*ny (the caller allocates nx*ny+1 doubles).
 * @return 0, PG_EINVAL when min(nx,ny) > 60, PG_ENOMEM.
 */
int pg_stats_mwu_pmf(double *out, size_t nx, size_t ny);

/* ---- Hodges-Lehmann shift and Moses' interval ------------------------- */

typedef struct pg_shift {
    double estimate;  /* median of all nx*ny differences x_i - y_j */
    double lo, hi;    /* distribution-free interval; -inf/+inf when n is too small */
    double level;     /* the coverage asked for */
    size_t k;         /* 1-based rank of the lower bound among the sorted differences */
    int exact;        /* 1 when k came from the exact U distribution */
} pg_shift;

/**
 * Hodges-Lehmann estimate of the shift x - y and Moses' distribution-free
 * interval at `level` (e.g. 0.95): [D(k), D(nx*ny+1-k)] of the sorted
 * differences, where k is the largest integer with P(U <= k-1) <= (1-level)/2
 * under the exact null distribution of U when min(nx,ny) <= 8, else
 * k = floor(nx*ny/2 - z * sqrt(nx*ny*(nx+ny+1)/12)) with z the normal
 * (1+level)/2 quantile. The differences are never all formed: order
 * statistics are selected in the sorted difference matrix, in O(nx + ny)
 * memory (plus nx*ny+1 doubles for the exact U distribution when it is used)
 * and, in practice, O((nx + ny) log(nx * ny)) time per rank.
 * @return 0, PG_EINVAL (empty side, bad level), PG_ENOMEM.
 */
int pg_stats_hodges_lehmann(pg_shift *out, const double *x, size_t nx, const double *y, size_t ny, double level);

/* ---- Wilcoxon signed-rank (paired rounds) ------------------------------ */

/* Largest n for the exact null distribution (scipy's "auto" switches at 50 too). */
#define PG_SIGNED_RANK_EXACT_MAX 50

typedef struct pg_signed_rank {
    size_t n;         /* nonzero differences the test used */
    double w_plus;    /* sum of the ranks of |d| over the positive differences */
    double p;         /* p-value for the requested alternative */
    int exact;        /* 1 when p came from the exact distribution */
    double estimate;  /* Hodges-Lehmann: median of the n(n+1)/2 Walsh averages */
    double lo, hi;    /* Tukey's distribution-free interval; -inf/+inf when n is too small */
    double level;     /* the coverage asked for */
    size_t k;         /* 1-based rank of the lower bound among the sorted Walsh averages */
    int interval_exact; /* 1 when k came from the exact distribution */
} pg_signed_rank;

/**
 * Wilcoxon's signed-rank test of the paired differences d (does their
 * centre differ from 0?), matching scipy.stats.wilcoxon(d, zero_method=
 * "wilcox", correction=False): zeros dropped; exact when at most 50 nonzero
 * differences remain and there are neither zeros nor ties, else the normal
 * approximation with the tie correction. Also the Hodges-Lehmann estimate of
 * the centre with Tukey's interval at `level`: [W(k), W(N+1-k)] of the
 * sorted Walsh averages, k the largest integer with P(W+ <= k-1) <= (1-level)/2
 * (exact for n <= 50, else k = floor(N/2 - z sqrt(n(n+1)(2n+1)/24))).
 * Allocates n(n+1)/2 doubles.
 * @return 0; PG_EINVAL (no differences, a non-finite one, bad level); PG_ENOMEM.
 */
int pg_stats_signed_rank(pg_signed_rank *out, const double *d, size_t n, pg_alternative alt, double level);

/**
 * Exact null distribution of W+ for n untied nonzero differences:
 * out[w] = P(W+ = w) for w = 0..n(n+1)/2 (the caller allocates that + 1).
 * @return 0, PG_EINVAL when n > PG_SIGNED_RANK_EXACT_MAX.
 */
int pg_stats_signed_rank_pmf(double *out, size_t n);

/* ---- sequential: sign-test confidence sequence (sign_cs.c) ----------- */

/** An anytime-valid confidence sequence for the median of differences at one look. */
typedef struct pg_sign_cs {
    size_t n;                 /* differences seen */
    size_t k;                 /* fewest of n signs on one side that make a claim; n + 1: none yet */
    double lo, hi;            /* median > c for every c < lo, < c for every c > hi (each at 1 - alpha); +-inf: none */
    double wealth_up;         /* the mixture wealth against "median <= 0" (1/wealth is its p-value at this look) */
    double wealth_down;       /* against "median >= 0" */
} pg_sign_cs;

/**
 * Mixture wealth of the sign bets after `a` of `n` differences fell on the
 * claimed side: the mean over p in `grid` (each in [1/2, 1); NULL: the
 * default grid) of (2p)^a (2(1-p))^(n-a). Under a median on the other side
 * it is a nonnegative supermartingale with start 1 (Ville: P(ever >= 1/alpha)
 * <= alpha). NAN when a > n.
 */
double pg_stats_sign_wealth(size_t n, size_t a, const double *grid, size_t ngrid);

/** The fewest signs of n on one side whose wealth reaches 1/alpha; n + 1 when none does. */
size_t pg_stats_sign_cs_k(size_t n, double alpha, const double *grid, size_t ngrid);

/**
 * The confidence sequence for the median of d[0..n) at this look, each bound
 * one-sided at 1 - alpha and valid at every n at once, however the looks
 * are used to stop (Howard & Ramdas 2022): lo is the k-th largest difference,
 * hi the k-th smallest; -inf/+inf before k <= n. Ties count against a claim.
 * @return 0; PG_EINVAL (alpha outside (0, 1), a non-finite difference); PG_ENOMEM.
 */
int pg_stats_sign_cs(pg_sign_cs *out, const double *d, size_t n, double alpha, const double *grid, size_t ngrid);

/* ---- bootstrap -------------------------------------------------------- */

/** A small, seeded generator (splitmix64) so that bootstraps are reproducible. */
typedef struct pg_rng {
    uint64_t state;
} pg_rng;

void pg_stats_rng_seed(pg_rng *rng, uint64_t seed);
uint64_t pg_stats_rng_next(pg_rng *rng);
/** Uniform index in [0, n): floor(u * n) with u the top 53 bits as a fraction. */
size_t pg_stats_rng_index(pg_rng *rng, size_t n);

/**
 * Percentile bootstrap interval of median(head)/median(base) at `level`:
 * `reps` resamples, each drawing nhead head indices then nbase base indices
 * from one generator seeded with `seed`; the bounds are numpy-linear
 * quantiles (1-level)/2 and (1+level)/2 of the resampled ratios. All values
 * must be positive. Allocates reps + nhead + nbase doubles.
 * @param[out] out_lo,out_hi the interval of the ratio.
 */
int pg_stats_bootstrap_ratio(double *out_lo, double *out_hi, const double *head, size_t nhead, const double *base,
                             size_t nbase, double level, size_t reps, uint64_t seed);

/* ---- multiple comparisons --------------------------------------------- */

/**
 * Holm's step-down adjustment: out[i] is the adjusted p of p[i] (NAN
 * entries are skipped and stay NAN; m counts the others). `out` may be `p`.
 */
int pg_stats_holm(double *out, const double *p, size_t n);

/** Benjamini-Hochberg adjustment (false discovery rate), same conventions. */
int pg_stats_bh(double *out, const double *p, size_t n);

/* ---- the shape of one process's samples (shape.c) ----------------------- */

/*
 * The low quantile a round's low estimate takes from one side's samples:
 * the fastest tenth. Timing noise adds delays (Chen & Revels 2016), so the
 * fast end of a process's samples estimates its cost with less of the
 * machine's mood than the median; the tenth rather than the fastest block
 * alone, which moved more between rounds on the corpus (docs/statistics.md,
 * "Two estimators").
 */
#define PG_LOW_QUANTILE 0.10

/* Two regimes need centres at least this far apart (a ratio - 1) ... */
#define PG_REGIME_STEP 0.05
/* ... and that distance at least this many robust sds of either part (log scale) ... */
#define PG_REGIME_SEPARATION 4.0
/* ... in at least this many samples: fewer split a single mode too often (5 % of normal samples at 20). */
#define PG_REGIME_MIN_N 20

/** What the samples of one measurement (one side of one round) look like. */
typedef struct pg_sample_shape {
    size_t n;
    double low;               /* the PG_LOW_QUANTILE quantile */
    double median;
    int regimes;              /* 2: the samples split into a fast and a slow regime; 1: not (or too few) */
    double fast, slow;        /* the medians of the two regimes; both the median when one */
    double slow_share;        /* share of the samples in the slow regime (0 when one) */
    double drift;             /* median of the last third over the first third, minus 1 (0: under 9 samples) */
} pg_sample_shape;

/**
 * Describes `n` positive samples in the order taken. Regimes: the sorted
 * log samples are split where the sum of squares within the two parts is
 * least (Otsu), with at least a tenth (and two) of them on each side; the
 * split is two regimes when the medians of the parts lie PG_REGIME_STEP
 * apart or more and that distance is PG_REGIME_SEPARATION robust sds of
 * either part or more (parts that do not overlap; a single normal mode so
 * split lies about 2.7 apart). Needs PG_REGIME_MIN_N samples; drift 9.
 * @return 0, PG_EINVAL (n == 0 or a sample not positive), PG_ENOMEM.
 */
int pg_stats_shape(pg_sample_shape *out, const double *x, size_t n);

#endif
