from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import MovedParameter
from devlint.static.fixes import Fix, NodeEdit
from devlint.static.fixes.helpers import code, is_atom
from devlint.static.rules.base import Verdict, Rule


class MovedNewParameter(Rule):
    """A new `nn.Parameter` is moved to a device: the result is a plain tensor.

    ## What it does
    Flags `nn.Parameter(t).to(device)` and `nn.Parameter(t).cuda()`: the move of a
    parameter just made, to another device than its data's.

    ## Why is this bad?
    `Tensor.to` returns a copy when the device changes, and a copy of a parameter
    is an ordinary tensor computed from it: not a leaf, not a `Parameter`. Stored on
    a module (`self.weight = nn.Parameter(w).to(device)`), nothing registers it:
    `model.parameters()` leaves it out, the optimizer never updates it,
    `state_dict()` does not save it, and `model.to()` does not move it. Handed to an
    optimizer, it raises "can't optimize a non-leaf Tensor". On the cpu the move is
    a no-op and the bug stays hidden until the code runs on a GPU.

    ## Fix
    Safe: `--fix` moves the data instead, `nn.Parameter(t.to(device))`. Often
    better still: create the parameter on the cpu and move the whole module.
    """

    code = "DEV109"
    name = "moved-new-parameter"
    severity = "error"
    facts = (MovedParameter,)

    INVALID = (
        """\
import torch
from torch import nn

class Norm(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(n)).to(device)  # expect: DEV109
""",
    )
    FIXED = (
        """\
import torch
from torch import nn

class Norm(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(n).to(device))
""",
    )
    VALID = (
        """\
import torch
from torch import nn

class Norm(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(n, device=device))
        self.shift = nn.Parameter(torch.zeros(n).to(device))
""",
    )

    def check(self, fact: MovedParameter) -> Iterable[Verdict]:
        made = code(self.file, fact.parameter)
        yield Verdict(
            fact.node,
            f"`{made}` is moved to {fact.target.device} after it is made: the result is a plain tensor, not a "
            "parameter, so no module registers it and no optimizer updates it",
            why=self.called_from(fact),
            fix="move its data instead: `nn.Parameter(t.to(device))`",
            autofix=self.autofix(fact),
        )

    def autofix(self, fact: MovedParameter) -> Optional[Fix]:
        move, made = fact.node, fact.parameter
        if type(move) is not cst.Call or type(move.func) is not cst.Attribute or type(made) is not cst.Call \
                or not made.args or made.args[0].keyword is not None or made.args[0].star:
            return None
        data = made.args[0].value
        moved = code(self.file, data) if is_atom(data) else f"({code(self.file, data)})"
        moved += f".{move.func.attr.value}({', '.join(code(self.file, a).rstrip(', ') for a in move.args)})"
        rest = "".join(", " + code(self.file, a).rstrip(", ") for a in made.args[1:])
        return Fix.safe(NodeEdit(move, f"{code(self.file, made.func)}({moved}{rest})"))
