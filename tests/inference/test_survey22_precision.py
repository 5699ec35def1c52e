"""False findings of the twenty-second precision survey (issue 17 item 9), each beside a twin that must stay reported.

- modules (or parameters) kept in a plain list whose parameters the module registers one by one in a loop over it
  (`self.register_parameter`, directly or through a method of the class: kefirski/pytorch_RVAE, 5 false errors), or registered by `self.__setattr__(name,
  fc)` while a list also holds them (rlkit's Mlp in CQL, 3 false DEV107); a plain list nobody registers still is
  one;
- a model built on each pass of a loop is a new object: the one the same line built on the last pass and moved
  is another (Packt's Deep-RL Hands-On, 3 false errors);
- `blocks[i] = blocks[i].to(device)` over a batch's member moves the list's members (dgl pinsage, 2 false DEV102);
- `torch.load(open(path, "rb"))` of the file the script wrote with `torch.save(model, f)` in `with open(path, "wb")
  as f` (locuslab/TCN: DEV202);
- a guess at what callers pass (DEV104 with a parameter's device) is an info in a run that never writes a GPU word
  (4 false warnings of cpu-only projects);
- a name a function assigns is local to it throughout: read before the assignment it is no global's value (a
  notebook exercise's `x = self.transformer.ln_f(x)` under a `# your code here` gap, dataflowr: a false DEV104
  that reading survey 21's repositories again showed).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, lint_in_run

LISTED = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Gated(nn.Module):
    def __init__(self, size, n):
        super().__init__()
        self.gates = [nn.Linear(size, size) for _ in range(n)]
        {register_gates}
        self.kernels = [nn.Parameter(torch.randn(size, size)) for _ in range(n)]
        {register_kernels}

    def forward(self, x):
        for i in range(len(self.gates)):
            x = torch.sigmoid(self.gates[i](x)) * F.linear(x, self.kernels[i]){mark}
        return x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Gated(8, 2).to(device)
print(model(torch.randn(4, 8, device=device)).shape)
"""

REGISTER_GATES = """for i, layer in enumerate(self.gates):
            for j, p in enumerate(layer.parameters()):
                self.register_parameter(f"gate{i}_{j}", p)"""
REGISTER_KERNELS = """for i, k in enumerate(self.kernels):
            self.register_parameter(f"kernel{i}", k)"""

SET_ATTR = """
import torch
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.fcs = []
        for i in range(len(sizes) - 1):
            fc = nn.Linear(sizes[i], sizes[i + 1])
            {register}
            self.fcs.append(fc)

    def forward(self, x):
        for fc in self.fcs:
            x = torch.relu(fc(x)){mark}
        return x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
m = Mlp([4, 8, 2]).to(device)
print(m(torch.randn(3, 4, device=device)).shape)
"""

FRESH_IN_LOOP = """
import argparse
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Conv2d(3, 2, 1), nn.ReLU())
        self.out_size = self._get_size((3, 4, 4))

    def _get_size(self, shape):
        o = self.head(torch.zeros(1, *shape))
        return int(np.prod(o.size()))


def mutate(net, seed):
    np.random.seed(seed)
    for p in net.parameters():
        noise_t = torch.from_numpy(np.random.normal(size=p.data.size()).astype(np.float32))
        p.data += 0.01 * noise_t{mark}
    return net


def build(seeds, device):
    net = Net(){moved}
    for s in seeds:
        net = mutate(net, s)
    return net


parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
device = "cuda" if parser.parse_args().cuda else "cpu"
for seeds in ([1, 2], [3, 4]):
    net = build(seeds, device).to(device)
    print(net.out_size)
"""

MOVED_ONE_BY_ONE = """
import argparse
import torch
import torch.nn as nn


class Sage(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)

    def forward(self, blocks):
        return sum(self.lin(b) for b in blocks)


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.sage = Sage(n)

    def forward(self, pos, blocks):
        return self.sage(blocks) + pos{mark}


def train(args, batches):
    device = torch.device(args.device)
    model = Model(3).to(device)
    for epoch in range(2):
        pos, blocks = next(batches)
        {move}
        pos = pos.to(device)
        print(model(pos, blocks).mean())


parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
train(parser.parse_args(), iter(load_batches()))
"""

SAVED_THROUGH_A_HANDLE = """
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 1).to(device)
model_name = "tmp_model.pt"
{save}
model = torch.load(open(model_name, "rb"), weights_only=False){mark}
"""

