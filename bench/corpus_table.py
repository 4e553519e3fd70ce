#!/usr/bin/env python3
"""corpus_table.py - the tables of a corpus campaign (bench/corpus.sh).

Reads OUT/verdicts.tsv (one line per case of every gate) and prints, as
markdown, per cell: gates run, and the case verdicts SAME / UNSURE /
REGRESSED / IMPROVED / ERROR with their shares; then the checks the campaign
exists for:
  - a +10 % change is never SAME (any build, any neighbour), and no +5 or
    +10 % change is ever IMPROVED (a slowdown read as a speedup);
  - A/A: no REGRESSED or IMPROVED, and at least 80 % SAME alone;
  - +10 %: REGRESSED in at least 90 % of case verdicts alone and beside the
    memory hog;
  - the user's stencil (jacobi, -march=native, +1 sweep in 10): REGRESSED or
    UNSURE in every gate, never SAME.
--cases adds a row per case of every cell; --before DIR puts another
campaign's shares (an older perfgate: PERFGATE=... bash bench/corpus.sh --out
DIR) beside each cell's.

usage: corpus_table.py OUT [--cases] [--before DIR]
"""
import collections
import csv
import sys

VERDICTS = ["SAME", "UNSURE", "REGRESSED", "IMPROVED", "ERROR"]


def load(out):
    rows = list(csv.DictReader(open(out + "/verdicts.tsv"), delimiter="\t"))
    cells = collections.OrderedDict()
    for r in rows:
        c = cells.setdefault(r["cell"], {"gates": set(), "v": collections.Counter(), "cases": collections.defaultdict(
            collections.Counter), "exit": collections.Counter(), "wall": {}, "by": collections.Counter(),
            "gate_v": collections.defaultdict(collections.Counter)})
        c["gates"].add(r["gate"])
        v = r["verdict"] if r["verdict"] in VERDICTS else "ERROR"
        c["v"][v] += 1
        c["cases"][r["case"]][v] += 1
        c["gate_v"][r["gate"]][v] += 1
        c["wall"][r["gate"]] = float(r["wall_s"])
        c["exit"][(r["gate"], r["exit"])] = 1
        if r.get("decided_by"):
            c["by"][(v, r["decided_by"])] += 1
    return cells


def share(c, v):
    n = sum(c["v"].values())
    return "%d (%.0f%%)" % (c["v"][v], 100.0 * c["v"][v] / n) if n else "-"


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def table(cells, before, per_case):
    head = ["cell", "gates", "s per gate"] + VERDICTS + (["before: SAME / UNSURE / REGRESSED"] if before else [])
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, c in cells.items():
        row = [name, str(len(c["gates"])), "%.0f" % median(c["wall"].values())] + [share(c, v) for v in VERDICTS]
        if before:
            b = before.get(name)
            row.append(" / ".join(share(b, v) for v in VERDICTS[:3]) if b else "-")
        print("| " + " | ".join(row) + " |")
        if per_case:
            for key, cnt in sorted(c["cases"].items()):
                print("| &nbsp;&nbsp;" + key + " | | | " + " | ".join(str(cnt[v]) for v in VERDICTS) +
                      (" | " if before else "") + " |")


def checks(cells):
    def part(pred):
        return [(n, c) for n, c in cells.items() if pred(n.split(":"))]
    ok = True
    lines = []
    slow10 = part(lambda k: k[2] == "slow10")
    same10 = sum(c["v"]["SAME"] for _, c in slow10)
    lines.append("- +10 %% never SAME: %d SAME in %d case verdicts of %d cells" % (
        same10, sum(sum(c["v"].values()) for _, c in slow10), len(slow10)))
    ok &= same10 == 0
    # A slowdown read as a speedup passes the merge as surely as a SAME does.
    slower = part(lambda k: k[2] in ("slow5", "slow10"))
    faster = sum(c["v"]["IMPROVED"] for _, c in slower)
    lines.append("- +5/+10 %% never IMPROVED: %d IMPROVED in %d case verdicts%s" % (
        faster, sum(sum(c["v"].values()) for _, c in slower), "" if faster == 0 else "  <- FAILS: " + ", ".join(
            "%s %d" % (n, c["v"]["IMPROVED"]) for n, c in slower if c["v"]["IMPROVED"])))
    ok &= faster == 0
    for name, c in part(lambda k: k[2] == "same"):
        n = sum(c["v"].values())
        false = c["v"]["REGRESSED"] + c["v"]["IMPROVED"]
        good = false == 0 and (not name.endswith(":alone") or c["v"]["SAME"] >= 0.8 * n)
        ok &= good
        lines.append("- A/A %s: %d REGRESSED or IMPROVED, %.0f%% SAME%s" % (
            name, false, 100.0 * c["v"]["SAME"] / n if n else 0, "" if good else "  <- FAILS"))
    for name, c in part(lambda k: k[2] == "slow10" and k[3] in ("alone", "memhog")):
        n = sum(c["v"].values())
        good = c["v"]["REGRESSED"] >= 0.9 * n
        ok &= good
        lines.append("- +10 %% %s: %.0f%% REGRESSED%s" % (name, 100.0 * c["v"]["REGRESSED"] / n if n else 0,
                                                         "" if good else "  <- FAILS"))
    for name, c in part(lambda k: k[0] == "jacobi" and k[2] == "slow10"):
        bad = [g for g, cnt in c["gate_v"].items() if cnt["SAME"] or cnt["IMPROVED"]]
        ok &= not bad
        lines.append("- %s: %d gates, %d with a SAME or IMPROVED case%s" % (name, len(c["gates"]), len(bad),
                                                                           "" if not bad else "  <- FAILS"))
    print("\n".join(lines))
    print("\nall checks hold" if ok else "\nSOME CHECKS FAIL")


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    out = argv[0]
    before = load(argv[argv.index("--before") + 1]) if "--before" in argv else None
    cells = load(out)
    table(cells, before, "--cases" in argv)
    print()
    checks(cells)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
