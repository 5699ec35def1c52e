"""False findings of the fifteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- DataParallel gathers its outputs on a GPU wherever there is one: its output is on the selected device, not on
  its cpu input's (MadryLab/robustness's `train_model`: `accuracy(model(inp), target.cuda())`);
- a helper that wraps the model in DataParallel on the GPU path and leaves it on the cpu otherwise (kenshohara's
  3D-ResNets `make_data_parallel`) gives a model that takes cpu batches on either path;
- a model of unknown device given a batch the code leaves on the host while it moves the batch's targets takes
  it so: it moves it itself (DataParallel), and its output is not on the cpu (3D-ResNets' `train_epoch`; since
  survey 36, any cpu data given to a module of unknown place says nothing of where its output is);
- (warning) a parameter named as a GPU switch by its words (`cuda_flag`, `enable_gpu`, `train_on_gpu`) guards the
  move under it (Shawn1993/cnn-text-classification-pytorch's `predict(..., cuda_flag)`); `multi_gpu` is no such
  switch (false is one GPU);
- an object of a class nobody can see, built around the model (`atk = torchattacks.PGD(model, eps=...)`,
  Harry24k's demo notebooks), runs the model on inputs it moves itself: what it returns is where the model is, not
  where its cpu inputs were ("follows its inputs" is for callables given no module);
- a plain list whose modules a loop registers one by one (`self.add_module("head_%d" % i, head)`, pyGAT) is
  registered after the loop;
- `for epoch in range(epochs): train(model, ...)` where `train` moves the model in place: the body runs at least
  once, so after the loop the model is where the body left it (Text-Classification-Pytorch's main.py);
- `torch.sparse_coo_tensor(indices, values, shape)` is built where its indices and values are (pyGAT's
  SpecialSpmmFunction);
- formatting a GPU tensor (`"{:.0f}".format(n_ok)`, `f"{loss:.3f}"`) reads its value: the clock read after it
  times finished work (torchattacks' FAB, DEV301).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

DATA_PARALLEL_OUTPUT = """
import torch
import torch.nn as nn


def accuracy(output, target):
    return output.argmax(1).eq(target).float().mean(){mark}


def train_model(model, loader):
    model = {wrapped}
    for inp, target in loader:
        target = target.to("cuda" if torch.cuda.is_available() else "cpu")
        print(accuracy(model(inp), target))


data = torch.utils.data.TensorDataset(torch.randn(8, 4), torch.randint(0, 3, (8,)))
train_model(nn.Linear(4, 3), torch.utils.data.DataLoader(data, batch_size=4))
"""

WRAPPED_IN_HELPER = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_data_parallel(model, device):
    if device.type == "cuda":
        model = {wrapped}
    return model


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = make_data_parallel(nn.Linear(4, 3), device)
    loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 3, (8,))), batch_size=4)
    for inputs, targets in loader:
        outputs = model(inputs){mark}
        print(nn.functional.cross_entropy(outputs, targets.to(device)))


main()
"""

REGISTERED_ONE_BY_ONE = """
import torch
import torch.nn as nn


class MultiHead(nn.Module):
    def __init__(self, nin, nhid, nheads):
        super().__init__()
        self.heads = [nn.Linear(nin, nhid) for _ in range(nheads)]
        for i, head in enumerate(self.heads):
            {registered}
        self.out = nn.Linear(nhid * nheads, 2)

    def forward(self, x):
        x = torch.cat([head(x) for head in self.heads], dim=1){mark}
        return self.out(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = MultiHead(4, 8, 3).to(device)
print(model(torch.randn(5, 4, device=device)))
"""

MOVED_IN_EVERY_EPOCH = """
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(model, data):
    model.to(device)
    for x in data:
        model(x.to(device)).sum().backward()


model = nn.Linear(4, 2)
for epoch in {epochs}:
    train(model, [torch.randn(3, 4) for _ in range(2)])
x = torch.randn(1, 4).to(device)
print(model(x)){mark}
"""

SPARSE = """
import torch


class SpMM(torch.autograd.Function):
    @staticmethod
    def forward(ctx, indices, values, shape, b):
        a = torch.{factory}
        ctx.save_for_backward(a, b)
        return torch.matmul(a, b){mark}
"""

