"""False findings of the fortieth and forty-first precision surveys (issue 17 item 9), each beside a twin that must
stay reported.

Survey 40 (Lightning, Hugging Face and pix2pix-style model classes: 10 false errors of 11, 14 false warnings of 40):
- A test's parameter named as a `@pytest.fixture` of the file is what the fixture returns (`"cpu"`) (2 DEV101).
- `model.modules()` and `children()` yield modules, which `.to()` moves in place; `.to(dtype)` of a name that holds
  a dtype changes no device (2 DEV103).
- A 0-dim cpu tensor combines with a tensor on any device: `sigmas[self.step_index]` with an int attribute that a
  loop counts up, `desired.cpu() / norm.cpu()` of norms (a clamp keeps 0-dim, a reduction of a moved value is 0-dim)
  (5 DEV101).
- `hasattr(x, "device")` of a tensor is true, `isinstance(x, torch.Tensor)` too: a helper's branch for tensors is
  the one that runs (`get_device(wav)` returns `wav.device`, the cpu) (1 DEV401).
- `if conf["use_gpu"]:` is a user's GPU switch, as `if args.use_gpu:` is (7 DEV201 read).
Survey 41 (loss-heavy code: no false error of 2, 5 false warnings of 40):
- A checkpoint written to a temporary file and moved into place (`os.replace(tmp, path)`), loaded back through a name
  assigned that path, is this machine's own (1 DEV202).
(Left, with repros in /work/notes/survey40/fp and survey41/fp: DEV202 of a checkpoint the same run saved through
Lightning or a saver that moves to the cpu, of published weights named through a parameter or a docstring; a CUDA
RNG state behind a None sentinel (DEV203); a module-level nn.Parameter of a module called from a Dataset (DEV104);
`assert type(a) == torch.FloatTensor` (DEV104); an integer `--gpu-id` whose -1 means every GPU (DEV201).)

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

FIXTURE = """
import pytest
import torch


def add_noise(latents, noise, device):
    sigmas = torch.rand((latents.shape[0],), device=device).view(-1, 1, 1, 1)
    return (1.0 - sigmas) * latents + sigmas * noise{mark}


@pytest.fixture
def device():
    return "{device}"


def test_add_noise(device):
    latents = torch.randn(3, 4, 8, 8)
    noise = torch.randn(3, 4, 8, 8)
    assert add_noise(latents, noise, device).shape == latents.shape
"""


@pytest.mark.parametrize("device, mark", [
    ("cpu", ""),
    ("cuda", "  # expect: DEV101"),
])
def test_a_pytest_fixture_gives_the_test_its_value(device, mark):
    source = FIXTURE.format(device=device, mark=mark)
    assert {f for f in found(source) if f[1] not in ("DEV201", "DEV204")} == expected_findings(source)


MODULES = """
import torch
from transformers import AutoModel


def load(path, device, dtype):
    model = AutoModel.from_pretrained(path)
    model.to(device)
    model.to(dtype)
    for module in model.{members}():
        module.cpu(){mark}
    return model
"""


@pytest.mark.parametrize("members, mark", [
    ("modules", ""),
    ("children", ""),
    ("parameters", "  # expect: DEV103"),
])
def test_submodules_move_in_place(members, mark):
    source = MODULES.format(members=members, mark=mark)
    assert found(source) == expected_findings(source)


SCHEDULER = """
import torch


class EulerScheduler:
    def __init__(self, steps=50):
        self.sigmas = torch.linspace(1.0, 0.0, steps + 1).to("cpu")
        self.step_index = 0

    def step(self, model_output, sample):
        sigma = self.sigmas[{index}]
        denoised = sample - model_output * sigma{mark}
        self.step_index += 1
        return denoised


def main(model, device):
    model.to(device)
    sched = EulerScheduler()
    x = torch.randn(1, 4, 32, 32, device=device)
    for _ in range(50):
        x = sched.step(model(x), x)
    return x
"""


@pytest.mark.parametrize("index, mark", [
    ("self.step_index", ""),
    ("self.step_index:", "  # expect: DEV101"),
])
def test_an_element_of_a_cpu_table_counted_by_an_attribute(index, mark):
    source = SCHEDULER.format(index=index, mark=mark)
    assert found(source) == expected_findings(source)


NORMS = """
import torch


def scale(weights, device, max_value):
    updown = torch.randn(4, 4).to(device) @ weights.to(device)
    norm = updown.norm().clamp(min=max_value / 2)
    desired = torch.clamp(norm, max=max_value)
    ratio = desired.cpu() / norm.cpu(){sum}
    return updown * ratio{mark}
"""


@pytest.mark.parametrize("sum, mark", [
    ("", ""),
    (" * torch.ones(3)", "  # expect: DEV101"),
])
def test_a_ratio_of_norms_brought_to_the_cpu(sum, mark):
    source = NORMS.format(sum=sum, mark=mark)
    assert found(source) == expected_findings(source)


GET_DEVICE = """
import numpy as np
import torch


def get_device(obj, default=None):
    if hasattr(obj, "device"):
        return obj.device
    if hasattr(obj, "parameters"):
        return next(obj.parameters()).device
    return torch.device(default)


