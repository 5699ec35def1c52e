from __future__ import annotations

from typing import Iterable

from devlint.facts import ClockRead
from devlint.rules.base import Verdict, Rule


class UnsynchronizedTiming(Rule):
    """A wall-clock timing of GPU work reads the clock before the GPU has finished.

    ## What it does
    Flags a clock read (`time.time()`, `time.perf_counter()`,
    `time.monotonic()`, `timeit.default_timer()`) that ends a measurement
    started by an earlier read, when GPU work ran in between and nothing
    synchronized with the GPU before the read: no `torch.cuda.synchronize()`,
    no `event.synchronize()`, no implicit synchronization such as `.item()` or
    `.cpu()`.

    ## Why is this bad?
    CUDA kernels run asynchronously: the Python call returns as soon as the
    work is queued. The measurement is the time to launch the kernels, not to
    run them, and the figures (latency, FPS) are wrong, sometimes by orders
    of magnitude.
    """

    code = "DEV301"
    name = "unsynchronized-timing"
    severity = "warning"
    facts = (ClockRead,)

    INVALID = (
        """\
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(256, 256, device=device)
start = time.perf_counter()
y = x @ x
elapsed = time.perf_counter() - start  # expect: DEV301
""",
    )
    VALID = (
        """\
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(256, 256, device=device)
start = time.perf_counter()
y = x @ x
if device.type == "cuda":
    torch.cuda.synchronize()
elapsed = time.perf_counter() - start
""",
    )

    def check(self, fact: ClockRead) -> Iterable[Verdict]:
        if fact.gpu_work is None or fact.synced:
            return
        yield Verdict(
            fact.node,
            f"`{fact.clock}()` is read while GPU work may still be queued: the measurement times the launch, "
            "not the work",
            why=(f"the measurement starts at {self.file.step(fact.started[0])}",
                 f"GPU work at {self.file.step(fact.gpu_work[0])}") + self.called_from(fact),
            fix="call `torch.cuda.synchronize()` before reading the clock (or time with CUDA events)",
        )
