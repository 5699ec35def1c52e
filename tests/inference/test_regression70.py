"""What reading the regression run of the survey 69-72 mechanisms showed (every new error read on repositories the
team did not write): each a false finding a new mechanism exposed, beside the twin that must stay reported.

- A dataset whose `__getitem__` returns `img, labels, path, shapes`: only the tensors of the item are batch tensors
  (PyTorch_YOLOv4's `shapes[si][0]`, four false DEV101 errors once `tqdm(loader)` yielded the batches).
- `[torch.zeros(1)] * nl` holds placeholders that `forward` replaces before use (yolov7's grids, five false DEV104).
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

ITEMS = """
import torch
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        img = torch.zeros(3, 8, 8)
        return img, torch.zeros(4, 6), "a.jpg", {shapes}


def evaluate(model, device):
    loader = DataLoader(Images(), batch_size=2, collate_fn=collate)
    for img, targets, paths, shapes in loader:
        pred = model(img.to(device))
        pred[:, 0].clamp_(0, shapes[0][1]){mark}
"""


@pytest.mark.parametrize("shapes, mark", [
    ("((8, 8), (1.0, 1.0))", ""),
    ("torch.tensor([8.0, 8.0])", "  # expect: DEV101"),
])
def test_only_the_tensors_of_a_dataset_item_are_batch_tensors(shapes, mark):
    source = ITEMS.format(shapes=shapes, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


GRID = """
import torch
from torch import nn


class Detect(nn.Module):
    def __init__(self, nl=3):
        super().__init__()
        self.nl = nl
        self.grid = {grid}
        self.conv = nn.Conv2d(8, 8, 1)

    def forward(self, x):
        out = []
        for i in range(self.nl):
            y = self.conv(x[i])
            if self.grid[i].shape[2:4] != y.shape[2:4]:
                self.grid[i] = torch.zeros(1, 1, y.shape[2], y.shape[3]).to(y.device)
            out.append(y + self.grid[i]){mark}
        return out
"""


@pytest.mark.parametrize("grid, mark", [
    ("[torch.zeros(1)] * nl", ""),
    ("[torch.zeros(1) for _ in range(nl)]", "  # expect: DEV104"),  # (what a comprehension makes, the walk keeps)
])
def test_a_repeated_list_of_placeholders_is_unknown(grid, mark):
    source = GRID.format(grid=grid, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)



CONVERTED = """
import numpy as np
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)

    def forward(self, latents):
        return self.encoder(latents){mark}


def decode(latent, device="cuda"):
    model = Decoder().to(device)
    latent = latent * 2.0
    if isinstance(latent, np.ndarray):
        latent = torch.from_numpy(latent)
    {placement}
    return model(latent)
"""


@pytest.mark.parametrize("placement, mark", [
    ("if latent.device.type == 'cpu':\n        latent = latent.to(device)", ""),
    ("if not latent.is_cuda:\n        latent = latent.to(device)", ""),
    ("if latent.device.type != 'cuda':\n        latent = latent.to(device)", ""),
    ("pass", "  # expect: DEV104"),
])
def test_a_placement_test_says_where_its_subject_is_not(placement, mark):
    """music2latent's decode: `torch.from_numpy` of an array, then `if latent.device.type == 'cpu': latent =
    latent.to(device)`: past the `if`, no path leaves it on the cpu (a false DEV104 error in the regression run)."""
    source = CONVERTED.format(placement=placement, mark=mark)
    assert found(source, ["DEV102", "DEV104"]) == expected_findings(source)
