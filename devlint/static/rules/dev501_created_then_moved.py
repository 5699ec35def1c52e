from __future__ import annotations

from typing import Iterable

from devlint.core.facts import FreshMove
from devlint.static.rules.base import Verdict, Rule


class CreatedThenMoved(Rule):
    """A tensor is created on the cpu and moved to the GPU at once.

    ## What it does
    Flags `torch.zeros(n).cuda()`, `torch.randn(3, 4).to(device)` and the like:
    a factory without `device=` whose result goes straight to the GPU.
    Off by default; enable with `--select DEV5`.

    ## Why is this bad?
    The tensor is allocated and filled on the cpu, then copied over the bus:
    in a loop this is a host-to-device transfer every step. Create it on the
    device: `torch.zeros(n, device=device)`.
    """

    code = "DEV501"
    name = "created-then-moved"
    severity = "info"
    default_enabled = False
    facts = (FreshMove,)

    INVALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
noise = torch.randn(64, 100).to(device)  # expect: DEV501
""",
    )
    VALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
noise = torch.randn(64, 100, device=device)
""",
    )

    def check(self, fact: FreshMove) -> Iterable[Verdict]:
        yield Verdict(
            fact.node,
            f"`{fact.factory}` is created on cpu and then copied to {fact.target.device}",
            why=self.called_from(fact),
            fix="create it there: pass `device=` to the factory",
        )
