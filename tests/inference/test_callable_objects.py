"""Calling an object runs its class's `__call__`.

A predictor or wrapper class of the file (`predictor = Predictor(model); out = predictor(x)`) is called
like a function: what its `__call__` does to devices (it runs the model on the GPU, it brings the result
to the host) is what the call does. A class without `__call__` stays unknown, as before.

fast-reid's DefaultPredictor (rw_dev 135_NUMPY_ON_CUDA_fastreid_distmat_numpy) has this shape, but its excerpt
lacks the code that builds and calls one. On public code it finds yolov7's ComputeLossAuxOTA (a cpu
`torch.ones` indexed with a cuda mask, reached through `compute_loss_ota(...)`) and timm's
RegularGridInterpolator (cpu weights times a GPU table, reached through `f(dyx)`).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

PRELUDE = """\
import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
"""

CASES = {
    "a_predictor_returns_what_its_call_computes": PRELUDE + """
class Predictor:
    def __init__(self, net):
        self.net = net
    def __call__(self, batch):
        with torch.no_grad():
            return self.net(batch.to(device))
predictor = Predictor(model)
features = predictor(torch.randn(8, 4))
distances = np.asarray(features @ features.t())  # expect: DEV401
""",
    "twin_the_predictor_returns_host_values": PRELUDE + """
class Predictor:
    def __init__(self, net):
        self.net = net
    def __call__(self, batch):
        with torch.no_grad():
            return self.net(batch.to(device)).cpu()
predictor = Predictor(model)
features = predictor(torch.randn(8, 4))
distances = np.asarray(features @ features.t())
""",
    "twin_an_object_without_call_stays_unknown": PRELUDE + """
class Holder:
    def __init__(self, net):
        self.net = net
holder = Holder(model)
features = holder(torch.randn(8, 4))
distances = np.asarray(features)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
