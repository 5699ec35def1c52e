"""pytest plugin: run each test under the device checker.

    pytest --devlint-runtime [--devlint-simulate-gpu] [--devlint-gpus N]

Loaded in every pytest session where devlint is installed (entry point
`pytest11`), so it imports nothing heavy until `--devlint-runtime` is given.
A device error fails the test that caused it, with the lines that put each
operand on its device; the session ends with one summary table. Nothing is
printed for a test unless it failed.
"""

from __future__ import annotations

from typing import Any, Optional

import pytest

_STATE: dict[str, Any] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("devlint", "device checks for PyTorch (devlint)")
    group.addoption("--devlint-runtime", action="store_true", default=False,
                    help="check the devices of every torch operation each test runs")
    group.addoption("--devlint-simulate-gpu", action="store_true", default=False,
                    help="simulate CUDA GPUs on the cpu (automatic when CUDA is missing)")
    group.addoption("--devlint-gpus", type=int, default=1, metavar="N", help="how many GPUs to simulate (default 1)")


def pytest_configure(config: pytest.Config) -> None:
    _STATE.clear()  # a session (pytester runs several in one process) starts afresh
    if not config.getoption("devlint_runtime", default=False):
        return
    import torch

    from devlint.runtime.report import Report

    simulate = config.getoption("devlint_simulate_gpu") or not torch.cuda.is_available()
    gpus = config.getoption("devlint_gpus")
    _STATE.update(simulate=simulate, gpus=gpus, total=Report(simulated=simulate, gpus=gpus), failed={})


def pytest_unconfigure(config: pytest.Config) -> None:
    _STATE.clear()


def _enabled() -> bool:
    return bool(_STATE)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    if not _enabled():
        yield
        return
    from devlint.runtime import check

    with check(raise_on_error=True, simulate_gpu=_STATE["simulate"], gpus=_STATE["gpus"]) as report:
        outcome = yield
    _merge(_STATE["total"], report)
    error = outcome.excinfo[1] if outcome.excinfo else None
    if error is not None and report.problems:
        _STATE["failed"][item.nodeid] = report.problems[0]


def _merge(total: Any, report: Any) -> None:
    for problem in report.problems:
        total.add_problem(problem.code, problem.site, problem.message)
    for table_name in ("transfers", "syncs", "lying_timers"):
        table = getattr(total, table_name)
        for key, counter in getattr(report, table_name).items():
            mine = table.get(key)
            if mine is None:
                table[key] = counter
            else:
                mine.count += counter.count
                mine.nbytes += counter.nbytes


def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Optional[Any]:
    if not _enabled() or call.when != "call" or item.nodeid not in _STATE["failed"]:
        return None
    problem = _STATE["failed"][item.nodeid]
    report = pytest.TestReport.from_item_and_call(item, call)
    report.sections.append(("devlint", f"{problem.code} at {problem.site}\n{problem.message}"))
    return report


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not _enabled():
        return
    terminalreporter.write_sep("=", "devlint runtime")
    terminalreporter.write_line(_STATE["total"].summary_table())
