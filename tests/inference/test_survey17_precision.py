"""False findings (and one miss) of the seventeenth precision survey (issue 17 item 9), each beside a twin that must
stay reported.

- an attribute set under a GPU option joins as a variable does: `self.cuda = True` under `if flag:` is that option
  from there on (Zeleni9/pytorch-wgan: 16 of the 40 sampled warnings);
- an option read as text and made a flag (`args.cuda = args.cuda == 'True'`) is still the user's choice;
- a path where `x is not None` is false holds no tensor in x (atulkum/pointer_summarizer: 3 DEV102);
- a module handed to a holder's constructor is the caller's object: `Wrapper(enc, dec).to(device)` moves `dec`
  (Jackson-Kang/Pytorch-VAE-tutorial: 2 DEV102); one the holder's `__init__` built is its own;
- a comprehension's moves are the path's: `[m.to(device) for m in mods]` moves each module (Khrylx/PyTorch-RL);
- a value of unseen origin moved in place by a statement (`policy_net.to(device)` after `pickle.load` on one
  path) is one object from there on: a helper that moves it moves every alias (PyTorch-RL's examples);
- a module attribute called as such (`self.policy(x)`) is the object as it is now, after a helper moved it;
- a function whose body is walked tells what GPU work it queued: handing it a GPU module is none by itself
  (PyTorch-RL's `to_device(cpu, policy)` before a timed cpu rollout: DEV301);
- weights named as a model zoo publishes them (`vgg16-397923af.pth`) were saved from the cpu (ZijunDeng's
  pytorch-semantic-segmentation: 7 DEV202);
- a SLURM task of an NCCL program has a GPU, as a torchrun rank does (torchvision's `init_distributed_mode`: DEV203);
- an interval nobody reads is no wrong number (nerf-pytorch's `dt`: DEV301);
- a constant flag picks its side of `"cuda" if flag else "cpu"`: `cuda = True` is a hardcoded GPU (a miss).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

SELF_FLAG = """
import argparse
import torch
from torch import nn


class Trainer:
    def __init__(self, {param}):
        self.G = nn.Linear(4, 4)
        self.on_gpu = False
        self.check_cuda({param})

    def check_cuda(self, flag=False):
        if flag:
            self.on_gpu = True
            self.G.cuda(){mark}

    def sample(self):
        z = torch.randn(2, 4)
        if self.on_gpu:
            z = z.cuda(){mark}
        return self.G(z)


p = argparse.ArgumentParser()
p.add_argument('--cuda', action='store_true')
args = p.parse_args()
print(Trainer({given}).sample().shape)
"""

OPTION_AS_TEXT = """
import argparse
import torch
from torch import nn

p = argparse.ArgumentParser()
p.add_argument('--cuda', type=str, default='False')
args = p.parse_args()
args.cuda = args.cuda {op} 'True'
G = nn.Linear(4, 4)
if args.cuda:
    G.cuda(){mark}
"""

NONE_PATH = """
import torch
import torch.nn as nn

use_cuda = torch.cuda.is_available()


class Dec(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, extra):
        y = self.lin(x)
        if extra is not None:
            y = torch.cat([y, extra], 1)
        return y


def get_inputs(n_oov):
    x = torch.zeros(2, 4)
    extra = None
    if n_oov > 0:
        extra = torch.zeros(2, n_oov)
    if use_cuda:
        x = x.cuda()
        {moved}
    return x, extra


dec = Dec()
if use_cuda:
    dec = dec.cuda()
x, extra = get_inputs(3)
print(dec(x, extra).shape){mark}
"""

HOLDER = """
import torch
import torch.nn as nn

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Wrapper(nn.Module):
    def __init__(self, enc, dec):
        super().__init__()
        self.enc = enc
        self.dec = {held}

    def forward(self, x):
        return self.dec(self.enc(x))


enc = nn.Linear(8, 4)
dec = nn.Linear(4, 8)
model = Wrapper(enc, dec).to(DEVICE)
noise = torch.randn(2, 4).to(DEVICE)
out = dec(noise){mark}
"""

COMPREHENSION_MOVE = """
import torch
import torch.nn as nn


def to_device(device, *args):
    return [x.to(device) for x in args]


def collect(policy, steps):
    out = []
    for _ in range(steps):
        state = torch.tensor([0.1, 0.2, 0.3]).unsqueeze(0)
        with torch.no_grad():
            out.append(policy(state)[0].numpy()){mark}
    return out


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
policy = nn.Linear(3, 2)
policy.to(device)
{helper}
samples = collect(policy, 4)
"""

AGENT = """
import torch
import torch.nn as nn


def to_device(device, *args):
    return [x.to(device) for x in args]


class Agent:
    def __init__(self, policy, device):
        self.policy = policy
        self.device = device

    def collect(self, steps):
        {helper}
        out = []
        for _ in range(steps):
            state = torch.tensor([0.1, 0.2, 0.3]).unsqueeze(0)
            with torch.no_grad():
                out.append(self.policy(state)[0].numpy()){mark}
        to_device(self.device, self.policy)
        return out


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
policy = nn.Linear(3, 2)
policy.to(device)
samples = Agent(policy, device).collect(4)
"""

PICKLED_OR_BUILT = """
import pickle
import sys
import torch
import torch.nn as nn


def to_device(device, *args):
    return [x.to(device) for x in args]


def collect(policy):
    state = torch.tensor([0.1, 0.2, 0.3]).unsqueeze(0)
    with torch.no_grad():
        return policy(state)[0].numpy(){mark}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
if len(sys.argv) < 2:
    policy_net = nn.Linear(3, 2)
else:
    policy_net = pickle.load(open(sys.argv[1], "rb"))
