"""False findings of the twentieth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- `if device is not None: x = x.to(device)` in a function whose caller passes a device: only that branch runs
  (rasbt/stat453's helper_plotting, 3 false DEV102); a caller that passes none still leaves x on the cpu;
- `torch.Generator(device=d)` with a `d` nobody can read is on a device nobody knows, not the cpu of a
  generator made without one (hkproj/pytorch-stable-diffusion's pipeline, 2 false DEV102);
- a parameter annotated `int` given an element of the timesteps is one number, 0-dim (its `ddpm.py`, 3 false
  DEV101);
- sequence lengths a model hands to a submodule whose forward reads them on the host (through `super()` too)
  may stay on the cpu (sooftware/kospeech's tests, false DEV102);
- the `forward` of a plain class (no nn.Module) is a method like another: analysed with its callers' arguments
  (rasbt's Adaline, DEV104);
- a method of an object of unknown class moved to the GPU, given numpy, may return numpy (Practical_RL, DEV401);
- `self.b = nn.Parameter(...)` makes a module of a class whose nn.Module base nobody can see (labml, DEV104);
- `best.cpu().numpy()` waits for the GPU work queued before it (mbrl-lib, DEV301).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

DEVICE_BRANCH = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 2).to(device)
loader = DataLoader(TensorDataset(torch.randn(32, 8)), batch_size=8)


def embed_all(loader, encode, device=None):
    out = []
    for (x,) in loader:
        if device is not None:
            x = x.to(device)
        out.append(encode(x).cpu()){mark}
    return torch.cat(out)


print(embed_all(loader, model{passed}))
"""

GENERATOR = """
import torch
import torch.nn as nn

DEVICE = "cpu"
if ALLOW_CUDA:
    DEVICE = "cuda"
if torch.cuda.is_available():
    DEVICE = "cuda"
net = nn.Linear(16, 16).to(DEVICE)
g = torch.Generator({where})
z = torch.randn((4, 16), generator=g, device=DEVICE)
print(net(z)){mark}
"""

SCHEDULE = """
import numpy as np
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"


class Sampler:
    def __init__(self, n=1000):
        self.betas = torch.linspace(1e-4, 0.02, n)
        self.timesteps = torch.from_numpy(np.arange(0, n, 50)[::-1].copy())

    def step(self, t: int, x, eps):
        return x - {beta} ** 0.5 * eps{mark}


net = nn.Conv2d(4, 4, 3, padding=1).to(device)
sampler = Sampler()
x = torch.randn(1, 4, 8, 8, device=device)
for t in sampler.timesteps:
    x = sampler.step(t, x, net(x))
"""

LENGTHS = """
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class MaskConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3, padding=1)

    def forward(self, x, lengths):
        out = self.conv(x)
        mask = torch.zeros(out.size(), dtype=torch.bool)
        if out.is_cuda:
            mask = mask.cuda()
        {use}
        return out.masked_fill(mask, 0), lengths


class Extractor(nn.Module):
    def forward(self, x, lengths):
        return self.conv(x.transpose(1, 2), lengths)


class Conv(Extractor):
    def __init__(self):
        super().__init__()
        self.conv = MaskConv()

    def forward(self, x, lengths):
        return super().forward(x, lengths)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv()
        self.fc = nn.Linear(8, 4)

    def forward(self, inputs, input_lengths):
        out, out_lengths = self.conv(inputs, input_lengths)
        return self.fc(out.transpose(1, 2)), out_lengths


model = Model().to(device)
inputs = torch.rand(3, 20, 8).to(device)
input_lengths = torch.IntTensor([20, 15, 10])
outputs, output_lengths = model(inputs, input_lengths){mark}
"""

HOST_READ = """for i, length in enumerate(lengths):
            length = length.item()
            if out.size(2) - length > 0:
                mask[i].narrow(1, length, out.size(2) - length).fill_(1)"""

