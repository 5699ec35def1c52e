"""`devlint --runtime script.py ARGS`, `-- pytest ARGS` and `-- torchrun ... train.py ARGS`.

A script runs as `python script.py ARGS` would (as `__main__`, with sys.argv
and sys.path[0] set), under the checker: its stdout is its own, its exceptions
show its own frames, Ctrl-C ends it as it ends Python. devlint writes to
stderr, except the JSON report, which goes to stdout (the program's output
then goes to stderr) or to --output-file. Exit code: the program's, or 1 when
a device problem was found, 2 for usage errors.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
from dataclasses import dataclass
from types import TracebackType
from typing import Callable, Iterator, Optional, Sequence

_HIDDEN = (os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ""), f"{os.sep}click{os.sep}",
           f"{os.sep}runpy.py", f"{os.sep}pluggy{os.sep}", "<frozen runpy>")


def say(message: str) -> None:
    sys.stdout.flush()
    print(f"devlint: {message}", file=sys.stderr, flush=True)


@dataclass
class Options:
    simulate: bool = True
    gpus: int = 1
    output_format: str = "text"  # text or json
    output_file: Optional[str] = None
    keep_going: bool = False
    # Lints the files the run went through (given by the command line, so runtime needs no static layer).
    confirm: Optional[Callable[[Sequence[str]], list]] = None

    @property
    def json_to_stdout(self) -> bool:
        return self.output_format == "json" and not self.output_file


def main(argv: Sequence[str], simulate_gpu: Optional[bool] = None, gpus: int = 1, output_format: str = "text",
         keep_going: bool = False, confirm: Optional[Callable[[Sequence[str]], list]] = None,
         output_file: Optional[str] = None) -> int:
    """Run the program under the checker; KeyboardInterrupt is re-raised after the report (the CLI dies of it)."""
    argv = list(argv)
    if not argv:
        say("error: nothing to run (give a script, `-- pytest ARGS` or `-- torchrun ARGS`)")
        return 2
    try:
        import torch
    except ImportError:
        say("error: runtime mode needs torch: pip install 'devlint[runtime]'")
        return 2
    from devlint.runtime.devices import why_simulate

    reason = why_simulate(gpus) if simulate_gpu is None else None
    simulate = bool(reason) if simulate_gpu is None else simulate_gpu
    options = Options(simulate, gpus, output_format, output_file, keep_going, confirm)
    if reason:
        say(reason)
    if argv[0] in ("pytest", "py.test") or argv[:3] == ["python", "-m", "pytest"]:
        return _run_pytest(argv[3:] if argv[0] == "python" else argv[1:], options)
    from devlint.runtime.distributed import is_launcher

    if is_launcher(argv):
        return _run_launcher(argv, options)
    return _run_script(argv, options)


@contextlib.contextmanager
def _program_output(options: Options) -> Iterator[None]:
    """While the program runs: its stdout goes to stderr when stdout is for the JSON report."""
    if not options.json_to_stdout:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run_path(argv: list, as_module: bool = False) -> int:
    """Run a script (or `-m module`) as `python` would; its exit code. Its exceptions propagate."""
    target = argv[0]
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = list(argv)
    sys.path.insert(0, os.getcwd() if as_module else os.path.dirname(os.path.abspath(target)))
    try:
        if as_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(target, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0


def run_checked(argv: list, session, as_module: bool = False) -> tuple:
    """(exit code, the device error that stopped the program or None). Other exceptions are shown as Python shows them."""
    from devlint.runtime.errors import CHECKER_ERRORS

    try:
        with session:
            return run_path(argv, as_module), None
    except CHECKER_ERRORS as exc:
        return 1, exc
    except KeyboardInterrupt:
        print_user_traceback(*sys.exc_info())
        raise
    except Exception:
        print_user_traceback(*sys.exc_info())
        return 1, None


def _run_script(argv: list, options: Options) -> int:
    from devlint.runtime.session import Session

    if not os.path.isfile(argv[0]):
        say(f"error: {argv[0]}: no such file")
        return 2
    session = Session(options.simulate, options.gpus, options.keep_going)
    try:
        with _program_output(options):
            code, error = run_checked(argv, session)
    except KeyboardInterrupt:
        finish(session.report, options, [argv[0]], error=None)
        raise
    return finish(session.report, options, [argv[0]], error, code)


def finish(report, options: Options, programs: list, error: Optional[BaseException] = None, code: int = 0) -> int:
    """Say what the checker saw (the error that stopped the program, the table or the JSON); the exit code."""
    if error is not None:
        say(f"{getattr(error, 'code', 'DEV101')} {error}")
    confirmation = None
    if options.confirm:
        from devlint.runtime.confirm import confirm

        confirmation = confirm(report, programs, options.confirm)
    if options.output_format == "json":
        import json

        data = report.to_dict()
        if confirmation is not None:
            data["confirm"] = confirmation.to_dict()
        _write(json.dumps(data, indent=2) + "\n", options)
    else:
        parts = [report.summary_table()] if not report.clean or report.lying_timers or options.output_file else []
        if confirmation is not None:
            parts.append(confirmation.text())
        if parts:
            _write("\n".join(parts) + "\n", options)
    return 1 if report.problems and code == 0 else code


def _write(text: str, options: Options) -> None:
    if options.output_file:
        with open(options.output_file, "w", encoding="utf-8") as out:
            out.write(text)
    elif options.output_format == "json":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        sys.stdout.flush()
        sys.stderr.write(text)


def print_user_traceback(kind: type, error: BaseException, tb: Optional[TracebackType]) -> None:
    """The traceback Python would print: the program's frames, not devlint's, click's or runpy's."""
    seen: set = set()
    chained: Optional[BaseException] = error
    while chained is not None and id(chained) not in seen:
        seen.add(id(chained))
        chained.__traceback__ = _user_frames(chained.__traceback__)
        chained = chained.__cause__ or chained.__context__
    sys.stdout.flush()
    traceback.print_exception(kind, error, error.__traceback__, file=sys.stderr)
    sys.stderr.flush()


def _user_frames(tb: Optional[TracebackType]) -> Optional[TracebackType]:
    entries = []
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(_HIDDEN[0]) and not any(part in filename for part in _HIDDEN[1:]):
            entries.append(tb)
        tb = tb.tb_next
    head = None
    for entry in reversed(entries):
        head = TracebackType(head, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return head


def _run_launcher(argv: list, options: Options) -> int:
    from devlint.runtime.distributed import launch
    from devlint.runtime.report import Report

    report = Report(simulated=options.simulate, gpus=options.gpus)
    try:
        code = launch(argv, sys.executable, options.simulate, options.gpus, options.keep_going, report,
                      stdout=2 if options.json_to_stdout else None)
    except (ValueError, SystemExit) as exc:  # torchrun's parser rejected the options
        say(f"error: {exc if isinstance(exc, ValueError) else 'bad torchrun options'}")
        return 2
    scripts = [arg for arg in argv if arg.endswith(".py")][-1:]
    return finish(report, options, scripts, None, code)


def _run_pytest(args: list, options: Options) -> int:
    import tempfile

    import pytest

    from devlint.runtime.report import Report

    with tempfile.TemporaryDirectory(prefix="devlint-pytest-") as folder:
        saved = os.path.join(folder, "report.json")
        plugin_args = ["--devlint-runtime", "--devlint-gpus", str(options.gpus), "--devlint-json", saved]
        if options.simulate:
            plugin_args.append("--devlint-simulate-gpu")
        if not _plugin_registered():
            plugin_args = ["-p", "devlint.runtime.pytest_plugin", *plugin_args]
        with _program_output(options):
            code = int(pytest.main([*args, *plugin_args]))
        report = Report()
        if os.path.exists(saved):
            import json

            with open(saved, encoding="utf-8") as file:
                report = Report.from_dict(json.load(file))
    if options.output_format == "text" and not options.confirm and not options.output_file:
        return code  # the plugin printed its table in pytest's summary
    tests = sorted({p.site.filename for p in report.problems if p.site})
    return finish(report, options, tests, None, code) or code


def _plugin_registered() -> bool:
    from importlib.metadata import entry_points

    return any(ep.value == "devlint.runtime.pytest_plugin" for ep in entry_points(group="pytest11"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