FORMATTED = """
import time
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(64, 64, device=device)
start = time.time()
res = x @ x
n_ok = (res.abs() < 1e10).float().sum()
print({shown} + " in {{:.1f}} s".format(time.time() - start)){mark}
"""

HOST_BATCH_TO_UNKNOWN_MODEL = """
import torch


def train_epoch(model, loader, device):
    for inputs, targets in loader:
        targets = targets.to(device, non_blocking=True)
        {made}
        outputs = model(inputs)
        print(outputs.argmax(1).eq(targets)){mark}
"""

FLAG_PARAMETER = """
import torch


def predict(ids, model, {flag}):
    x = torch.tensor([ids], dtype=torch.long)
    if {flag}:
        x = x.cuda(){mark}
    return model(x).argmax(1).item()
"""

WRAPPED_OBJECT = """
import torch
import torch.nn as nn
import torchattacks

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
atk = {built}
images = torch.randn(3, 4)
adv_images = atk(images, torch.zeros(3, dtype=torch.long))
print(model(adv_images)){mark}
"""

CASES = {
    "a_data_parallel_gathers_on_the_gpu": DATA_PARALLEL_OUTPUT.format(wrapped="nn.DataParallel(model)", mark=""),
    "twin_a_plain_model_computes_where_its_input_is": DATA_PARALLEL_OUTPUT.format(
        wrapped="model", mark="  # expect: DEV101"),
    "data_parallel_on_the_gpu_path_cpu_model_on_the_other": WRAPPED_IN_HELPER.format(
        wrapped="nn.DataParallel(model).cuda()", mark=""),
    "twin_a_model_moved_without_a_wrapper": WRAPPED_IN_HELPER.format(wrapped="model.cuda()",
                                                                     mark="  # expect: DEV102"),
    "a_plain_list_registered_one_by_one": REGISTERED_ONE_BY_ONE.format(
        registered='self.add_module("head_{}".format(i), head)', mark=""),
    "twin_a_plain_list_nobody_registers": REGISTERED_ONE_BY_ONE.format(
        registered="print(i, head)", mark="  # expect: DEV107"),
    "a_counting_loop_runs_its_body": MOVED_IN_EVERY_EPOCH.format(epochs="range(3)", mark=""),
    "twin_a_loop_over_nothing": MOVED_IN_EVERY_EPOCH.format(epochs="[]", mark="  # expect: DEV102"),
    "a_sparse_tensor_is_built_where_its_indices_are": SPARSE.format(
        factory="sparse_coo_tensor(indices, values, shape)", mark=""),
    "twin_a_dense_one_made_on_the_cpu": SPARSE.format(factory="zeros(shape)", mark="  # expect: DEV104"),
    "formatting_a_gpu_count_waits_for_it": FORMATTED.format(shown='"{:.0f}".format(n_ok)', mark=""),
    "an_f_string_too": FORMATTED.format(shown='f"{n_ok:.0f}"', mark=""),
    "twin_a_message_without_the_count": FORMATTED.format(shown='"done"', mark="  # expect: DEV301"),
    "a_batch_left_on_the_host_for_the_model": HOST_BATCH_TO_UNKNOWN_MODEL.format(made="", mark=""),
    # (its twin, a tensor made here on the cpu for the model, is cpu data too since survey 36: HRNet's DataParallel
    # evaluator; test_survey36_precision.py keeps the twin that holds, GPU data given to such a module)
    "a_switch_named_by_its_words": FLAG_PARAMETER.format(flag="cuda_flag", mark=""),
    "twin_a_parameter_that_is_no_switch": FLAG_PARAMETER.format(flag="verbose", mark="  # expect: DEV204"),
    "an_object_built_around_the_model_runs_it": WRAPPED_OBJECT.format(
        built="torchattacks.PGD(model, eps=8 / 255)", mark=""),
    "twin_an_object_given_no_model_follows_its_inputs": WRAPPED_OBJECT.format(
        built="torchattacks.Jitter(scale=0.1)", mark="  # expect: DEV102"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
