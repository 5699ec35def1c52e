from __future__ import annotations

from typing import Iterable

from devlint.core.facts import UncalledCheck
from devlint.static.fixes import Fix, NodeEdit
from devlint.static.fixes.helpers import code
from devlint.static.rules.base import Rule, Verdict


class UncalledAvailabilityCheck(Rule):
    """An availability check is tested without being called: it is always true.

    ## What it does
    Flags `torch.cuda.is_available` (and the other availability checks) used as a
    condition without `()`: `if torch.cuda.is_available:`,
    `"cuda" if torch.cuda.is_available else "cpu"`.

    ## Why is this bad?
    A function is always true. The GPU branch is taken on every machine, so on one
    without CUDA the code crashes in it ("Torch not compiled with CUDA enabled"),
    while on a GPU machine the check looks as if it worked. The other branch, the
    cpu one, never runs.

    ## Fix
    Safe: `--fix` calls the check, `torch.cuda.is_available()`.
    """

    code = "DEV206"
    name = "uncalled-availability-check"
    severity = "error"
    facts = (UncalledCheck,)

    INVALID = (
        """\
import torch

device = "cuda" if torch.cuda.is_available else "cpu"  # expect: DEV206
""",
        """\
import torch

use_cuda = torch.cuda.is_available
if use_cuda:  # expect: DEV206
    torch.cuda.manual_seed(0)
""",
    )
    FIXED = (
        """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
""",
        """\
import torch

use_cuda = torch.cuda.is_available
if use_cuda():
    torch.cuda.manual_seed(0)
""",
    )
    VALID = (
        """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
check = torch.cuda.is_available
""",
    )

    def check(self, fact: UncalledCheck) -> Iterable[Verdict]:
        named = code(self.file, fact.node)
        what = f"`{named}` is not called" if named == fact.path else \
            f"`{named}` is the function `{fact.path}`, not its result"
        yield Verdict(
            fact.node,
            f"{what}: a function is always true, so the GPU branch runs on every machine",
            why=self.called_from(fact),
            fix=f"call it: `{named}()`",
            autofix=Fix.safe(NodeEdit(fact.node, f"{named}()")),
        )
