"""False findings of the sixteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- a default is evaluated once, when the `def` runs: `def plot(xs=X_train)` keeps the cpu X_train of then, not the
  one `X_train = X_train.to(device)` binds later (mrdbourke/pytorch-deep-learning's workflow notebook, 12 false
  DEV401 in four copies);
- functions nobody reaches from the module level are analysed callers first: `Exp.train`, whose name the file
  only uses as `self.model.train()`, before `vali(loader)` that it calls (zhouhaoyi/Informer2020's
  exp_informer.py: `vali` analysed alone saw its loader's batches "from the caller");
- `torch.norm(a - b, 2)` is one number (its second argument is an order, not a dim): writing it into a numpy
  array reads it (motion-diffusion-model's precision_recall.py);
- a forward that brings a parameter to the host through a view of its data (`lens.data.tolist()`, motion-diffusion-
  model's evaluator wrapper) takes it on any device, as one calling `lens.tolist()` does;
- `if not torch.cuda.is_available(): use_cuda = False` turns a switch off where CUDA is missing: from there on it
  is true only where there is a GPU (yuqinie98/PatchTST's basics.py, DEV203).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

DEFAULT_AT_DEF = """
import matplotlib.pyplot as plt
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
xs_all = torch.arange(0, 1, 0.02).unsqueeze(1)
{moved_before}


def plot(xs=xs_all, preds=None):
    plt.scatter(xs, preds){mark}


xs_all = xs_all.to(device)
model = torch.nn.Linear(1, 1).to(device)
with torch.no_grad():
    out = model(xs_all)
plot(preds=out.cpu())
"""

CALLERS_FIRST = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Exp:
    def __init__(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = nn.Linear(4, 4).to(self.device)

    def vali(self, loader):
        self.model.eval()
        for bx, by in loader:
            self.process(bx, by)
        self.model.train()

    def {entry}(self):
        self.vali(DataLoader([(torch.ones(6, 4), torch.ones(6, 4))] * 4, batch_size=2))

    def process(self, bx, by):
        dec_inp = torch.zeros([by.shape[0], 4, by.shape[-1]])
        dec_inp = torch.cat([by[:, :2, :], dec_inp], dim=1).to(self.device){mark}
        return self.model(bx.to(self.device)), dec_inp
"""

NORM_INTO_ARRAY = """
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
feats = torch.randn(16, 4).to(device)
dist = np.zeros(16)
for i, b in enumerate(feats):
    d = {distance}
    dist[i] = d{mark}
"""

SWITCHED_OFF = """
import torch


def pick_device(use_cuda=True, device_id=None):
    if {test}:
        use_cuda = False
    return torch.device(torch.cuda.current_device()) if use_cuda else torch.device("cpu"){mark}
"""

LENGTHS_TO_HOST = """
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence


class Enc(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.gru = nn.GRU(n, n, batch_first=True)

    def forward(self, x, lens):
        packed = pack_padded_sequence(x, {lengths}, batch_first=True){pack_mark}
        return self.gru(packed)[1][0]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
enc = Enc(8).to(device)
for feats, lens in torch.utils.data.DataLoader([(torch.ones(5, 8), 5)] * 4, batch_size=2):
    print(enc(feats.to(device), lens)){mark}
"""

CASES = {
    "a_default_is_what_the_name_held_at_the_def": DEFAULT_AT_DEF.format(moved_before="", mark=""),
    "twin_a_name_moved_before_the_def": DEFAULT_AT_DEF.format(moved_before="xs_all = xs_all.to(device)",
                                                              mark="  # expect: DEV401"),
    "a_method_only_a_member_shares_the_name_of_runs_first": CALLERS_FIRST.format(entry="train", mark=""),
    "the_same_with_any_name": CALLERS_FIRST.format(entry="fit", mark=""),
    "a_norm_with_its_order_is_one_number": NORM_INTO_ARRAY.format(distance="torch.norm(feats[0] - b, 2)", mark=""),
    "twin_a_norm_along_a_dim_is_a_vector": NORM_INTO_ARRAY.format(distance="torch.norm(feats - b, 2, 1)",
                                                                  mark="  # expect: DEV401"),
    "a_switch_turned_off_where_cuda_is_missing": SWITCHED_OFF.format(test="not torch.cuda.is_available()", mark=""),
    "twin_a_switch_turned_off_for_another_reason": SWITCHED_OFF.format(test="device_id is None",
                                                                       mark="  # expect: DEV203"),
    "lengths_read_on_the_host_through_their_data": LENGTHS_TO_HOST.format(
        lengths="lens.data.tolist()", pack_mark="", mark=""),
    "twin_lengths_used_as_a_tensor": LENGTHS_TO_HOST.format(
        lengths="lens * 1", pack_mark="  # expect: DEV106", mark="  # expect: DEV102"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
