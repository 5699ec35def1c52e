from __future__ import annotations

from typing import Iterable

from devlint.core.facts import OptimizerStateLeftBehind
from devlint.static.rules.base import Rule, Verdict


class OptimizerStateNotMoved(Rule):
    """An optimizer's state is loaded while the model is on the cpu, and the model moves after.

    ## What it does
    Flags `optimizer.load_state_dict(...)` run while the parameters of the
    optimizer's model are on the cpu, when the model is moved to another
    device afterwards (`model.to(device)`, `model.cuda()`), typically when
    resuming from a checkpoint. A model built by a function devlint cannot
    see (`model = build_model(cfg)`) in the same function counts too: its
    move after the load says it was not on that device yet.

    ## Why is this bad?
    `load_state_dict` puts the loaded state (SGD's momentum, Adam's moments)
    on the device of the parameters at that moment. `model.to(device)` moves
    the parameters but not the optimizer's state, so the first
    `optimizer.step()` on the GPU crashes with "Expected all tensors to be on
    the same device". An optimizer built before `model.to()` is fine:
    `Module.to` keeps the same Parameter objects.
    """

    code = "DEV108"
    name = "optimizer-state-left-behind"
    severity = "error"
    facts = (OptimizerStateLeftBehind,)

    INVALID = (
        """\
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters())
checkpoint = torch.load("last.pt", map_location="cpu")
optimizer.load_state_dict(checkpoint["optimizer"])  # expect: DEV108
model.to(device)
""",
    )
    VALID = (
        """\
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters())  # before .to(): fine, the Parameters are kept
model.to(device)
checkpoint = torch.load("last.pt", map_location="cpu")
optimizer.load_state_dict(checkpoint["optimizer"])  # after the move: the state goes to the GPU
""",
    )

    def check(self, fact: OptimizerStateLeftBehind) -> Iterable[Verdict]:
        where = f"where `{fact.module.label}` was" if fact.unplaced else "on the cpu"
        yield Verdict(
            fact.node,
            f"`{fact.optimizer}`'s state is loaded while `{fact.module.label}` is "
            f"{'not yet on its device' if fact.unplaced else 'on cpu'}, and `{fact.module.label}` is moved to "
            f"{fact.module.value.device} after: the state stays {where} and `step()` mixes devices",
            why=(f"`{fact.module.label}` is moved at {self.file.step(fact.moved)}",) + self.called_from(fact),
            fix=f"move `{fact.module.label}` to its device before `{fact.optimizer}.load_state_dict(...)`",
        )