policy_net.to(device)
{helper}
sample = collect(policy_net)
"""

HELPER_TIMING = """
import time
import torch
from torch import nn


def to_device(device, *mods):
    return [m.to(device) for m in mods]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
policy = nn.Linear(3, 2).to(device)

t0 = time.time()
to_device({target}, policy)
with torch.no_grad():
    acts = [policy(torch.rand(1, 3).to({target})) for _ in range(100)]
print("sample time", time.time() - t0, len(acts)){mark}
"""

RELEASED = """
import os
import torch
from torchvision import models

ROOT = '/data/pretrained'
PATH = os.path.join(ROOT, '{name}')
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
vgg = models.vgg16()
vgg.load_state_dict(torch.load(PATH)){mark}
vgg.to(device)
"""

LAUNCH = """
import os
import torch
import torch.distributed as dist


def init_distributed_mode(args):
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        args['gpu'] = int(os.environ["LOCAL_RANK"])
    elif "{variable}" in os.environ:
        args['gpu'] = int(os.environ["{variable}"]) % torch.cuda.device_count()
    else:
        args['distributed'] = False
        return
    torch.cuda.set_device(args['gpu']){mark}
    args['dist_backend'] = "{backend}"
    dist.init_process_group(backend=args['dist_backend'], init_method="env://")


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
opts = {{}}
init_distributed_mode(opts)
"""

UNREAD_INTERVAL = """
import time
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = nn.Linear(8, 8).to(device)
for i in range(10):
    t0 = time.time()
    loss = net(torch.randn(4, 8, device=device)).pow(2).mean()
    loss.backward()
    dt = time.time() - t0{mark}
    {use}
"""

CONSTANT_FLAG = """
import torch
import torch.nn as nn

cuda = {flag}
DEVICE = torch.device("cuda" if cuda else "cpu"){mark}
model = nn.Linear(4, 4).to(DEVICE)
"""

CASES = {
    "self_flag_set_under_an_option": SELF_FLAG.format(param="use_cuda", given="args.cuda", mark=""),
    "self_flag_set_under_a_constant_true_is_hardcoded": SELF_FLAG.format(
        param="use_cuda", given="True", mark="  # expect: DEV201"),
    "option_made_a_flag_from_text": OPTION_AS_TEXT.format(op="==", mark=""),
    # (true when the user did not ask for a GPU: the move under it is the user's choice turned over)
    "option_made_a_flag_from_text_negated": OPTION_AS_TEXT.format(op="!=", mark="  # expect: DEV201"),
    "none_path_holds_no_tensor": NONE_PATH.format(
        moved="if extra is not None:\n            extra = extra.cuda()", mark=""),
    "none_path_twin_a_cpu_extra_is_still_reported": NONE_PATH.format(
        moved="pass", mark="  # expect: DEV102"),
    "holder_moves_the_callers_module": HOLDER.format(held="dec", mark=""),
    "holder_moves_only_what_it_holds": HOLDER.format(held="nn.Linear(4, 8)", mark="  # expect: DEV102"),
    "comprehension_moves_each_module": COMPREHENSION_MOVE.format(
        helper='to_device(torch.device("cpu"), policy)', mark=""),
    "comprehension_twin_no_helper_call": COMPREHENSION_MOVE.format(helper="", mark="  # expect: DEV102"),
    "a_method_calls_the_attribute_a_helper_moved": AGENT.format(
        helper='to_device(torch.device("cpu"), self.policy)', mark=""),
    "a_method_calls_the_attribute_nobody_moved": AGENT.format(helper="pass", mark="  # expect: DEV102"),
    "released_weights_joined_from_parts": RELEASED.replace("os.path.join(ROOT, '{name}')",
                                                           "os.path.join(ROOT, 'ResNet', '{name}')").format(
        name="resnet152-b121ed2d.pth", mark=""),
    "a_model_built_or_unpickled_is_moved_by_the_helper": PICKLED_OR_BUILT.format(
        helper='to_device(torch.device("cpu"), policy_net)', mark=""),
    "a_model_built_or_unpickled_left_on_the_device": PICKLED_OR_BUILT.format(helper="", mark="  # expect: DEV102"),
    "helper_moving_a_gpu_module_to_the_cpu_queues_nothing": HELPER_TIMING.format(target='"cpu"', mark=""),
    "helper_moving_to_the_gpu_and_gpu_work_is_timed": HELPER_TIMING.format(target="device", mark="  # expect: DEV301"),
    "released_weights_are_cpu": RELEASED.format(name="vgg16-397923af.pth", mark=""),
    "own_checkpoint_may_be_gpu": RELEASED.format(name="vgg16_finetuned.pth", mark="  # expect: DEV202"),
    "slurm_task_of_an_nccl_program_has_a_gpu": LAUNCH.format(variable="SLURM_PROCID", backend="nccl", mark=""),
    "another_variable_says_nothing_of_gpus": LAUNCH.format(
        variable="MY_JOB_ID", backend="nccl", mark="  # expect: DEV203"),
    "a_gloo_program_may_run_without_gpus": LAUNCH.format(
        variable="SLURM_PROCID", backend="gloo", mark="  # expect: DEV203"),
    "interval_never_read": UNREAD_INTERVAL.format(mark="", use="pass"),
    "interval_printed": UNREAD_INTERVAL.format(mark="  # expect: DEV301", use="print(i, dt)"),
    "constant_flag_picks_cuda": CONSTANT_FLAG.format(flag="True", mark="  # expect: DEV201"),
    "constant_flag_picks_cpu": CONSTANT_FLAG.format(flag="False", mark=""),
    "availability_flag_chooses": CONSTANT_FLAG.format(flag="torch.cuda.is_available()", mark=""),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
