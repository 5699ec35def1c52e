"""False findings of the seventy-seventh precision survey (issue 17 item 9: reinforcement learning, medical image
segmentation, self-supervised learning, recommendation, multi-object tracking, speech recognition), each beside a
twin that must stay reported.

- A conversion to numpy of a value whose device rests on a guess about code devlint cannot see (an unseen
  function's result taken to follow its inputs, an object of unknown kind's output) is a warning, not an error:
  such code may bring its result to the host itself (ByteTrack's cstrack tutorial: an external NMS that ends in
  `.cpu()`; two false DEV401 errors). (Its ctracker tutorial's external model whose eval forward returns numpy
  stays an error: a value computed from a model's output is judged as a tensor.)
- A class that defines `configure_optimizers`, a hook only a LightningModule has, is a module though its base
  comes through a module nobody can see: `self.prototypes = nn.Linear(...).weight` is a registered parameter that
  moves with it (lightly's benchmarks: two false DEV101 errors).
- A forward's parameter it only reads as slice bounds and hands back as it came (`return out, lengths`) may be
  anywhere: cpu lengths are no mismatch (kospeech's transformer encoder test: a false DEV102 error).
- A load in a `try` whose `except` loads again with `map_location` is the retry's business (MedicalZooPytorch:
  DEV202).
- `name.endswith(".pth")` of a name a caller passes as a constant is decided: the branch it rules out is not
  walked (FairMOT's backbone: DEV202).
- A parameter annotated `float | None` or `Optional[float]` is a number when given: `torch.tensor(temp)` is 0-dim
  and meets tensors on any device; one annotated `int | None` is a whole number, and `schedule[epoch]` one element
  (lightly's DINO loss: DEV104). A GPU count or switch keeps its name's meaning (`n_gpus: Optional[int]`). And
  one annotated `Optional[torch.Tensor]` is a tensor when given: a sampler's `to()` that throws away
  `self.weight.to(device)` is reported (graphlearn-for-pytorch, read in the regression run: DEV103). A caller's
  number nobody knows (`epoch=self.current_epoch`) given to a parameter annotated `int` is a whole number too.
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, lint

TRACKER = """
import torch
from external_pkg.general import nms_and_inds
from external_pkg.models import Model


class Tracker:
    def __init__(self, gpus):
        self.device = torch.device("cuda" if gpus[0] >= 0 else "cpu")
        self.model = Model().to(self.device)

    def update(self, im_blob):
        with torch.no_grad():
            pred = self.model(im_blob)[1][0]
        dets, xs, ys = {call}
        return dets.numpy()  # expect: DEV401
"""


@pytest.mark.parametrize("call, severity", [
    ("nms_and_inds(pred[:, :6].unsqueeze(0), 0.1, 0.5)", "warning"),  # an unseen function: a guess
    ("torch.zeros(8, 6, device=self.device), None, None", "error"),  # made on the device, in sight
])
def test_a_conversion_resting_on_a_guess_about_unseen_code_is_a_warning(call, severity):
    source = TRACKER.format(call=call)
    findings = [f for f in lint(source, ["DEV401"])]
    assert {(f.line, f.code) for f in findings} == expected_findings(source)
    assert [f.severity for f in findings] == [severity]


PROTOTYPES = """
import torch
from torch import nn
from mylib.benchmarking import BenchmarkModule


class Model(BenchmarkModule):
    def __init__(self):
        super().__init__()
        self.prototypes = nn.Linear(16, 4, bias=False).weight

    def training_step(self, batch, batch_idx):
        views = [v.to(self.device) for v in batch]
        out = torch.cat(views, dim=0)
        return (out @ self.prototypes.data.T).sum(){mark}
{hook}
"""

HOOK = """
    def configure_optimizers(self):
        return torch.optim.AdamW([self.prototypes], lr=1e-3)
"""


@pytest.mark.parametrize("hook, mark", [(HOOK, ""), ("", "  # expect: DEV101")])
def test_a_class_with_a_lightning_hook_is_a_module(hook, mark):
    source = PROTOTYPES.format(hook=hook, mark=mark)
    assert found(source, ["DEV101", "DEV104", "DEV105"]) == expected_findings(source)


ENCODER = """
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, lengths):
        non_pad = x.new_ones(x.shape[:2])
        for i in range(x.size(0)):
            non_pad[i, lengths[i]:] = 0
        return {returned}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
enc = Encoder().to(device)
x = torch.randn(2, 6, 8).to(device)
lengths = torch.LongTensor([6, 4])
out = enc(x, lengths){mark}
"""


@pytest.mark.parametrize("returned, mark", [
    ("self.proj(x) * non_pad.unsqueeze(-1), lengths", ""),
    ("self.proj(x) * non_pad.unsqueeze(-1), lengths * 2", "  # expect: DEV102"),
])
def test_a_parameter_handed_back_as_it_came_is_not_used(returned, mark):
    source = ENCODER.format(returned=returned, mark=mark)
    assert found(source, ["DEV102", "DEV104"]) == expected_findings(source)


RESTORE = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def restore(self, path):
        try:
            ckpt = torch.load(path){mark}
        except RuntimeError:
            ckpt = {retry}
        self.load_state_dict(ckpt["model"])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
Net().to(device).restore("checkpoint.pth")
"""


