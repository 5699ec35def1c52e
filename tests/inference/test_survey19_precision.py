"""False findings of the nineteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- warp-ctc's `CTCLoss` takes its labels and lengths as cpu IntTensors beside cuda activations, as torch's own
  `nn.CTCLoss` takes its targets and lengths (meijieru/crnn.pytorch's train.py: 2 false DEV101); a loss of a library
  devlint knows nothing of is still read as one computation on its inputs.

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

CASES = {
    "warp_ctc_takes_cpu_labels_and_lengths": CTC.format(library="warpctc_pytorch", mark=""),
    "an_unknown_librarys_loss_is_one_computation": CTC.format(library="mylosses", mark="  # expect: DEV101"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
