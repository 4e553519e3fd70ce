#!/usr/bin/python3
"""seq_magnitude.py - would a sequential rule that uses the size of each
round's ratio, not only its sign, settle the cases of an interleaved gate in
fewer rounds? Replayed on measured rounds.

The library's sequence (runner/stats/sign_cs.c) bets on the signs of the per-round
log ratios d around a candidate centre c: it assumes nothing of the
distribution, and one round on the wrong side costs as much as any other.
The alternative here assumes the rounds are symmetric about their centre
(exact for identical builds, which are exchangeable within a round; a
location shift otherwise, as the fixed-count Wilcoxon rule assumes) and
bets on psi((d - c) / s) = clip((d - c) / s, -1, 1), s = SCALE x the
threshold's log: a round just past c costs little, one far past costs as
much as a sign. For a symmetric d centred at m >= c, E psi((d - c)/s) >= 0
(psi is odd and non-decreasing), so prod (1 - lam psi) is a nonnegative
supermartingale for each lam in [0, 1), and so is the mean over a fixed set
of lam: Ville's inequality makes it an anytime-valid test of "centre >= c",
like the sign bet it replaces (the betting framework of Ramdas, Grunwald,
Vovk & Shafer, "Game-theoretic statistics and safe anytime-valid
inference", Statist. Sci. 38(4), 2023). Why E psi >= 0: psi(m - c + z) >=
psi(z) for m >= c, and E psi(z) = 0 for z symmetric about 0.

A third row is no rule a gate could use but a bound on all of them: the
likelihood ratio of centre 0 against centre +-t with each case's density
*known* (a kernel estimate over its measured rounds, symmetrised), the most
any test can get from a round (Wald & Wolfowitz, "Optimum character of the
sequential probability ratio test", Ann. Math. Statist. 19(3), 1948). A test
valid for every symmetric distribution can at most double its wealth per
round (given |d - c|, the sign is a fair coin), and one valid for every
distribution is the sign bet itself; the gap between the rows is what only
knowing the shape of the noise would buy.

The rules run here on the same draws: each round of each case is a value
drawn from that case's measured rounds (bench_ab_rounds output), with a
random sign (identical builds: d and -d are equally likely). A case is SAME
once both one-sided tests at +-log(1 + threshold) reach 1/alpha, from round
5, at most 20 rounds; the table gives case-rounds per gate (all cases) and
the cases left open at round 20. The sign rule here is the library's
sequence (grid 0.8, 0.9, 0.97, 0.99); the library's own replay of it is
`bench_seq_sim replay=FILE`.

usage: /usr/bin/python3 bench/seq_magnitude.py ROUNDS_FILE... [--trials N]
       (ROUNDS_FILE: `build-bench/bench/bench_ab_rounds BASE SAME SUITE 40 > FILE`)
"""
import argparse
import math

import numpy as np

THRESHOLD, ALPHA, FIRST, MOST = 0.05, 0.05, 5, 20
SIGN_GRID = (0.8, 0.9, 0.97, 0.99)


def load(paths):
    cases = {}
    for path in paths:
        for line in open(path):
            if line.startswith("#") or not line.strip():
                continue
            key, *vals = line.split()
            cases.setdefault(key, []).extend(float(v) for v in vals)
    return {k: np.array(v) for k, v in cases.items()}


def sign_wealth(d, c, up, key=None):
    """The library's mixture of sign bets on "centre > c" (up) or "< c", per row of d."""
    a = ((d > c) if up else (d < c)).sum(-1)
    n = d.shape[-1]
    return np.mean([np.exp(a * math.log(2 * p) + (n - a) * math.log(2 * (1 - p))) for p in SIGN_GRID], axis=0)


def clip_wealth(scale, lams):
    s = scale * math.log(1 + THRESHOLD)

    def wealth(d, c, up, key=None):
        u = np.clip((d - c) / s, -1, 1) * (1 if up else -1)
        return np.mean([np.prod(1 + lam * u, axis=-1) for lam in lams], axis=0)
    return wealth


def known_density(cases):
    """The likelihood ratio with each case's density known: a bound, not a rule."""
    def logf_of(pool):
        pool = np.concatenate([pool, -pool])
        h = 0.5 * 1.06 * np.std(pool) * len(pool) ** -0.2

        def logf(x):
            z = (x[..., None] - pool) / h
            return np.log(np.mean(np.exp(-0.5 * z * z), axis=-1) / h + 1e-300)
        return logf
    logfs = {key: logf_of(v) for key, v in cases.items()}

    def wealth(d, c, up, key):
        logf = logfs[key]
        # "centre = c" against "centre = 0": the observed d are centred at 0 in an A/A replay.
        return np.exp(np.minimum(np.sum(logf(d) - logf(d - c), axis=-1), 700))
    return wealth


def case_rounds(cases, wealth, trials, rng):
    t = math.log(1 + THRESHOLD)
    total, still_open = 0.0, 0.0
    for key, v in cases.items():
        d = rng.choice(v, size=(trials, MOST)) * rng.choice([-1.0, 1.0], size=(trials, MOST))
        rounds = np.full(trials, MOST)
        undecided = np.ones(trials, bool)
        for n in range(FIRST, MOST + 1):
            x = d[:, :n]
            same = (wealth(x, t, False, key) >= 1 / ALPHA) & (wealth(x, -t, True, key) >= 1 / ALPHA)
            hit = undecided & same
            rounds[hit] = n
            undecided &= ~hit
        total += rounds.mean()
        still_open += undecided.mean()
    return total, still_open


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--trials", type=int, default=2000)
    a = ap.parse_args()
    cases = load(a.files)
    print("# %d cases, %d rounds each measured; %d replayed gates per rule, A/A, threshold %g%%"
          % (len(cases), min(len(v) for v in cases.values()), a.trials, 100 * THRESHOLD))
    print("\n| rule | case-rounds per gate | cases open at round %d per gate |\n|---|---|---|" % MOST)
    rules = [("signs (the library's)", sign_wealth)]
    for scale in (0.5, 0.75):
        for lams in ((0.6, 0.8, 0.94, 0.98), (0.7, 0.85, 0.95, 0.99)):
            rules.append(("clipped magnitudes, s = %g t, lambda in %s" % (scale, lams), clip_wealth(scale, lams)))
    rules.append(("bound: each case's density known (likelihood ratio)", known_density(cases)))
    for name, wealth in rules:
        total, still_open = case_rounds(cases, wealth, a.trials, np.random.default_rng(7))
        print("| %s | %.1f | %.2f |" % (name, total, still_open))


if __name__ == "__main__":
    main()