@pytest.mark.parametrize("retry, mark", [
    ("torch.load(path, map_location=lambda storage, loc: storage)", ""),
    ("torch.load(path + '.bak')  # expect: DEV202", "  # expect: DEV202"),
])
def test_a_load_its_handler_retries_with_a_map_is_not_reported(retry, mark):
    source = RESTORE.format(retry=retry, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


BACKBONE = """
import torch
from torch import nn
from torch.utils import model_zoo


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def load_pretrained(self, root="weights/", name="resnet18"):
        if name.endswith(".pth"):
            weights = torch.load(root + name){mark}
        else:
            weights = model_zoo.load_url("https://example.org/" + name, map_location="cpu")
        self.load_state_dict(weights, strict=False)


def build():
    model = Backbone()
    model.load_pretrained(root="imagenet/", name={name})
    return model


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = build().to(device)
"""


@pytest.mark.parametrize("name, mark", [('"resnet18"', ""), ('"resnet18.pth"', "  # expect: DEV202")])
def test_a_string_test_of_a_constant_argument_is_decided(name, mark):
    source = BACKBONE.format(name=name, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


TEMPERATURE = """
from typing import Optional

import torch
from torch import nn


class TempLoss(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.register_buffer("center", torch.zeros(1, 1, dim))

    def forward(self, outs: list, temp: {annotation} = None):
        temperature = torch.tensor(temp)
        stacked = torch.stack(outs)
        return torch.softmax((stacked - self.center) / temperature, dim=-1){mark}
"""


@pytest.mark.parametrize("annotation, mark", [
    ("float | None", ""),
    ("Optional[float]", ""),
    ("Optional[list]", "  # expect: DEV104"),
])
def test_an_optional_number_parameter_is_a_number(annotation, mark):
    source = TEMPERATURE.format(annotation=annotation, mark=mark)
    assert found(source, ["DEV101", "DEV104"]) == expected_findings(source)



SCHEDULE = """
from typing import Optional

import torch
from torch import nn


class TempLoss(nn.Module):
    def __init__(self, dim=8, warmup=10, temp=0.07):
        super().__init__()
        self.register_buffer("center", torch.zeros(1, 1, dim))
        self.schedule = torch.linspace(0.04, 0.07, warmup){attr_mark}
        self.temp = temp

    def forward(self, outs: list, temp: Optional[float] = None, epoch: {annotation} = None):
        if temp is not None:
            temperature = torch.tensor(temp)
        elif epoch is not None:
            temperature = self.schedule[epoch]
        else:
            temperature = torch.tensor(self.temp)
        stacked = torch.stack(outs)
        return torch.softmax((stacked - self.center) / temperature, dim=-1){mark}
"""


@pytest.mark.parametrize("annotation, attr_mark", [
    ("int | None", ""),
    ("Optional[int]", ""),
    # a tensor index: the plain attribute left on the cpu is the story (DEV105, reported where it is indexed)
    ("Optional[torch.Tensor]", "  # expect: DEV105"),
])
def test_an_optional_whole_number_parameter_indexes_one_element(annotation, attr_mark):
    source = SCHEDULE.format(annotation=annotation, mark="", attr_mark=attr_mark)
    assert {code for _, code in found(source, ["DEV101", "DEV104", "DEV105"])} == {
        code for _, code in expected_findings(source)}


SAMPLING = """
from typing import Optional

import torch


class NegativeSampling:
    def __init__(self, amount: int = 1, weight: {annotation} = None):
        self.amount = amount
        self.weight = weight

    def to(self, device: torch.device):
        if self.weight is not None:
            self.weight.to(device){mark}
        return self
"""


@pytest.mark.parametrize("annotation, mark", [
    ("Optional[torch.Tensor]", "  # expect: DEV103"),
    ("torch.Tensor", "  # expect: DEV103"),
    ("Optional[object]", ""),
])
def test_an_optional_tensor_parameter_is_a_tensor_when_given(annotation, mark):
    source = SAMPLING.format(annotation=annotation, mark=mark)
    assert found(source, ["DEV103"]) == expected_findings(source)


CALLED_WITH_EPOCH = """
import torch
from torch import nn


class TempLoss(nn.Module):
    def __init__(self, warmup=10):
        super().__init__()
        self.schedule = torch.linspace(0.04, 0.07, warmup){mark}

    def forward(self, outs: list, epoch{annotation} = None):
        temperature = self.schedule[epoch]
        return torch.softmax(torch.stack(outs) / temperature, dim=-1)


class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 8)
        self.criterion = TempLoss()

    def step(self, x):
        return self.criterion([self.head(x)], epoch=self.current_epoch)
"""


@pytest.mark.parametrize("annotation, mark", [
    (": int | None", ""),
    ("", "  # expect: DEV105"),  # (unannotated: a value nobody knows, perhaps a tensor of epochs)
])
def test_a_caller_unknown_number_for_an_int_parameter_is_a_whole_number(annotation, mark):
    source = CALLED_WITH_EPOCH.format(annotation=annotation, mark=mark)
    assert found(source, ["DEV101", "DEV104", "DEV105"]) == expected_findings(source)
