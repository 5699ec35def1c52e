from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import FileIntent, ModuleCall, Operand, Operation
from devlint.core.mixing import CREATED_WITHOUT_DEVICE, classify_module_input, first_disagreement
from devlint.core.torch_catalogue.views import FACTORIES_WITH_DEVICE
from devlint.static.fixes import AFTER, Fix, NodeEdit
from devlint.static.fixes.helpers import function_of, is_atom, parent_of, statement_of, torch_alias
from devlint.static.rules.base import Verdict, Rule
from devlint.static.syntax import dotted


def _bare_factory(node: object) -> bool:
    """`torch.zeros(n)`: a factory call with arguments, none of them `device=`, `out=` (which decides the
    device) or unpacked."""
    if type(node) is not cst.Call or not node.args or type(node.func) is not cst.Attribute:
        return False
    return node.func.attr.value in FACTORIES_WITH_DEVICE and not any(
        a.star or (a.keyword and a.keyword.value in ("device", "out")) for a in node.args)


class CreatedWithoutDevice(Rule):
    """A tensor created without `device=` inside a function meets the caller's tensors.

    ## What it does
    Flags operations inside a function or a module's `forward` that combine a
    tensor created there by a factory without `device=` (so on the cpu) with
    tensors whose device comes from the function's arguments or from the
    module's parameters. An error where a caller in the checked code hands
    it tensors on a known device; a warning where the other side is only on a
    parameter's device (no caller shows it, or the module's own device): on
    unseen code, most of those are helpers only ever given cpu data. In a run
    that never writes a GPU word (`cuda`, `device`, `gpu`, ...) in any of its
    files, such a guess is an info: nothing there is placed on a GPU. And
    where its own file or the run's other files hold callers, and every
    call that reaches the operation gives it cpu tensors only (a dataset's
    `__getitem__` on decoded frames, an export script's sample), the
    callers have answered the guess: nothing is reported. A caller that
    passes anything else keeps it, and so do tests and callers outside
    the run.

    ## Why is this bad?
    The function works in every cpu test and crashes the first time it is
    called with cuda tensors: the helper tensor stays on the cpu.
    Create it where its partner lives: `torch.zeros(n, device=x.device)`,
    `x.new_zeros(n)`, `torch.zeros_like(x)`.

    ## Fix
    Safe: `--fix` adds `device=x.device` to the factory call, where `x` is the
    function's parameter whose device the other operand follows, or that the
    other operand was created on there (`torch.arange(n, device=x.device)`).
    """

    code = "DEV104"
    name = "created-without-device"
    severity = "error"
    facts = (Operation, ModuleCall, FileIntent)
    supersedes = ("DEV101", "DEV102")  # the mix comes from a tensor created on the cpu: name that cause

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
    FIXED = (
        """\
import torch
from torch import nn

class Cell(nn.Module):
    def forward(self, x):
        h = torch.zeros(x.size(0), 8, device=x.device)
        return torch.cat([x, h], dim=1)
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
        guesses: list[Verdict] = self.file_state().setdefault("guesses", [])
        if isinstance(fact, FileIntent):  # the file's last fact: the guesses, now that the run's intent is known
            yield from (v if fact.gpu_in_run else replace(v, severity="info") for v in guesses)
            return
        verdicts = self._module_input(fact) if isinstance(fact, ModuleCall) else self._operation(fact)
        for verdict in verdicts:
            if verdict.severity == "warning":
                guesses.append(verdict)  # a guess at what callers pass: an info in a run that never uses a GPU
            else:
                yield verdict

    def _operation(self, fact: Operation) -> Iterable[Verdict]:
        found = first_disagreement(fact, CREATED_WITHOUT_DEVICE)
        if found is None:
            return
        cpu_side, other = found
        created = cpu_side.value.maybe_cpu
        partner = other.value.from_param if other.value.from_param not in (None, "self") else (
            other.label if is_atom(other.node) else f"({other.label})")  # `(labels == 1).device`
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
            severity=self.guessed(other.value),
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
                severity=self.guessed(module.value),
            )
            return

    def autofix(self, factory: Optional[cst.CSTNode], other: Operand) -> Optional[Fix]:
        """`device=p.device` on the factory, p the parameter the other side follows, in p's function; or
        else the `device=p.device` the other side was created with there (its own device may be named
        after the caller's argument when the function was analysed for one call)."""
        if type(factory) is cst.SimpleStatementLine and type(factory.body[0]) in (cst.Assign, cst.AnnAssign):
            factory = factory.body[0].value  # `h = torch.zeros(n)`, where it was created on some path
        if not _bare_factory(factory):
            return None
        function = function_of(self.file, factory)
        if function is None:
            return None
        params = function.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)} - {"self"}
        value = other.value
        param = value.from_param or (value.where.param if value.where is not None else None)
        if param is not None and _called_in(function, param):
            param = None  # a class or a factory handed in (`buffer_cls(10)`): it has no `.device`
        if param not in names:
            param = self._created_on_param(other, function, names)
            if param is None:
                return None
        return Fix.safe(*(NodeEdit(made.args[-1].value, f", device={param}.device", AFTER)
                          for made in self._created_together(factory)))

    def _created_together(self, factory: cst.Call) -> list:
        """The factory, and the bare factories beside it in the torch call that takes it
        (`torch.meshgrid(torch.arange(h), torch.arange(w))`): moving one alone would mix them there."""
        statement = statement_of(self.file, factory)
        torch = torch_alias(self.file.module)
        parent = parent_of(statement, factory) if statement is not None else None
        if type(parent) is cst.Element:  # in a list or tuple display: `torch.cat([a, b])`
            parent = parent_of(statement, parent_of(statement, parent))
        call = parent_of(statement, parent) if type(parent) is cst.Arg else None
        if type(call) is not cst.Call or torch is None or not (dotted(call.func) or "").startswith(torch + "."):
            return [factory]
        values = [arg.value for arg in call.args]
        values += [e.value for v in values if type(v) in (cst.List, cst.Tuple) for e in v.elements]
        return [v for v in values if v is factory or _bare_factory(v)]
    def _created_on_param(self, other: Operand, function: cst.FunctionDef, names: set) -> Optional[str]:
        """p when the other side was created in `function` by a call with `device=p.device`, p a parameter."""
        for node in (other.node, *(step[0] for step in reversed(getattr(other.value, "why", None) or ()))):
            if type(node) is not cst.Call or function_of(self.file, node) is not function:
                continue
            for arg in node.args:
                device = arg.value if arg.keyword is not None and arg.keyword.value == "device" else None
                if type(device) is cst.Attribute and device.attr.value == "device" and \
                        type(device.value) is cst.Name and device.value.value in names:
                    return device.value.value
        return None


def _called_in(function: cst.FunctionDef, name: str) -> bool:
    """Is the parameter `name` called in `function` (a callable, not a tensor)?"""
    return any(type(node.func) is cst.Name and node.func.value == name
               for node in _calls(function.body))


def _calls(node: cst.CSTNode) -> Iterable[cst.Call]:
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Call:
            yield current
        stack.extend(current.children)
