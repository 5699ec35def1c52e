"""False findings of the eighteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- `net.module` of a DataParallel (or DDP) wrapper is the module it wraps, where it is: its output is on the
  module's device, so `.cpu()` of it waits for the GPU (xcmyz/FastSpeech's eval.py times `net.module.forward(...)`
  steps that end in `.cpu()`: a false DEV301), and an input left on the cpu is a crash (the wrapper moves inputs
  only when it is called itself);
- a model that is one of several classes of the file (`Base() if ... else Scaled()`) has their methods, not a
  library's: `model.predict(x)` is no call of the model (wyharveychen/CloserLookFewShot's test.py, where each
  class's method moves its input itself: 2 false DEV102); a method of a model of an unseen class still is.

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

ONE_OF_CLASSES = """
import sys
import torch
import torch.nn as nn
from models import VAE


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def predict(self, x):
        return self.fc(x.to(self.fc.weight.device))


class Scaled(Base):
    def predict(self, x):
        return self.fc(x.to(self.fc.weight.device)) * 2


device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
model = {model}
{move}
feats = torch.randn(3, 4)
print(model.predict(feats)){mark}
"""

CASES = {
    "wrapped_module_output_copied_to_the_host_waits": WRAPPED_FORWARD.format(end="out = y.cpu()", mark=""),
    "wrapped_module_output_left_queued": WRAPPED_FORWARD.format(end="out = y + 1", mark="  # expect: DEV301"),
    "wrapped_module_called_itself_moves_nothing": WRAPPED_INPUT.format(moved="", mark="  # expect: DEV102"),
    "one_of_several_classes_has_their_methods": ONE_OF_CLASSES.format(
        model="Base() if sys.argv[-1] == 'base' else Scaled()", move="model = model.to(device)", mark=""),
    "a_method_of_a_model_of_an_unseen_class_computes_with_its_parameters": ONE_OF_CLASSES.format(
        model="VAE(latent_dim=8)", move="model.to(device)", mark="  # expect: DEV102"),
    "wrapped_module_given_a_moved_input": WRAPPED_INPUT.format(moved=".to(device)", mark=""),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
