"""What does `devlint --runtime` cost? The same work with and without the checker.

    python benchmarks/runtime_overhead.py [--repeats N] [--threads T] [--suite DIR [--pytest-args ARGS]]

Two workloads, each run plain, under the checker on real devices (the cpu here),
and on a simulated GPU; each figure is the median of N repetitions with its
spread [min-max], as CPU time (this process, all threads) and wall time:
- a training step of a few milliseconds (3-layer MLP, width 512, batch 64, Adam),
  where the checker's cost per torch call is small beside the arithmetic;
- small tensors and many calls (an RK4 integration of a tiny network, with its
  backward): what unit tests of numerical libraries look like, the worst case.
With --suite DIR [--pytest-args ARGS], also a pytest suite, plain and with
--devlint-runtime, in subprocesses run in DIR (one run each); a run that collected
nothing is refused, not timed. On a machine with CUDA, the real-GPU rows are added.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from devlint.runtime import check  # noqa: E402


def training_step(device: str) -> Callable[[int], None]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = [(torch.randn(64, 512), torch.randint(0, 10, (64,))) for _ in range(4)]

    def run(count: int) -> None:
        for i in range(count):
            x, y = data[i % len(data)]
            x, y = x.to(device), y.to(device)
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if device == "cuda":
            torch.cuda.synchronize()

    return run


def small_ops(device: str) -> Callable[[int], None]:
    torch.manual_seed(0)
    field = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4)).to(device)
    y0 = torch.randn(8, 4, device=device, requires_grad=True)

    def run(count: int) -> None:
        for _ in range(count):
            y, h = y0, torch.tensor(0.05, device=device)
            for _ in range(10):  # RK4
                k1 = field(y)
                k2 = field(y + h / 2 * k1)
                k3 = field(y + h / 2 * k2)
                k4 = field(y + h * k3)
                y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            y.pow(2).mean().backward()
        if device == "cuda":
            torch.cuda.synchronize()

    return run


WORKLOADS = {"training step": (training_step, 20), "small ops (RK4 + backward)": (small_ops, 10)}


def measure(make: Callable, device: str, count: int, repeats: int, mode: str) -> tuple:
    """(CPU seconds per step, wall seconds per step) of each repetition."""
    cpu, wall = [], []
    for _ in range(repeats):
        checker = check(simulate_gpu=(mode == "simulated")) if mode != "plain" else None
        if checker is not None:
            checker.__enter__()
        try:
            run = make(device)
            run(2)  # warm up
            c0, w0 = time.process_time(), time.perf_counter()
            run(count)
            cpu.append((time.process_time() - c0) / count)
            wall.append((time.perf_counter() - w0) / count)
        finally:
            if checker is not None:
                checker.__exit__(None, None, None)
    return cpu, wall


def spread(values: list, unit: float = 1e3) -> str:
    return f"{statistics.median(values) * unit:7.2f} [{min(values) * unit:.2f}-{max(values) * unit:.2f}]"


def _ran(output: str) -> int:
    """How many tests pytest's closing line says passed or failed (0: nothing was collected or run)."""
    import re

    last = output.strip().splitlines()[-1] if output.strip() else ""
    return sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed)", last))


def suite(path: str, pytest_args: list) -> None:
    """A pytest suite, plain and checked (one run each): CPU time of pytest and its children, and wall time.

    Refuses a figure when a run collected nothing (a suite whose files pytest's default pattern misses,
    `*_tests.py`: pass `--pytest-args "-o python_files=*_tests.py"`), or when the two runs disagree."""
    rows = []
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args]
    for label, extra in (("plain", []), ("--devlint-runtime", ["--devlint-runtime"])):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([*command, *extra], capture_output=True, text=True, cwd=path)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        ran = _ran(done.stdout)
        if not ran:
            tail = "\n".join(done.stdout.strip().splitlines()[-3:])
            sys.exit(f"test suite {path}: the {label} run ran no test (exit {done.returncode}), no figure:\n{tail}")
        rows.append((label, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                     time.perf_counter() - start, ran, done.stdout.strip().splitlines()[-1]))
    print(f"\ntest suite {path}: `{' '.join(command[1:])}`, one run each")
    for label, cpu, wall, _, closing in rows:
        print(f"  {label:<20} cpu {cpu:8.1f} s   wall {wall:8.1f} s   cpu ratio x{cpu / rows[0][1]:.2f}"
              f"   wall ratio x{wall / rows[0][2]:.2f}   ({closing.strip('= ')})")
    if rows[0][3] != rows[1][3]:
        print("  (the two runs did not run the same number of tests: compare with care)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1: steadier figures)")
    parser.add_argument("--suite", metavar="DIR", help="also time the pytest suite in DIR (run there), plain and checked")
    parser.add_argument("--pytest-args", default="", metavar="ARGS",
                        help="with --suite: pytest's arguments, one string (e.g. \"-o python_files=*_tests.py "
                             "tests/a_tests.py\"); default: the whole folder")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"devlint runtime overhead: torch {torch.__version__}, {args.threads} thread(s), {os.cpu_count()} cpu(s); "
          f"median [min-max] of {args.repeats} repetitions, ms per step")
    for title, (make, count) in WORKLOADS.items():
        print(f"\n{title}")
        print(f"  {'':<28} {'cpu time':<24} {'wall time':<24} ratios (cpu, wall)")
        cases = [("cpu", "plain"), ("cpu", "checked"), ("cuda", "simulated")]
        if torch.cuda.is_available():
            cases += [("cuda", "plain"), ("cuda", "checked")]
        base: dict = {}
        for device, mode in cases:
            cpu, wall = measure(make, device, count, args.repeats, mode)
            if mode == "plain":
                base[device] = (statistics.median(cpu), statistics.median(wall))
            reference = base["cpu" if mode == "simulated" else device]
            label = {"plain": f"plain {device}", "checked": f"checked, real {device}",
                     "simulated": "checked, simulated GPU"}[mode]
            print(f"  {label:<28} {spread(cpu):<24} {spread(wall):<24} "
                  f"x{statistics.median(cpu) / reference[0]:.2f}  x{statistics.median(wall) / reference[1]:.2f}")
    if args.suite:
        import shlex

        suite(args.suite, shlex.split(args.pytest_args))
    if not torch.cuda.is_available():
        print("\n(no CUDA here: the simulated GPU is compared with plain cpu; real-GPU rows need a GPU)")


if __name__ == "__main__":
    main()
