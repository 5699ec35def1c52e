"""False errors of the sixth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- a subclass of a torch module that keeps torch's `__init__`, or hands `device=` to it through
  `super().__init__`, is made on that device (nanotron's TritonLayerNorm, TensorParallel linears); a subclass
  whose own `__init__` takes a device and builds its layers without it is still on the cpu;
- a module built inside a context manager given a device (`with init_on_device(device):`, nanotron's
  `init_on_device_and_dtype`, accelerate's `init_on_device`) is made there;
- what a value of unknown kind returns when called with data (a tokenizer's BatchEncoding, a class from a
  parametrize list) may be an object that moves itself: its bare `.to()` is no thrown-away tensor;
- `for m in [a, b]: m.to(device)` moves each module in place (nanotron's checkpointing tests);
- `if not isinstance(x, torch.Tensor):` says x is no tensor inside (efficientvit's dist.py);
- the steps of a cpu `torch.linspace(...)` are 0-dim tensors, which combine with a tensor on any device
  (lightweight-gan's interpolation); the rows of a 2-D cpu tensor do not.

Each case's `# expect:` markers are exactly the device errors devlint must report (none: it must stay
silent); GPU-assumption warnings are left out of these cases."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

ERRORS = ("DEV101", "DEV102", "DEV103", "DEV104", "DEV105", "DEV401")

CASES = {
    "a_torch_subclass_is_made_where_torch_s_init_is_told": """
import torch
from torch import nn

class DoubledNorm(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x) * 2

class BiasedLinear(nn.Linear):
    def __init__(self, width, device=None):
        super().__init__(width, width, bias=True, device=device)

class ScaledLinear(nn.Linear):
    def __init__(self, width, bias=True, device=None):
        super().__init__(width, width, bias, device)

class Head(nn.Module):
    def __init__(self, width, device=None):
        super().__init__()
        self.device = device
        self.proj = nn.Linear(width, width)

def run(device):
    x = torch.randn(2, 16, device=device)
    y = BiasedLinear(16, device=device)(DoubledNorm(16, device=device)(x))
    y = ScaledLinear(16, device=device)(y)
    return Head(16, device=device)(y)  # expect: DEV102

run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
""",
    "a_module_built_in_a_device_context_is_made_there": """
import torch
from torch import nn
from accelerate import init_on_device

class Staged(nn.Module):
    def build_stages(self):
        self.stage = nn.Linear(8, 8)

def build(width, device):
    staged = Staged()
    with init_on_device(device):
        inside = nn.Embedding(100, width)
        staged.build_stages()  # nanotron's pipeline blocks build their layers lazily, in the context
    outside = nn.Embedding(100, width)
    ids = torch.randint(0, 100, (1, 5), device=device)
    found = inside(ids)
    staged(torch.randn(2, 8, device=device))
    return found, outside(ids)  # expect: DEV102

build(8, torch.device("cuda" if torch.cuda.is_available() else "cpu"))
""",
    "what_an_unknown_callable_returns_may_move_itself": """
import torch

def encode(tokenizer, texts, device):
    batch = tokenizer(texts, return_tensors="pt")
    batch.to(device)
    ids = torch.tensor([1, 2, 3])
    ids.to(device)  # expect: DEV103
    return batch, ids
""",
    "a_loop_over_modules_moves_each": """
import torch
from torch import nn

def pair(device):
    gen, disc = nn.Linear(8, 8), nn.Linear(8, 8)
    for m in [gen, disc]:
        m.to(device)
    left = nn.Linear(8, 8)
    for m in [left]:
        m.float()
    x = torch.randn(2, 8, device=device)
    first = gen(x)
    second = disc(x)
    return first + second, left(x)  # expect: DEV102

pair(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
""",
    "not_isinstance_says_it_is_no_tensor": """
import torch

def as_tensor(value, device):
    if not isinstance(value, torch.Tensor):
        value = torch.Tensor(1).fill_(value)
    return value.to(device)

def scale(value, device):
    if isinstance(value, torch.Tensor):
        return torch.ones(1) * value  # expect: DEV104
    return value

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
as_tensor(torch.ones(1, device=device), device)
scale(torch.ones(1, device=device), device)
""",
    "the_steps_of_a_linspace_are_0_dim": """
import torch
from tqdm import tqdm

def mix(t, a):
    return torch.sin((1.0 - t) * a)

def shift(row, a):
    return row + a  # expect: DEV101

def walk(device):
    a = torch.randn(4, 8, device=device)
    for t in torch.linspace(0.0, 1.0, 5):
        mix(t, a)
    ratios = torch.linspace(0.0, 8.0, 9)
    for t in tqdm(ratios):
        mix(t, a)
    for row in torch.randn(5, 8):
        shift(row, a)

walk(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source, ERRORS) == expected_findings(source)
