"""False errors of the fourteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- `if torch.cuda.is_available(): model = DataParallel(model).cuda() else: model = DataParallel(model)`
  (yhenon/pytorch-retinanet's train.py): a DataParallel on both paths still moves its inputs itself;
- the `else:` of `if torch.cuda.is_available():` runs where CUDA is missing: what is on the selected device is on
  the cpu there, and a tensor made there without `device=` is on the cpu by the path's choice; the object a
  method runs on keeps its place after such a path (`def init_hidden(self): ... if use_cuda: return h.cuda()
  else: return h`, code-of-learn-deep-learning-with-pytorch's seq2seq: the encoder stays on the selected device);
  `device_count() > 1` false is one GPU as well as none, so its `else:` learns nothing (CorentinJ's
  Real-Time-Voice-Cloning: `if device.type == "cuda" and torch.cuda.device_count() > 1: data_parallel(...)
  else: model(texts, ...)`); a callee runs where its caller's path runs;
- a dict of lists filled key by key in a loop keeps each key's values (rasbt's cyclical-learning-rate notebook:
  `collect["epoch"]` holds ints, `collect["cost"]` the GPU losses: plotting the epochs converts nothing);
- `.data.cpu().numpy()` of a value of unknown kind (an unseen encoder's output, NVIDIA/pix2pixHD) is a numpy
  array: indexing it with a 0-dim cuda tensor reads the number (numpy's `__index__`), no cpu tensor is indexed;
- `self.registered = nn.ModuleList(self.blocks)`: the plain list's modules are registered by the container, so
  `self.blocks[i]` moves with the module (no DEV107);
- a module class whose own `to()` moves an attribute before `super().to(device)` (pranz24's
  pytorch-soft-actor-critic `action_scale`, also when `__init__` sets it in both branches of an `if`) moves it
  with the module: no plain attribute left behind;
- (warnings) torchvision's `nms` reads its suppression mask on the host: a timed detector whose forward ends with
  it has waited for the GPU (yhenon/pytorch-retinanet's visualize.py, DEV301); `init_process_group(backend=
  cfg.backend)` in a program whose configuration names NCCL sets up an NCCL group, so the `set_device` after it
  has a GPU (hysts/pytorch_image_classification, DEV203).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

WRAPPED_ON_BOTH_PATHS = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def main():
    data = [torch.randn(5) for _ in range(4)]
    model = nn.Linear(5, 1)
    if torch.cuda.is_available():
        model = {gpu_side}
    else:
        model = torch.nn.DataParallel(model)
    for batch in DataLoader(data, batch_size=2):
        print(model(batch)){mark}


main()
"""

WITHOUT_CUDA = """
import torch
import torch.nn as nn


class Weighted(nn.Module):
    def forward(self, scores):
        if torch.cuda.is_available():
            w = torch.ones(scores.shape).cuda() * 0.25
        {other}
            w = torch.ones(scores.shape) * 0.25
            out = w * scores{mark104}
        return scores.sum()


net = nn.Linear(4, 2)
if torch.cuda.is_available():
    net = net.cuda()
for x in torch.utils.data.DataLoader(torch.randn(8, 4), batch_size=2):
    if torch.cuda.is_available():
        out = net(x.cuda())
    {other}
        out = net(x){mark102}
    print(Weighted()(out))
"""

HOST_COPY_INDEXED = """
import numpy as np
import torch


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def features(encoder, image, inst):
    feats = encoder.forward(image.to(device))
    feats = {copied}
    pos = (inst.to(device) == 1).nonzero()
    return float(feats[{index}].sum()){mark}
"""

ALIASED_LIST = """
import torch
import torch.nn as nn


class Stack(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.blocks = []
        for _ in range(n):
            self.blocks.append(nn.Linear(8, 8))
        self.registered = nn.ModuleList({given})

    def forward(self, h):
        for i in range(len(self.blocks)):
            h = torch.relu(self.blocks[i](h)){mark}
        return h


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = Stack(3).to(device)
print(net(torch.randn(2, 8, device=device)))
"""

OWN_TO = """
import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self, low=None, high=None):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        if low is None:
            self.scale = torch.tensor(1.)
        else:
            self.scale = torch.FloatTensor((high - low) / 2.0)

    def forward(self, x):
        return torch.tanh(self.lin(x)) * self.scale{mark}

    def {method}(self, device):
        self.scale = self.scale.to(device)
        return super().to(device)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
policy = Policy(torch.zeros(2).numpy(), torch.ones(2).numpy()).to(device)
print(policy(torch.randn(5, 3).to(device)))
"""

TIMED_DETECTOR = """
import time

import torch
import torch.nn as nn
from torchvision.ops import nms


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, img):
        scores = self.head(img).flatten(1).sigmoid()[0]
        boxes = torch.rand(scores.shape[0], 4, device=img.device)
        return {ending}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Detector().to(device)
img = torch.randn(1, 3, 32, 32, device=device)
start = time.time()
out = model(img)
print(time.time() - start){mark}
"""

