"""Real device bugs the sixty-seventh survey found missed (issue 17: real bug reports from repositories nobody on
the team had used), and of the sixty-eighth precision survey, each beside a twin.

- `running = torch.tensor(0.0); running += loss`: an in-place op writes where its target lives, and torch lets
  a 0-dim cpu tensor into a GPU op only as an input (NASBench-PyTorch's running loss, DEV101).
- `tokenizer(texts, return_tensors="pt").input_ids`: a mapping read by attribute gives its entries, as by key
  (ConceptExpress, DEV102).
- A module of one of several classes of the file (`model = A() if a else B()`) runs each class's forward, and
  what follows holds after any of them (survey 68: CLAM's models, whose dict outputs hold numpy).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

RUNNING = """
import torch


def train(net, loader, device):
    running = {start}
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = (net(x) - y).pow(2).sum()
        running += {added}{mark}
    return running
"""


@pytest.mark.parametrize("start, added, mark", [
    ("torch.tensor(0.0)", "loss.detach()", "  # expect: DEV101"),
    ("torch.tensor(0.0)", "loss.item()", ""),
    ("torch.tensor(0.0, device=device)", "loss.detach()", ""),
    ("0.0", "loss.detach()", ""),
])
def test_an_in_place_op_into_a_cpu_scalar_takes_no_gpu_operand(start, added, mark):
    source = RUNNING.format(start=start, added=added, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


def test_a_cpu_scalar_read_by_a_gpu_op_is_still_fine():
    source = """
import torch


def scale(x, device):
    x = x.to(device)
    temperature = torch.tensor(0.5)
    return x / temperature
"""
    assert found(source, ["DEV101"]) == set()


TOKENS = """
import torch
from torch import nn
from transformers import CLIPTokenizer


def encode(prompts):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = CLIPTokenizer.from_pretrained("openai/clip-vit-base-patch32")
    encoder = nn.Embedding(49408, 64).to(device)
    ids = tokenizer(prompts, padding=True, return_tensors="pt"){read}
    return encoder(ids){mark}
"""


@pytest.mark.parametrize("read, mark", [
    (".input_ids", "  # expect: DEV102"),
    ('["input_ids"]', "  # expect: DEV102"),
    (".input_ids.to(device)", ""),
    ('.to(device)["input_ids"]', ""),
])
def test_a_mapping_read_by_attribute_gives_its_entries(read, mark):
    source = TOKENS.format(read=read, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)


LAUNCHED = """
import argparse
import torch
from mmcv.runner import init_dist
from models import build_model

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", choices=["none", "pytorch"], default="none")
    args = parser.parse_args()
    dist_params = dict(backend="nccl")
    if args.launcher == "none":
        distributed = False
    else:
        distributed = True
        {setup}
    model = build_model()
    if distributed:
        model = model.cuda(){mark}
    return model


main()
"""


@pytest.mark.parametrize("setup, mark", [
    ("init_dist(args.launcher, **dist_params)", ""),
    # a flag nothing ties to a GPU: the move assumes one
    ("print('distributed')", "  # expect: DEV201"),
])
def test_a_launchers_set_up_helper_selects_a_gpu(setup, mark):
    # (survey 68: segmentation test scripts that move the model only after mmcv's `init_dist`)
    source = LAUNCHED.format(setup=setup, mark=mark)
    assert found(source, ["DEV201"]) == expected_findings(source)


def test_a_helper_that_moves_a_list_or_one_value():
    # (found reading the regression run: DCGAN-LSGAN-WGAN-GP-DRAGAN's `utils.cuda([D, G, bce])`, a helper that
    # returns `xs.cuda()` for one value and `[x.cuda() for x in xs]` for a list: a list is no value to move)
    source = """
import torch
from torch import nn


def cuda(xs):
    if torch.cuda.is_available():
        if not isinstance(xs, (list, tuple)):
            return xs.cuda()
        else:
            return [x.cuda() for x in xs]


D = nn.Linear(4, 1)
G = nn.Linear(2, 4)
bce = nn.BCEWithLogitsLoss()
cuda([D, G, bce])
z, label = cuda([torch.randn(3, 2), torch.ones(3)])
print(bce(D(G(z)).view(-1), label))
"""
    assert found(source, ["DEV101", "DEV102"]) == set()


def test_a_comprehension_over_modules_moves_each_of_them():
    source = """
import torch
from torch import nn


def cuda(xs):
    return [x.cuda() for x in xs]


D = nn.Linear(4, 1)
G = nn.Linear(2, 4)
H = nn.Linear(2, 4)
cuda([D, G, nn.BCEWithLogitsLoss()])
z = torch.randn(3, 2).cuda()
print(D(G(z)))
print(H(z))  # expect: DEV102
"""
    assert found(source, ["DEV102"]) == expected_findings(source)


def test_a_function_handed_a_function_may_move_what_it_maps():
    # (found reading the regression run: se3_diffusion's `tree.map_structure(lambda x: x.to(device), feats)`)
    source = """
import torch
import tree
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 4).to(device)
feats = {"x": torch.ones(2, 4)}
moved = tree.map_structure(lambda x: x.to(device), feats)
print(model(moved["x"]))
print(model(feats["x"]))  # expect: DEV102
"""
    assert found(source, ["DEV102"]) == expected_findings(source)


def test_a_running_loss_on_the_gpu_keeps_its_0_dim_reading():
    # (found reading the regression run: practical-pytorch's seq2seq notebook sums its loss on the GPU, then
    # plots `loss.data[0]`, a number in the torch it was written for)
    source = """
import torch
import matplotlib.pyplot as plt

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(3, 1).to(device)
criterion = torch.nn.MSELoss()
losses = []
for step in range(3):
    x = torch.randn(2, 3).to(device)
    loss = 0
    for k in range(2):
        loss += criterion(net(x), torch.zeros(2, 1, device=device))
    losses.append(loss.data[0])
plt.plot(losses)
"""
    assert found(source, ["DEV401"]) == set()


def test_a_mapping_method_of_a_parameter_reads_a_setting():
    # (found reading the regression run: DiffSinger's `enc_hparams.get(key, hparams.get(key))` of an `__init__`
    # parameter annotated `dict` had become a tensor on that parameter's device, then 2 false DEV104)
    source = """
import math
import torch
from torch import nn


def embedding(dim):
    half = dim // 2
    scale = math.log(10000) / (half - 1)
    return torch.exp(torch.arange(half, dtype=torch.float) * -scale)


class Encoder(nn.Module):
    def __init__(self, enc_hparams: dict):
        super().__init__()

        def get_hparam(key):
            return enc_hparams.get(key, 256)

        self.dim = get_hparam("hidden_size")

    def forward(self, x):
        return x + embedding(self.dim).to(x.device)
"""
    assert found(source, ["DEV104"]) == set()
