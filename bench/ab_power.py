#!/usr/bin/python3
"""How many rounds `perfgate ab` (and the interleaved gate) needs: docs/plugins.md.

Model of one case: R rounds, each giving d = log(head/base) of that round's
two values. Both sides of a round run on the same CPUs, plugin cases in
lockstep, so what remains is each process's own speed: d is symmetric noise
with a robust spread `sigma` and heavy tails (Student t with 3 degrees of
freedom, scaled so that 1.4826 * MAD = sigma), plus the true change.
Measured on the example plugin (bench/ab_example.sh, 2-core shared VM):
sigma = 1.3-3.5 % per round for matmul_chain, 4-13 % for the tiny saxpy.

The rule as perfgate applies it (runner/ab/paired.c, runner/verdict/verdict.c):
one-sided Wilcoxon signed-rank p < alpha/m (Holm's first step, m = 10 cases)
and the lower end of Tukey's 95 % interval of the Hodges-Lehmann centre above
log(1 + threshold). Prints the share of simulations that are REGRESSED.
Run: /usr/bin/python3 bench/ab_power.py   (needs python3-scipy; seeded)
"""
import math

import numpy as np
from scipy import stats
from scipy.stats._hypotests import _get_wilcoxon_distr

rng = np.random.default_rng(1)
SIMS = 1000
M = 10
T3_MAD = stats.t.ppf(0.75, 3)  # MAD of a standard t(3)


def tukey_k(n, level=0.95):
    pmf = _get_wilcoxon_distr(n)
    k, cdf = 0, 0.0
    while k < n * (n + 1) // 4 + 1 and cdf + pmf[k] <= (1 - level) / 2:
        cdf += pmf[k]
        k += 1
    return k


def regressed(d, k, threshold):
    n = len(d)
    walsh = np.sort(np.add.outer(d, d)[np.triu_indices(n)] / 2)
    lo = walsh[k - 1] if k else -math.inf
    p = stats.wilcoxon(d, alternative="greater").pvalue
    return p < 0.05 / M and lo > math.log1p(threshold)


def power(R, shift, sigma, threshold):
    k = tukey_k(R)
    hits = 0
    for _ in range(SIMS):
        d = math.log1p(shift) + sigma / (1.4826 * T3_MAD) * rng.standard_t(3, R)
        hits += regressed(d, k, threshold)
    return hits / SIMS


print("threshold  sigma  change    R=10   R=15   R=20   R=30   R=40")
for threshold in (0.05, 0.02):
    for sigma in (0.02, 0.035, 0.05):
        for shift in (0.0, 0.05, 0.10):
            row = [power(R, shift, sigma, threshold) for R in (10, 15, 20, 30, 40)]
            print(f"{threshold:8.0%} {sigma:6.1%} {shift:+7.0%}  " + "  ".join(f"{x:5.2f}" for x in row))
