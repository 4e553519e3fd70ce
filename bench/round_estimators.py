#!/usr/bin/env python3
"""round_estimators.py - what each per-round estimator sees in recorded rounds.

Reads the output of `bench_ab_rounds ... blocks` (every block of every side of every
round) and prints, per case, for the per-round estimators the gate could use
(the fastest block "min", the fastest tenth "p10", the median block "median"):
the change they estimate (median over rounds of log(head/base)), their robust
spread over rounds (1.4826 MAD), the share of rounds in which head was slower,
and the rounds' contention. Rounds in which a side waited for a CPU (or lost it
to steal) for half its wall time or more are left out, as the gate does;
--all keeps them.

--within PCT (identical builds) instead prints, over every round of every
file and case, the share of rounds whose per-round ratio lies within +-PCT
for each estimator (what lets a sequence settle SAME); --beyond PCT (a
slower head) the share beyond +PCT (what lets it settle REGRESSED).

usage: round_estimators.py FILE... [--all] [--within PCT | --beyond PCT]
"""
import collections
import gzip
import math
import statistics
import sys


def quantile(xs, q):
    s = sorted(xs)
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


ESTIMATORS = {"min": lambda b: min(b), "p10": lambda b: quantile(b, 0.10), "median": lambda b: quantile(b, 0.5)}


def bands(rounds, within, beyond):
    """The share of rounds within +-within (or beyond +beyond) per estimator, every case pooled."""
    limit = math.log(1 + (within if within is not None else beyond) / 100.0)
    hits, n = collections.Counter(), 0
    for sides in rounds:
        n += 1
        for name, est in ESTIMATORS.items():
            d = math.log(est(sides["head"][2]) / est(sides["base"][2]))
            hits[name] += abs(d) < limit if within is not None else d > limit
    print("%d rounds; share %s %.3g%%: %s" % (n, "within +-" if within is not None else "beyond +",
                                             within if within is not None else beyond,
                                             ", ".join("%s %.1f%%" % (k, 100.0 * hits[k] / n) for k in ESTIMATORS)))


def main(argv):
    keep_all = "--all" in argv
    within = float(argv[argv.index("--within") + 1]) if "--within" in argv else None
    beyond = float(argv[argv.index("--beyond") + 1]) if "--beyond" in argv else None
    skip = {argv.index(o) + 1 for o in ("--within", "--beyond") if o in argv}
    files = [a for i, a in enumerate(argv) if not a.startswith("--") and i not in skip]
    rounds = collections.defaultdict(dict)  # (file, key, round) -> side -> (waited, stolen, blocks)
    for path in files:
        for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
            if line.startswith("#") or not line.strip():
                continue
            f = line.split()
            key, rnd, side = f[0], int(f[1]), f[2]
            waited, stolen = float(f[3]), float(f[4])
            rounds[(path, key, rnd)][side] = (waited, stolen, [float(x) for x in f[6:]])
    per_case = collections.defaultdict(list)
    contended = collections.Counter()
    for (path, key, rnd), sides in sorted(rounds.items()):
        if "base" not in sides or "head" not in sides:
            continue
        busy = max(s[0] + s[1] for s in sides.values())
        if busy >= 0.5:
            contended[key] += 1
            if not keep_all:
                continue
        per_case[key].append(sides)
    if within is not None or beyond is not None:
        bands([r for rs in per_case.values() for r in rs], within, beyond)
        return
    for key in sorted(set(k for (_, k, _) in rounds)):
        rs = per_case.get(key, [])
        print("%s: %d rounds used, %d contended (%s)" % (key, len(rs), contended[key],
                                                        "kept" if keep_all else "left out"))
        for name, est in ESTIMATORS.items():
            d = [math.log(est(r["head"][2]) / est(r["base"][2])) for r in rs]
            if len(d) < 2:
                continue
            med = statistics.median(d)
            mad = 1.4826 * statistics.median(abs(x - med) for x in d)
            slower = sum(x > 0 for x in d)
            print("  %-6s change %+6.1f%%  spread %5.1f%%  head slower in %d/%d rounds" % (
                name, 100 * (math.exp(med) - 1), 100 * mad, slower, len(d)))


if __name__ == "__main__":
    main(sys.argv[1:])