@torch.no_grad()
def separate(model, wav):
    input_device = get_device(wav, default="cpu")
    out = model(wav.to(get_device(model, default="cpu")))
    return out.to({back})


def numpy_separate(model, wav: np.ndarray) -> np.ndarray:
    out = separate(model, torch.from_numpy(wav){moved})
    return out.data.numpy(){mark}
"""


@pytest.mark.parametrize("back, moved, mark", [
    ("input_device", "", ""),
    ("input_device", ".cuda()", "  # expect: DEV401"),
])
def test_hasattr_of_a_tensor_takes_the_tensor_branch(back, moved, mark):
    source = GET_DEVICE.format(back=back, moved=moved, mark=mark)
    assert {f for f in found(source) if f[1] not in ("DEV201", "DEV204")} == expected_findings(source)


FLAG = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--use_gpu", type=int, default=0)


def main(conf):
    model = torch.nn.Linear(16, 4)
    if conf["{key}"]:
        model.cuda(){mark}
    return model(torch.randn(2, 16, device=next(model.parameters()).device))


if __name__ == "__main__":
    main(dict(vars(parser.parse_args())))
"""


@pytest.mark.parametrize("key, mark", [
    ("use_gpu", ""),
    ("verbose", "  # expect: DEV201"),
])
def test_a_gpu_switch_read_from_a_dict(key, mark):
    source = FLAG.format(key=key, mark=mark)
    assert found(source) == expected_findings(source)


ATOMIC = """
import os
import tempfile

import torch

CKPT_NAME = "checkpoint.torch"


def load_checkpoint(folder):
    filename = os.path.join(folder, {loaded})
    if not os.path.exists(filename):
        return None
    return torch.load(filename){mark}


def save_checkpoint(folder, state):
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False) as handle:
        tmp_name = handle.name
        torch.save(state, handle.name)
    os.replace(tmp_name, os.path.join(folder, CKPT_NAME))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(2, 2).to(device)
    state = load_checkpoint("ckpt")
    save_checkpoint("ckpt", {{"model": model.state_dict()}})
"""


@pytest.mark.parametrize("loaded, mark", [
    ("CKPT_NAME", ""),
    ('"pretrained.torch"', "  # expect: DEV202"),
])
def test_a_checkpoint_written_to_a_temporary_file_and_moved_into_place(loaded, mark):
    """Survey 41 (1 false DEV202): the file saves to a temporary file, moves it to `folder/CKPT_NAME`, and loads
    that path back through a name: a checkpoint of this machine's own run. Another file it never writes stays."""
    source = ATOMIC.format(loaded=loaded, mark=mark)
    assert found(source) == expected_findings(source)


PRUNE = """
import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.Conv2d(8, 8, 3)).cuda()
total = sum(m.weight.data.numel() for m in model.modules() if isinstance(m, nn.Conv2d))
conv_weights = torch.zeros(total)
y, i = torch.sort(conv_weights)
thre = y[{index}]
for m in model.modules():
    if isinstance(m, nn.Conv2d):
        mask = m.weight.data.abs().clone().gt(thre).float().cuda(){mark}
"""


@pytest.mark.parametrize("index, mark", [
    ("int(total * 0.5)", ""),
    ("int(total * 0.5):", "  # expect: DEV101"),
])
def test_a_threshold_read_from_a_sorted_cpu_table(index, mark):
    """The regression run, once `modules()` gave modules (rethinking-network-pruning): `y[int(...)]` is one element,
    0-dim on the cpu, which a GPU weight's comparison takes as a number; a slice of it is a cpu tensor."""
    source = PRUNE.format(index=index, mark=mark)
    assert {f for f in found(source) if f[1] != "DEV204"} == expected_findings(source)


PROPERTY_INDEX = """
import torch


class FlowScheduler:
    def __init__(self, steps=50):
        self.sigmas = torch.linspace(1.0, 0.0, steps + 1).to("cpu")
        self._step_index = None

    @property
    def step_index(self):
        return self._step_index

    def step(self, model_output, sample):
        if self.step_index is None:
            self._step_index = 0
        sigma = self.sigmas[self.step_index]
        dt = self.sigmas[{next}] - sigma
        self._step_index += 1
        return sample + model_output * dt{mark}


def main(model, device):
    model.to(device)
    sched = FlowScheduler()
    x = torch.randn(1, 4, 32, 32, device=device)
    for _ in range(50):
        x = sched.step(model(x), x)
    return x
"""


@pytest.mark.parametrize("next, mark", [
    ("self.step_index + 1", ""),
    ("self.step_index:", "  # expect: DEV101"),
])
def test_an_element_at_a_property_named_as_an_index(next, mark):
    """kohya's FlowMatchEulerDiscreteScheduler (survey 40, 2 DEV101 left after the first fixes): `step_index` is a
    property, whose value no walk reads; named as an index, it picks one element of the cpu table."""
    source = PROPERTY_INDEX.format(next=next, mark=mark)
    assert found(source) == expected_findings(source)
