from __future__ import annotations

from typing import Iterable

from devlint.facts import DiscardedMove
from devlint.rules.base import Verdict, Rule


class ThrownAwayMove(Rule):
    """The tensor returned by `.to()`, `.cuda()` or `.cpu()` is thrown away.

    ## What it does
    Flags a bare expression statement such as `x.to(device)` on a tensor.
    `Tensor.to` returns a new tensor (or the same one): it never moves `x`.
    `model.to(device)` on a module is not flagged: `Module.to` works in place.

    ## Why is this bad?
    The tensor stays where it was, and the next operation that meets a tensor
    on the other device crashes, or the work silently runs on the cpu.
    """

    code = "DEV103"
    name = "discarded-move"
    severity = "error"
    facts = (DiscardedMove,)

    INVALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(4, 4)
x.to(device)  # expect: DEV103
""",
    )
    VALID = (
        """\
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(4, 4)
x = x.to(device)
model = nn.Linear(4, 4)
model.to(device)
""",
    )

    def check(self, fact: DiscardedMove) -> Iterable[Verdict]:
        label = fact.value.label
        yield Verdict(
            fact.node,
            f"the result of `{label}.{fact.method}(...)` is thrown away: `Tensor.{fact.method}` returns a new "
            f"tensor and does not move `{label}`",
            why=(self.placed(label, fact.value.value),) + self.called_from(fact),
            fix=f"assign it: `{label} = {label}.{fact.method}(...)`",
        )
