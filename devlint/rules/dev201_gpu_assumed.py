from __future__ import annotations

from typing import Iterable

from devlint.facts import GpuAssumption
from devlint.rules.base import Verdict, Rule


class GpuAssumed(Rule):
    """A GPU is assumed on a path that no availability check guards.

    ## What it does
    Flags a hardcoded `'cuda'` device (`torch.device('cuda')`,
    `device='cuda'`, `.to('cuda')`), `.cuda()`, legacy CUDA tensor types
    (`torch.cuda.FloatTensor(...)`, `set_default_tensor_type` with one), and
    constant flags such as `use_cuda = True` that drive them, when no guard
    dominates them. Guards: `if torch.cuda.is_available():`,
    `torch.cuda.device_count() > 0`, a variable assigned from those, the
    `'cuda' if torch.cuda.is_available() else 'cpu'` idiom, `assert`, an early
    exit when CUDA is missing, pytest/unittest skip decorators, and a user's
    explicit choice (`--device`, `--cuda` flags).

    ## Why is this bad?
    On a machine without an NVIDIA GPU (a laptop, CI, a Mac) the script dies
    with `AssertionError: Torch not compiled with CUDA enabled` or
    `RuntimeError: Found no NVIDIA driver`, often after minutes of data
    loading.
    """

    code = "DEV201"
    name = "gpu-assumed"
    severity = "warning"
    facts = (GpuAssumption,)

    INVALID = (
        """\
import torch
device = torch.device("cuda")  # expect: DEV201
x = torch.zeros(3).to(device)
""",
        """\
import torch
from torch import nn
model = nn.Linear(3, 3).cuda()  # expect: DEV201
""",
    )
    VALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.zeros(3).to(device)
""",
        """\
import torch
from torch import nn
model = nn.Linear(3, 3)
if torch.cuda.is_available():
    model.cuda()
""",
    )

    def check(self, fact: GpuAssumption) -> Iterable[Verdict]:
        if fact.kind != "device" or fact.guarded:
            return
        yield Verdict(
            fact.node,
            f"{fact.what} assumes a GPU, and no `torch.cuda.is_available()` check guards it",
            why=self.called_from(fact),
            fix="select the device: `torch.device('cuda' if torch.cuda.is_available() else 'cpu')`",
        )
