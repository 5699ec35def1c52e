from __future__ import annotations

from typing import Iterable

import libcst as cst

from devlint.core.facts import FileIntent, GpuAssumption
from devlint.static.rules.base import Rule, Verdict
from devlint.static.rules.dev201_gpu_assumed import GpuAssumed


class GpuOnlyFile(Rule):
    """The file assumes a GPU throughout and never checks for one.

    ## What it does
    Reports once, at its first GPU assumption, a file that uses CUDA
    (`'cuda'` devices, `.cuda()`, `torch.cuda` calls that need a GPU) without
    any sign that it means to run without one (no availability check, no
    `--cpu`/`--no-cuda`/`--device` option, no `if use_cuda:` switch, no
    device variable; a `--gpus N` count is no such option), whose device
    variables only ever hold `'cuda'` beside a call that needs a GPU
    (`torch.cuda.set_device`, `reset_peak_memory_stats`), or whose GPU uses
    are mostly hardcoded: at least three, and more than the places that use
    a device chosen at run time or check for a GPU. Such a file is GPU-first by design (a multi-GPU launch script,
    a CUDA benchmark, a GPU tutorial): its assumptions are not reported one by
    one (DEV201, DEV203, DEV202 stay silent there), only counted here.

    ## Fix
    Unsafe: DEV201's, for the first assumption it can rewrite (a `device`
    variable selected once after the imports); the file then checks for a GPU,
    and the rest are DEV201s and DEV203s that `--fix --unsafe-fixes` rewrites
    in turn where they can be (an assignment from a `torch.cuda` call is left
    to you).

    ## Why is this bad?
    It is not, if the file is meant for GPU machines only: then set
    `assume-gpu = true` in `[tool.devlint]` (for a GPU-only project) or
    silence this line. Otherwise the file dies on a machine without a GPU
    (a laptop, CI, a Mac) at the first of those places.
    """

    code = "DEV204"
    name = "gpu-only-file"
    severity = "info"
    facts = (FileIntent, GpuAssumption)

    INVALID = (
        """\
import torch
from torch import nn
model = nn.Linear(8, 8).cuda()  # expect: DEV204
x = torch.randn(4, 8).cuda()
torch.cuda.synchronize()
""",
    )
    FIXED = (
        """\
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 8).to(device)
x = torch.randn(4, 8).cuda()
torch.cuda.synchronize()
""",
    )
    VALID = (
        """\
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 8).to(device)
""",
    )

    def check(self, fact: object) -> Iterable[Verdict]:
        self.gpu_intent().observe(fact)
        return ()

    def finish(self) -> Iterable[Verdict]:
        intent = self.gpu_intent()
        assumed = intent.unguarded()
        if not assumed or not intent.gpu_only():
            return
        lines = sorted({self.file.line(self._here(f)) for f in assumed})
        first = min(assumed, key=lambda f: self.file.line(self._here(f)))
        shown = ", ".join(str(n) for n in lines[:8]) + (", ..." if len(lines) > 8 else "")
        yield Verdict(
            self._here(first),
            f"this file assumes a GPU throughout ({len(lines)} line{'s' if len(lines) > 1 else ''}: {shown}) and "
            "never checks for one: it runs on GPU machines only",
            why=(f"first at {self.file.step(self._here(first))}",),
            fix="if that is the design, set `assume-gpu = true` in [tool.devlint]; otherwise select the device: "
                "`torch.device('cuda' if torch.cuda.is_available() else 'cpu')`",
            autofix=self._fix(assumed),
        )

    def _here(self, assumption: GpuAssumption) -> cst.CSTNode:
        """Where this file assumes the GPU: a 'cuda' written in another module of the project, at its use."""
        if assumption.use is not None and self.file.position(assumption.node) is None:
            return assumption.use
        return assumption.node

    def _fix(self, assumed: list):
        """DEV201's unsafe fix of the first device it can fix: once the file selects its device, the
        rest are DEV201s, fixed in turn."""
        helper = GpuAssumed()
        helper.file = self.file
        for fact in sorted(assumed, key=lambda f: self.file.line(self._here(f))):
            if fact.kind == "device" and self._here(fact) is fact.node:  # (another module's 'cuda' is fixed there)
                fix = helper.autofix(fact.node)
                if fix is not None:
                    return fix
        return None
