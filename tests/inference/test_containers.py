"""Containers: dict batches, comprehensions, zipped loaders, lists of GPU tensors.

Each case is a snippet whose `# expect:` markers are exactly what devlint must report (none: it
must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
    "dict_batch_comprehension": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2).to(device)
batch = {"x": torch.randn(3, 2), "y": torch.randn(3)}
batch = {k: v.to(device) for k, v in batch.items()}
out = model(batch["x"])
""",
    "dict_batch_unmoved": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2).to(device)
batch = {"x": torch.randn(3, 2), "y": torch.randn(3)}
out = model(batch["x"])  # expect: DEV102
""",
    "enumerate_zip_loaders": """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2).to(device)
a = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4)
b = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4)
for i, ((x,), (y,)) in enumerate(zip(a, b)):
    model(x)  # expect: DEV102
    model(y.to(device))
""",
    "list_of_cuda_to_numpy": """
import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
outs = []
for i in range(3):
    outs.append(torch.randn(2, device=device))
arr = np.array(outs)  # expect: DEV401
ok = np.array([o.cpu().numpy() for o in outs])
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
