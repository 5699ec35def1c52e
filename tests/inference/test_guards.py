"""Guards: availability checks, early exits, skip markers, device-type checks.

Each case is a snippet whose `# expect:` markers are exactly what devlint must report (none: it
must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

# DETR-style helpers (GroundingDINO's and DeiT's misc/utils, survey 5): past a "not distributed" return, a
# program that sets up NCCL has a GPU in every process
_GROUP_HELPERS = """
import os
import torch
import torch.distributed as dist

def group_ready():
    if not dist.is_available():
        return False
    if not dist.is_initialized():
        return False
    return True

def n_procs():
    return dist.get_world_size() if group_ready() else 1

def gather_sizes(payload):
    if n_procs() == 1:
        return [payload]
    return [torch.tensor([len(payload)], device="cuda")]{gather_expect}

def reduce_pair(a, b):
    if not group_ready():
        return a, b
    return torch.tensor([a, b], dtype=torch.float64, device="cuda").tolist(){reduce_expect}

def init_mode(args):
    if "RANK" not in os.environ:
        args.distributed = False
        return
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"])){init_expect}
    dist.init_process_group(backend=args.backend, init_method="env://")
"""

# and the file's single-process side selects its device: the file is no GPU-only script (DEV204)
_SINGLE_PROCESS = """
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def batch_on_device(images, labels):
    return images.to(DEVICE), labels.to(DEVICE), torch.ones(len(labels), device=DEVICE)
"""

CASES = {
    # nnU-Net's GPU benchmark trainers (survey 6): an `__init__` that asserts CUDA makes every method run with
    # a GPU; a class that only checks in one method guards that method alone
    "guard_an_init_that_asserts_cuda": """
import torch
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Bench:
    def __init__(self):
        assert torch.cuda.is_available(), "GPU only"

    def report(self):
        print(torch.cuda.get_device_name())

class Reporter:
    def __init__(self):
        self.ready = True

    def report(self):
        print(torch.cuda.get_device_name())  # expect: DEV203
""",
    "guard_nccl_group_paths_have_a_gpu": _GROUP_HELPERS.format(gather_expect="", reduce_expect="", init_expect="")
    + 'BACKEND = "nccl"\n' + _SINGLE_PROCESS,
    # the same helpers with gloo: a process group runs on the cpu too, so those lines assume a GPU
    "guard_gloo_group_paths_assume_a_gpu": _GROUP_HELPERS.format(
        gather_expect="  # expect: DEV201", reduce_expect="  # expect: DEV201", init_expect="  # expect: DEV203")
    + 'BACKEND = "gloo"\n' + _SINGLE_PROCESS,
    # a predicate helper is a check; its single-process side is no GPU path
    "guard_helper_predicate_and_the_single_process_side": """
import torch
import torch.distributed as dist
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def use_gpu():
    if not torch.cuda.is_available():
        return False
    return True

def world():
    if not dist.is_initialized():
        return 1
    return dist.get_world_size()

def place(x):
    if use_gpu():
        x = x.cuda()
    if world() == 1:
        x = x.to("cuda")  # expect: DEV201
    return x

def start(launched):
    if launched:
        dist.init_process_group("nccl")
""",
    # OpenNMT's `opt.gpu > -1`, an optimizer's `gpu_id >= 0`, a count `n_gpu > 0` (survey 5): the user's GPU option
    "guard_gpu_option_compared_with_a_number": """
import torch

def score(opt):
    device = torch.device("cuda", opt.gpu) if opt.gpu > -1 else torch.device("cpu")
    return torch.ones(3, device=device)

def update(std, gpu_id=-1):
    if gpu_id >= 0:
        std = std.cuda(gpu_id)
    return std.sqrt()

def spread(model, n_gpu):
    if n_gpu > 0:
        model = model.cuda()
    return model
""",
    "guard_gpu_option_declined_side_is_reported": """
import torch
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def update(std, gpu_id=-1):
    if gpu_id < 0:
        std = std.cuda()  # expect: DEV201
    return std.sqrt()

def batches(opt):
    if opt.batch_size > -1:
        return torch.ones(3, device="cuda")  # expect: DEV201
    return None
""",
    "guard_early_exit": """
import sys
import torch
if not torch.cuda.is_available():
    sys.exit("needs a GPU")
x = torch.zeros(2).cuda()
torch.cuda.synchronize()
""",
    "guard_assert": """
import torch
assert torch.cuda.is_available(), "needs a GPU"
device = torch.device("cuda")
""",
    "guard_device_count": """
import torch
from torch import nn
model = nn.Linear(2, 2)
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model).cuda()
""",
    "guard_helper_only_called_guarded": """
import torch
def to_gpu(x):
    return x.cuda()
if torch.cuda.is_available():
    y = to_gpu(torch.zeros(2))
""",
    "guard_helper_called_unguarded": """
