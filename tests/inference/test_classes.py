"""Classes, nn.Modules and wrappers: attributes across methods, members that move, forward with the caller's device.

Each case is a snippet whose `# expect:` markers are exactly what devlint must report (none: it
must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
    # coqui TTS's WaveGrad positional encoding (survey 5): an empty placeholder (a 0 in its shape) is rebuilt
    # on the input's device before its first use; a placeholder with data is what the input meets on that path
    "an_empty_placeholder_rebuilt_before_use": """
import torch
from torch import nn

class Rotary(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(0, 0)
        self.seeded = torch.ones(1, 1)

    def forward(self, x):
        if x.shape[-1] > self.table.shape[1]:
            self.table = torch.randn(x.shape[-2], x.shape[-1]).to(x)
        if x.shape[-1] > self.seeded.shape[1]:
            self.seeded = torch.randn(x.shape[-2], x.shape[-1]).to(x)
        return x + self.table[:, : x.size(-1)] + self.seeded[:, : x.size(-1)]  # expect: DEV104
""",
    # apex's FusedLayerNorm (survey 5, seen once tests ran after setUp): a legacy autograd function has a
    # `forward` and is built before each call, but it is no module: it computes where its input is
    "an_autograd_function_is_no_module": """
import torch
from torch import nn

class ScaleFunction(torch.autograd.Function):
    def __init__(self, factor):
        self.factor = factor

    def forward(self, input):
        return input * self.factor

class Scale(nn.Module):
    def forward(self, input):
        return ScaleFunction(2.0)(input)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
Scale()(torch.randn(3).to(device))
""",
    # apex's L0 amp tests (vendored by jukebox, survey 5): a test method runs after its class's setUp, here a
    # helper that makes cuda the default tensor type, so the RNN it builds is on cuda like its input
    "a_test_runs_after_set_up_and_its_helpers": """
import unittest
import torch
from torch import nn

def prepare(case):
    case.width = 8
    torch.set_default_tensor_type(torch.cuda.FloatTensor)  # expect: DEV204

class RnnCase(unittest.TestCase):
    def setUp(self):
        prepare(self)

    def test_rnn(self):
        rnn = nn.RNN(input_size=self.width, hidden_size=self.width)
        torch.set_default_tensor_type(torch.cuda.FloatTensor)
        hidden = torch.zeros((1, 4, self.width))
        rnn(torch.randn((5, 4, self.width)), hidden)
""",
    # and what setUp moved is on that device in each test: a cpu input to it is a crash (unseen before)
    "a_test_sees_the_model_set_up_moved": """
import unittest
import torch
from torch import nn

class ModelCase(unittest.TestCase):
    def setUp(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = nn.Linear(4, 2).to(self.device)

    def test_forward(self):
        self.model(torch.randn(3, 4))  # expect: DEV102

    def test_forward_moved(self):
        self.model(torch.randn(3, 4).to(self.device))
""",
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
    # the Trainer hands a LightningModule's step hooks their batch on the module's device: a tensor made there on
    # the cpu meets it (`batch_idx` is a number)
    "lightning_step_batch_follows_the_module": """
import torch
import lightning as L

class Model(L.LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        noise = torch.randn(x.shape)
        weights = torch.ones(8)[batch_idx]
        return (x + noise).sum() * weights  # expect: DEV104
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
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


def test_why_names_the_call_into_the_helper():
    from tests.lint_helpers import lint

    [finding] = lint(CASES["finding_in_helper_names_the_call"])
    assert any("called from line 6" in w for w in finding.why), finding.why
