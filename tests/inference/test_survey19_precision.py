"""False findings of the nineteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- warp-ctc's `CTCLoss` takes its labels and lengths as cpu IntTensors beside cuda activations, as torch's own
  `nn.CTCLoss` takes its targets and lengths (meijieru/crnn.pytorch's train.py: 2 false DEV101); a loss of a library
  devlint knows nothing of is still read as one computation on its inputs;
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

CASES = {
    "warp_ctc_takes_cpu_labels_and_lengths": CTC.format(library="warpctc_pytorch", mark=""),
    "unpacked_lu_factor_left_as_a_plain_attribute": LU.format(store="self.P = p  # expect: DEV105"),
    "unpacked_lu_factor_registered": LU.format(store='self.register_buffer("P", p)'),
    "an_unknown_librarys_loss_is_one_computation": CTC.format(library="mylosses", mark="  # expect: DEV101"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
