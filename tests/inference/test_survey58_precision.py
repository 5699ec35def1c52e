"""False findings of the fifty-eighth to sixty-first precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Four surveys of 70 repositories nobody had run devlint on (image and video generation, sequence models, graphs and
science, 3D vision), pinned to 519fcb1; first readings: 52 errors, 12 true, 37 false, 3 debatable. The mechanisms:
- `loss.item()` (or `.cpu()`, a print of a GPU tensor) after `end.record()` waits for the queue, so the event has
  completed: `start.elapsed_time(end)` after it is safe (the Gaussian-splatting training loops, 4 DEV302).
- `torch.normal(mean=m, std=s)` draws where its tensors are, by keyword as by position (densify-and-split of the
  Gaussian-splatting models, 5 DEV101).
- `n = x.get_device()` is -1 on the cpu and the GPU's index on one: `torch.device(f"cuda:{n}") if n >= 0 else
  torch.device("cpu")` folds to `x`'s own device where the caller's `x` is known (pytorch_neural_crf, 5 DEV101).
  Whole numbers compare by `<`, `<=`, `>`, `>=` as by `==`.
- A collate_fn that returns `xs, np.array(lengths)` makes batches whose lengths are a numpy array, not a cpu tensor;
  and a DataLoader over a dataset of the project with such a collate_fn yields what the collate_fn makes, not the
  dataset's items (conv-emotion, 2 DEV102).
- A function or a constructor that sets up an object it is given, through the object's own method (`cloud.fill(n)`,
  or `self.cloud = cloud; self.cloud.fill(n)`), changes the caller's object: 3DGS's `Scene(args, gaussians)` fills
  the model before any step (4 DEV101 in forks of it).
- `self.accum = torch.empty(0)` in `__init__`, set for real by another method of the class (`training_setup`): a
  method reads the real one (the same forks, DEV104 warnings).
- `type(image) is Image.Image` (or the `Image` module itself, never a type) is no tensor's type: the branch that
  converts with numpy does not run for one (MasaCtrl, 1 DEV401).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

TIMED = """
import torch


def train(model, data):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for x in data:
        start.record()
        loss = model(x.cuda()).mean()
        loss.backward()
        end.record()
        shown = {read}
        print(shown, start.elapsed_time(end)){mark}
"""


@pytest.mark.parametrize("read, mark", [
    ("loss.item()", ""),
    ("loss.detach().cpu()", ""),
    ("x.shape[0]", "  # expect: DEV302"),  # no wait: the event may still be queued
])
def test_a_host_read_of_a_gpu_tensor_completes_the_events(read, mark):
    source = TIMED.format(read=read, mark=mark)
    assert found(source, ["DEV302"]) == expected_findings(source)


DRAWN = """
import torch


def split(scaling, mask, n=2):
    stds = scaling[mask].repeat(n, 1)
    means = torch.zeros((stds.size(0), 3), device="cuda")
    samples = {draw}
    rots = torch.eye(3, device="cuda").repeat(stds.size(0), 1, 1)
    return torch.bmm(rots, samples.unsqueeze(-1)){mark}
"""


@pytest.mark.parametrize("draw, mark", [
    ("torch.normal(mean=means, std=stds)", ""),
    ("torch.normal(means, stds)", ""),
    ("torch.normal(0.0, 1.0, size=(stds.size(0), 3))", "  # expect: DEV101"),  # numbers: drawn on the cpu
])
def test_normal_draws_where_its_tensors_are(draw, mark):
    source = DRAWN.format(draw=draw, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


INDEXED = """
import torch


def last(scores):
    n = scores.get_device()
    dev = {device}
    acc = torch.zeros(scores.size(0), device=dev)
    return acc + scores{mark}


print(last(torch.randn(4)))
"""


@pytest.mark.parametrize("device, mark", [
    ('torch.device(f"cuda:{n}") if n >= 0 else torch.device("cpu")', ""),
    ('torch.device("cpu") if n < 0 else torch.device(f"cuda:{n}")', ""),
    # a device chosen by the machine, not by where `scores` is
    ('torch.device("cuda" if torch.cuda.is_available() else "cpu")', "  # expect: DEV101"),
])
def test_a_device_built_from_get_device_is_the_tensors_own(device, mark):
    source = INDEXED.format(device=device, mark=mark)
    assert found(source) == expected_findings(source)


COLLATED = """
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, lens):
        assert max(lens) <= x.size(0)
        return self.lin(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x, lens):
        return self.block(x, lens)


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.randn(4), torch.tensor(3)