import torch
def to_gpu(x):
    return x.cuda()  # expect: DEV204
y = to_gpu(torch.zeros(2))
""",
    "guard_pytest_skipif": """
import pytest
import torch

@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_on_gpu():
    x = torch.zeros(2, device="cuda")
    torch.cuda.synchronize()

requires_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

@requires_cuda
def test_again():
    y = torch.ones(2).cuda()
""",
    "guard_unittest_skip": """
import unittest
import torch

class T(unittest.TestCase):
    @unittest.skipUnless(torch.cuda.is_available(), "needs CUDA")
    def test_gpu(self):
        x = torch.zeros(2).cuda()

    @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
    def test_gpu2(self):
        print(torch.cuda.get_device_name(0))
""",
    "guard_device_type": """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(64, 64, device=device)
start = time.perf_counter()
y = x @ x
if device.type == "cuda":
    torch.cuda.synchronize()
elapsed = time.perf_counter() - start
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


@pytest.mark.parametrize("comparison, expected", [
    ('"cuda" == "cuda"', True), ('"cuda" == "cpu"', False), ('"cuda" != "cuda"', False), ('"cuda" != "cpu"', True),
    ('"cpu" in ["cpu", "mps"]', True), ('"cuda" in ["cpu"]', False), ('"cpu" not in ["cpu"]', False),
    ('"cuda" not in ["cpu"]', True),
])
def test_string_comparisons_of_constants_are_decided(comparison: str, expected: bool) -> None:
    """`_fold`: a comparison of string constants has one answer, both ways round."""
    import libcst as cst

    from devlint.static.analysis.expressions import _fold
    from devlint.core.values import Const, Seq

    node = cst.parse_expression(comparison)
    target = node.comparisons[0]

    def constant(expr: cst.BaseExpression):
        if isinstance(expr, cst.List):
            return Seq(kind="list", items=tuple(Const(value=e.value.evaluated_value) for e in expr.elements))
        return Const(value=expr.evaluated_value)

    folded = _fold(constant(node.left), target.operator, constant(target.comparator))
    assert isinstance(folded, Const) and folded.value is expected


def test_a_body_that_sets_up_nccl_runs_with_gpus():
    """apex's synced-batchnorm tests (and DETR-style setups): `torch.cuda.set_device(rank)` before the
    `init_process_group("nccl")` of the same body runs with a GPU, as what follows it does; with gloo, the
    unguarded selection of a GPU is what is reported (DEV203): what follows it runs with that GPU or not at
    all (BigVGAN's DDP worker, survey 75)."""
    source = """
import os
import torch
import torch.distributed as dist
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def setup(rank):
    torch.cuda.set_device(rank){first}
    dist.init_process_group({backend}, rank=rank, world_size=2)
    return torch.ones(1).cuda()
"""
    assert found(source.format(first="", backend='"nccl"')) == set()
    assert found(source.format(first="  # expect: DEV203", backend='"gloo"')) == {(8, "DEV203")}


def test_an_nccl_backend_named_before_the_set_up_counts_as_nccl():
    """DeiT's and GroundingDINO's `init_distributed_mode` (facebookresearch/deit utils.py): `args.dist_backend =
    'nccl'`, then `init_process_group(backend=args.dist_backend)`: the body sets up an NCCL group, so its
    `torch.cuda.set_device` has a GPU. A backend name the body set to gloo, or never set, says nothing."""
    source = """
import torch
import torch.distributed as dist
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def init_distributed_mode(args):
    torch.cuda.set_device(args.gpu){mark}
    args.dist_backend = {backend}
    dist.init_process_group(backend=args.dist_backend, rank=args.rank)
"""
    assert found(source.format(mark="", backend='"nccl"')) == set()
    assert found(source.format(mark="  # expect: DEV203", backend='"gloo"')) == {(7, "DEV203")}
    assert found(source.format(mark="  # expect: DEV203", backend="args.backend")) == {(7, "DEV203")}


def test_a_worker_spawned_once_per_gpu_runs_with_one():
    """rasbt/LLMs-from-scratch appendix-A DDP-script.py: `mp.spawn(main, args=(world_size, epochs),
    nprocs=torch.cuda.device_count())` starts one process per GPU, each `main(rank, world_size, epochs)`:
    without a GPU, none. Its `torch.cuda.set_device(rank)` has a GPU; spawned a fixed number of times, not."""
    source = """
import torch
import torch.multiprocessing as mp
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def main(rank, world_size, epochs):
    torch.cuda.set_device(rank){mark}
    model = torch.nn.Linear(2, 2).to(rank)

if __name__ == "__main__":
    world_size = {count}
    mp.spawn(main, args=(world_size, 3), nprocs=world_size)
"""
    assert found(source.format(mark="", count="torch.cuda.device_count()")) == set()
    assert found(source.format(mark="  # expect: DEV203", count="2")) >= {(7, "DEV203")}
