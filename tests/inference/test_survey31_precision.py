"""False findings of the thirty-first precision survey (issue 17 item 9), each beside a twin that must stay reported.

- A class from outside the project handed a module to wrap (apex's `DistributedDataParallel(net)`) is a wrapper
  around that module, where it is: not a new module on the cpu (2 false DEV102 in glow-tts, whose module the walk
  loses first, in `net, opt = amp.initialize(net, opt)`: a name used as a module is one). A class handed no
  module (its configuration, a parameter of unknown kind) still builds one there.
- A name bound to one of two functions by path (`from train.dense import evaluate` in one branch, `... sparse ...`
  in the other) is a choice of both: a call runs either, and the caller goes on from where either leaves it, so
  their syncs count (12 false DEV301 in benchmarking-gnns). Where neither waits for the GPU, it is still reported;
  behind more names than `MOST_ALTERNATIVES` the callee is unknown (its GPU work, not its syncs, is seen).
- (Not kept: a list repeated, `[torch.tensor([h])] * n`, holding its members' device would have removed 1 false
  DEV104, but yolov7's `self.grid = [torch.zeros(1)] * nl`, placeholders replaced on the device before use, then
  gave 6 false ones: the regression run.)

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from devlint.core.values import MOST_ALTERNATIVES
from tests.conftest import expected_findings
from tests.lint_helpers import file_found, found, write_files

WRAPPER = """
import torch
from torch.utils.data import DataLoader
from apex import amp
from apex.parallel import DistributedDataParallel as DDP
from mynets import Net

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(dataset):
    net = Net(16){move}
    optim = torch.optim.Adam(net.parameters(), lr=1e-3)
    {wrap}
    for batch in DataLoader(dataset, batch_size=8):
        loss = net(batch.to(device)).pow(2).mean(){mark}
        loss.backward()
        optim.step()
"""

CHOICE = """
import time

import torch
import torch.nn.functional as F


def eval_sparse(net, dev, batches):
    total = 0.0
    with torch.no_grad():
        for inp, lab in batches:
            total += F.cross_entropy(net(inp.to(dev)), lab.to(dev)){read}
    return total


def eval_dense(net, dev, batches):
    return eval_sparse(net, dev, batches) / max(len(batches), 1)


def epoch_timing(dense, batches):
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = torch.nn.Linear(10, 4).to(dev)
    if dense:
        evaluate = eval_dense
    else:
        evaluate = {other}
    t0 = time.time()
    score = evaluate(net, dev, batches)
    print(score, "took", time.time() - t0){mark}
"""

LADDER = """
import time

import torch

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

{functions}

def timed(kind, net, x):
    {ladder}
    t0 = time.time()
    out = run(net.to(DEVICE), x.to(DEVICE))
    return out, time.time() - t0{mark}
"""


def ladder(count: int) -> str:
    """`count` functions that each wait for the GPU, one of them bound to `run` by an if/elif ladder."""
    functions = "\n".join(f"def run{i}(net, x):\n    return net(x).sum().item()\n" for i in range(count))
    branches = "\n    ".join(f"{'if' if i == 0 else 'elif'} kind == {i}:\n        run = run{i}" for i in range(count))
    mark = "  # expect: DEV301" if count > MOST_ALTERNATIVES else ""
    return LADDER.format(functions=functions, ladder=branches + "\n    else:\n        run = run0", mark=mark)


CONFIGURED = """
import torch
from mynets import Net


def main(args):
    model = Net(args)
    model.eval()
    return model(torch.ones(3).to("cuda" if torch.cuda.is_available() else "cpu"))  # expect: DEV102
"""

CASES = {
    "a_class_given_its_configuration": CONFIGURED,
    "a_few_functions_behind_one_name": ladder(MOST_ALTERNATIVES),
    "too_many_functions_behind_one_name": ladder(MOST_ALTERNATIVES + 1),
    "a_library_wrapper_of_a_moved_module": WRAPPER.format(move=".to(device)", wrap="net = DDP(net)", mark=""),
    "a_library_wrapper_of_a_module_the_walk_lost": WRAPPER.format(
        move=".to(device)", wrap="if FP16:\n        net, optim = amp.initialize(net, optim)\n    net = DDP(net)", mark=""),
    "a_module_built_and_never_moved": WRAPPER.format(move="", wrap="net.train()", mark="  # expect: DEV102"),
    "either_function_syncs": CHOICE.format(read=".item()", other="eval_sparse", mark=""),
    "neither_function_syncs": CHOICE.format(read="", other="eval_sparse", mark="  # expect: DEV301"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


TRAINS = """
import matplotlib.pyplot as plt
import torch
import torch.nn as nn

policy = nn.Linear(4, 2){moved}
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
plt.xlabel("episode")
torch.save(policy, "policyNet.pkl")
"""

RUNS = """
import torch

policy = torch.load("policyNet.pkl")
"""


@pytest.mark.parametrize("moved, expected", [("", set()), (".to(torch.device('cuda'))", {(4, "DEV202")})])
def test_a_whole_module_a_script_beside_saves(tmp_path, moved, expected):
    """A script beside that writes no GPU word (`plt.xlabel` is no XLA) trains on the cpu: the module it saves whole
    loads anywhere (sweetice's policy gradient, found by the regression run). One it moved is a checkpoint on the
    GPU: a module saved whole is no pipeline's data file (the SRGAN tutorial's `{'generator': generator}`)."""
    write_files(tmp_path, {"train.py": TRAINS.format(moved=moved), "run.py": RUNS})
    assert file_found(tmp_path / "run.py") == expected


BLEND = """
import torch
import torch.nn as nn


class Blend(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.head = nn.Linear(dim, 1)
        self.weight_a = nn.Parameter({made}) + 1{mark}

    def forward(self, x):
        return self.weight_a * self.head(x).view(-1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(Blend(8).to(device)(torch.randn(4, 8, device=device)))
"""


@pytest.mark.parametrize("made, mark", [("torch.tensor(0.0)", ""), ("torch.zeros(4)", "  # expect: DEV105")])
def test_a_plain_attribute_of_no_dimensions(made, mark):
    """Survey 33 (TabSurvey's DeepGBM, 1 false error): a 0-dim cpu tensor combines with a tensor on any device, as a
    number does, so a plain attribute of no dimensions left on the cpu by `.to()` crashes nothing (`nn.Parameter`
    of a 0-dim tensor is one too). One with dimensions does."""
    source = BLEND.format(made=made, mark=mark)
    assert found(source) == expected_findings(source)


LAUNCH = """
import os

import torch
import torch.distributed as dist


def main(local_rank):
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        torch.cuda.set_device(local_rank){mark}
        dist.init_process_group(backend={backend}, init_method="env://")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.ones(3, device=device).sum()
"""


@pytest.mark.parametrize("backend, mark", [('"nccl"', ""), ('"gloo"', "  # expect: DEV203")])
def test_a_branch_that_starts_an_nccl_group(backend, mark):
    """Survey 33 (lufficc's SSD, 2 false DEV203): a branch that starts an NCCL group runs only with GPUs, before
    that call too, as a function whose body starts one does; a gloo group runs on the cpu."""
    source = LAUNCH.format(backend=backend, mark=mark)
    assert found(source) == expected_findings(source)
