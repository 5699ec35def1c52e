"""Objects set up by a method, and batches moved item by item (issue 17: real code as written).

- A model's inputs are set by one method and read by others (pix2pix's `set_input(self, data)` sets
  `self.real_A`, `backward_G` reads it; a restoration model's `feed_data`): the training script calls the setter
  first (`model.set_input(data); model.optimize_parameters()`), so a method that reads such an attribute sees
  what the setter stored. Only a name one method alone sets; a name two methods set stays unknown.
- A batch of unknown origin whose other items the code sends to the device (`batch["image"].to(device)`) but never
  this one (`batch["label"]`) holds it on the host, as `x, y = batch` with only `x` moved does.
- A plain class (no nn.Module) with its own `to(device)` that moves `self.features`: its methods read the
  attribute wherever a caller sent it, not where `__init__` made it (survey 39, 1 false DEV104).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

PIX2PIX = """
import torch
import torch.nn as nn


class BaseModel:
    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cuda:{{}}".format(opt.gpu_ids[0])) if opt.gpu_ids else torch.device("cpu")

    def set_input(self, data):
        self.real_A = data["A"].to(self.device)
        self.real_B = data["B"]{moved}


class Pix2PixModel(BaseModel):
    def __init__(self, opt):
        BaseModel.__init__(self, opt)
        self.netG = nn.Conv2d(3, 3, 3, padding=1).to(self.device)
        self.criterionL1 = nn.L1Loss()

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_G(self):
        loss = self.criterionL1(self.fake_B, self.real_B){mark}
        loss.backward()
