from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import HostConversion
from devlint.core.values import Tensor
from devlint.static.fixes import AFTER, BEFORE, Fix, NodeEdit
from devlint.static.fixes.helpers import is_atom
from devlint.static.rules.base import Verdict, Rule


class HostConversionOfGpuTensor(Rule):
    """A tensor on the GPU is handed to numpy (or a library built on it) without `.cpu()`.

    ## What it does
    Flags `.numpy()` on a tensor on cuda or on the selected device, and the
    implicit conversions that real bug reports show to be the majority:
    numpy functions (`np.asarray`, `np.array`, `np.sum`, `np.unravel_index`,
    ...) given such a tensor or a list of them, matplotlib plotting,
    scikit-learn metrics.

    ## Why is this bad?
    numpy reads host memory: it raises `TypeError: can't convert cuda:0 device
    type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory
    first.`

    A value whose device rests on a guess about code devlint cannot see (what
    an unseen function returns, taken to follow its inputs; the output of an
    object of unknown kind) is reported as a warning: such functions may
    bring their result to the host themselves.

    ## Fix
    Safe: `--fix` inserts `.detach().cpu()` (`.cpu()` after a `.detach()`)
    before `.numpy()`, or around a tensor variable handed to a host library.
    A list of tensors is left to you: `torch.stack(tensors).cpu()`.
    """

    code = "DEV401"
    name = "host-conversion"
    severity = "error"
    facts = (HostConversion,)

    INVALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
scores = torch.randn(10, device=device)
values = scores.numpy()  # expect: DEV401
""",
    )
    FIXED = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
scores = torch.randn(10, device=device)
values = scores.detach().cpu().numpy()
""",
    )
    VALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
scores = torch.randn(10, device=device)
values = scores.detach().cpu().numpy()
""",
    )

    def check(self, fact: HostConversion) -> Iterable[Verdict]:
        value = fact.value
        tensor = fact.how == ".numpy()" or _holds_the_tensor(fact)
        detached = _is_detach(value.node)
        if tensor:
            suffix = ".cpu()" if detached else ".detach().cpu()"
            hint = f"bring it to the host first: `{value.label}{suffix}`"
        else:
            hint = (f"bring the tensors in `{value.label}` to the host first: `.detach().cpu()` on each one "
                    "(for a list, `torch.stack(...).cpu()`)")
        yield Verdict(
            fact.node,
            f"`{fact.how}` converts `{value.label}` to numpy, but it is on {value.value.device}",
            why=(self.placed(value.label, value.value),) + self.called_from(fact),
            fix=hint,
            autofix=self.autofix(value.node, detached) if tensor else None,
            severity="warning" if _guessed(value.value) else None,
        )

    def autofix(self, node: cst.CSTNode, detached: bool) -> Optional[Fix]:
        suffix = ".cpu()" if detached else ".detach().cpu()"
        if is_atom(node):
            return Fix.safe(NodeEdit(node, suffix, AFTER))
        return Fix.safe(NodeEdit(node, "(", BEFORE), NodeEdit(node, ")" + suffix, AFTER))


def _guessed(value: object) -> bool:
    """Does its device rest on a guess about unseen code: an unseen function's result, taken to follow its
    inputs, or what an object of unknown kind returns? (Precision survey 77: two such errors, both false: an
    external NMS that ends in `.cpu()`. What is computed from such a value is judged as before: an unseen
    model's output, `np.sum(losses)` of its losses, is a GPU tensor as a rule; the set-aside excerpts say so.)"""
    return isinstance(value, Tensor) and (value.inferred or value.maybe_object)


def _is_detach(node: cst.CSTNode) -> bool:
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "detach"


def _holds_the_tensor(fact: HostConversion) -> bool:
    """`np.asarray(x)` with `x` last assigned a tensor (not a list of them, whose items share its why)."""
    node, why = fact.value.node, fact.value.value.why
    if type(node) is not cst.Name or not why:
        return False
    last = why[-1][0]
    if type(last) is cst.Param:
        return last.name.value == node.value
    for small in getattr(last, "body", ()):
        targets = [t.target for t in getattr(small, "targets", ())] + [getattr(small, "target", None)]
        if type(small) in (cst.Assign, cst.AnnAssign) and any(
                type(t) is cst.Name and t.value == node.value for t in targets):
            return True
    return False
