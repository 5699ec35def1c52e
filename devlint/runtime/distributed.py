"""Distributed runs: every rank under its own checker, one merged report naming the ranks.

Two ways ranks are born, both covered:
- `torchrun`: `devlint --runtime -- torchrun [OPTIONS] train.py ARGS` runs torchrun itself,
  each rank being `python -m devlint.runtime.rank train.py ARGS`;
- `torch.multiprocessing.spawn(fn, ...)` from a checked script: each child runs `fn` under
  a checker of its own (`session.CheckedRank`, put in place by `patches.py`).
Each rank writes its report as JSON into a folder the launcher reads back.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Optional

from devlint.runtime.report import Report

CONFIG_ENV = "DEVLINT_RANK_CONFIG"  # JSON: simulate, gpus, keep_going, reports (the folder)
LAUNCHERS = ("torchrun", "torch.distributed.run", "torch.distributed.launch")


def rank_config(simulate: bool, gpus: int, keep_going: bool, reports: str) -> dict:
    return {"simulate": simulate, "gpus": gpus, "keep_going": keep_going, "reports": reports}


def write_rank_report(report: Report, folder: str, rank: int) -> None:
    path = Path(folder) / f"rank-{rank}.json"
    path.write_text(json.dumps(report.to_dict()), encoding="utf-8")


def read_rank_reports(folder: str, into: Report) -> Report:
    """Merge every rank's report into `into`, each problem naming its rank."""
    for path in sorted(Path(folder).glob("rank-*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a rank killed before it could write: its launcher says why
        into.merge(Report.from_dict(data), rank=int(path.stem.split("-", 1)[1]))
    return into


def rank_label(ranks: Any) -> str:
    return f"[rank {','.join(map(str, sorted(ranks)))}] " if ranks else ""


# ------------------------------------------------------------ torchrun


def is_launcher(argv: list) -> bool:
    return bool(argv) and (os.path.basename(argv[0]) == "torchrun" or
                           (len(argv) > 2 and argv[1] == "-m" and argv[2] in LAUNCHERS))


def torchrun_command(argv: list, python: str) -> list:
    """`torchrun OPTS script ARGS` as `python -m torch.distributed.run OPTS -m devlint.runtime.rank script ARGS`."""
    from torch.distributed.run import get_args_parser

    options = argv[1:] if os.path.basename(argv[0]) == "torchrun" else argv[3:]
    parsed = get_args_parser().parse_args(options)
    if parsed.no_python:
        raise ValueError("torchrun --no-python runs a program devlint cannot check from inside")
    tail = [parsed.training_script, *parsed.training_script_args]
    head = options[: len(options) - len(tail)]
    as_module = bool(parsed.module)
    head = [option for option in head if option not in ("-m", "--module")]
    return [python, "-m", "torch.distributed.run", *head, "-m", "devlint.runtime.rank",
            *(["--module"] if as_module else []), *tail]


def launch(argv: list, python: str, simulate: bool, gpus: int, keep_going: bool, report: Report,
           stdout: Optional[int] = None) -> int:
    """Run torchrun with every rank checked; merge the ranks' reports into `report`; torchrun's exit code."""
    import subprocess

    command = torchrun_command(argv, python)
    with tempfile.TemporaryDirectory(prefix="devlint-ranks-") as folder:
        env = dict(os.environ, **{CONFIG_ENV: json.dumps(rank_config(simulate, gpus, keep_going, folder))})
        code = subprocess.call(command, env=env, stdout=stdout)
        read_rank_reports(folder, report)
    return code