"""


@pytest.mark.parametrize("moved, mark", [
    ("", "  # expect: DEV101"),
    (".to(self.device)", ""),
])
def test_attributes_a_setter_method_stores(moved, mark):
    """`set_input` moves one image of the pair and forgets the other: `backward_G`, which the training script
    calls after it, compares the generated image (on the model's device) with a cpu target."""
    source = PIX2PIX.format(moved=moved, mark=mark)
    assert found(source) == expected_findings(source)


def test_the_finding_names_the_setter_line():
    from tests.lint_helpers import lint

    source = PIX2PIX.format(moved="", mark="")
    (finding,) = [f for f in lint(source) if f.code == "DEV101"]
    why = " ".join(finding.why)
    assert 'line 13 `self.real_B = data["B"]`' in why and 'moves `data["A"]` to the device' in why


TWO_SETTERS = """
import torch
import torch.nn as nn


class Restorer:
    def __init__(self, device):
        self.device = device
        self.net = nn.Conv2d(3, 3, 3, padding=1).to(device)

    def feed_data(self, data):
        self.lq = data["lq"].to(self.device)
        self.gt = data["gt"]

    def feed_test_data(self, data):
        self.lq = data["lq"].to(self.device)
        self.gt = data["gt"].to(self.device)

    def optimize(self):
        out = self.net(self.lq)
        return (out - self.gt).abs().mean()
"""


def test_a_name_two_methods_set_is_unknown():
    """`self.gt` is set by two methods, one of which moves it: which ran last is not known."""
    assert not {f for f in found(TWO_SETTERS) if f[1].startswith("DEV1")}


BATCH = """
import torch


def train(model, loader, device, optimizer):
    model.to(device)
    for batch in loader:
        images = batch["image"].to(device)
        labels = batch["label"]{moved}
        logits = model(images)
        loss = torch.nn.functional.cross_entropy(logits, labels){mark}
        optimizer.zero_grad()
        loss.backward()
"""


@pytest.mark.parametrize("moved, mark", [
    ("", "  # expect: DEV101"),
    (".to(device)", ""),
])
def test_a_batch_item_left_behind(moved, mark):
    source = BATCH.format(moved=moved, mark=mark)
    assert found(source) == expected_findings(source)


def test_a_batch_whose_items_are_all_moved_by_a_loop_is_unknown():
    source = """
import torch


def train(model, loader, device):
    model.to(device)
    for batch in loader:
        for key in batch:
            batch[key] = batch[key].to(device)
        images = batch["image"].to(device)
        logits = model(images)
        return torch.nn.functional.cross_entropy(logits, batch["label"])
"""
    assert not {f for f in found(source) if f[1].startswith("DEV1")}


FEATURE_BANK = """
import torch


class FeatureBank(object):
    def __init__(self, n, dim):
        self.features = torch.zeros(n, dim)
        self.device = "cpu"
{own_to}
    def knn(self, queries):
        return torch.matmul(queries, self.features.t()).topk(5, dim=1){mark}


def make_bank(n, dim, device):
    bank = FeatureBank(n, dim)
    bank.to(device)
    return bank
"""

OWN_TO = """
    def to(self, device):
        self.features = self.features.to(device)
        self.device = device
"""


@pytest.mark.parametrize("own_to, mark", [
    (OWN_TO, ""),
    ("", "  # expect: DEV104"),
])
def test_a_plain_class_that_moves_its_own_tensors(own_to, mark):
    """Survey 39 (1 false DEV104): the bank's own `to()` moves `self.features`, and every user calls it first.
    Without such a method, the features stay on the cpu whatever device the queries come from."""
    source = FEATURE_BANK.format(own_to=own_to, mark=mark)
    assert {f for f in found(source) if f[1] != "DEV204"} == expected_findings(source)


def test_a_setter_of_a_base_class_in_another_module(tmp_path):
    """pix2pix's layout: `models/base_model.py` sets the inputs, `models/pix2pix_model.py` reads them; the package
    has no pyproject.toml above it, and `from models.base_model import BaseModel` names it from its parent."""
    from tests.lint_helpers import check_file, write_files

    source = PIX2PIX.format(moved="", mark="")
    base, sub = source.split("class Pix2PixModel")
    write_files(tmp_path, {
        "models/__init__.py": "",
        "models/base_model.py": base,
        "models/pix2pix_model.py": "import torch.nn as nn\nfrom models.base_model import BaseModel\n\n\n"
                                   "class Pix2PixModel" + sub,
    })
    (finding,) = [f for f in check_file(tmp_path / "models" / "pix2pix_model.py") if f.code == "DEV101"]
    assert finding.line == 15
    assert 'models/base_model.py:13 `self.real_B = data["B"]`' in " ".join(finding.why)


def test_init_runs_before_any_setter():
    """A synchronized BatchNorm reads `self.running_mean` (its library base's buffer) in `__init__`; a later method
    stores another buffer's quotient over it. `__init__` sees the base's buffer, never what the setter stores later."""
    source = """
import torch
import torch.nn as nn


class SyncBN(nn.BatchNorm2d):
    def __init__(self, n):
        super().__init__(n)
        self.register_buffer("_tmp_mean", torch.zeros(n))
        self.register_buffer("_iter", torch.ones(1))
        self._tmp_mean = self.running_mean.clone() * self._iter

    def _reduce(self):
        self.running_mean = self._tmp_mean / self._iter
        return self.running_mean
"""
    assert not {f for f in found(source) if f[1].startswith("DEV1")}


def test_a_batch_of_a_library_that_places_batches():
    """kohya's trainers (survey 40's regression run): accelerate's prepared loader puts every batch on the device,
    so an item the code does not move itself (`batch["loss_weights"]`) may be there already."""
    source = "from accelerate import Accelerator\n" + BATCH.format(moved="", mark="")
    assert not {f for f in found(source) if f[1].startswith("DEV1")}


def test_items_moved_by_number_and_by_name():
    """`batch[0]` and `batch["mask"]` moved, `batch["label"]` not: the message names both keys as written (the first
    version sorted the keys together and failed on an int beside a str)."""
    from tests.lint_helpers import lint

    source = """
import torch


def step(model, batch, device):
    model.to(device)
    x = batch[0].to(device)
    m = batch["mask"].to(device)
    y = batch["label"]
    return torch.nn.functional.cross_entropy(model(x) * m, y)
"""
    (finding,) = [f for f in lint(source) if f.code == "DEV101"]
    assert 'moves `batch["mask"]` and `batch[0]` to the device' in " ".join(finding.why)


def test_a_package_without_a_root_marker_is_named_from_its_parent(tmp_path):
    """`models/pix2pix_model.py` imports `from models.base_model import BaseModel`: with no pyproject.toml or .git
    above it, the root is the folder above the package; an installed package (`site-packages/torch/nn`) is its own
    root, never the folder of every installed package."""
    from devlint.static.project.layout import layout_for
    from tests.lint_helpers import write_files

    write_files(tmp_path, {"models/__init__.py": "", "models/net.py": "",
                           "site-packages/torch/__init__.py": "", "site-packages/torch/nn/__init__.py": "",
                           "site-packages/torch/nn/linear.py": ""})
    assert layout_for(str(tmp_path / "models/net.py")).root == tmp_path.resolve()
    assert layout_for(str(tmp_path / "site-packages/torch/nn/linear.py")).root == \
        (tmp_path / "site-packages/torch").resolve()
