"""How the interpreter follows real code: each case is a snippet whose `# expect:`
markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
    # --- device selection as scripts write it
    "argparse_no_cuda": """
import argparse
import torch
from torch import nn
parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()
use_cuda = not args.no_cuda and torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
model = nn.Linear(2, 2).to(device)
x = torch.randn(3, 2)
model(x)  # expect: DEV102
model(x.to(device))
""",
    "argparse_cuda_attribute": """
import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true", default=False)
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()
x = torch.randn(3)
if args.cuda:
    x = x.cuda()
""",
    "argparse_device_default_cuda_is_a_choice": """
import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")
args = parser.parse_args()
x = torch.randn(3).to(args.device)
y = torch.randn(3)
z = x + y  # expect: DEV101
""",
    "device_string_from_flag": """
import torch
use_cuda = torch.cuda.is_available()
device = "cuda" if use_cuda else "cpu"
x = torch.zeros(2, device=device)
""",
    "hardcoded_string_device": """
import torch
device = "cuda"  # expect: DEV201
x = torch.zeros(2, device=device)
y = torch.ones(2).to(device)
""",
    "constant_flag_is_no_guard": """
import torch
use_cuda = True
x = torch.zeros(2)
if use_cuda:
    x = x.cuda()  # expect: DEV201
""",
    "local_rank_fstring": """
import os
import torch
import torch.distributed as dist
local_rank = int(os.environ["LOCAL_RANK"])
device = torch.device(f"cuda:{local_rank}")
torch.cuda.set_device(device)  # expect: DEV203
x = torch.zeros(2, device=device)
""",
    "set_default_device": """
import torch
if torch.cuda.is_available():
    torch.set_default_device("cuda")
x = torch.zeros(3)
y = torch.ones(3)
z = x + y
""",
    "set_device_changes_plain_cuda": """
import torch
if torch.cuda.device_count() > 1:
    torch.cuda.set_device(1)
    a = torch.zeros(2, device="cuda")
    b = torch.zeros(2, device="cuda:1")
    c = a + b
    d = torch.zeros(2, device="cuda:0")
    e = a + d  # expect: DEV101
""",
    "with_cuda_device": """
import torch
if torch.cuda.device_count() >= 2:
    cuda = torch.device("cuda")
    x = torch.ones(2, device="cuda:0")
    with torch.cuda.device(1):
        a = torch.ones(2, device=cuda)
        b = torch.ones(2).cuda()
        c = a + b
        d = a + x  # expect: DEV101
""",
    "accelerate": """
import torch
from torch import nn
from accelerate import Accelerator
accelerator = Accelerator()
device = accelerator.device
model = nn.Linear(2, 2).to(device)
x = torch.randn(4, 2)
y = model(x.to(device))
""",
    # --- guards
    "guard_early_exit": """
import sys
import torch
if not torch.cuda.is_available():
    sys.exit("needs a GPU")
x = torch.zeros(2).cuda()
torch.cuda.synchronize()
""",
    "guard_assert": """
import torch
assert torch.cuda.is_available(), "needs a GPU"
device = torch.device("cuda")
""",
    "guard_device_count": """
import torch
from torch import nn
model = nn.Linear(2, 2)
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model).cuda()
""",
    "guard_helper_only_called_guarded": """
import torch
def to_gpu(x):
    return x.cuda()
if torch.cuda.is_available():
    y = to_gpu(torch.zeros(2))
""",
    "guard_helper_called_unguarded": """
import torch
def to_gpu(x):
    return x.cuda()  # expect: DEV201
y = to_gpu(torch.zeros(2))
""",
    "guard_pytest_skipif": """
import pytest
import torch

@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_on_gpu():
    x = torch.zeros(2, device="cuda")
    torch.cuda.synchronize()

requires_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

@requires_cuda
def test_again():
    y = torch.ones(2).cuda()
""",
    "guard_unittest_skip": """
import unittest
import torch

class T(unittest.TestCase):
    @unittest.skipUnless(torch.cuda.is_available(), "needs CUDA")
    def test_gpu(self):
        x = torch.zeros(2).cuda()

    @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
    def test_gpu2(self):
        print(torch.cuda.get_device_name(0))
""",
    "guard_device_type": """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(64, 64, device=device)
start = time.perf_counter()
y = x @ x
if device.type == "cuda":
    torch.cuda.synchronize()
elapsed = time.perf_counter() - start
""",
    # --- classes, modules and wrappers
    "class_attributes_across_methods": """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

class Trainer:
    def __init__(self, model, loader):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        self.loader = loader

    def train(self):
        for x, y in self.loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)

    def evaluate(self):
        x, y = next(iter(self.loader))
        return self.model(x)  # expect: DEV102

