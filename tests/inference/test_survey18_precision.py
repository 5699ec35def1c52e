"""False findings of the eighteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- `net.module` of a DataParallel (or DDP) wrapper is the module it wraps, where it is: its output is on the
  module's device, so `.cpu()` of it waits for the GPU (xcmyz/FastSpeech's eval.py times `net.module.forward(...)`
  steps that end in `.cpu()`: a false DEV301), and an input left on the cpu is a crash (the wrapper moves inputs
  only when it is called itself).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

WRAPPED_FORWARD = """
import time
import torch

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
net = torch.nn.DataParallel(torch.nn.Linear(8, 8)).to(device)
start = time.perf_counter()
for _ in range(10):
    y = net.module.forward(torch.randn(4, 8).to(device))
    {end}
print((time.perf_counter() - start) / 10){mark}
"""

WRAPPED_INPUT = """
import torch

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
net = torch.nn.DataParallel(torch.nn.Linear(8, 8)).to(device)
through_wrapper = net(torch.randn(4, 8))
inner = net.module
direct = inner(torch.randn(4, 8){moved}){mark}
"""

CASES = {
    "wrapped_module_output_copied_to_the_host_waits": WRAPPED_FORWARD.format(end="out = y.cpu()", mark=""),
    "wrapped_module_output_left_queued": WRAPPED_FORWARD.format(end="out = y + 1", mark="  # expect: DEV301"),
    "wrapped_module_called_itself_moves_nothing": WRAPPED_INPUT.format(moved="", mark="  # expect: DEV102"),
    "wrapped_module_given_a_moved_input": WRAPPED_INPUT.format(moved=".to(device)", mark=""),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
