from __future__ import annotations

from typing import Iterable

from devlint.core.facts import CpuOnlyArgument
from devlint.static.rules.base import Verdict, Rule


class GpuTensorForCpuArgument(Rule):
    """An argument that must be on the cpu is given a tensor that lives on the GPU.

    ## What it does
    Flags `pack_padded_sequence(input, lengths)` (and `pack_sequence`) when
    `lengths` is a tensor computed on the GPU or on the inputs' device.

    ## Why is this bad?
    Since PyTorch 1.7 it raises `RuntimeError: 'lengths' argument should be a
    1D CPU int64 tensor, but got 1D cuda:0 Long tensor`. Pass
    `lengths.cpu()` (or a list of ints).
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
    )
    VALID = (
        """\
import torch
from torch.nn.utils.rnn import pack_padded_sequence

def pack(x, mask):
    lengths = mask.long().sum(1)
    return pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
""",
    )

    def check(self, fact: CpuOnlyArgument) -> Iterable[Verdict]:
        value = fact.value
        yield Verdict(
            fact.node,
            f"`{fact.function}` needs {fact.argument} on the cpu, but `{value.label}` is on {value.value.device}",
            why=(self.placed(value.label, value.value),) + self.called_from(fact),
            fix=f"pass `{value.label}.cpu()`",
        )
