from __future__ import annotations

from typing import Iterable

from devlint.facts import HostConversion
from devlint.rules.base import Verdict, Rule


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
        yield Verdict(
            fact.node,
            f"`{fact.how}` converts `{value.label}` to numpy, but it is on {value.value.device}",
            why=(self.placed(value.label, value.value),) + self.called_from(fact),
            fix=f"bring it to the host first: `{value.label}.detach().cpu()`",
        )
