#!/usr/bin/python3
"""Reference values for tests/ab: the exact sign test and its order-statistic
interval for the median of per-round log ratios, computed with scipy.
Run: /usr/bin/python3 tests/data/ab/paired_reference.py (output pasted into ab_test.c)."""
import math
from scipy.stats import binom

def analyse(base, head, conf=0.95):
    d = sorted(math.log(h / b) for b, h in zip(base, head))
    n = len(d)
    pos = sum(x > 0 for x in d)
    neg = sum(x < 0 for x in d)
    p_slower = binom.sf(pos - 1, pos + neg, 0.5) if pos else 1.0
    p_faster = binom.sf(neg - 1, pos + neg, 0.5) if neg else 1.0
    # largest k with P(B <= k-1) <= (1-conf)/2
    k = 0
    while k + 1 <= n // 2 and binom.cdf(k, n, 0.5) <= (1 - conf) / 2:
        k += 1
    if k == 0:
        lo, hi, cov = d[0], d[-1], 1 - 2 * binom.cdf(0, n, 0.5)
    else:
        lo, hi, cov = d[k - 1], d[n - k], 1 - 2 * binom.cdf(k - 1, n, 0.5)
    med = (d[(n - 1) // 2] + d[n // 2]) / 2
    return math.exp(med), math.exp(lo), math.exp(hi), cov, pos, p_slower, p_faster

base = [1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 1.00, 0.97, 1.02, 1.01, 1.00, 0.99, 1.04, 1.00, 0.98]
head = [1.10, 1.12, 1.07, 1.13, 1.08, 1.11, 1.09, 1.10, 0.99, 1.12, 1.11, 1.08, 1.15, 1.09, 1.06]
print("slow15", ["%.17g" % v for v in analyse(base, head)])
print("same6", ["%.17g" % v for v in analyse(base[:6], [1.01, 1.00, 0.99, 1.00, 1.00, 1.02])])
