from __future__ import annotations

from typing import Iterable

from devlint.core.facts import UnregisteredModule
from devlint.static.rules.base import Rule, Verdict


class ModuleInPlainContainer(Rule):
    """A module's submodules are kept in a plain list or dict, so nothing registers them.

    ## What it does
    Flags the call of a submodule held only by a plain `list`, `dict` or
    `tuple` attribute of an `nn.Module` (`self.branches = [nn.Conv1d(...) for
    k in sizes]`), set while the module is built. Modules that are also
    attributes of the module (`[self.conv1, self.conv2]`) are registered
    there, and parameter-free ones (activations) have nothing to lose.

    ## Why is this bad?
    `nn.Module` registers submodules assigned as attributes and members of
    `nn.ModuleList`/`nn.ModuleDict` only. The modules in a plain list are
    invisible to it: `model.to(device)` leaves them on the cpu (the first
    call crashes with "Expected all tensors to be on the same device"),
    `model.parameters()` does not list them, so the optimizer never trains
    them, and `state_dict()` does not save them.
    """

    code = "DEV107"
    name = "module-in-plain-container"
    severity = "error"
    facts = (UnregisteredModule,)
    supersedes = ("DEV101", "DEV102")  # the mix comes from a module model.to() never moved: name that cause

    INVALID = (
        """\
import torch
from torch import nn

class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = [nn.Linear(8, 1) for _ in range(3)]

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=1)  # expect: DEV107
""",
    )
    VALID = (
        """\
import torch
from torch import nn

class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(8, 1) for _ in range(3)])
        self.first = nn.Linear(8, 8)
        self.pipeline = [self.first, nn.ReLU()]  # registered above; ReLU has no parameters

    def forward(self, x):
        for step in self.pipeline:
            x = step(x)
        return torch.cat([head(x) for head in self.heads], dim=1)
""",
    )

    def check(self, fact: UnregisteredModule) -> Iterable[Verdict]:
        container = "a plain container"
        yield Verdict(
            fact.node,
            f"`{fact.module.label}` is held by `self.{fact.attribute}`, {container}: its parameters are not "
            "registered, so `.to()` does not move them, the optimizer does not train them and `state_dict()` "
            "does not save them",
            why=(f"`self.{fact.attribute}` is assigned at {self.file.step(fact.assigned)}",) + self.called_from(fact),
            fix=f"make `self.{fact.attribute}` an `nn.ModuleList([...])` (or an `nn.ModuleDict({{...}})`)",
            key=id(fact.assigned),
        )
