from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import ModuleCall, Operand, Operation
from devlint.core.mixing import CREATED_WITHOUT_DEVICE, classify_module_input, first_disagreement
from devlint.core.torch_catalogue.views import FACTORIES_WITH_DEVICE
from devlint.static.fixes import AFTER, Fix, NodeEdit
from devlint.static.fixes.helpers import function_of
from devlint.static.rules.base import Verdict, Rule


class CreatedWithoutDevice(Rule):
    """A tensor created without `device=` inside a function meets the caller's tensors.

    ## What it does
    Flags operations inside a function or a module's `forward` that combine a
    tensor created there by a factory without `device=` (so on the cpu) with
    tensors whose device comes from the function's arguments or from the
    module's parameters.

    ## Why is this bad?
    The function works in every cpu test and crashes the first time it is
    called with cuda tensors: the helper tensor stays on the cpu.
    Create it where its partner lives: `torch.zeros(n, device=x.device)`,
    `x.new_zeros(n)`, `torch.zeros_like(x)`.

    ## Fix
    Safe: `--fix` adds `device=x.device` to the factory call, where `x` is the
    function's parameter whose device the other operand follows.
    """

    code = "DEV104"
    name = "created-without-device"
    severity = "error"
    facts = (Operation, ModuleCall)

    INVALID = (
        """\
import torch
from torch import nn

class Cell(nn.Module):
    def forward(self, x):
        h = torch.zeros(x.size(0), 8)
        return torch.cat([x, h], dim=1)  # expect: DEV104
""",
    )
    VALID = (
        """\
import torch
from torch import nn

class Cell(nn.Module):
    def forward(self, x):
        h = x.new_zeros(x.size(0), 8)
        g = torch.zeros(x.size(0), 8, device=x.device)
        return torch.cat([x, h, g], dim=1)
""",
    )

    def check(self, fact: object) -> Iterable[Verdict]:
        if isinstance(fact, ModuleCall):
            yield from self._module_input(fact)
            return
        found = first_disagreement(fact, CREATED_WITHOUT_DEVICE)
        if found is None:
            return
        cpu_side, other = found
        created = cpu_side.value.maybe_cpu
        partner = other.value.from_param if other.value.from_param not in (None, "self") else other.label
        factory = created[0] if created else (cpu_side.value.why[0][0] if cpu_side.value.why else None)
        where = self.placed(cpu_side.label, cpu_side.value) if cpu_side.value.where is not None else (
            f"`{cpu_side.label}` may be on cpu: {self.file.step(*created)}" if created else "")
        yield Verdict(
            fact.node,
            f"`{cpu_side.label}` is created on cpu (no `device=`) but `{fact.name}` combines it with "
            f"`{other.label}`, whose device comes from the caller",
            why=(where, self.placed(other.label, other.value)) + self.called_from(fact),
            fix=f"create it on `{partner}.device`: `device={partner}.device` or `{partner}.new_zeros(...)`",
            key=id(created[0]) if created else (id(cpu_side.value.why[0][0]) if cpu_side.value.why else None),
            autofix=self.autofix(factory, other),
        )

    def _module_input(self, fact: ModuleCall) -> Iterable[Verdict]:
        module = fact.module
        for operand in fact.inputs:
            if classify_module_input(module.value, operand.value, fact.context.in_module_method) \
                    != CREATED_WITHOUT_DEVICE:
                continue
            yield Verdict(
                fact.node,
                f"`{operand.label}` is created on cpu (no `device=`) but is given to `{module.label}`, whose "
                f"device comes from {'the module' if module.value.device.kind == 'param' else 'the caller'}",
                why=(self.placed(operand.label, operand.value), self.placed(module.label, module.value))
                + self.called_from(fact),
                fix="create it on the module's device: `device=<an input>.device`, or `<an input>.new_zeros(...)`",
                key=id(operand.value.why[0][0]) if operand.value.why else None,
            )
            return

    def autofix(self, factory: Optional[cst.CSTNode], other: Operand) -> Optional[Fix]:
        """`device=p.device` on the factory, p the parameter the other side follows, in p's function."""
        if type(factory) is cst.SimpleStatementLine and type(factory.body[0]) in (cst.Assign, cst.AnnAssign):
            factory = factory.body[0].value  # `h = torch.zeros(n)`, where it was created on some path
        value = other.value
        param = value.from_param or (value.where.param if value.where is not None else None)
        if type(factory) is not cst.Call or not param or param == "self" or not factory.args:
            return None
        name = factory.func.attr.value if type(factory.func) is cst.Attribute else None
        if name not in FACTORIES_WITH_DEVICE or any(a.star or (a.keyword and a.keyword.value == "device") for a in factory.args):
            return None
        function = function_of(self.file, factory)
        if function is None:
            return None
        params = function.params
        if param not in {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}:
            return None
        return Fix.safe(NodeEdit(factory.args[-1].value, f", device={param}.device", AFTER))
