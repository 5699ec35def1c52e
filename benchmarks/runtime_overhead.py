"""What does `devlint --runtime` cost? A small training loop with and without the checker.

    python benchmarks/runtime_overhead.py [--steps N] [--width W]

Prints seconds per step for: plain cpu, the checker on cpu tensors, the
simulated GPU (the same numbers, computed on the cpu), and on a machine with
CUDA, plain cuda and the checker on cuda; each with its ratio to its baseline.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from devlint.runtime import check  # noqa: E402


def make(width: int, device: str):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                          nn.Linear(width, 10)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = [(torch.randn(64, width), torch.randint(0, 10, (64,))) for _ in range(8)]
    return model, optimizer, data


def steps(model, optimizer, data, device: str, count: int) -> float:
    start = time.perf_counter()
    for i in range(count):
        x, y = data[i % len(data)]
        x, y = x.to(device), y.to(device)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / count


def measure(device: str, count: int, width: int, checked: bool, simulate: bool = False, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        if checked:
            with check(simulate_gpu=simulate):
                model, optimizer, data = make(width, device)
                steps(model, optimizer, data, device, 3)  # warm up
                times.append(steps(model, optimizer, data, device, count))
        else:
            model, optimizer, data = make(width, device)
            steps(model, optimizer, data, device, 3)
            times.append(steps(model, optimizer, data, device, count))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--width", type=int, default=512, help="hidden width (512: a few ms per step on a cpu)")
    args = parser.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    rows = []
    cpu = measure("cpu", args.steps, args.width, checked=False)
    rows.append(("cpu, plain", cpu, 1.0))
    checked_cpu = measure("cpu", args.steps, args.width, checked=True)
    rows.append(("cpu, checked", checked_cpu, checked_cpu / cpu))
    simulated = measure("cuda", args.steps, args.width, checked=True, simulate=True)
    rows.append(("simulated GPU (on cpu), checked", simulated, simulated / cpu))
    if torch.cuda.is_available():
        gpu = measure("cuda", args.steps, args.width, checked=False)
        rows.append(("cuda, plain", gpu, 1.0))
        checked_gpu = measure("cuda", args.steps, args.width, checked=True)
        rows.append(("cuda, checked", checked_gpu, checked_gpu / gpu))
    print(f"training step: 3-layer MLP width {args.width}, batch 64, Adam; median of 3 runs of {args.steps} steps")
    for label, seconds, ratio in rows:
        print(f"  {label:<34} {seconds * 1e3:8.2f} ms/step   x{ratio:.2f}")
    if not torch.cuda.is_available():
        print("  (no CUDA here: the real-GPU rows are measured where a GPU is present)")


if __name__ == "__main__":
    main()
