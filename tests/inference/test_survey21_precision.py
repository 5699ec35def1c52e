"""False findings of the twenty-first precision survey (issue 17 item 9), each beside a twin that must stay reported.

- a model a worker function builds and moves is its own: the next model the same factory builds is on the cpu
  (harvardnlp/annotated-transformer's `train_worker` and `example_simple_model`: 3 false errors); a model the
  module holds, moved by the worker, is moved for everyone;
- a plain class's list of plain layers registers nothing and is no unregistered module (dataflowr's numpy
  backprop: 2 false DEV107); an nn.Module's list of modules is;
- a DataLoader over a list of tensors already on the device yields batches there (dataflowr: 2 false DEV102);
- `x, t = dataset[i]` of a dataset of this file is what its `__getitem__` returns: a numpy label is no cpu tensor
  (uvadlc: 2 false DEV101);
- `if args.device.startswith("cuda"):` guards what it holds, as `args.device == "cuda"` does (makemore: DEV203).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

FACTORY = """
import torch
import torch.nn as nn


class EncoderDecoder(nn.Module):
    def __init__(self, tgt_embed, generator):
        super().__init__()
        self.tgt_embed = tgt_embed
        self.generator = generator

    def decode(self, tgt):
        return self.tgt_embed(tgt){mark}


def make_model(vocab, d_model=16):
    return EncoderDecoder(nn.Sequential(nn.Embedding(vocab, d_model)), nn.Linear(d_model, vocab))


{shared}


def greedy_decode(model, start_symbol):
    ys = torch.zeros(1, 1).fill_(start_symbol).long()
    return model.decode(ys)


def example_simple_model():
    print(greedy_decode({model}, start_symbol=0))


def train_worker(gpu):
    {built}
    model.cuda(gpu)


if __name__ == "__main__" and torch.cuda.is_available():
    train_worker(0)
    example_simple_model()
"""

PLAIN_LIST = """
import numpy as np
import torch
{nn}

class Scale({base}):
    def __init__(self, n):
        {init}

    def forward(self, x):
        return {scaled}


class Cos({base}):
    def forward(self, x):
        return {cos}


class Chain({base}):
    def __init__(self, layers):
        {init}
        self.layers = layers

    def forward(self, x):
        for layer in self.layers:
            x = layer.forward(x){mark}
        return x


net = Chain([Scale(3), Cos()])
print(net.forward({data}))
"""

LOADER = """
import torch
import torch.nn as nn

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
users = torch.randint(0, 10, (100,)){moved}
items = torch.randint(0, 10, (100,)){moved}
loader = torch.utils.data.DataLoader(list(zip(users, items)), batch_size=16, shuffle=True)
net = nn.Embedding(10, 4).to(device)
for batch_users, batch_items in loader:
    print(net(batch_users).shape){mark}
"""

DATASET_ITEM = """
import numpy as np
import torch
from torch.utils.data import Dataset

device = "cuda" if torch.cuda.is_available() else "cpu"


class Digits(Dataset):
    def __init__(self, n):
        self.images = torch.rand(n, 784)
        self.labels = {labels}

    def __getitem__(self, index):
        return self.images[index], self.labels[{index}]

    def __len__(self):
        return len(self.labels)


digits = Digits(20)
model = torch.nn.Linear(784, 10).to(device)
correct = 0
for i in range(20):
    x, t = digits[i]
    x = x.to(device)
    prediction = model(x.unsqueeze(0)).argmax(1)
    correct += (prediction == t).sum().item(){mark}
"""

STARTSWITH = """
import argparse
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", type=str, default="cpu")
args = parser.parse_args()
model = torch.nn.Linear(4, 4).to(args.device)
t0 = time.time()
model(torch.randn(8, 4, device=args.device)).sum().backward()
if {test}:
    torch.cuda.synchronize(){mark}
print(time.time() - t0)
"""

CASES = {
    "a_model_a_worker_builds_and_moves_is_its_own": FACTORY.format(
        shared="", model="make_model(11)", built="model = make_model(11)", mark=""),
    "a_model_the_module_holds_is_moved_for_everyone": FACTORY.format(
        shared="model = make_model(11)", model="model", built="global model", mark="  # expect: DEV104"),
    "a_plain_class_list_of_plain_layers": PLAIN_LIST.format(
        nn="", base="object", init="self.n = 3", scaled="self.n * x", cos="np.cos(x)", mark="",
        data="np.arange(3.0)"),
    "an_nn_module_list_of_modules": PLAIN_LIST.format(
        nn="import torch.nn as nn", base="nn.Module", init="super().__init__()\n        self.lin = nn.Linear(3, 3)",
        scaled="self.lin(x)", cos="torch.cos(x)", mark="  # expect: DEV107", data="torch.randn(2, 3)"),
    "a_loader_over_tensors_on_the_device": LOADER.format(moved=".to(device)", mark=""),
    "a_loader_over_cpu_tensors": LOADER.format(moved="", mark="  # expect: DEV102"),
    "a_numpy_label_of_the_dataset": DATASET_ITEM.format(
        labels="np.random.randint(0, 10, n).astype(np.int64)", index="index", mark=""),
    "a_one_element_label_tensor_of_the_dataset": DATASET_ITEM.format(
        labels="torch.randint(0, 10, (n,))", index="index:index + 1", mark="  # expect: DEV101"),
    "a_device_string_that_starts_with_cuda": STARTSWITH.format(test='args.device.startswith("cuda")', mark=""),
    "no_test_at_all": STARTSWITH.format(test="True", mark="  # expect: DEV203"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
