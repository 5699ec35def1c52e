from __future__ import annotations

from typing import Iterable

from devlint.core.facts import Operation
from devlint.core.mixing import PLAIN_ATTRIBUTE, first_disagreement
from devlint.static.rules.base import Verdict, Rule


class PlainTensorAttribute(Rule):
    """A plain tensor attribute of an `nn.Module` is used with the module's tensors.

    ## What it does
    Flags a tensor assigned as a plain attribute in an `nn.Module`'s
    `__init__` (`self.alpha = torch.ones(3)`) and then combined, in the
    module's methods, with its inputs or parameters. The finding is reported
    on the assignment: an error where the checked code moves the module (or
    hands it inputs on a known device), a warning where only the module's own
    device says where the other side is.

    ## Why is this bad?
    `model.to(device)` and `model.cuda()` move parameters, buffers and
    submodules, not plain attributes: after the move the attribute is still on
    the cpu and `forward` crashes. Register it with
    `self.register_buffer("alpha", torch.ones(3))` (or make it an
    `nn.Parameter`), so it follows the module and is saved in its state_dict.
    """

    code = "DEV105"
    name = "plain-tensor-attribute"
    severity = "error"
    facts = (Operation,)

    INVALID = (
        """\
import torch
from torch import nn

class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = torch.ones(3)  # expect: DEV105

    def forward(self, x):
        return x * self.weights
""",
    )
    VALID = (
        """\
import torch
from torch import nn

class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("weights", torch.ones(3))

    def forward(self, x):
        return x * self.weights
""",
    )

    def check(self, fact: Operation) -> Iterable[Verdict]:
        found = first_disagreement(fact, PLAIN_ATTRIBUTE)
        if found is None:
            return
        attr, other = found
        name = attr.value.attr_name or attr.label
        yield Verdict(
            attr.value.attr_node,
            f"`self.{name}` is a plain tensor attribute: it stays on cpu when the module is moved, "
            f"and `{fact.name}` combines it with `{other.label}`",
            why=(f"used at {self.file.step(fact.node)}", self.placed(other.label, other.value))
            + self.called_from(fact),
            fix=f'register it: `self.register_buffer("{name}", ...)`',
            use=fact.node,
            severity=self.guessed(other.value),
        )
