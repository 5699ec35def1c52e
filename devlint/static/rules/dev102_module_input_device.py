from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import ModuleCall
from devlint.static.rules.base import Verdict, Rule
from devlint.static.syntax import children, dotted
from devlint.core.mixing import MIXED, classify_module_input


class ModuleInputDevice(Rule):
    """A module is called with an input on another device than its parameters.

    ## What it does
    Flags calls of a module (`model(x)`, and the calls that run a module on an
    example such as `writer.add_graph(model, x)` or `torch.jit.trace(model,
    x)`) where the module was moved to one device and the input lives on
    another: typically a batch straight from a `DataLoader`, which is on the
    cpu, fed to a model moved with `model.to(device)`. An input left on the
    cpu only where a test of the module itself says so (`if not
    model.params.unconditional: cond = cond.to(device)`) is one the module
    does not read there: not flagged.

    ## Why is this bad?
    The first layer raises `RuntimeError: Input type (torch.FloatTensor) and
    weight type (torch.cuda.FloatTensor) should be the same` (or the
    "Expected all tensors to be on the same device" error) on a GPU machine.
    """

    code = "DEV102"
    name = "module-input-device"
    severity = "error"
    facts = (ModuleCall,)
    supersedes = ("DEV101",)  # a module called with input on another device: more specific than a mix

    INVALID = (
        """\
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
for (x,) in loader:
    out = model(x)  # expect: DEV102
""",
    )
    VALID = (
        """\
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2)
model.to(device)  # Module.to moves the module in place
loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
for (x,) in loader:
    out = model(x.to(device))
""",
    )

    def check(self, fact: ModuleCall) -> Iterable[Verdict]:
        module = fact.module
        for operand in fact.inputs:
            value = operand.value
            if classify_module_input(module.value, value, fact.context.in_module_method) == MIXED \
                    and not _moved_as_the_module_asks(value, dotted(module.node)):
                message = (f"`{module.label}` is on {module.value.device} but its input `{operand.label}` "
                           f"is on {self.where(value)}" + self.crash_clause(module.value.device, value.where))
                yield Verdict(
                    fact.node, message,
                    why=(self.placed(module.label, module.value), self.placed(operand.label, value))
                    + self.called_from(fact),
                    fix=f"move the input first: `{operand.label}.to(device)`",
                )
                return


def _moved_as_the_module_asks(value: object, module_name: Optional[str]) -> bool:
    """`if not model.params.unconditional: cond = cond.to(device)`: an input left on the cpu on the path where a
    test of the module itself says so is one the module does not read there (an unconditional model has no
    conditioner; diffwave's inference)."""
    path = getattr(value, "cpu_path", None)
    if getattr(value, "where", None) is not None or path is None or module_name is None:
        return False
    stack: list[cst.CSTNode] = [path[0]]
    while stack:
        node = stack.pop()
        if type(node) in (cst.Name, cst.Attribute):
            name = dotted(node)
            if name is not None and (name == module_name or name.startswith(module_name + ".")):
                return True
            if name is not None:
                continue
        stack.extend(children(node))
    return False
