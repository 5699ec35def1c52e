"""How fast is devlint, against the floor of parsing the same files?

    python benchmarks/speed.py [PATH...] [--torch] [--runs N] [--jobs 1,2]

The .py files under PATH are measured (notebooks are not: a bare parser cannot
read them). Default PATH: the installed torch package's `nn` folder (about 140 files, 2 MB;
a few minutes on 2 cores for everything below), or this repository's fixtures/
without torch. `--torch`: the whole torch package instead (about half an hour).

For each configuration, the median of --runs runs (default 3), in CPU seconds
(the process and every worker it waited for) and wall seconds:
- the floors: `libcst.parse_module` of every file in one process (as a bare
  libcst tool would; and with the garbage collector off, as devlint parses), and
  CPython's `ast.parse`;
- devlint's analysis alone: in this process, each file devlint does not skip
  parsed as devlint parses it, and only the analysis after the parse timed;
- devlint as a user runs it (`python -m devlint`, a fresh process: startup
  included), cold (empty cache) and warm (cache filled by the cold run), for each
  --jobs value; and cold with `--isolated-files` (each file alone, the project's
  other modules not read), the price of whole-project analysis.
The ratio column is CPU against the libcst floor: below 1 when devlint skips
files that cannot hold a device bug or reads them from its cache.
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Callable

import libcst

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from devlint.cli.discovery import discover  # noqa: E402


def default_paths(whole_torch: bool) -> list[str]:
    try:
        import torch
    except ImportError:
        return [str(ROOT / "fixtures")]
    folder = os.path.dirname(torch.__file__)
    return [folder if whole_torch else os.path.join(folder, "nn")]


def timed(action: Callable[[], object]) -> tuple[float, float, object]:
    """(CPU seconds of this process and its waited-for children, wall seconds, result)."""
    before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = action()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before))
    return cpu, wall, result


def parse_all(sources: list[bytes], parse: Callable[[bytes], object], collect: bool = True) -> int:
    failed = 0
    if not collect:
        gc.disable()
    try:
        for source in sources:
            try:
                parse(source)
            except Exception:  # noqa: BLE001 - a file the parser rejects is counted, not fatal
                failed += 1
    finally:
        gc.enable()
    return failed


def analysis_alone(sources: list[bytes], files: list[str]) -> tuple[float, float, object]:
    """CPU and wall seconds of devlint's analysis of the files it does not skip, parse excluded:
    each file parsed as devlint parses it, then only `check_module` timed (on the deep-stack thread)."""
    from devlint.core.deep_stack import DEEP_STACK
    from devlint.static.engine import check_module
    from devlint.static.relevance import may_hold_device_bug
    from devlint.static.rules import ALL_RULES
    from devlint.static.syntax import parse_module

    def job() -> tuple[float, float, object]:
        rules = [rule() for rule in ALL_RULES if rule.default_enabled]
        cpu = wall = 0.0
        gc.disable()
        try:
            for source, path in zip(sources, files):
                if not may_hold_device_bug(source):
                    continue
                try:
                    module = parse_module(source)
                except Exception:  # noqa: BLE001 - counted with the parse floor's failures
                    continue
                text = source.decode("utf-8", "replace")
                c0, w0 = time.thread_time(), time.perf_counter()
                try:
                    check_module(module, text, path, rules)
                except RecursionError:
                    pass
                cpu, wall = cpu + time.thread_time() - c0, wall + time.perf_counter() - w0
                del module
        finally:
            gc.enable()
        return cpu, wall, None

    return DEEP_STACK.run(job)


def devlint(paths: list[str], jobs: int, cache_dir: Path, workdir: Path, *extra: str) -> tuple[list, int, str]:
    command = [sys.executable, "-m", "devlint", "--format", "json", "--jobs", str(jobs), *extra, *paths]
    env = dict(os.environ, PYTHONPATH=str(ROOT), DEVLINT_CACHE_DIR=str(cache_dir))
    result = subprocess.run(command, capture_output=True, text=True, cwd=workdir, env=env)
    if result.returncode not in (0, 1, 2):
        sys.exit(f"devlint failed (exit {result.returncode}): {result.stderr[-2000:]}")
    return json.loads(result.stdout or "[]"), result.returncode, result.stderr


def median_of(runs: int, measure: Callable[[], tuple[float, float, object]]) -> tuple[float, float, object]:
    samples = [measure() for _ in range(runs)]
    return (statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples), samples[-1][2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--torch", action="store_true", help="the whole installed torch package")
    parser.add_argument("--runs", type=int, default=3, help="runs per configuration; the median is shown")
    parser.add_argument("--jobs", default="1,2", help="devlint --jobs values, comma-separated (default 1,2)")
    args = parser.parse_args()
    paths = [os.path.abspath(p) for p in (args.paths or default_paths(args.torch))]
    files, missing = discover(paths)
    files = [f for f in files if f.endswith(".py")]  # a notebook's JSON is no input for a bare parser
    if missing or not files:
        sys.exit(f"nothing to measure: {missing or paths}")
    sources = [Path(f).read_bytes() for f in files]
    megabytes = sum(map(len, sources)) / 1e6
    lines = sum(s.count(b"\n") for s in sources)
    print(f"{len(files)} files, {lines:,} lines, {megabytes:.1f} MB; median of {args.runs} run(s); "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    rows: list[tuple[str, float, float]] = []
    floor_cpu, floor_wall, failed = median_of(args.runs, lambda: timed(lambda: parse_all(sources, libcst.parse_module)))
    rows.append(("libcst.parse_module, 1 process", floor_cpu, floor_wall))
    cpu, wall, _ = median_of(args.runs, lambda: timed(lambda: parse_all(sources, libcst.parse_module, False)))
    rows.append(("libcst.parse_module, gc off", cpu, wall))
    cpu, wall, _ = median_of(args.runs, lambda: timed(lambda: parse_all(sources, ast.parse)))
    rows.append(("ast.parse, 1 process", cpu, wall))

    cpu, wall, _ = median_of(args.runs, lambda: analysis_alone(sources, files))
    rows.append(("devlint's analysis alone", cpu, wall))

    workdir = Path(tempfile.mkdtemp(prefix="devlint-speed-"))
    findings, code, stderr = [], 0, ""
    try:
        for jobs in [int(j) for j in args.jobs.split(",") if j.strip()]:
            cache = workdir / f"cache-{jobs}"

            def cold() -> tuple[float, float, object]:
                shutil.rmtree(cache, ignore_errors=True)
                return timed(lambda: devlint(files, jobs, cache, workdir))

            cpu, wall, (findings, code, stderr) = median_of(args.runs, cold)
            rows.append((f"devlint -j{jobs}, cold cache", cpu, wall))
            cpu, wall, _ = median_of(args.runs, lambda: timed(lambda: devlint(files, jobs, cache, workdir)))
            rows.append((f"devlint -j{jobs}, warm cache", cpu, wall))
            cpu, wall, _ = median_of(args.runs, lambda: timed(lambda: devlint(files, jobs, cache, workdir,
                                                                              "--no-cache", "--isolated-files")))
            rows.append((f"devlint -j{jobs}, each file alone", cpu, wall))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print(f"{'':34} {'CPU s':>8} {'wall s':>8} {'CPU / libcst floor':>19}")
    for name, cpu, wall in rows:
        print(f"{name:34} {cpu:8.2f} {wall:8.2f} {cpu / floor_cpu:19.2f}")
    skipped = re.search(r"skipped (\d+) file", stderr)
    by_code = Counter(f["code"] for f in findings)
    print(f"libcst could not parse {failed} file(s); devlint skipped {skipped.group(1) if skipped else 0} "
          f"(no mention of torch, CUDA or a device); exit code {code}")
    print(f"findings: {len(findings)} ({', '.join(f'{c} {n}' for c, n in sorted(by_code.items()))})")
    for finding in [f for f in findings if f["code"] in ("DEV003", "DEV005")][:10]:
        print(f"  {finding['code']} {finding['path']}: {finding['message']}")


if __name__ == "__main__":
    main()
