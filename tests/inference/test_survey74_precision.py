"""False findings of the seventy-fourth precision survey (issue 17 item 9: self-supervised vision, reinforcement
learning, recommenders, medical segmentation, Hugging Face models), each beside a twin that must stay reported.

- A project's module class built past the call depth, whose `__init__` keeps only what the call gives as plain data
  (`Dice(smooth=1e-5)`, a loss class, a stateless loss), owns no weights: it computes where its inputs are; kept
  from what the call gives as values of unknown kind, where it is is unknown (nnU-Net's trainer: its deep
  supervision wrapper around a Dice-and-CE loss, two false DEV102 errors).
- `gaussian_map.cache_clear()` of an `lru_cache` is no call of the function: it does not hide the calls that all
  pass a device (nnU-Net's sliding-window prediction, a false DEV201 on a 'cuda' default).
- A load of what a helper of the same file saved, the helper given the path (`write_prompts(prompts_file)` of
  `def write_prompts(path): torch.save(..., path)`), reads what the file wrote (open_clip's tests, DEV202).
- A Cog predictor whose cog.yaml asks for a GPU (`build: gpu: true`) is served on GPU machines only (ALBEF's
  predict.py, two DEV201).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, lint_in_run

DEEP_LOSS = """
import torch
from torch import nn


class Dice(nn.Module):
    def __init__(self, smooth, inner=None):
        super().__init__()
        self.smooth = smooth
        self.inner = inner

    def forward(self, x, y):
        return 1 - (2 * (x * y).sum() + self.smooth) / (x.sum() + y.sum() + self.smooth)


class Trainer:
    def __init__(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def make_loss(self):
        return Dice({given})

    def build(self):
        self.net = nn.Conv2d(1, 1, 3, padding=1).to(self.device)
        self.loss = self.make_loss()

    def setup(self):
        self.build()

    def prepare(self):
        self.setup()

    def run(self, x, y):
        self.prepare()
        return self.loss(self.net(x.to(self.device)), y.to(self.device)){mark}


class ShortRun(Trainer):
    def run(self, x, y):
        return super().run(x, y)
"""


@pytest.mark.parametrize("given, mark", [
    ("smooth=1e-5", ""),
    ("1e-5, None", ""),
    ("1e-5, nn.MSELoss()", ""),  # a stateless loss inside
    ("1e-5, self.label_manager.ignore_label", ""),  # a value of unknown kind: where the whole is, unknown
    # handed a layer the walk cannot see past the depth: it may own weights, left on the cpu
    ("1e-5, nn.Linear(4, 4)", "  # expect: DEV102"),
])
def test_a_loss_built_past_the_call_depth_from_plain_data_owns_no_weights(given, mark):
    """nnU-Net's nnUNetTrainer builds its Dice loss six calls deep (`_build_loss`): a module that keeps a number."""
    source = DEEP_LOSS.format(given=given, mark=mark)
    assert found(source) == expected_findings(source)


GAUSS = """\
from functools import lru_cache

import numpy as np
import torch


@lru_cache(maxsize=2)
def gaussian_map(size, sigma=0.125, device=torch.device("cuda", 0)):
    ax = np.arange(size) - size // 2
    g = np.exp(-(ax[:, None] ** 2 + ax[None, :] ** 2) / (2 * (sigma * size) ** 2))
    return torch.from_numpy(g).to(device=device, dtype=torch.float32)
"""

PREDICT = """\
import torch

from gauss import gaussian_map


def predict(model, image, device):
    out = model(image.to(device)) * gaussian_map({given})
    gaussian_map.cache_clear()
    return out
"""


@pytest.mark.parametrize("given, reported", [("64, device=device", set()), ("64", {8})])
def test_an_lru_caches_clear_is_no_call_of_the_function(tmp_path: Path, given, reported):
    files = {"gauss.py": GAUSS, "predict.py": PREDICT.replace("{given}", given)}
    findings = lint_in_run(tmp_path, files, "gauss.py")
    assert {f.line for f in findings if f.code == "DEV201"} == reported


HELPER_SAVED = """
import os

import torch


def write_prompts(path, n=4):
    torch.save([f"prompt {{i}}" for i in range(n)], path)


def encode_prompts(model, out_dir):
    prompts_file = os.path.join(out_dir, "prompts.pt")
    other_file = os.path.join(out_dir, "other.pt")
    if not os.path.exists(prompts_file):
        write_prompts({written})
    return torch.load(prompts_file){mark}


device = "cuda" if torch.cuda.is_available() else "cpu"
"""


@pytest.mark.parametrize("written, mark", [
    ("prompts_file", ""),
    ("path=prompts_file", ""),
    ("other_file", "  # expect: DEV202"),
])
def test_a_load_of_what_a_helper_of_the_file_saved_there(written, mark):
    """open_clip's tests/util_test.py: the prompts file is written a few lines above by a helper given its path."""
    source = HELPER_SAVED.format(written=written, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


COG = """\
build:
  gpu: {gpu}
  python_version: "3.10"
predict: "predict.py:Predictor"
"""

PREDICTOR = """\
import torch
from cog import BasePredictor
from torch import nn


class Predictor(BasePredictor):
    def setup(self):
        self.model = nn.Linear(16, 2)
        self.model.load_state_dict(torch.load("weights.pth", map_location="cpu"))
        self.model.cuda()

    def predict(self, values: str) -> str:
        x = torch.tensor([[float(v) for v in values.split(",")]]).cuda()
        return str((self.model(x) + torch.zeros(1, 2).to(x.device)).argmax(-1).item())
"""


@pytest.mark.parametrize("gpu, reported", [("true", set()), ("false", {10, 13})])
def test_a_cog_predictor_served_on_gpus(tmp_path: Path, gpu, reported):
    """ALBEF's predict.py, beside a cog.yaml with `gpu: true`."""
    files = {"cog.yaml": COG.format(gpu=gpu), "predict.py": PREDICTOR}
    findings = lint_in_run(tmp_path, files, "predict.py")
    assert {f.line for f in findings if f.code == "DEV201"} == reported
