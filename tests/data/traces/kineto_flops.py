#!/usr/bin/env python3
"""Writes kineto_flops.json: the lab step profiled with with_flops=True, in Kineto's trace format.

    /usr/bin/python3 tests/data/traces/kineto_flops.py tests/data/traces/kineto_flops.json

Debian's python3-torch 1.13 is built without Kineto (torch.autograd.profiler.kineto_available() is
False): its export_chrome_trace() writes the legacy JSON array with empty args, so neither the ops'
FLOPs nor their shapes reach the file. Its profiler still computes both per event (the same
computeFlops torch uses with Kineto), so this script writes those events the way Kineto does: the
object form {"traceEvents": [...]}, ops as `cpu_op` events and record_function ranges (scope
USER_SCOPE) as `user_annotation`, with args "External id", "Input Dims" and, where torch gave one,
"flops". Every figure in the file is torch's own; only the layout is Kineto's.

The model is the lab's: Embedding(512, 256) -> 3 x (Linear(256, 256) + GELU) -> Linear(256, 512),
AdamW, B = 64, under schedule(wait=1, warmup=1, active=2), so the trace holds ProfilerStep#2 and
ProfilerStep#3, each with forward, backward and optimizer.
"""
import json
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

USER_SCOPE = 7  # at::RecordScope::USER_SCOPE: record_function ranges


def kineto_events(events, pid):
    out = []  # trace_name keeps "ProfilerStep#N", which events() names "ProfilerStep*"
    for e in sorted(events, key=lambda e: (e.time_range.start, -e.time_range.end, e.id)):
        args = {"External id": e.id}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.flops:
            args["flops"] = e.flops
        cat = "user_annotation" if e.scope == USER_SCOPE else "cpu_op"
        out.append({"ph": "X", "cat": cat, "name": e.trace_name or e.name, "pid": pid, "tid": e.thread,
                    "ts": e.time_range.start, "dur": e.time_range.end - e.time_range.start, "args": args})
    return out


def main():
    path = sys.argv[1]
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = nn.Sequential(nn.Embedding(512, 256), *[m for _ in range(3) for m in (nn.Linear(256, 256), nn.GELU())],
                          nn.Linear(256, 512))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tok, tgt = torch.randint(0, 512, (64,)), torch.randint(0, 512, (64,))
    pid = os.getpid()

    def ready(prof):
        doc = {"schemaVersion": 1, "deviceProperties": [], "record_shapes": 1, "with_flops": 1,
               "traceEvents": [{"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0,
                                "args": {"name": "python3"}}] + kineto_events(prof.events(), pid),
               "traceName": os.path.basename(path), "displayTimeUnit": "ms"}
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")

    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                 on_trace_ready=ready, record_shapes=True, with_flops=True) as prof:
        for _ in range(4):
            with record_function("forward"):
                loss = nn.functional.cross_entropy(model(tok), tgt)
            with record_function("backward"):
                opt.zero_grad()
                loss.backward()
            with record_function("optimizer"):
                opt.step()
            prof.step()


if __name__ == "__main__":
    main()