PLAIN_CLASS = """
import torch


class Adaline:
    def __init__(self, num_features):
        self.weights = torch.zeros(num_features, 1, dtype=torch.float)
        self.bias = torch.zeros(1, dtype=torch.float)

    def forward(self, x):
        return torch.add(torch.mm(x, self.weights), self.bias).view(-1){mark}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
X = torch.randn(50, 2){move}
model = Adaline(2)
print(model.forward(X).shape)
"""

AGENT = """
import numpy as np
import torch
from rl_course_helpers import Agent

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
agent = Agent(4, 2).to(device)

qs = []
for step in range(10):
    state = np.random.rand(4).astype(np.float32)
    qs.append(agent.get_qvalues({given})[0])
print(np.array(qs).shape){mark}
"""

UNSEEN_BASE = """
import torch
from torch import nn

from transformers_zoo.mha import MultiHeadAttention


class RelativeMultiHeadAttention(MultiHeadAttention):
    def __init__(self, heads: int, d_model: int):
        super().__init__(heads, d_model, bias=False)
        self.query_pos_bias = {made}

    def get_scores(self, query: torch.Tensor, key: torch.Tensor):
        query_pos_bias = self.query_pos_bias[None, None, :, :]
        return torch.einsum("ibhd,jbhd->ijbh", query + query_pos_bias, key){mark}
"""

PLANNER = """
import time
import hydra
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


class TrajectoryOptimizer:
    def __init__(self, cfg):
        self.optimizer = hydra.utils.instantiate(cfg)
        self.previous_solution = torch.zeros(10, 2, device=device)

    def optimize(self, fn):
        best = self.optimizer.optimize(fn, x0=self.previous_solution)
        self.previous_solution = best.roll(-1, dims=0)
        return {result}


class Agent:
    def __init__(self, cfg):
        self.optimizer = TrajectoryOptimizer(cfg)

    def act(self, obs):
        start_time = time.time()
        plan = self.optimizer.optimize(lambda a: (a ** 2).sum(-1))
        plan_time = time.time() - start_time{mark}
        return plan[0], plan_time
"""

CASES = {
    "the_caller_passes_the_device_so_the_move_runs": DEVICE_BRANCH.format(mark="", passed=", device=device"),
    "no_caller_passes_a_device_so_the_input_stays": DEVICE_BRANCH.format(mark="  # expect: DEV102", passed=""),
    "a_generator_on_an_unknown_device": GENERATOR.format(where="device=UNSEEN_DEVICE", mark=""),
    "a_cpu_generator_for_a_gpu_factory": GENERATOR.format(where="", mark="  # expect: DEV102"),
    "an_int_parameter_indexes_one_step": SCHEDULE.format(beta="self.betas[t]", mark=""),
    "the_whole_schedule_is_on_the_cpu": SCHEDULE.format(beta="self.betas", mark="  # expect: DEV104"),
    "lengths_read_on_the_host_by_a_submodule": LENGTHS.format(use=HOST_READ, mark=""),
    "lengths_used_on_the_device_by_a_submodule": LENGTHS.format(use="out = out * lengths",
                                                              mark="  # expect: DEV102"),
    "a_plain_class_forward_given_cpu_data": PLAIN_CLASS.format(mark="", move=""),
    "a_plain_class_forward_given_gpu_data": PLAIN_CLASS.format(mark="  # expect: DEV104", move=".to(device)"),
    "an_unseen_agent_given_numpy": AGENT.format(given="state[None]", mark=""),
    "an_unseen_agent_given_a_gpu_tensor": AGENT.format(given="torch.from_numpy(state).to(device)",
                                                       mark="  # expect: DEV401"),
    "a_parameter_makes_a_module_of_an_unseen_base": UNSEEN_BASE.format(
        made="nn.Parameter(torch.zeros((heads, d_model // heads)), requires_grad=True)", mark=""),
    "a_plain_tensor_of_an_unseen_base": UNSEEN_BASE.format(made="torch.zeros((heads, d_model // heads))",
                                                           mark="  # expect: DEV104"),
    "a_host_copy_of_the_result_waits": PLANNER.format(result="best.cpu().numpy()", mark=""),
    "the_result_returned_on_the_gpu": PLANNER.format(result="best", mark="  # expect: DEV301"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