UNBOUND_LOCAL = """
import torch
import torch.nn as nn

x = torch.ones(2, 4)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(4)

    def forward(self, idx):
        {body}


device = "cuda" if torch.cuda.is_available() else "cpu"
print(Model().to(device)(torch.ones(2, 4, device=device)))
"""

THROUGH_A_METHOD = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Highway(nn.Module):
    def __init__(self, size, n):
        super().__init__()
        self.gate = [nn.Linear(size, size) for _ in range(n)]
        for i, module in enumerate(self.gate):
            {register}
        self.kernels = [nn.Parameter(torch.randn(size, size)) for _ in range(n)]
        self._add_to_parameters(self.kernels, "kernel")

    def _add_to_parameters(self, parameters, name):
        for i, parameter in enumerate(parameters):
            self.register_parameter(name="{{}}-{{}}".format(name, i), param=parameter)

    def forward(self, x):
        for i in range(len(self.gate)):
            x = torch.sigmoid(self.gate[i](x)) * F.linear(x, self.kernels[i]){mark}
        return x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(Highway(8, 2).to(device)(torch.randn(4, 8, device=device)).shape)
"""

CASES = {
    "parameters_of_listed_modules_registered_one_by_one": LISTED.format(
        register_gates=REGISTER_GATES, register_kernels=REGISTER_KERNELS, mark=""),
    "listed_modules_nobody_registers": LISTED.format(
        register_gates="pass", register_kernels=REGISTER_KERNELS, mark="  # expect: DEV107"),
    "parameters_registered_through_a_method_of_the_class": THROUGH_A_METHOD.format(
        register='self._add_to_parameters(module.parameters(), "gate_{}".format(i))', mark=""),
    "a_loop_over_the_list_that_registers_nothing": THROUGH_A_METHOD.format(
        register="print(module)", mark="  # expect: DEV107"),
    "modules_registered_by_dunder_setattr": SET_ATTR.format(
        register='self.__setattr__("fc{}".format(i), fc)', mark=""),
    "modules_only_a_list_holds": SET_ATTR.format(register="pass", mark="  # expect: DEV107"),
    "a_model_built_on_each_pass_is_moved_after_its_builder": FRESH_IN_LOOP.format(moved="", mark=""),
    "a_model_moved_inside_its_builder": FRESH_IN_LOOP.format(moved=".to(device)", mark="  # expect: DEV101"),
    "a_batch_list_moved_member_by_member": MOVED_ONE_BY_ONE.format(
        move="for i in range(len(blocks)):\n            blocks[i] = blocks[i].to(device)", mark=""),
    "a_batch_list_left_on_the_host": MOVED_ONE_BY_ONE.format(move="pass", mark="  # expect: DEV102"),
    "a_checkpoint_this_script_wrote_through_a_handle": SAVED_THROUGH_A_HANDLE.format(
        save='with open(model_name, "wb") as f:\n    torch.save(model, f)', mark=""),
    "a_checkpoint_from_elsewhere": SAVED_THROUGH_A_HANDLE.format(save="", mark="  # expect: DEV202"),
    "a_name_the_function_assigns_is_local_throughout": UNBOUND_LOCAL.format(
        body="x = self.ln(x)\n        return x"),
    "a_global_the_function_only_reads": UNBOUND_LOCAL.format(body="return self.ln(x)  # expect: DEV104"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


CPU_ENCODER = """
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, hid):
        super().__init__()
        self.lstm = nn.LSTM(4, hid, batch_first=True)

    def forward(self, x):
        hidden = (torch.zeros(1, x.size(0), 5), torch.zeros(1, x.size(0), 5))
        return self.lstm(x, hidden)[0]
"""


@pytest.mark.parametrize("train, severity", [
    ("model = Encoder(5)\nprint(model(torch.randn(2, 7, 4)).shape)\n", "info"),
    ("model = Encoder(5).to('cuda' if torch.cuda.is_available() else 'cpu')\n", "warning"),
])
def test_a_guess_is_an_info_in_a_run_that_never_writes_a_gpu_word(tmp_path: Path, train: str, severity: str):
    files = {"model.py": CPU_ENCODER, "train.py": "import torch\nfrom model import Encoder\n" + train}
    findings = lint_in_run(tmp_path, files, "model.py")
    assert [(f.code, f.severity) for f in findings] == [("DEV104", severity)]
