"""Device selection as scripts write it: argparse flags, availability idioms, default and current devices.

Each case is a snippet whose `# expect:` markers are exactly what devlint must report (none: it
must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
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
torch.cuda.set_device(device)  # expect: DEV204
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
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
