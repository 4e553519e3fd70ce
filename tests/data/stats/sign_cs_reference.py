#!/usr/bin/python3
"""Reference values for the sign-test confidence sequence (runner/stats/sign_cs.c), computed
independently in exact rational arithmetic: the mixture wealth
mean_p (2p)^a (2(1-p))^(n-a) over p in {0.8, 0.9, 0.97, 0.99}, and k(n, alpha), the fewest
of n signs whose wealth reaches 1/alpha. Run: /usr/bin/python3 tests/data/stats/sign_cs_reference.py"""
from fractions import Fraction as F

GRID = [F(8, 10), F(9, 10), F(97, 100), F(99, 100)]


def wealth(n, a):
    return sum((2 * p) ** a * (2 * (1 - p)) ** (n - a) for p in GRID) / len(GRID)


def k(n, alpha):
    for a in range(n + 1):
        if wealth(n, a) >= 1 / alpha:
            return a
    return n + 1


for alpha in (F(5, 100), F(1, 100)):
    print("alpha %s k(n) n=1..30:" % float(alpha), [k(n, alpha) for n in range(1, 31)])
for n, a in ((5, 5), (10, 9), (20, 15), (8, 0)):
    print("wealth(%d, %d) = %.17g" % (n, a, float(wealth(n, a))))
