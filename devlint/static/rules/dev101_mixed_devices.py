from __future__ import annotations

from typing import Iterable

from devlint.core.facts import Operation
from devlint.core.mixing import MIXED, first_disagreement
from devlint.static.rules.base import Verdict, Rule


class MixedDevices(Rule):
    """An operation combines tensors that live on different devices.

    ## What it does
    Flags binary operators, torch functions (`torch.cat`, `torch.matmul`, ...),
    tensor methods and indexing whose tensor operands are known to be on
    different devices: cpu and cuda, cpu and the device the script selected at
    run time, or `cuda:0` and `cuda:1`. Python scalars and 0-dim cpu tensors
    are exempt: PyTorch lets them combine with tensors on any device.

    ## Why is this bad?
    On a machine with a GPU it raises `RuntimeError: Expected all tensors to be
    on the same device`. With a device chosen by `torch.cuda.is_available()`,
    the script works on a laptop and crashes on the training server.
    """

    code = "DEV101"
    name = "mixed-devices"
    severity = "error"
    facts = (Operation,)

    INVALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.ones(3)
y = torch.ones(3).to(device)
z = x + y  # expect: DEV101
""",
        """\
import torch
if torch.cuda.device_count() >= 2:
    a = torch.ones(2, device="cuda:0")
    b = torch.ones(2, device="cuda:1")
    c = torch.cat([a, b])  # expect: DEV101
""",
    )
    VALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.ones(3).to(device)
y = torch.ones(3).to(device)
z = x + y
""",
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.ones(3, device=device)
scale = torch.tensor(2.0)  # 0-dim cpu tensors mix with any device
y = x * scale + 1
""",
    )

    def check(self, fact: Operation) -> Iterable[Verdict]:
        found = first_disagreement(fact, MIXED)
        if found is None:
            return
        a, b = sorted(found, key=lambda o: fact.operands.index(o))
        what = "indexes" if fact.indexing else "combines"
        yield Verdict(
            fact.node,
            f"`{fact.name}` {what} a tensor on {self.where(a.value)} (`{a.label}`) with one on {self.where(b.value)} "
            f"(`{b.label}`)" + self.crash_clause(a.value.device, b.value.device),
            why=(self.placed(a.label, a.value), self.placed(b.label, b.value)) + self.called_from(fact),
            fix="move one operand with `.to(other.device)`, or create it on the right device",
        )
