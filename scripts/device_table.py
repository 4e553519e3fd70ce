#!/usr/bin/env python3
"""device_table.py - the short table of scripts/device-check.sh.

usage: device_table.py DB            the newest run's GPU results as a table
       device_table.py DB --torch    perfgate's bf16 8192^3 GEMM median against
                                     torch.matmul timed by triton.testing.do_bench
Reads perfgate's SQLite store directly (standard library only), so it runs
on a bare GPU machine.
"""
import json
import sqlite3
import sys


def newest_results(db):
    con = sqlite3.connect(db)
    run = con.execute("SELECT max(id) FROM runs").fetchone()[0]
    rows = con.execute(
        "SELECT c.key, r.status, r.message, r.n, r.number_per_run, r.median, r.iqr, r.flops, r.bytes,"
        " r.mfu, r.warnings, r.extra FROM results r JOIN cases c ON c.id = r.case_id"
        " WHERE r.run_id = ? AND c.device = 'cuda' ORDER BY r.id", (run,)).fetchall()
    checks = con.execute("SELECT name, passed, skipped, message FROM checks WHERE run_id = ? ORDER BY id",
                         (run,)).fetchall()
    con.close()
    return rows, checks


def fmt_time(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3f} {unit}"
    return f"{s:.3g} s"


def table(db):
    rows, checks = newest_results(db)
    head = f"{'case':44} {'median':>11} {'IQR':>6} {'n':>5} {'iter/blk':>8} {'throughput':>14} {'MFU':>6} " \
           f"{'SM MHz before/after':>20} {'throttled':>9}"
    print(head)
    print("-" * len(head))
    for key, status, msg, n, npr, med, iqr, flops, nbytes, mfu, warn, extra in rows:
        if status != "ok":
            print(f"{key:44} {status}: {msg}")
            continue
        x = json.loads(extra) if extra else {}
        if flops:
            thr = f"{flops / med / 1e12:.1f} TFLOP/s"
        elif nbytes:
            thr = f"{nbytes / med / 1e9:.0f} GB/s"
        else:
            thr = "-"
        b, a = x.get("sm_clock_before_mhz") or {}, x.get("sm_clock_after_mhz") or {}
        clocks = f"{b.get('median', 0):.0f}/{a.get('median', 0):.0f}" if b else "unknown"
        print(f"{key:44} {fmt_time(med):>11} {100 * iqr / med:5.1f}% {n:5d} {npr:8d} {thr:>14} "
              f"{'-' if mfu is None or mfu < 0 else f'{100 * mfu:.1f}%':>6} {clocks:>20} "
              f"{x.get('throttled_samples', 0):9d}")
    ceilings = {json.loads(r[11]).get("mfu_peak_source"): json.loads(r[11]).get("mfu_peak_tflops")
                for r in rows if r[11] and json.loads(r[11]).get("mfu_peak_tflops")}
    for src, tf in ceilings.items():
        print(f"MFU denominator: {src} = {tf:.1f} TFLOP/s")
    for name, passed, skipped, msg in checks:
        state = "skipped" if skipped else "passed" if passed else "FAILED"
        print(f"check {name}: {state}{' - ' + msg if msg else ''}")


def torch_ratio(db):
    rows, _ = newest_results(db)
    ours = [r for r in rows if r[0].startswith("gpu/gemm[dtype=bf16,n=8192]") and r[1] == "ok"]
    try:
        import torch
        from triton.testing import do_bench
    except ImportError as e:
        print(f"torch/triton not available ({e}); no comparison")
        return
    n = 8192
    torch.manual_seed(0)
    a = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1  # uniform [-1, 1) like perfgate's
    b = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    ms = do_bench(lambda: torch.matmul(a, b), warmup=100, rep=1000, return_mode="median")
    t_torch = ms * 1e-3
    print(f"torch {torch.__version__}, do_bench median: {fmt_time(t_torch)} = "
          f"{2 * n ** 3 / t_torch / 1e12:.1f} TFLOP/s")
    if not ours:
        print("perfgate: no bf16 8192^3 GEMM result in this run")
        return
    med = ours[0][5]
    print(f"perfgate median: {fmt_time(med)} = {2 * n ** 3 / med / 1e12:.1f} TFLOP/s "
          f"(n={ours[0][3]}, {ours[0][4]} per block)")
    print(f"ratio perfgate/torch: {med / t_torch:.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if "--torch" in sys.argv[2:]:
        torch_ratio(sys.argv[1])
    else:
        table(sys.argv[1])
