from __future__ import annotations

from typing import Iterable

from devlint.core.facts import CpuOnlyArgument
from devlint.core.values import DeviceValue
from devlint.static.rules.base import Verdict, Rule


class GpuTensorForCpuArgument(Rule):
    """An argument that must be on the cpu is given a tensor that lives on the GPU.

    ## What it does
    Flags `pack_padded_sequence(input, lengths)` (and `pack_sequence`) when
    `lengths` is a tensor computed on the GPU or on the inputs' device; and a
    legacy type constructor (`torch.LongTensor(data, device=device)`,
    `torch.FloatTensor`, `torch.Tensor`) given a GPU `device=`.

    ## Why is this bad?
    Since PyTorch 1.7 packing raises `RuntimeError: 'lengths' argument should
    be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor`. Pass
    `lengths.cpu()` (or a list of ints). A legacy constructor makes cpu
    tensors only: given a GPU it raises `RuntimeError: legacy constructor
    expects device type: cpu but device type: cuda was passed`. Use
    `torch.tensor(data, dtype=torch.long, device=device)`.
    """

    code = "DEV106"
    name = "cpu-only-argument"
    severity = "error"
    facts = (CpuOnlyArgument,)

    INVALID = (
        """\
import torch
from torch.nn.utils.rnn import pack_padded_sequence

def pack(x, mask):
    lengths = mask.long().sum(1)
    return pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)  # expect: DEV106
""",
        """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def to_ids(tokens):
    return torch.LongTensor(tokens, device=device)  # expect: DEV106
""",
    )
    VALID = (
        """\
import torch
from torch.nn.utils.rnn import pack_padded_sequence

def pack(x, mask):
    lengths = mask.long().sum(1)
    return pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
""",
        """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def to_ids(tokens):
    return torch.tensor(tokens, dtype=torch.long, device=device)
""",
    )

    def check(self, fact: CpuOnlyArgument) -> Iterable[Verdict]:
        value = fact.value
        where = value.value.device
        # (a parameter's device: "on the device of `lens`" of `lens` itself says nothing; say where it comes from)
        place = "comes from the caller, on the device it computes on" if where is not None and where.kind == "param" \
            else f"is on {where}"
        message = f"`{fact.function}` needs {fact.argument} on the cpu, but `{value.label}` {place}"
        if isinstance(value.value, DeviceValue):  # the device a legacy constructor is given
            message = f"`{fact.function}` (a legacy constructor) makes cpu tensors only, but its `device=` is " \
                      f"{value.value.device}: on a GPU it raises"
        yield Verdict(
            fact.node,
            message,
            why=(self.placed(value.label, value.value),) + self.called_from(fact),
            fix=fact.fix or f"pass `{value.label}.cpu()`",
        )
