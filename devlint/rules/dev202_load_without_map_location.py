from __future__ import annotations

from typing import Iterable

from devlint.facts import Load
from devlint.rules.base import Verdict, Rule


class LoadWithoutMapLocation(Rule):
    """`torch.load` without `map_location` in code that may run without a GPU.

    ## What it does
    Flags `torch.load(path)` calls that give no `map_location`, outside code
    guarded by a CUDA availability check.

    ## Why is this bad?
    A checkpoint saved from GPU tensors is restored onto the GPU it came from.
    On a machine without one, loading raises `RuntimeError: Attempting to
    deserialize object on a CUDA device but torch.cuda.is_available() is
    False`. `map_location=device` (or `'cpu'`) loads it anywhere.
    """

    code = "DEV202"
    name = "load-without-map-location"
    severity = "warning"
    facts = (Load,)

    INVALID = (
        """\
import torch
state = torch.load("checkpoint.pt")  # expect: DEV202
""",
    )
    VALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
state = torch.load("checkpoint.pt", map_location=device)
""",
    )

    def check(self, fact: Load) -> Iterable[Verdict]:
        if fact.has_map_location or fact.guarded:
            return
        yield Verdict(
            fact.node,
            "`torch.load` without `map_location` fails on a machine without a GPU when the checkpoint "
            "holds cuda tensors",
            why=self.called_from(fact),
            fix="pass `map_location=device` (or `map_location='cpu'`)",
        )
