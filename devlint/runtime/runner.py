"""`devlint --runtime script.py ARGS` and `devlint --runtime -- pytest ARGS`.

The script runs as `python script.py ARGS` would (as `__main__`, with sys.argv
and sys.path[0] set), under the checker. devlint writes only to stderr, so a
clean run's stdout is the script's own. Exit code: the script's, or 1 when a
device problem was found, 2 for usage errors.
"""

from __future__ import annotations

import os
import runpy
import sys
from typing import Optional, Sequence


def _say(message: str) -> None:
    print(f"devlint: {message}", file=sys.stderr)


def main(argv: Sequence[str], simulate_gpu: Optional[bool] = None, gpus: int = 1,
         output_format: str = "text") -> int:
    argv = list(argv)
    if not argv:
        _say("error: nothing to run (give a script, or `-- pytest ARGS`)")
        return 2
    try:
        import torch
    except ImportError:
        _say("error: runtime mode needs torch: pip install 'devlint[runtime]'")
        return 2
    simulate = (not torch.cuda.is_available()) if simulate_gpu is None else simulate_gpu
    if simulate and simulate_gpu is None:
        _say(f"no CUDA here: simulating {gpus} GPU(s) on the cpu")
    if argv[0] in ("pytest", "py.test") or argv[:3] == ["python", "-m", "pytest"]:
        return _run_pytest(argv[3:] if argv[0] == "python" else argv[1:], simulate, gpus)
    return _run_script(argv, simulate, gpus, output_format)


def _run_script(argv: list, simulate: bool, gpus: int, output_format: str) -> int:
    from devlint.runtime import check
    from devlint.runtime.report import DeviceMismatchError

    script = argv[0]
    if not os.path.isfile(script):
        _say(f"error: {script}: no such file")
        return 2
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code = 0
    report = None
    try:
        with check(raise_on_error=True, simulate_gpu=simulate, gpus=gpus) as report:
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if not isinstance(exc.code, (int, type(None))):
                    print(exc.code, file=sys.stderr)
    except DeviceMismatchError as exc:
        sys.stdout.flush()
        _say(f"{exc.code} {exc}")
        code = 1
    except TypeError as exc:
        if "devlint:" not in str(exc):
            raise
        sys.stdout.flush()
        _say(f"DEV401 {exc}")
        code = 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    sys.stdout.flush()
    if report is not None:
        if output_format == "json":
            print(report.to_json(), file=sys.stderr)
        elif not report.clean or report.lying_timers:
            print(report.summary_table(), file=sys.stderr)
        if not report.clean and code == 0:
            code = 1
    return code


def _run_pytest(args: list, simulate: bool, gpus: int) -> int:
    import pytest

    plugin_args = ["--devlint-runtime", "--devlint-gpus", str(gpus)]
    if simulate:
        plugin_args.append("--devlint-simulate-gpu")
    from importlib.metadata import entry_points

    registered = any(ep.value == "devlint.runtime.pytest_plugin" for ep in entry_points(group="pytest11"))
    if not registered:
        plugin_args = ["-p", "devlint.runtime.pytest_plugin", *plugin_args]
    return int(pytest.main([*args, *plugin_args]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
