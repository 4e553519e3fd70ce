#!/usr/bin/python3
"""Power of `perfgate ab` against the number of rounds R (docs/plugins.md).

Model: each round's median of one side is log-normal around the true time,
with a per-round spread sigma (noise.md: medians of separate processes move
2.2% typically, 4.7% at p90: sigma = 3% is "typical", 5% "noisy"). Head is
slower by `shift`. Two tests at the family-wise level alpha=0.05 with Holm
over 10 cases (the first step tests at alpha/10 = 0.005):
  - one-sided Mann-Whitney U on the R round medians per side (unpaired), and
  - one-sided exact sign test on the R paired per-round ratios.
Run: /usr/bin/python3 bench/ab_power.py   (needs python3-scipy; seeded)
"""
import numpy as np
from scipy.stats import mannwhitneyu, binomtest

rng = np.random.default_rng(1)
ALPHA = 0.05 / 10
SIMS = 2000

def power(R, shift, sigma):
    mwu = sign = 0
    for _ in range(SIMS):
        drift = rng.normal(0, sigma, R)          # shared by both sides of a round
        base = drift + rng.normal(0, sigma, R)
        head = drift + rng.normal(0, sigma, R) + np.log1p(shift)
        if mannwhitneyu(head, base, alternative="greater").pvalue < ALPHA:
            mwu += 1
        d = head - base
        if binomtest(int((d > 0).sum()), R, 0.5, alternative="greater").pvalue < ALPHA:
            sign += 1
    return mwu / SIMS, sign / SIMS

print("shift sigma  R   MWU   sign")
for shift, sigma in [(0.05, 0.03), (0.05, 0.05), (0.10, 0.05)]:
    for R in (5, 8, 10, 12, 15, 20, 25):
        m, s = power(R, shift, sigma)
        print(f"{shift:5.2f} {sigma:5.2f} {R:3d} {m:5.2f} {s:5.2f}")
