"""pytest plugin: the whole session under the device checker.

    pytest --devlint-runtime [--devlint-simulate-gpu] [--devlint-gpus N] [--devlint-keep-going]

Loaded in every pytest session where devlint is installed (entry point
`pytest11`), it only adds options until `--devlint-runtime` is given; then it
registers `RuntimePlugin`, which checks from before the root conftest.py is
imported (`pytest_load_initial_conftests`, as pytest-cov starts coverage) to
the end: initial conftests and collection (a device chosen at import time sees
the simulated GPU), fixtures, setup, the tests, teardown. A device error fails the test that caused it with
the lines that put each operand on its device (once); the session ends with
one summary table. Nothing is printed for a test unless it failed.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest

_NAME = "devlint-runtime"
_NEEDS_RUNTIME = ("devlint_simulate_gpu", "devlint_keep_going", "devlint_json")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("devlint", "device checks for PyTorch (devlint)")
    group.addoption("--devlint-runtime", action="store_true", default=False,
                    help="check the devices of every torch operation the session runs")
    group.addoption("--devlint-simulate-gpu", action="store_true", default=False,
                    help="simulate CUDA GPUs on the cpu (automatic when CUDA is missing)")
    group.addoption("--devlint-gpus", type=int, default=None, metavar="N", help="how many GPUs (default 1): simulated where fewer are present")
    group.addoption("--devlint-keep-going", action="store_true", default=False,
                    help="on a simulated GPU, record every problem of a test and fail it at its end")
    group.addoption("--devlint-json", default=None, metavar="PATH", help="also write the runtime report as JSON")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Start before pytest imports the initial conftests, so that a device they choose at import time
    (`DEVICE = "cuda" if torch.cuda.is_available() else "cpu"`) sees the simulated GPU."""
    options = early_config.known_args_namespace  # the command line as far as pytest has parsed it
    if getattr(options, "devlint_runtime", False) and not (options.help or options.version):
        _start(early_config, options)


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("devlint_runtime", default=False):
        given = [name for name in _NEEDS_RUNTIME if config.getoption(name, default=None)]
        if config.getoption("devlint_gpus", default=None) is not None:
            given.append("devlint_gpus")
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise pytest.UsageError(f"{flags} only work(s) with --devlint-runtime")
        return
    if not config.pluginmanager.has_plugin(_NAME):  # not started early: loaded after the initial conftests
        _start(config, config.option)


def _start(config: pytest.Config, options: Any) -> None:
    plugin = RuntimePlugin(options)
    config.pluginmanager.register(plugin, _NAME)
    # a cleanup runs even when the session ends before pytest_configure (a root conftest that fails to import)
    config.add_cleanup(plugin.session.stop)
    plugin.start()


class RuntimePlugin:
    """One checking session for the whole pytest session; each test phase gets its own report."""

    def __init__(self, options: Any) -> None:
        from devlint.runtime.devices import why_simulate
        from devlint.runtime.session import Session

        gpus = options.devlint_gpus or 1
        simulate = options.devlint_simulate_gpu or why_simulate(gpus) is not None
        self.session = Session(simulate, gpus, keep_going=options.devlint_keep_going)
        self.total = self.session.report  # every phase's report is merged into it; outside phases, it is the checker's
        self.json_path: Optional[str] = options.devlint_json
        self._phase: Any = None  # the current test phase's report

    def start(self) -> None:
        self.session.start()

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.session.stop()
        if self.json_path:
            with open(self.json_path, "w", encoding="utf-8") as out:
                json.dump(self.total.to_dict(), out)

    def _run_phase(self):
        from devlint.runtime.report import Report

        checker = self.session.checker
        outer, self._phase = checker.report, Report(simulated=self.total.simulated, gpus=self.total.gpus)
        checker.report = self._phase
        try:
            yield
        finally:
            checker.report = outer
            outer.merge(self._phase)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item):
        yield from self._run_phase()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        yield from self._run_phase()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item):
        yield from self._run_phase()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        from devlint.runtime.errors import CHECKER_ERRORS
        from devlint.runtime.origins import is_library

        if call.excinfo is not None and isinstance(call.excinfo.value, CHECKER_ERRORS):
            # the user's frames only: torch's module machinery tells nothing about the bug
            mine = call.excinfo.traceback.filter(lambda entry: not is_library(str(entry.path)))
            if len(mine):
                call.excinfo.traceback = mine
        outcome = yield
        report, phase = outcome.get_result(), self._phase
        if phase is None or not phase.problems:
            return
        if report.passed and self.session.keep_going:  # problems recorded, none raised: the test fails here
            report.outcome = "failed"
            report.longrepr = "\n\n".join(f"devlint {p.code} ({p.count}x at {p.site}): {p.message}"
                                          for p in phase.problems)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        terminalreporter.write_sep("=", "devlint runtime")
        terminalreporter.write_line(self.total.summary_table())
