"""A tensor factory is one catalogue record: the static rules, the autofix and the runtime all pick it up.

`torch.empty_permuted` was added to devlint as one line in `devlint/core/torch_catalogue/tensors.py`
(`fn("torch.empty_permuted", device=FACTORY, takes_device=True)`); these tests are what that line
changed.
"""

from __future__ import annotations

import pytest

from devlint.core.torch_catalogue import views
from tests.lint_helpers import found, lint

CREATED_IN_FORWARD = """\
import torch
from torch import nn

class Cell(nn.Module):
    def forward(self, x):
        h = torch.empty_permuted((x.size(0), 8), (1, 0))
        return torch.cat([x, h], dim=1)  # expect: DEV104
"""

MIXED = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
features = torch.randn(4, 8).to(device)
scratch = torch.empty_permuted((4, 8), (1, 0))
total = features + scratch  # expect: DEV101
"""


def test_the_record_is_in_every_view_a_factory_belongs_to():
    assert "torch.empty_permuted" in views.FACTORIES
    assert "empty_permuted" in views.FACTORIES_WITH_DEVICE  # DEV104's autofix
    assert "empty_permuted" in views.RUNTIME_FACTORIES  # the simulated default device


def test_dev104_sees_it_created_without_device_and_fixes_it():
    assert found(CREATED_IN_FORWARD, ["DEV104"]) == {(7, "DEV104")}
    [finding] = lint(CREATED_IN_FORWARD, ["DEV104"])
    assert "created on cpu (no device=)" in " ".join(finding.why)
    assert [edit.content for edit in finding.edits] == [", device=x.device"]


def test_dev101_sees_it_on_the_cpu():
    [finding] = lint(MIXED, ["DEV101"])
    assert finding.line == 6 and "`scratch`" in finding.message


def test_the_simulated_default_device_applies_to_it():
    torch = pytest.importorskip("torch")
    from devlint.runtime import check

    with check(simulate_gpu=True) as report:
        torch.set_default_device("cuda")
        try:
            features = torch.randn(4, 8)
            scratch = torch.empty_permuted((4, 8), (1, 0))
            assert scratch.device.type == "cuda"
            total = features + scratch
        finally:
            torch.set_default_device(None)
    assert report.clean and total.shape == (4, 8)


def test_the_tensor_method_list_holds_every_public_method_of_the_installed_torch():
    """`x.name(...)` is a tensor operation only for a name in tensor_api.py (a snapshot): a torch that adds
    public Tensor methods fails here until the snapshot is taken again (the methods torch has dropped stay)."""
    torch = pytest.importorskip("torch")
    from devlint.core.torch_catalogue.tensor_api import TENSOR_API_NAMES

    public = {name for name in dir(torch.Tensor) if not name.startswith("_")}
    assert public - TENSOR_API_NAMES == set()
