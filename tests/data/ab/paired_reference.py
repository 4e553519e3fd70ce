#!/usr/bin/python3
"""Reference values for tests/ab: the paired analysis of per-round log ratios,
computed with scipy: one-sided Wilcoxon signed-rank p-values
(scipy.stats.wilcoxon) and the Hodges-Lehmann centre with Tukey's interval
(median and order statistics of the Walsh averages, k from scipy's exact
signed-rank distribution).
Run: /usr/bin/python3 tests/data/ab/paired_reference.py (output pasted into ab_test.c)."""
import math

import numpy as np
from scipy import stats
from scipy.stats._hypotests import _get_wilcoxon_distr


def analyse(base, head, conf=0.95):
    d = np.log(np.asarray(head) / np.asarray(base))
    n = len(d)
    w = np.sort(np.add.outer(d, d)[np.triu_indices(n)] / 2.0)
    big = n * (n + 1) // 2
    pmf = _get_wilcoxon_distr(n)
    k, cdf = 0, 0.0
    while k < big // 2 + 1 and cdf + pmf[k] <= (1 - conf) / 2 * (1 + 1e-12):
        cdf += pmf[k]
        k += 1
    lo, hi = (w[k - 1], w[big - k]) if k else (-math.inf, math.inf)
    method = "exact" if len(np.unique(np.abs(d))) == n and np.all(d != 0) else "approx"
    p_slower = stats.wilcoxon(d, alternative="greater", method=method).pvalue
    p_faster = stats.wilcoxon(d, alternative="less", method=method).pvalue
    return math.exp(np.median(w)), math.exp(lo), math.exp(hi), int((d > 0).sum()), p_slower, p_faster


base = [1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 1.00, 0.97, 1.02, 1.01, 1.00, 0.99, 1.04, 1.00, 0.98]
head = [1.10, 1.12, 1.07, 1.13, 1.08, 1.11, 1.09, 1.10, 0.99, 1.12, 1.11, 1.08, 1.15, 1.09, 1.06]
print("slow15", ["%.17g" % v for v in analyse(base, head)])
print("same6", ["%.17g" % v for v in analyse(base[:6], [1.01, 1.00, 0.99, 1.00, 1.00, 1.02])])
