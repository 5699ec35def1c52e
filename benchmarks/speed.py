"""How fast is devlint, against the floor of parsing the same files with libcst?

    python benchmarks/speed.py [PATH...] [--jobs N] [--repeat]

Default PATH: the installed torch package's source (else this repository's
fixtures/). Prints the parse floor (libcst.parse_module of every file, one
process), the whole devlint process as a user runs it (--no-cache), their
ratio, and, with --repeat, a second run that may use the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import libcst

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from devlint.discovery import discover  # noqa: E402


def default_paths() -> list[str]:
    try:
        import torch
    except ImportError:
        return [str(ROOT / "fixtures")]
    return [os.path.dirname(torch.__file__)]


def parse_floor(files: list[str]) -> tuple[float, int, int]:
    start = time.perf_counter()
    failed = lines = 0
    for path in files:
        source = Path(path).read_bytes()
        lines += source.count(b"\n")
        try:
            libcst.parse_module(source)
        except Exception:  # noqa: BLE001 - a file libcst cannot parse is counted, not fatal
            failed += 1
    return time.perf_counter() - start, failed, lines


def run_devlint(paths: list[str], jobs: int, cache: bool, cwd: Path) -> tuple[float, list, int]:
    command = [sys.executable, "-m", "devlint", "--format", "json", "--jobs", str(jobs), *paths]
    if not cache:
        command.insert(3, "--no-cache")
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1, 2):
        sys.exit(f"devlint failed (exit {result.returncode}): {result.stderr[-2000:]}")
    return elapsed, json.loads(result.stdout or "[]"), result.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--jobs", type=int, default=1, help="devlint worker processes (default 1, like the floor)")
    parser.add_argument("--repeat", action="store_true", help="also time a second, cached run")
    args = parser.parse_args()
    paths = [os.path.abspath(p) for p in (args.paths or default_paths())]
    files, missing = discover(paths)
    if missing or not files:
        sys.exit(f"nothing to measure: {missing or paths}")
    floor, unparsable, lines = parse_floor(files)
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / "devlint-speed"
    workdir.mkdir(exist_ok=True)
    elapsed, findings, code = run_devlint(paths, args.jobs, cache=False, cwd=workdir)
    internal = [f for f in findings if f["code"] == "DEV003"]
    print(f"files: {len(files)}  lines: {lines}  (libcst could not parse {unparsable})")
    print(f"libcst.parse_module floor (1 process): {floor:8.2f} s")
    print(f"devlint, whole process (--jobs {args.jobs}):  {elapsed:8.2f} s")
    print(f"ratio devlint / parse floor:           {elapsed / floor:8.2f}")
    by_code = Counter(f["code"] for f in findings)
    print(f"findings: {len(findings)} ({', '.join(f'{c} {n}' for c, n in sorted(by_code.items()))})  "
          f"internal errors: {len(internal)}  exit code: {code}")
    for finding in internal[:10]:
        print(f"  internal error: {finding['path']}: {finding['message']}")
    if args.repeat:
        run_devlint(paths, args.jobs, cache=True, cwd=workdir)  # fill the cache
        again, _, _ = run_devlint(paths, args.jobs, cache=True, cwd=workdir)
        print(f"second run on unchanged files (cache):  {again:8.2f} s")


if __name__ == "__main__":
    main()
