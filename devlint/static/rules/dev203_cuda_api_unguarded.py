from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import FileIntent, GpuAssumption
from devlint.static.fixes import BEFORE, LINE_BEFORE, Fix, NodeEdit
from devlint.static.fixes.helpers import statement_of, torch_alias
from devlint.static.rules.base import Verdict, Rule


class CudaApiUnguarded(Rule):
    """A `torch.cuda` call that needs a GPU runs on a path no availability check guards.

    ## What it does
    Flags `torch.cuda.synchronize()`, `torch.cuda.Event(...)`,
    `get_device_name`, `current_device`, `set_device` and the other
    `torch.cuda` calls that initialize CUDA, when no guard dominates them.
    Calls that are safe without a GPU (`is_available`, `device_count`,
    `manual_seed`, `manual_seed_all`, `empty_cache`, and the memory
    statistics such as `memory_allocated`, which answer 0) are not flagged.
    An unguarded `set_device` is the one report of what follows it: that code
    runs with the GPU it selects or not at all (a DDP worker's
    `torch.cuda.set_device(rank)`, also in a helper of another module), and
    plain `'cuda'` there is the rank's GPU, where `f"cuda:{rank}"` is.

    ## Why is this bad?
    Without a GPU they raise (`Torch not compiled with CUDA enabled`, `Found
    no NVIDIA driver`), so a script that would otherwise run on the cpu dies
    on a bookkeeping call.

    ## Fix
    Unsafe (the call is then skipped on a machine without a GPU): a statement
    whose value nothing keeps (`torch.cuda.set_device(rank)`,
    `print(torch.cuda.get_device_name(0))`) goes under
    `if torch.cuda.is_available():`. An assignment is left to you: skipping it
    would leave its name unset.
    """

    code = "DEV203"
    name = "cuda-api-unguarded"
    severity = "warning"
    facts = (FileIntent, GpuAssumption)

    INVALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.cuda.get_device_name(0))  # expect: DEV203
""",
    )
    FIXED = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
if torch.cuda.is_available():
    print(torch.cuda.get_device_name(0))
""",
    )
    VALID = (
        """\
import torch
if torch.cuda.is_available():
    print(torch.cuda.get_device_name(0))
torch.cuda.manual_seed_all(0)
""",
    )

    def check(self, fact: object) -> Iterable[Verdict]:
        self.gpu_intent().observe(fact)
        return ()

    def finish(self) -> Iterable[Verdict]:
        for fact in self.gpu_intent().reportable("cuda-api"):  # a GPU-only file: DEV204 says it once
            yield Verdict(
                fact.node,
                f"`{fact.what}()` fails without a GPU, and no `torch.cuda.is_available()` check guards it",
                why=self.called_from(fact),
                fix="guard it with `if torch.cuda.is_available():`",
                autofix=self.autofix(fact.node),
            )

    def autofix(self, node: cst.CSTNode) -> Optional[Fix]:
        """The expression statement around the call, under `if torch.cuda.is_available():`."""
        torch = torch_alias(self.file.module)
        statement = statement_of(self.file, node)
        if torch is None or type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
                or type(statement.body[0]) is not cst.Expr:
            return None
        module, guard = self.file.module, f"if {torch}.cuda.is_available():"
        if any(statement is top for top in module.body):  # column 0: one insertion (two at one place collide)
            return Fix.unsafe(NodeEdit(statement, guard + module.default_newline + module.default_indent, BEFORE))
        return Fix.unsafe(NodeEdit(statement, guard, LINE_BEFORE), NodeEdit(statement, module.default_indent, BEFORE))
