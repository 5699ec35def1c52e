from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import DiscardedMove
from devlint.core.values import Tensor
from devlint.static.fixes import BEFORE, Fix, NodeEdit
from devlint.static.fixes.helpers import code, parent_of
from devlint.static.syntax import dotted
from devlint.core.torch_catalogue.views import MOVE_METHODS
from devlint.static.rules.base import Verdict, Rule


class ThrownAwayMove(Rule):
    """The tensor returned by `.to()`, `.cuda()` or `.cpu()` is thrown away.

    ## What it does
    Flags a bare expression statement such as `x.to(device)` on a tensor.
    `Tensor.to` returns a new tensor (or the same one): it never moves `x`.
    `model.to(device)` on a module is not flagged: `Module.to` works in place,
    nor is a dtype cast that names no device (`x.to(torch.float16)`), nor a
    dead move whose next statement makes it (`x.to(cpu)` then `x = x.cpu()`):
    dead lines, but the tensor ends where it was meant to be.

    ## Why is this bad?
    The tensor stays where it was, and the next operation that meets a tensor
    on the other device crashes, or the work silently runs on the cpu.

    ## Fix
    Safe: `--fix` assigns the result back, `x = x.to(device)`.
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
    FIXED = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(4, 4)
x = x.to(device)
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
x.to(torch.float16)
""",
    )

    def check(self, fact: DiscardedMove) -> Iterable[Verdict]:
        if _moved_on_the_next_line(self.file.module, fact):
            return
        label = fact.value.label
        yield Verdict(
            fact.node,
            f"the result of `{label}.{fact.method}(...)` is thrown away: `Tensor.{fact.method}` returns a new "
            f"tensor and does not move `{label}`",
            why=(self.placed(label, fact.value.value),) + self.called_from(fact),
            fix=(f"move its data: `{label}.data = {label}.data.{fact.method}(...)` (an nn.Parameter takes no plain "
                 f"tensor), or move the module" if _is_parameter(fact) else
                 f"assign it: `{label} = {label}.{fact.method}(...)`" if _assignable(fact) else
                 f"keep the moved tensor (`moved = {label}.{fact.method}(...)`) and use it"),
            autofix=self.autofix(fact),
        )

    def autofix(self, fact: DiscardedMove) -> Optional[Fix]:
        target = fact.value.node
        if not _assignable(fact):
            return None  # `x.float().cuda()` alone: nothing to assign to
        name = code(self.file, target)
        if "\n" in name:
            return None  # a target written over several lines: not rewritten
        if _is_parameter(fact):
            return None  # `self.p = self.p.to(...)` of an nn.Parameter raises (a copy is a plain tensor)
        for small in getattr(fact.node, "body", ()):
            if type(small) is cst.Expr and _receiver(small.value) is target:
                return Fix.safe(NodeEdit(small.value, f"{name} = ", BEFORE))
        return None


def _assignable(fact: DiscardedMove) -> bool:
    """Is what was moved a name, an attribute or an element (something the result can be assigned to)?"""
    return type(fact.value.node) in (cst.Name, cst.Attribute, cst.Subscript)


def _is_parameter(fact: DiscardedMove) -> bool:
    value = fact.value.value
    return isinstance(value, Tensor) and value.parameter


def _receiver(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`x` in `x.to(d)`, `x.float().cuda()`: the leftmost object of a call chain."""
    while type(expr) is cst.Call and type(expr.func) is cst.Attribute:
        expr = expr.func.value
    return expr


def _moved_on_the_next_line(module: cst.Module, fact: DiscardedMove) -> bool:
    """`adp.to(cpu)` then `adp = adp.cpu().detach().numpy()`: the next statement makes the move the dead line
    meant to (Graph-WaveNet's test script); nothing meets the tensor in between."""
    name = dotted(fact.value.node)
    parent = parent_of(module, fact.node) if name is not None else None
    body = getattr(parent, "body", None)
    if not isinstance(body, (list, tuple)):
        return False  # (a line of another module of the project: not searched)
    index = next((i for i, statement in enumerate(body) if statement is fact.node), len(body))
    following = body[index + 1] if index + 1 < len(body) else None
    if type(following) is not cst.SimpleStatementLine or len(following.body) != 1 \
            or type(following.body[0]) is not cst.Assign:
        return False
    assignment = following.body[0]
    if not any(dotted(target.target) == name for target in assignment.targets):
        return False
    expr, moved = assignment.value, False
    while type(expr) is cst.Call and type(expr.func) is cst.Attribute:
        moved = moved or expr.func.attr.value in MOVE_METHODS
        expr = expr.func.value
    return moved and dotted(expr) == name
