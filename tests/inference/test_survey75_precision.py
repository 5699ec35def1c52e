"""False findings of the seventy-fifth precision survey (issue 17 item 9), and the one left from the sixty-ninth,
each beside a twin that must stay reported.

- What only a tensor has proves a value is a tensor: `h.unsqueeze(0)` of a value a call devlint cannot see gave
  (a layer of unknown kind looping over its children) is a tensor, so a helper's `isinstance(x, np.ndarray)`
  branch is not taken for it (OpenPCDet's `rotate_points_along_z` under its focal sparse convolution: a false
  DEV104 error from the `torch.from_numpy` branch).
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

ARRAY_OR_TENSOR = """
import numpy as np
import torch
from torch import nn
import spconv


def as_tensor(x):
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x).float()
    return x


def rotate(points, angle):
    angle = as_tensor(angle)
    rot = torch.stack((torch.cos(angle), torch.sin(angle)), dim=1)
    return torch.matmul(points, rot){mark}


class Chain(spconv.SparseSequential):
    def forward(self, x, batch=None):
        for child in self._modules.values():
            x, batch = child(x, batch)
        return x, batch


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = spconv.SubMConv3d(3, 3)
        self.stage = Chain(spconv.SubMConv3d(3, 3))
        self.offset = torch.zeros(2).cuda()

    def forward(self, batch):
        x = self.stem(batch["points"])
        x, batch = self.stage(x, batch)
        return rotate(x + self.offset, {angle})
"""


@pytest.mark.parametrize("angle, mark", [
    ('-batch["angle"][0].unsqueeze(0)', ""),
    ('batch["angle"].permute(1, 0)', ""),
    # an array has `.view` too: it may still be one
    ('batch["angle"].view(-1)', "  # expect: DEV104"),
    # nothing says the chain's output is a tensor: it may be the array the helper converts on the cpu
    ('batch["angle"]', "  # expect: DEV104"),
])
def test_a_tensor_only_method_proves_a_tensor_for_a_helpers_type_test(angle, mark):
    source = ARRAY_OR_TENSOR.format(angle=angle, mark=mark)
    assert found(source, codes={"DEV104"}) == expected_findings(source)