CONFIGURED_BACKEND = """
import os
import types

import torch
import torch.distributed as dist
import torch.nn as nn

cfg = types.SimpleNamespace(distributed=int(os.environ.get("WORLD_SIZE", "1")) > 1, backend={backend}, local_rank=0,
                            device="cuda" if torch.cuda.is_available() else "cpu")


def main():
    if cfg.distributed:
        dist.init_process_group(backend=cfg.backend, init_method="env://")
        torch.cuda.set_device(cfg.local_rank){mark}
    model = nn.Linear(4, 2).to(cfg.device)
    print(model(torch.randn(3, 4, device=cfg.device)))


main()
"""

METHOD_WITHOUT_CUDA = """
import torch
import torch.nn as nn

use_cuda = torch.cuda.is_available()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 4)

    def forward(self, x, h):
        return self.gru(x, h)

    def init_hidden(self):
        result = torch.zeros(1, 1, 4)
        if use_cuda:
            return result.cuda()
        else:
            return result


def evaluate(encoder, x):
    if use_cuda:
        x = x.cuda()
    h = encoder.init_hidden()
    return encoder({given}, h){mark}


encoder = Encoder()
if use_cuda:
    encoder = encoder.cuda()
evaluate(encoder, torch.randn(3, 1, 4))
"""

ONE_GPU_OR_MORE = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(4, 4)

    def forward(self, x):
        return self.enc(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for x in torch.utils.data.DataLoader(torch.randn(8, 4), batch_size=2):
    {moved}
    if device.type == "cuda" and torch.cuda.device_count() > 1:
        out = nn.parallel.data_parallel(model, x)
    else:
        out = model(x){mark}
"""

FILLED_BY_KEY = """
import matplotlib.pyplot as plt
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 1).to(device)
collect = {{"epoch": [], "lr": [], "cost": []}}
for epoch in range(3):
    cost = model(torch.randn(8, 4, device=device)).pow(2).mean()
    collect["epoch"].append(epoch + 1)
    collect["lr"].append(0.1 / (epoch + 1))
    collect["cost"].append(cost)
plt.plot(collect["epoch"], collect[{plotted}]){mark}
"""

CASES = {
    "a_data_parallel_on_both_paths_moves_its_inputs": WRAPPED_ON_BOTH_PATHS.format(
        gpu_side="torch.nn.DataParallel(model).cuda()", mark=""),
    "twin_a_plain_model_on_the_gpu_path": WRAPPED_ON_BOTH_PATHS.format(gpu_side="model.cuda()",
                                                                        mark="  # expect: DEV102"),
    "the_branch_without_cuda_is_on_the_cpu": WITHOUT_CUDA.format(other="else:", mark104="", mark102=""),
    "twin_a_branch_that_knows_nothing_of_cuda": WITHOUT_CUDA.format(
        other="if len(scores) > 1:", mark104="  # expect: DEV104", mark102="  # expect: DEV102"),
    "a_host_copy_of_an_unseen_output_is_numpys": HOST_COPY_INDEXED.format(copied="feats.data.cpu().numpy()",
                                                                                 index="pos[0, 0], pos[0, 1]", mark=""),
    # (indexed by whole columns of the cuda tensor: one element of it, 0-dim, would select as a Python int)
    "twin_a_host_tensor_indexed_with_a_cuda_one": HOST_COPY_INDEXED.format(
        copied="torch.zeros(3, 3)", index="pos[:, 0], pos[:, 1]", mark="  # expect: DEV101"),
    "a_plain_list_registered_by_a_module_list": ALIASED_LIST.format(given="self.blocks", mark=""),
    "twin_a_module_list_of_other_modules": ALIASED_LIST.format(
        given="[nn.Linear(8, 8)]", mark="  # expect: DEV107"),
    "an_attribute_its_own_to_moves": OWN_TO.format(method="to", mark=""),
    "twin_a_method_nobody_calls_on_a_move": OWN_TO.format(method="place", mark="  # expect: DEV104"),
    "a_detector_ending_with_nms_has_waited": TIMED_DETECTOR.format(ending="nms(boxes, scores, 0.5)", mark=""),
    "twin_a_detector_ending_with_gpu_work": TIMED_DETECTOR.format(ending="boxes * scores[:, None]",
                                                                  mark="  # expect: DEV301"),
    "a_configured_backend_of_a_program_naming_nccl": CONFIGURED_BACKEND.format(backend='"nccl"', mark=""),
    "twin_a_program_naming_gloo": CONFIGURED_BACKEND.format(backend='"gloo"', mark="  # expect: DEV203"),
    "a_method_path_without_cuda_leaves_its_object_where_it_was": METHOD_WITHOUT_CUDA.format(given="x", mark=""),
    "twin_an_input_made_on_the_cpu": METHOD_WITHOUT_CUDA.format(given="torch.randn(3, 1, 4)",
                                                                mark="  # expect: DEV102"),
    "more_than_one_gpu_false_may_be_one": ONE_GPU_OR_MORE.format(moved="x = x.to(device)", mark=""),
    "twin_a_batch_left_on_the_cpu": ONE_GPU_OR_MORE.format(moved="pass", mark="  # expect: DEV102"),
    "a_dict_filled_key_by_key_keeps_each_keys_values": FILLED_BY_KEY.format(plotted='"lr"', mark=""),
    "twin_the_key_that_holds_gpu_losses": FILLED_BY_KEY.format(plotted='"cost"', mark="  # expect: DEV401"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
