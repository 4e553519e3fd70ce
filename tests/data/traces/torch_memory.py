"""Writes torch_memory.json: a torch.profiler trace with memory events.

Run with Debian's python3-torch (1.13): /usr/bin/python3 torch_memory.py

Three steps of y = x @ w; z = relu(y); z.sum() on CPU, one thread, each in a
ProfilerStep#N range, recorded with profile_memory on. Debian's build has no
Kineto, and its legacy Chrome export drops memory events; so this script
takes the profiler's own records (torch.autograd._enable_profiler_legacy
with profile_memory=True: one `memory_alloc` record per allocation, its
size, negative for a free) and writes them as Kineto writes memory events:
instant events named "[memory]" with args Bytes, Total Allocated (the sum of
the records so far, from the start of profiling), Device Type 0 (CPU) and
Device Id -1, beside the op ranges as complete ("X") events. Every number
comes from the profiler; none is written by hand.
"""
import json
import sys

import torch
import torch.autograd as ag
from torch.autograd import ProfilerConfig, ProfilerState

torch.manual_seed(0)
torch.set_num_threads(1)
x = torch.randn(64, 128)
w = torch.randn(128, 256)


def step():
    y = x @ w
    z = torch.relu(y)
    return z.sum()


step()  # warm-up, not recorded
cfg = ProfilerConfig(ProfilerState.CPU, False, True, False, False, False, torch._C._profiler._ExperimentalConfig())
ag._enable_profiler_legacy(cfg)
for i in range(3):
    with torch.profiler.record_function("ProfilerStep#%d" % i):
        step()
records = ag._disable_profiler_legacy()

events = []
for thread in records:
    start = thread[0]
    stack = []
    total = 0
    for r in thread:
        ts = round(start.cpu_elapsed_us(r), 3)
        if r.kind() == "push":
            stack.append((r.name(), ts))
        elif r.kind() == "pop" and stack:
            name, t0 = stack.pop()
            events.append({"ph": "X", "cat": "user_annotation" if name.startswith("ProfilerStep") else "cpu_op",
                           "name": name, "pid": 0, "tid": r.thread_id(), "ts": t0, "dur": round(ts - t0, 3),
                           "args": {}})
        elif r.kind() == "memory_alloc":
            total += r.cpu_memory_usage()
            events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 0,
                           "tid": r.thread_id(), "ts": ts,
                           "args": {"Device Type": 0, "Device Id": -1, "Bytes": r.cpu_memory_usage(),
                                    "Total Allocated": total, "Total Reserved": total}})
events.sort(key=lambda e: e["ts"])
out = sys.argv[1] if len(sys.argv) > 1 else "torch_memory.json"
with open(out, "w") as f:
    json.dump({"schemaVersion": 1, "traceEvents": events,
               "otherData": {"torch": torch.__version__, "made_by": "tests/data/traces/torch_memory.py"}}, f, indent=0)
