"""False errors of the tenth precision survey (issue 17 item 9) that the first fixes left, each beside a twin that
must stay reported.

- a class with no base (`class MultilayerPerceptron():`, rasbt/deeplearning-models' from-scratch MLP notebook) is
  used as a model for its `forward` (its methods see `self` where its caller puts it: snap-stanford/ogb's
  `class KEModel(object)`, whose MLP train_pytorch.py moves), but nothing registers its tensors: none is a "plain
  attribute left behind" (DEV105). Its `forward` is a method like any other (survey 20): analysed with its
  callers' arguments where the file calls it, so the notebook's callers, all on the cpu, give no finding, and a
  caller's GPU data meets its cpu weights (DEV104);
- `if self.mean.device != x.device: self.mean = ...to(x.device); self.var = ...to(x.device)` (Dive-into-DL-PyTorch's
  5.10 BatchNorm): where the test fails, `self.mean` is on x's device, and so is what the object keeps beside it on
  the same device;
- a helper that writes the moved members back into its argument (`d["x"] = d["x"].cuda()`, fastMRI's
  RadiologyJohnson2022 `input_cuda(input)`) fills the caller's batch in place: the caller's `batch` holds what the
  helper left in it; a helper that makes a dict of its own does not;
- `if multigpus: trainer.model = DataParallel(trainer.model)` (NVlabs/FUNIT's train.py): where the paths meet, the
  model is called as the unwrapped one is (its forward, which moves the batch itself, is still seen); a forward
  that moves nothing still meets the cpu batch on the path without the wrapper;
- (survey 5's leftover) a function whose parameter reaches matplotlib through another function's result, with no
  copy to the host on the way (`ax = plt.gca(); ax.imshow(renorm(img).permute(1, 2, 0))`, GroundingDINO's
  COCOVisualizer), takes host images: `renorm` is given a cpu image by contract; with `.cpu()` on the way the
  image may be anywhere, and `renorm`'s cpu constants are judged.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

SCRATCH_MODEL = """
import torch
{extra}

class MultilayerPerceptron({base}):
    def __init__(self, num_features, num_hidden):
        super().__init__()
        self.weight_1 = torch.zeros(num_hidden, num_features).normal_(0.0, 0.1){mark105}
        self.bias_1 = torch.zeros(num_hidden)

    def forward(self, x):
        return torch.sigmoid(torch.mm(x, self.weight_1.t()) + self.bias_1){mark101}


model = MultilayerPerceptron(4, 8)
print(model.forward({x}))
"""

BATCH_NORM = """
import torch
import torch.nn as nn


def batch_norm(X, moving_mean, moving_var, eps=1e-5):
    return (X - moving_mean) / torch.sqrt(moving_var + eps)


class BatchNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.moving_mean = torch.zeros(1, n)
        self.moving_var = torch.ones(1, n){mark}

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            {second}
        return batch_norm(X, self.moving_mean, self.moving_var)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = nn.Sequential(nn.Linear(4, 4), BatchNorm(4)).to(device)
print(net(torch.randn(2, 4, device=device)))
"""

FILLED_BATCH = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, d):
        return self.lin(d["x"]) * d["norm"]


def to_gpu(d):
    {body}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = [{{"x": torch.randn(4), "norm": torch.tensor(2.0)}} for _ in range(8)]
model = Net().to(device)
for batch in DataLoader(data, batch_size=4):
    to_gpu(batch)
    out = model(batch){mark}
"""

WRAPPED_ON_ONE_PATH = """
import sys
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, co_data):
        xa = co_data[0]{moved}
        return self.lin(xa)


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Model()

    def update(self, co_data):
        return self.model(co_data).mean(){mark}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
trainer = Trainer()
trainer.to(device)
if "--multigpus" in sys.argv:
    trainer.model = nn.DataParallel(trainer.model)
for co in DataLoader(TensorDataset(torch.randn(8, 4), torch.zeros(8)), batch_size=4):
    trainer.update(co)
"""

SHOWN = """
import matplotlib.pyplot as plt
import torch


def renorm(img, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
    img_perm = img.permute(1, 2, 0)
    mean, std = torch.Tensor(mean), torch.Tensor(std)
    return (img_perm * std + mean).permute(2, 0, 1){mark}


def visualize(img):
    ax = plt.gca()
    ax.imshow({shown})
    plt.savefig("out.png")
"""

CASES = {
    "a_class_with_no_base_is_no_module": SCRATCH_MODEL.format(
        extra="", base="", mark105="", x="torch.randn(2, 4)", mark101=""),
    "nor_one_with_object_for_base": SCRATCH_MODEL.format(
        extra="", base="object", mark105="", x="torch.randn(2, 4)", mark101=""),
    "twin_its_forward_given_gpu_data": SCRATCH_MODEL.format(
        extra="", base="", mark105="", x='torch.randn(2, 4).to("cuda" if torch.cuda.is_available() else "cpu")',
        mark101="  # expect: DEV104"),
    "twin_a_module_leaves_its_plain_attribute_behind": SCRATCH_MODEL.format(
        extra="import torch.nn as nn", base="nn.Module", mark105="  # expect: DEV105",
        x="torch.randn(2, 4)", mark101=""),
    "statistics_moved_together_when_they_are_not_on_the_inputs_device": BATCH_NORM.format(
        second="self.moving_var = self.moving_var.to(X.device)", mark=""),
    "twin_only_the_mean_follows_the_input": BATCH_NORM.format(second="pass", mark="  # expect: DEV105"),
    "a_helper_fills_the_callers_batch_in_place": FILLED_BATCH.format(
        body='d["x"] = d["x"].to(device)\n    d["norm"] = d["norm"].float().to(device)', mark=""),
    "twin_a_helper_that_fills_a_dict_of_its_own": FILLED_BATCH.format(
        body='d = dict(d)\n    d["x"] = d["x"].to(device)', mark="  # expect: DEV102"),
    "a_model_wrapped_on_one_path_still_moves_its_batch_itself": WRAPPED_ON_ONE_PATH.format(
        moved=".to(device)", mark=""),
    "twin_one_that_moves_nothing_meets_the_cpu_batch": WRAPPED_ON_ONE_PATH.format(
        moved="", mark="  # expect: DEV104"),
    "an_image_shown_as_it_is_is_a_host_image": SHOWN.format(shown="renorm(img).permute(1, 2, 0)", mark=""),
    "twin_an_image_brought_to_the_host_on_the_way": SHOWN.format(
        shown="renorm(img).cpu().permute(1, 2, 0)", mark="  # expect: DEV104"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)

