"""One rank of a torchrun launch, under the checker: `python -m devlint.runtime.rank [--module] script ARGS`.

torchrun starts it in place of the user's script (see distributed.py); the
rank runs the script as torchrun would have, with a simulated `cuda:LOCAL_RANK`
among the N simulated GPUs, and writes its report where the launcher reads it.
"""

from __future__ import annotations

import json
import os
import sys

from devlint.runtime.distributed import CONFIG_ENV, rank_label, write_rank_report
from devlint.runtime.runner import run_checked, say
from devlint.runtime.session import Session


def main(argv: list) -> int:
    as_module = bool(argv) and argv[0] == "--module"
    argv = argv[1:] if as_module else argv
    if not argv:
        say("error: devlint.runtime.rank needs a script")
        return 2
    config = json.loads(os.environ.get(CONFIG_ENV, "{}"))
    rank = int(os.environ.get("RANK", "0"))
    session = Session(config.get("simulate"), config.get("gpus", 1), config.get("keep_going", False), rank=rank)
    code, error = 1, None
    try:
        code, error = run_checked(argv, session, as_module=as_module)
    finally:
        if config.get("reports"):
            write_rank_report(session.report, config["reports"], rank)
    if error is not None:
        say(f"{getattr(error, 'code', 'DEV101')} {rank_label([rank])}{error}")
    return 1 if session.report.problems and code == 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
