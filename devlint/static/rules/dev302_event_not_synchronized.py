from __future__ import annotations

from typing import Iterable

from devlint.core.facts import EventElapsed
from devlint.static.rules.base import Verdict, Rule


class EventNotSynchronized(Rule):
    """`start.elapsed_time(end)` is read before the `end` event has completed.

    ## What it does
    Flags `elapsed_time` calls on CUDA events when `end.record()` was not
    followed by `end.synchronize()` or `torch.cuda.synchronize()`.

    ## Why is this bad?
    `record()` only queues the event. Reading the elapsed time before it has
    completed raises `RuntimeError: CUDA error: device not ready` or, worse,
    reads a stale value.
    """

    code = "DEV302"
    name = "event-not-synchronized"
    severity = "error"
    facts = (EventElapsed,)

    INVALID = (
        """\
import torch
if torch.cuda.is_available():
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    x = torch.randn(512, 512, device="cuda")
    start.record()
    y = x @ x
    end.record()
    print(start.elapsed_time(end))  # expect: DEV302
""",
    )
    VALID = (
        """\
import torch
if torch.cuda.is_available():
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    x = torch.randn(512, 512, device="cuda")
    start.record()
    y = x @ x
    end.record()
    end.synchronize()
    print(start.elapsed_time(end))
""",
    )

    def check(self, fact: EventElapsed) -> Iterable[Verdict]:
        if fact.recorded is None or fact.synced:
            return
        yield Verdict(
            fact.node,
            f"`elapsed_time` reads `{fact.end_label}` before it completed: nothing synchronized after "
            "its `record()`",
            why=(f"`{fact.end_label}` recorded at {self.file.step(fact.recorded)}",) + self.called_from(fact),
            fix=f"call `{fact.end_label}.synchronize()` first",
        )
