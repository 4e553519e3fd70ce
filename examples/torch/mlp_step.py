#!/usr/bin/env python3
"""The profiling lesson's lab model in PyTorch, for perfgate's checks (examples/torch/mlp.yaml).

Embedding(512, 256) -> 3 x (Linear(256, 256) + GELU) -> Linear(256, 512), trained with AdamW on
cross-entropy over random tokens, batch B = 64. Each step marks the ranges forward, backward and
optimizer with torch.profiler.record_function, which perfgate_count makes perfgate's ranges too.

    perfgate count -- python3 examples/torch/mlp_step.py               # one step's FLOPs by op, range, function
    python3 examples/torch/mlp_step.py --trace mlp.json                # a torch.profiler trace of 2 steps

Variants, by --variant NAME or the environment's MLP_VARIANT (so a suite's commands can be switched
from outside: MLP_VARIANT=extra-linear perfgate run examples/torch/mlp.yaml):
  extra-linear  one more Linear(256, 256) + GELU: 6*B*256*256 more FLOPs in three more GEMMs
  dense-input   a float input in place of the embedding: the first Linear's input needs no
                gradient, so its backward computes no grad-input (the first-layer rule)
  mask          the batch goes through a boolean mask inside forward, as padding removal does:
                aten::index calls aten::nonzero, the op that synchronises on a GPU (fence 3)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import perfgate_count  # noqa: E402 (found through the path above)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402

VOCAB, WIDTH, HIDDEN = 512, 256, 3
VARIANTS = ("base", "extra-linear", "dense-input", "mask")


def build(variant):
    layers = [] if variant == "dense-input" else [nn.Embedding(VOCAB, WIDTH)]
    for _ in range(HIDDEN + (variant == "extra-linear")):
        layers += [nn.Linear(WIDTH, WIDTH), nn.GELU()]
    layers.append(nn.Linear(WIDTH, VOCAB))
    return nn.Sequential(*layers)


def make_step(variant, batch):
    model = build(variant)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    inputs = torch.randn(batch, WIDTH) if variant == "dense-input" else torch.randint(0, VOCAB, (batch,))
    targets = torch.randint(0, VOCAB, (batch,))

    def step():
        with record_function("forward"):
            logits, tgt = model(inputs), targets
            if variant == "mask":
                keep = targets >= 0  # every row: the FLOPs stay, the data-dependent shape appears
                logits, tgt = logits[keep], targets[keep]
            loss = nn.functional.cross_entropy(logits, tgt)
        with record_function("backward"):
            opt.zero_grad(set_to_none=True)
            loss.backward()
        with record_function("optimizer"):
            opt.step()

    linears = [m for m in model if isinstance(m, nn.Linear)]
    return step, sum(m.in_features * m.out_features for m in linears), len(linears)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=VARIANTS, default=os.environ.get("MLP_VARIANT") or "base")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=1, help="training steps to run (default 1)")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--trace", metavar="FILE", help="profile instead: write a Chrome trace of the active steps")
    ap.add_argument("--trace-steps", type=int, default=2, help="active steps in the trace (default 2)")
    args = ap.parse_args()
    if args.variant not in VARIANTS:
        ap.error("MLP_VARIANT must be one of " + ", ".join(VARIANTS))
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    step, sum_in_out, nlin = make_step(args.variant, args.batch)
    if args.trace:
        # One step waits and one warms up (first-call costs), then the active steps are recorded.
        sched = schedule(wait=1, warmup=1, active=args.trace_steps, repeat=1)
        ready = lambda prof: prof.export_chrome_trace(args.trace)  # noqa: E731
        with profile(activities=[ProfilerActivity.CPU], schedule=sched, on_trace_ready=ready,
                     record_shapes=True) as prof:
            for _ in range(2 + args.trace_steps):
                step()
                prof.step()
        print(f"mlp_step: {args.trace_steps} profiled steps of variant {args.variant} in {args.trace}")
        return
    counted = perfgate_count.wrap_record_function()
    for _ in range(args.steps):
        step()
    print(f"mlp_step: variant {args.variant}, B={args.batch}, {nlin} Linear layers, sum(in*out)={sum_in_out:,}, "
          f"6*B*sum={6 * args.batch * sum_in_out:,} per step, {args.steps} step(s)"
          + ("" if counted else " (not counted: run it under perfgate count)"))


if __name__ == "__main__":
    main()