loader = DataLoader(TensorDataset(torch.randn(8, 2), torch.randn(8)), batch_size=4)
trainer = Trainer(nn.Linear(2, 1), loader)
trainer.train()
trainer.evaluate()
""",
    "module_members_move_plain_attributes_do_not": """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(4, 2)])
        self.register_buffer("mean", torch.zeros(4))
        self.scale = nn.Parameter(torch.ones(4))
        self.offset = torch.zeros(4)  # expect: DEV105

    def forward(self, x):
        x = (x - self.mean) * self.scale
        x = x + self.offset
        return self.heads[0](self.body(x))

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = Net().to(device)
out = net(torch.randn(2, 4).to(device))
""",
    "wrappers_keep_the_device": """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2).to(device)
compiled = torch.compile(model)
parallel = nn.DataParallel(model)  # scatters its inputs to the GPU itself
loader = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4)
for (x,) in loader:
    compiled(x)  # expect: DEV102
    parallel(x)
""",
    "lightning_self_device": """
import torch
import lightning as L

class Model(L.LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        noise = torch.randn(x.shape, device=self.device)
        return (x + noise).sum()
""",
    "forward_with_callers_device": """
import torch
from torch import nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        mask = torch.ones(x.size(0), 4)
        return self.fc(x) * mask  # expect: DEV104
""",
    "helper_return_device_flows_out": """
import torch
def make(n, device):
    return torch.zeros(n, device=device)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = make(3, device)
b = make(3, "cpu")
c = a + b  # expect: DEV101
""",
    "finding_in_helper_names_the_call": """
import torch
def combine(a, b):
    return torch.cat([a, b])  # expect: DEV101
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
combine(torch.zeros(2).to(device), torch.zeros(2))
""",
    # --- containers
    "dict_batch_comprehension": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2).to(device)
batch = {"x": torch.randn(3, 2), "y": torch.randn(3)}
batch = {k: v.to(device) for k, v in batch.items()}
out = model(batch["x"])
""",
    "dict_batch_unmoved": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2).to(device)
batch = {"x": torch.randn(3, 2), "y": torch.randn(3)}
out = model(batch["x"])  # expect: DEV102
""",
    "enumerate_zip_loaders": """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2).to(device)
a = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4)
b = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4)
for i, ((x,), (y,)) in enumerate(zip(a, b)):
    model(x)  # expect: DEV102
    model(y.to(device))
""",
    "list_of_cuda_to_numpy": """
import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
outs = []
for i in range(3):
    outs.append(torch.randn(2, device=device))
arr = np.array(outs)  # expect: DEV401
ok = np.array([o.cpu().numpy() for o in outs])
""",
    # --- the rest of the catalogue
    "discarded_move_vs_module": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2)
model.to(device)
x = torch.randn(2, 2)
x.to(device)  # expect: DEV103
model(x)  # expect: DEV102
""",
    "load_map_location": """
import torch
a = torch.load("a.pt")  # expect: DEV202
b = torch.load("b.pt", map_location="cpu")
if torch.cuda.is_available():
    c = torch.load("c.pt")
""",
    "cuda_api_safe_calls": """
import torch
torch.cuda.manual_seed_all(0)
torch.cuda.empty_cache()
n = torch.cuda.device_count()
print(torch.cuda.memory_allocated())  # expect: DEV203
""",
    "pack_padded": """
import torch
from torch.nn.utils.rnn import pack_padded_sequence
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, 5, 2, device=device)
mask = torch.ones(3, 5, device=device)
lengths = mask.sum(1).long()
p = pack_padded_sequence(x, lengths, batch_first=True)  # expect: DEV106
q = pack_padded_sequence(x, lengths.cpu(), batch_first=True)
r = pack_padded_sequence(x, [5, 4, 3], batch_first=True)
""",
    "legacy_cuda_types": """
import torch
a = torch.cuda.FloatTensor(3)  # expect: DEV201
torch.set_default_tensor_type("torch.cuda.FloatTensor")  # expect: DEV201
b = torch.randn(2).type(torch.cuda.FloatTensor)  # expect: DEV201
Tensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor
""",
    "events": """
import torch
if torch.cuda.is_available():
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    end.record()
    torch.cuda.synchronize()
    ms = start.elapsed_time(end)
    end.record()
    ms = start.elapsed_time(end)  # expect: DEV302
""",
    "timing_with_item_sync": """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(64, 64, device=device)
t0 = time.time()
loss = (x @ x).sum().item()
t1 = time.time()
print(t1 - t0)
""",
    "unknown_never_conflicts": """
import torch
from mylib import make_batch, build_model
model = build_model()
x = make_batch()
y = model(x) + torch.zeros(3)
z = x + torch.ones(3)
""",
    "scalars_mix_freely": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, device=device)
lr = torch.tensor(0.1)
y = x * lr + 2.0
total = x.sum()
z = x / total
w = x * torch.tensor(3)
""",
    "result_of_a_bad_operation_is_reported_once": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = torch.ones(3)
b = torch.ones(3, device=device)
c = a + b  # expect: DEV101
d = c * b
e = torch.cat([c, b])
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


def test_why_names_the_call_into_the_helper():
    from tests.lint_helpers import lint

    [finding] = lint(CASES["finding_in_helper_names_the_call"])
    assert any("called from line 6" in w for w in finding.why), finding.why
