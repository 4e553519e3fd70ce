#!/usr/bin/env python3
"""Real torch.profiler CPU traces of a small training step and its variants,
for the trace diff tests. Run with Debian's python3-torch:

    /usr/bin/python3 torch_steps.py OUTDIR [VARIANT...]

Each variant gets OUTDIR/VARIANT/ holding one trace file per round. The
variants are profiled in interleaved rounds, each round in a fresh random
order, so a phase of the machine, and what one variant leaves in the caches
for the next, falls on all of them alike:

  base  Linear(256 -> 256) -> ReLU -> Linear(256 -> 256), loss, backward,
        all inside a range 'train_step' within each ProfilerStep#N
  mask  base plus a boolean-mask index of the input inside the step: an
        aten::index holding an aten::nonzero appears in 'train_step'
  wide  the first Linear takes 512 input features instead of 256: its
        forward aten::addmm and its weight-gradient aten::mm do twice the
        work; the input is made outside the step and needs no gradient, so
        no other op inside the step does more work
  same  the base step again (an A/A control)
  gather  base plus big[big[:, 0] > 0] inside 'train_step': a boolean-mask
        selection of about half the rows of a 16384 x 512 tensor made
        outside the step, so the same aten::index holding an aten::nonzero
        appears, and it gathers 16 MiB every step: real work the step's
        time shows (a gate's timed case regresses by it)

A single variant name runs only that one (used as a gate's timed command).
"""
import os, random, sys
import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

ROUNDS = int(os.environ.get("PG_TORCH_ROUNDS", "6"))
STEPS = int(os.environ.get("PG_TORCH_STEPS", "5"))
torch.set_num_threads(1)
torch.manual_seed(0)
out = sys.argv[1]
names = sys.argv[2:] or ["base", "mask", "wide", "same"]


def variant(name):
    din = 512 if name == "wide" else 256
    model = nn.Sequential(nn.Linear(din, 256), nn.ReLU(), nn.Linear(256, 256))
    x = torch.randn(64, din)
    tgt = torch.randn(64, 256)
    big = torch.randn(16384, 512) if name == "gather" else None

    def step():
        with record_function("train_step"):
            model.zero_grad(set_to_none=True)
            y = model(x)
            loss = nn.functional.mse_loss(y, tgt)
            if name == "mask":
                picked = x[x[:, 0] > 0]  # noqa: F841 (only its ops matter)
            if name == "gather":
                picked = big[big[:, 0] > 0]  # noqa: F841 (its ops and their time matter)
            loss.backward()
    return step


steps = {n: variant(n) for n in names}
for n in names:
    os.makedirs(os.path.join(out, n), exist_ok=True)
    steps[n]()  # warm up outside the profile
order = random.Random(ROUNDS)  # seeded: the same orders for the same settings
for r in range(ROUNDS):
    # A fixed order would put each variant in the same place every round
    # (same always right after wide), and what the previous variant leaves in
    # the caches and the allocator would read as a change of its own.
    for n in order.sample(names, len(names)):
        path = os.path.join(out, n, "round%02d.json" % r)
        # ProfilerStep#N ranges are only recorded under a schedule.
        with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=0, warmup=1, active=STEPS, repeat=1),
                     on_trace_ready=lambda p, path=path: p.export_chrome_trace(path)) as prof:
            for _ in range(STEPS + 1):
                steps[n]()
                prof.step()
