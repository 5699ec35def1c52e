"""False findings of the twenty-fifth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- `steps[:-1]` is no evidence that `steps` is a tensor (a list slices so too): a sampler that walks a schedule
  `zip(reversed(steps), reversed([-1] + list(steps[:-1])))` and scales `torch.ones(n) * step` was taken to
  combine a cpu tensor with tensors on the caller's device (ermongroup/ddim, 3 false DEV104). An index of
  several dimensions (`steps[:, 0]`) still is: a list takes one; so is a slice in arithmetic no list takes
  (`bounds[3:] - bounds[:3]`), but not a dict's entries in it (`cfg["emb_dim"] // cfg["n_heads"]`: numbers).
- A caller in another module that passes a name it set to a host copy just before the call
  (`preds = preds.detach().cpu()` ... `BoxDecoder().decode(preds)`) passes a cpu tensor, as
  `decode(preds.cpu())` does (kuangliu/torchcv, a false DEV104). Only a one-line assignment in the call's own
  block counts: one in a branch, or a name set again in between, leaves the caller unknown.
- A helper in another module that tests a GPU tensor's truth (`if (scores > 0).any():`) waits for the GPU: the
  clock read after it in the caller times the work; a helper that only sums does not.

And a real bug the survey noted missed (jwyang/faster-rcnn.pytorch's `gridgen.py`):
- `x.type(torch.FloatTensor)` (or `"torch.FloatTensor"`) is a cpu tensor wherever x was: a legacy type names a device
  as well as a dtype; combined with the GPU tensor it came from, it crashes. `x.type(torch.float32)` keeps x's device.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, lint_in_run

SCHEDULE = """
import torch


def sample(x, steps, model):
    n = x.size(0)
    following = [-1] + list(steps[{index}])
    for step, nxt in zip(reversed(steps), reversed(following)):
        t = (torch.ones(n) * step).to(x.device){mark}
        x = model(x, t, nxt)
    return x
"""

TYPED = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
grid = torch.rand(4, 2, device=device)
coords = grid.type({kind})
print(grid + coords){mark}
"""

CONFIG = """
import torch


def rope(cfg):
    head_dim = cfg["emb_dim"] // cfg["n_heads"]
    return 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
"""

CASES = {
    "entries_of_a_config_in_arithmetic": CONFIG,
    "a_schedule_sliced": SCHEDULE.format(index=":-1", mark=""),
    "a_legacy_cpu_type": TYPED.format(kind="torch.FloatTensor", mark="  # expect: DEV101"),
    "a_legacy_cpu_type_by_name": TYPED.format(kind='"torch.FloatTensor"', mark="  # expect: DEV101"),
    "a_dtype": TYPED.format(kind="torch.float32", mark=""),
    "a_tensor_indexed_in_two_dimensions": SCHEDULE.format(index=":, 0", mark="  # expect: DEV104"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


CODER = """
import torch


class BoxDecoder:
    def __init__(self):
        self.anchors = torch.rand(100, 4)

    def decode(self, loc):
        return loc[:, :2] * self.anchors[:, 2:]
"""

DEMO = """
import torch
from coder import BoxDecoder

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(4, 4).to(device)

preds = net(torch.rand(100, 4, device=device))
{copy}
print(BoxDecoder().decode(preds))
"""


@pytest.mark.parametrize("copy, expected", [
    ("preds = preds.detach().cpu()", []),
    ("if preds.is_cuda:\n    preds = preds.detach().cpu()", ["DEV104"]),  # in a branch: not sure
    ("preds = preds.detach().cpu()\npreds += 1\npreds = net(preds.to(device))", ["DEV104"]),  # set again after
])
def test_a_caller_in_another_module_passes_a_host_copy(tmp_path, copy, expected):
    files = {"coder.py": CODER, "demo.py": DEMO.format(copy=copy)}
    findings = lint_in_run(tmp_path, files, "coder.py")
    assert [f.code for f in findings] == expected


HELPERS = """
def check(scores):
    {body}
"""

BENCH = """
import time
import torch
from helpers import check

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(8, 8).to(device)
x = torch.randn(16, 8, device=device)
start = time.time()
for _ in range(10):
    check(model(x))
print(time.time() - start)
"""


@pytest.mark.parametrize("body, expected", [
    ("if (scores > 0).any():\n        return 1\n    return 0", []),
    ("return scores.sum()", ["DEV301"]),
])
def test_a_helper_in_another_module_tests_a_gpu_tensor(tmp_path, body, expected):
    files = {"helpers.py": HELPERS.format(body=body), "bench.py": BENCH}
    findings = lint_in_run(tmp_path, files, "bench.py")
    assert [f.code for f in findings] == expected
