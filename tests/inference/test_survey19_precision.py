"""False findings of the nineteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- warp-ctc's `CTCLoss` takes its labels and lengths as cpu IntTensors beside cuda activations, as torch's own
  `nn.CTCLoss` takes its targets and lengths (meijieru/crnn.pytorch's train.py: 2 false DEV101); a loss of a library
  devlint knows nothing of is still read as one computation on its inputs;
- a parameter set on one path of an `if` (a tensor moved to the device on the other) moves with its module: it
  is no tensor left on the cpu (SDT's `self.beta`: a false DEV101); a plain tensor there still is;
- a miss: `P, L, U = torch.lu_unpack(*Q.lu())` unpacks cpu tensors (a tuple op given its operands by `*`), so
  `self.P = P` is a plain attribute left on the cpu when the module moves (karpathy/pytorch-normalizing-flows'
  `Invertible1x1Conv`: DEV105).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CTC = """
import argparse
import torch
from {library} import CTCLoss

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
opt = parser.parse_args()

net = torch.nn.Linear(8, 5)
criterion = CTCLoss()
x = torch.randn(4, 8)
labels = torch.IntTensor([1, 2, 3])
if opt.cuda:
    net.cuda()
    x = x.cuda()
    criterion = criterion.cuda()

preds = net(x)
loss = criterion(preds, labels, torch.IntTensor([4]), torch.IntTensor([3])){mark}
"""

LU = """
import torch
import torch.nn as nn


class Invertible(nn.Module):
    def __init__(self, dim):
        super().__init__()
        q = torch.nn.init.orthogonal_(torch.randn(dim, dim))
        p, lower, upper = torch.lu_unpack(*q.lu())
        {store}
        self.L = nn.Parameter(lower)

    def forward(self, x):
        return x @ (self.P @ self.L)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
m = Invertible(3).to(device)
"""

BRANCH_PARAMETER = """
import torch
import torch.nn as nn


class Tree(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.device = torch.device("cuda" if cfg["cuda"] else "cpu")
        self.linear = nn.Linear(4, 3)
        if cfg["beta"]:
            self.beta = {made}{attribute}
        else:
            self.beta = torch.ones(1).to(self.device)

    def forward(self, x):
        x = x.to(self.device)
        return torch.sigmoid(self.beta * self.linear(x)){mark}


cfg = {{"cuda": torch.cuda.is_available(), "beta": True}}
model = Tree(cfg).to(torch.device("cuda" if cfg["cuda"] else "cpu"))
print(model(torch.randn(2, 4)))
"""

CASES = {
    "warp_ctc_takes_cpu_labels_and_lengths": CTC.format(library="warpctc_pytorch", mark=""),
    "unpacked_lu_factor_left_as_a_plain_attribute": LU.format(store="self.P = p  # expect: DEV105"),
    "unpacked_lu_factor_registered": LU.format(store='self.register_buffer("P", p)'),
    "a_parameter_on_one_path_moves_with_its_module": BRANCH_PARAMETER.format(
        made="nn.Parameter(torch.randn(3))", attribute="", mark=""),
    "a_plain_tensor_on_one_path_is_left_on_the_cpu": BRANCH_PARAMETER.format(
        made="torch.randn(3)", attribute="  # expect: DEV105", mark="  # expect: DEV101"),
    "an_unknown_librarys_loss_is_one_computation": CTC.format(library="mylosses", mark="  # expect: DEV101"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
