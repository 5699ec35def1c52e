"""False findings of the thirty-eighth and thirty-ninth precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Survey 38 (generative, multimodal, 3D and medical code: 2 false errors of 6, 1 false warning of 40 read):
- `if torch.cuda.is_available(): w = w.cuda()` of a `w` that a helper made on the cpu on one path only (`if not
  isinstance(arr, torch.Tensor): arr = torch.from_numpy(arr)`): wherever a GPU is, it moved; without one, every
  tensor is on the cpu. It is on the selected device on every path (MedSegDiff, 2 false DEV101).
Survey 39 (distillation, pruning, robustness, federated and continual learning: 1 false error of 3, 5 false
warnings of 40):
- `used[order[j]]` with an int `j`: one element of a tensor is 0-dim, and a 0-dim integer index selects as a Python
  int does, from any device (1 false DEV101).
- A parameter of the module being built, read in its `__init__`, is where it was made: nothing has moved it yet
  (1 false DEV104).
- A plain class's own `to()` (tests/inference/test_setter_methods.py, 1 false DEV104).
(Left, with repros in /work/notes/survey38/fp and survey39/fp: a `torch.load` in a script whose only device is a
hardcoded `"cuda:0"` (already a DEV201); `torch.load` of dataset files the project writes from cpu data.)

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

GUARDED = """
import numpy as np
import torch


def ensure_tensor(arr):
    if not isinstance(arr, torch.Tensor):
        arr = torch.from_numpy(arr).float()
    return arr


def predict(x, weight):
    acc = torch.zeros(x.shape)
    if torch.cuda.is_available():
        acc = acc.cuda()
    weight = ensure_tensor(weight)
    if torch.cuda.is_available():
        weight = weight{moved}
    acc *= weight{mark}
    return acc


def run_tiles(x):
    w = torch.from_numpy(np.ones((2, 2), dtype=np.float32))
    if torch.cuda.is_available():
        w = w.cuda()
    return predict(x, w)
"""


@pytest.mark.parametrize("moved, mark", [
    (".cuda()", ""),
    (".cpu()", "  # expect: DEV101"),
])
def test_a_guarded_move_of_a_tensor_made_on_the_cpu_on_one_path(moved, mark):
    source = GUARDED.format(moved=moved, mark=mark)
    assert found(source) == expected_findings(source)


ORDER = """
import torch


def pick(out, k):
    n = out.size(0)
    used = torch.zeros(n)
    dist = out.cuda().norm(2, 1)
    _, order = dist.sort(0)
    chosen = []
    for _ in range(k):
        j = 0
        while j < n and used[{index}] == 1:{mark}
            j += 1
        chosen.append(j)
    return chosen
"""


@pytest.mark.parametrize("index, mark", [
    ("order[j]", ""),
    ("order", "  # expect: DEV104"),
])
def test_an_element_of_a_gpu_tensor_as_an_index(index, mark):
    source = ORDER.format(index=index, mark=mark)
    assert {f for f in found(source) if f[1] != "DEV204"} == expected_findings(source)


GATE = """
import numpy as np
import torch
import torch.nn as nn


class ChannelGate(nn.Module):
    def __init__(self, n_channels, keep):
        super().__init__()
        self.gate = nn.Parameter(torch.ones(n_channels))
        keep = torch.from_numpy(keep.astype(np.float32)){moved}
        self.gate.data.mul_(keep){mark}

    def forward(self, x):
        return x * self.gate.view(1, -1, 1, 1)


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    g = ChannelGate(4, np.array([1, 0, 1, 1])).to(dev)
    print(g(torch.randn(2, 4, 3, 3, device=dev)).shape)
"""


@pytest.mark.parametrize("moved, mark", [
    ("", ""),
    (".cuda()", "  # expect: DEV101"),
])
def test_a_parameter_read_while_its_module_is_built(moved, mark):
    source = GATE.format(moved=moved, mark=mark)
    assert {f for f in found(source) if f[1] not in ("DEV201", "DEV204")} == expected_findings(source)