def collate(items):
    xs = torch.stack([torch.as_tensor(x, dtype=torch.float32) for x, _ in items])
    return xs, np.array([int(n) for _, n in items])


def main():
    loader = DataLoader({data}, batch_size=4, collate_fn=collate)
    model = Net().to(DEVICE)
    for x, lens in loader:
        print(model({x}, lens).shape){mark}


main()
"""


@pytest.mark.parametrize("data, x, mark", [
    ("list(range(8))", "x.to(DEVICE)", ""),
    ("Items()", "x.to(DEVICE)", ""),  # the batch is the collate_fn's, not the dataset's items
    ("Items()", "x", "  # expect: DEV102"),  # the features stay on the cpu
])
def test_a_collate_fn_keeps_numpy_lengths_on_the_host(data, x, mark):
    source = COLLATED.format(data=data, x=x, mark=mark)
    assert found(source) == expected_findings(source)


SET_UP = """
import torch


class Cloud:
    def __init__(self):
        self.radii = torch.empty(0)

    def fill(self, n):
        self.radii = torch.zeros(n, device="cuda")


{setup}


def step(cloud):
    seen = torch.rand(cloud.radii.shape[0], device="cuda") > 0.5
    return cloud.radii[seen]{mark}


def main():
    cloud = Cloud()
    {call}
    for _ in range(3):
        step(cloud)


if __name__ == "__main__":
    main()
"""

_OWNER = """class Scene:
    def __init__(self, cloud, n):
        self.cloud = cloud
        {body}"""
_HELPER = """def load(cloud, n):
    {body}"""


@pytest.mark.parametrize("setup, call, mark", [
    (_OWNER.format(body="self.cloud.fill(n)"), "Scene(cloud, 100)", ""),
    (_OWNER.format(body="cloud.fill(n)"), "Scene(cloud, 100)", ""),
    (_HELPER.format(body="cloud.fill(n)"), "load(cloud, 100)", ""),
    # a constructor that only keeps the object: its placeholder is still the cpu one
    (_OWNER.format(body="self.n = n"), "Scene(cloud, 100)", "  # expect: DEV101"),
])
def test_a_callee_that_sets_up_its_argument_changes_the_callers_object(setup, call, mark):
    source = SET_UP.format(setup=setup, call=call, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


PLACEHOLDER = """
import torch


class Gaussians:
    def __init__(self):
        self.accum = torch.empty(0)
        self.denom = torch.empty(0)

    def setup(self, n):
        self.{reset} = torch.zeros((n, 1), device="cuda")

    def add_stats(self, grad, mask):
        self.accum[mask] += torch.norm(grad[mask], dim=-1, keepdim=True){mark}
"""


@pytest.mark.parametrize("reset, mark", [
    ("accum", ""),
    ("denom", "  # expect: DEV104"),  # nothing sets `accum` for real: the empty cpu one meets the caller's gradient
])
def test_an_empty_placeholder_another_method_sets_is_not_read(reset, mark):
    source = PLACEHOLDER.format(reset=reset, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


TYPED = """
import numpy as np
import torch
from PIL import Image


def to_latent(image, encoder):
    if {test}:
        image = torch.from_numpy(np.array(image)).float(){mark}
    return encoder(image)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    encoder = torch.nn.Conv2d(3, 4, 1).to(device)
    return to_latent(torch.rand(1, 3, 8, 8).to(device), encoder)


main()
"""


@pytest.mark.parametrize("test, mark", [
    ("type(image) is Image.Image", ""),
    ("type(image) is Image", ""),  # the module: never a type, never true
    ("type(image) is not torch.Tensor", ""),
    ("type(image) == torch.Tensor", "  # expect: DEV401"),
])
def test_a_type_comparison_decides_the_branch(test, mark):
    source = TYPED.format(test=test, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)
