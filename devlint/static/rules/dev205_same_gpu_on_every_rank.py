from __future__ import annotations

from typing import Iterable

from devlint.core.facts import SharedGpu
from devlint.static.rules.base import Rule, Verdict

# A launcher that gives each process its own GPU by hiding the others makes plain 'cuda' right.
_ONE_GPU_PER_PROCESS = "CUDA_VISIBLE_DEVICES"


class SameGpuOnEveryRank(Rule):
    """Every process of an NCCL group computes on GPU 0.

    ## What it does
    Flags plain `'cuda'` (`.cuda()`, `.to("cuda")`, `device="cuda"`,
    `torch.device("cuda")`) used after `init_process_group(backend="nccl")`
    when no `torch.cuda.set_device(...)` ran since, in the same function or in
    a helper it called. A file that sets `CUDA_VISIBLE_DEVICES` is left alone.

    ## Why is this bad?
    Plain `'cuda'` is the current device, which is GPU 0 in every process until
    `set_device` changes it. Under `torchrun` every rank then puts its model
    and batches on GPU 0: the other GPUs idle, GPU 0 runs out of memory, and
    NCCL may fail with "Duplicate GPU detected".

    ## Example
    ```python
    dist.init_process_group(backend="nccl")
    model = Net().cuda()
    ```

    ## Use instead
    ```python
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = Net().cuda()
    ```
    """

    code = "DEV205"
    name = "same-gpu-on-every-rank"
    severity = "warning"
    facts = (SharedGpu,)

    INVALID = (
        """\
import torch
import torch.distributed as dist


def main():
    dist.init_process_group(backend="nccl")
    model = torch.nn.Linear(8, 2).cuda()  # expect: DEV205
    return model
""",
    )
    VALID = (
        """\
import os

import torch
import torch.distributed as dist


def main():
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = torch.nn.Linear(8, 2).cuda()
    return model
""",
        """\
import os

import torch
import torch.distributed as dist


def main(local_rank):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(local_rank)  # each process sees its own GPU as GPU 0
    dist.init_process_group(backend="nccl")
    model = torch.nn.Linear(8, 2).cuda()
    return model
""",
    )

    def check(self, fact: SharedGpu) -> Iterable[Verdict]:
        seen = self.file_state()
        if "one gpu per process" not in seen:  # the file's text, rendered once per file (not per use)
            seen["one gpu per process"] = _ONE_GPU_PER_PROCESS in self.file.module.code
        if seen["one gpu per process"]:
            return
        yield Verdict(
            fact.node,
            "plain 'cuda' is GPU 0 in every process of the NCCL group: no `torch.cuda.set_device` ran since "
            "the group was set up",
            why=(f"the group is set up at {self.file.step(fact.group)}",) + self.called_from(fact),
            fix="call `torch.cuda.set_device(local_rank)` after `init_process_group`, or use "
                "`torch.device('cuda', local_rank)`",
            key=id(fact.group),  # the first use tells it: one finding per group set up
        )
