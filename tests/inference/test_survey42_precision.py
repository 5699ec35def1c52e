"""False findings of the forty-second and forty-third precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Survey 42 (multi-module libraries and applications: 2 false errors of 2, 4 false warnings of 28):
- `math.sqrt(var)` of a tensor reads it as a float: a sync, as `float(var)` is (denoiser's streamer, 1 DEV301).
- `pin_memory if torch.cuda.is_available() else False` is true only with a GPU: testing it is a check, also where
  an attribute keeps it (DeepFilterNet's loader, 1 DEV203).
(Left, with repros in /work/notes/survey42/fp: TabPFN's batches of a loader built with `device=device`, read as host
data because other branches move them (1 DEV101; "what an object told `device=d` builds is on d" was tried and made a
MedSAM predictor's numpy results and a `functools.partial` loader's cpu labels look like GPU tensors); chronos2's
`x.device` through an einops helper (1 DEV101); `.to("cpu")` of an unseen library's results in the statement that
reads the clock (1 DEV301); a 0-dim cpu attribute made from a size parameter (1 DEV105).)
Survey 43 (older research code, 2017-2020: 7 false errors of 9, 5 false warnings of 33):
- A DataLoader batch unpacked (`for x, y in loader`) gives members, each a tensor of its own: `y[j]` is one element,
  0-dim on the cpu, which combines with a GPU element as a number does (LearningToCompare, 4 DEV101).
- torchvision's MNIST cache (`processed/test.pt`) holds the dataset's cpu tensors (CDAN, 2 DEV202).
- A module's own `cuda()` that moves a plain list of tensors (`self.mats = [m.cuda() for m in self.mats]`) moves
  them with the module (CDAN's RandomLayer, 1 DEV104).
(Left, with repros in /work/notes/survey43/fp: NRI's `if x.is_cuda:` move beside a module output computed from the
same input (1 DEV101); AttnGAN's `cfg.CUDA` flag of a config module, set again by `__main__`, that guards both the
model's and the batch's moves in two modules (2 DEV102); labels handed to a submodule that reads them with numpy (1
DEV104); a best checkpoint reloaded through a helper's `name + '.pth'` (1 DEV202).)

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

ELEMENTS = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    net = nn.Linear(10, 1).cuda()
    ds = TensorDataset(torch.randn(20, 5, 10), torch.randint(0, 5, (20,)))
    correct = 0
    for x, y in DataLoader(ds, batch_size=4):
        scores = net(x.cuda()).view(-1, 5)
        _, pred = torch.max(scores.data, 1)
        hits = [1 if pred[j] == y[{index}] else 0 for j in range(y.shape[0])]{mark}
        correct += sum(hits)
    return correct
"""


@pytest.mark.parametrize("index, mark", [
    ("j", ""),
    ("j:", "  # expect: DEV101"),
])
def test_one_element_of_a_batch_member(index, mark):
    source = ELEMENTS.format(index=index, mark=mark)
    assert {f for f in found(source) if f[1] != "DEV204"} == expected_findings(source)


CACHE = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
test_set = torch.load("/data/mnist/{name}"){mark}
images = test_set[0].to(device)
"""


@pytest.mark.parametrize("name, mark", [
    ("processed/test.pt", ""),
    ("checkpoints/test.pt", "  # expect: DEV202"),
])
def test_torchvisions_mnist_cache(name, mark):
    source = CACHE.format(name=name, mark=mark)
    assert found(source) == expected_findings(source)


PROJECTOR = """
import torch
import torch.nn as nn


class Projector(nn.Module):
    def __init__(self, dims, out=16):
        super().__init__()
        self.mats = [torch.randn(d, out) for d in dims]

    def forward(self, xs):
        return [torch.mm(xs[i], self.mats[i]) for i in range(len(xs))]{mark}
{own_cuda}

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
proj = Projector([8, 4]).to(device)
print(proj([torch.randn(2, 8, device=device), torch.randn(2, 4, device=device)]))
"""

OWN_CUDA = """
    def to(self, device):
        super().to(device)
        self.mats = [m.to(device) for m in self.mats]
        return self
"""


@pytest.mark.parametrize("own_cuda, mark", [
    (OWN_CUDA, ""),
    ("", "  # expect: DEV104"),
])
def test_a_modules_own_move_of_a_plain_list(own_cuda, mark):
    source = PROJECTOR.format(own_cuda=own_cuda, mark=mark)
    assert found(source) == expected_findings(source)


STREAMER = """
import math
import time
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


class Streamer:
    def __init__(self, net):
        self.net, self.total_time, self.var = net, 0.0, torch.tensor(1.0)

    def feed(self, wav):
        begin = time.time()
        outs = []
        for frame in wav.split(64, dim=1):
            self.var = 0.9 * self.var + 0.1 * frame.pow(2).mean()
            out = self.net(frame)
            outs.append(out * {scale})
        self.total_time += time.time() - begin{mark}
        return torch.cat(outs, 1)


if __name__ == "__main__":
    s = Streamer(torch.nn.Linear(64, 64).to(device))
    s.var = s.var.to(device)
    print(s.feed(torch.randn(1, 256, device=device)).shape, s.total_time)
"""


@pytest.mark.parametrize("scale, mark", [
    ("math.sqrt(self.var)", ""),
    ("self.var.sqrt()", "  # expect: DEV301"),
])
def test_python_math_of_a_gpu_tensor_waits_for_it(scale, mark):
    source = STREAMER.format(scale=scale, mark=mark)
    assert found(source) == expected_findings(source)


PINNED = """
import threading
import torch


class Loader:
    def __init__(self, stream: bool = True):
        self.stream = {value}

    def setup_queue(self):
        if self.stream:
            args = ("pinning on", torch.cuda.current_device()){mark}
            threading.Thread(target=print, args=args).start()
"""


@pytest.mark.parametrize("value, mark", [
    ("stream if torch.cuda.is_available() else False", ""),
    ("stream", "  # expect: DEV204"),
])
def test_an_availability_check_kept_in_an_attribute(value, mark):
    source = PINNED.format(value=value, mark=mark)
    assert found(source) == expected_findings(source)


FILLED = """
import torch
from torch.utils.data import DataLoader


def input_cuda(batch):
    batch["kspace"] = batch["kspace"].cuda(non_blocking=True)
    batch["norm"] = batch["norm"].float().cuda(non_blocking=True)


def train(dataset, model, loss_func):
    for i, (input, target) in enumerate(DataLoader(dataset, batch_size=2)):
        input_cuda(input)
        target = target.cuda(non_blocking=True)
        loss = loss_func(model(input["kspace"]), target * input["norm"])
"""


def test_a_batch_member_filled_by_a_helper():
    """fastMRI's `input_cuda(input)` of a dict unpacked from each batch (`for i, (input, target) in ...`): the first
    version of the member-elements rule above took the batch-ness from the unpacked members, and the helper's writes
    into the dict no longer reached the caller (2 false DEV102 on the regression run)."""
    assert not {f for f in found(FILLED) if f[1] != "DEV204"}
