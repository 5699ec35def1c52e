"""One checking session: a device table, a checker and its patches, started and stopped once."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Optional

import torch

from devlint.runtime.checker import DeviceChecker
from devlint.runtime.devices import RealDevices, SimulatedDevices
from devlint.runtime.distributed import write_rank_report
from devlint.runtime.report import Report
from devlint.runtime.tracking import Records


def cuda_missing() -> bool:
    return not torch.cuda.is_available()


class Session:
    """`start()` patches torch and pushes the checker; `stop()` undoes both, in reverse order.

    simulate: None simulates `gpus` GPUs where CUDA is missing. keep_going: record each problem
    (once per call site, with a count) and carry on, which only a simulation can do. rank: the
    process's rank in a distributed run, named in its report.
    """

    def __init__(self, simulate: Optional[bool] = None, gpus: int = 1, keep_going: bool = False,
                 rank: Optional[int] = None) -> None:
        self.simulated = cuda_missing() if simulate is None else simulate
        self.gpus = gpus
        self.rank = rank
        self.report = Report(simulated=self.simulated, gpus=gpus)
        table = SimulatedDevices if self.simulated else RealDevices
        self.devices = table(Records(), gpus)
        self.checker = DeviceChecker(self.report, self.devices, keep_going=keep_going)
        self._stack: Optional[contextlib.ExitStack] = None

    @property
    def keep_going(self) -> bool:
        return self.checker.keep_going

    def start(self) -> "Session":
        from devlint.runtime.patches import install

        stack = contextlib.ExitStack()
        try:
            install(self.checker, stack, CheckedRank)
            stack.enter_context(self.checker)
        except BaseException:
            stack.close()
            raise
        self._stack = stack
        return self

    def stop(self) -> None:
        if self._stack is not None:
            stack, self._stack = self._stack, None
            stack.close()

    def __enter__(self) -> "Session":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class CheckedRank:
    """`fn` as a spawned child runs it: under a checker of its own (picklable, for the spawn start method)."""

    def __init__(self, fn: Callable, config: dict) -> None:
        self.fn, self.config = fn, config

    def __call__(self, index: int, *args: Any) -> Any:
        session = Session(self.config["simulate"], self.config["gpus"], self.config["keep_going"], rank=index)
        try:
            with session:
                return self.fn(index, *args)
        finally:
            write_rank_report(session.report, self.config["reports"], index)
