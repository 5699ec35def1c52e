"""False findings of the twenty-fourth precision survey and of the last stop's leftovers (issue 17 item 9), each
beside a twin that must stay reported.

- A module-level name a function rebinds through `global` (`device = None` at the top, `global device;
  device = torch.device(...)` in `main()`) is not the placeholder in the module's other functions: which binding
  they read depends on what ran first (survey 23: a false DEV102 where `x.to(device)` read `None`). Across files
  too: `utils.device` after `utils.init_gpu()`. A name only read, or assigned in a function without `global`
  (a local of its own), keeps the module-level value: a real mix there is still reported.
- A GPU tensor tested for its truth (`assert torch.isfinite(y).all()`, `if not mask.any(): break`,
  `while (err > tol).any():`, `... if ok else ...`) is read on the host (`Tensor.__bool__` is `.item()`): the
  clock read after it times the work (survey 23: a false DEV301). A test of a host value waits for nothing.
- On the path that knows CUDA is missing (`else:` of `if torch.cuda.is_available():`), a module or tensor on the
  caller's device is on the cpu, as one on the selected device is: a cpu input given there to `self.inner` is
  no mix (survey 24: L1aoXingyu/pytorch-beginner, a false DEV104). On the path with CUDA it still is.
- `out.cpu().detach().numpy()` waits for the GPU's queue as `out.cpu().numpy()` does: the copy to the host is
  anywhere in the chain (survey 24: yysijie/st-gcn's demo, a false DEV301). A chain with no copy waits for nothing.
- `if flag: x = x.cuda()` and later `if flag: y = x + w.cuda()`: in a branch where the flag is true, x is not the
  cpu tensor of the path where it was false (found reading survey 24's DRAGAN: two false DEV101 on a small
  twin). After that branch, where both paths meet, x still stayed on the cpu on one: a GPU tensor beside it
  there is still a mix, named with its condition.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, lint_in_run

GLOBAL_DEVICE = """
import torch
import torch.nn as nn

device = {placeholder}


def step(model, x):
    x = x.to(device)
    return model(x){mark}


def main():
    {declare}
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 2).to(device)
    print(step(model, torch.randn(3, 4)))


if __name__ == "__main__":
    main()
"""

TIMED = """
import time
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(8, 8).to(device)
x = torch.randn(16, 8, device=device)
start = time.time()
for _ in range(10):
    y = model(x)
    {test}
print(time.time() - start){mark}
"""

SUBMODULE_WITHOUT_CUDA = """
import torch
from torch import nn


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Embedding(26, 8)

    def forward(self, letters):
        ids = torch.LongTensor(letters)
        if torch.cuda.is_available():
            return self.inner(ids{moved})
        return self.inner(ids){mark}
"""

HOST_COPY_TIMED = """
import time
import torch


class Demo:
    def __init__(self, model, dev):
        self.model = model
        self.dev = dev

    def run(self, frames):
        for img in frames:
            tic = time.time()
            x = torch.from_numpy(img).float().to(self.dev)
            score = self.model.features(x).norm(){chain}
            print(score, time.time() - tic){mark}
"""

SHARED_FLAG = """
import torch


def step(data, flag):
    x = torch.rand(3)
    w = torch.rand(3).cuda()  # expect: DEV204
    if flag:
        x = x.cuda()
    if {test}:
        y = x + w{inside}
    return x * w{after}
"""

CASES = {
    "a_global_device_set_in_main": GLOBAL_DEVICE.format(placeholder="None", declare="global device", mark=""),
    "a_local_device_in_main_beside_a_cpu_global": GLOBAL_DEVICE.format(
        placeholder='torch.device("cpu")', declare="pass", mark="  # expect: DEV102"),
    "an_assert_on_a_gpu_tensor": TIMED.format(test="assert torch.isfinite(y).all()", mark=""),
    "an_if_not_on_a_gpu_tensor": TIMED.format(test="if not torch.isfinite(y).all():\n        break", mark=""),
    "a_conditional_on_a_gpu_tensor": TIMED.format(test="z = y if (y > 0).any() else x", mark=""),
    "a_while_on_a_gpu_tensor": TIMED.format(test="while (y > 1).any():\n        y = y / 2", mark=""),
    "a_cpu_input_to_a_submodule_without_cuda": SUBMODULE_WITHOUT_CUDA.format(moved=".cuda()", mark=""),
    "a_cpu_input_to_a_submodule_with_cuda": SUBMODULE_WITHOUT_CUDA.format(moved="", mark="").replace(
        "return self.inner(ids)\n", "return self.inner(ids)  # expect: DEV104\n", 1),
    "a_host_copy_inside_a_chain": HOST_COPY_TIMED.format(chain=".cpu().detach().numpy()", mark=""),
    "a_chain_without_a_host_copy": HOST_COPY_TIMED.format(chain=".detach()", mark="  # expect: DEV301"),
    "a_flag_tested_twice": SHARED_FLAG.format(test="flag", inside="", after="  # expect: DEV101"),
    "a_flag_tested_the_other_way": SHARED_FLAG.format(test="not flag", inside="  # expect: DEV101",
                                                      after="  # expect: DEV101"),
    "an_assert_on_a_host_value": TIMED.format(test="assert y.shape[0] == 16", mark="  # expect: DEV301"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


UTILS = """
import torch

device = None
other = None


def init_gpu():
    global device
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
"""

TRAIN = """
import torch
import torch.nn as nn
import utils


def main():
    utils.init_gpu()
    model = nn.Linear(4, 2).to("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(3, 4).to(utils.{read})
    return model(x)
"""


@pytest.mark.parametrize("read, expected", [
    ("device", []),  # init_gpu() set it: the input is where the model is
    ("other", ["DEV102"]),  # `utils.other` is None, rebound by nobody: x stays on the cpu
])
def test_a_global_rebound_in_another_module(tmp_path, read, expected):
    files = {"utils.py": UTILS, "train.py": TRAIN.format(read=read)}
    findings = lint_in_run(tmp_path, files, "train.py")
    assert [f.code for f in findings if f.code.startswith("DEV1")] == expected
