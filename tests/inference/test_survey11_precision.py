"""False findings of the eleventh precision survey (issue 17 item 9), each beside a twin that must stay reported.

- `loss.data[0]` of a 0-dim result is the idiom of torch before 0.4 for `loss.item()`: it gave a Python number
  (today it raises IndexError on every device), never a tensor, so a list of them plotted is no conversion
  (higgsfield/RL-Adventure's notebooks: `losses.append(loss.data[0])` ... `plt.plot(losses)`);
- a classmethod called on its class binds `cls` to the class, so `cls()` builds one and its `forward` is read
  (`Speech.load(path)`); a constructor a library base class gives the class (Lightning's
  `DeepSpeech.load_from_checkpoint(path)`, SeanNaren/deepspeech.pytorch; Hugging Face's `from_pretrained`)
  builds an instance of it too, on the cpu unless `map_location=` / `device_map=` place it;
- one GPU switch guarding both the model's move and, inside a loss, `target.type_as(pred)`
  (bubbliiiing/yolov4-pytorch's `if self.cuda:`): on the path that knows CUDA is missing, the parameter is on
  the cpu too, so where the paths meet the target is where the parameter is;
- a forward that reads a parameter element by element on the host (`for i, length in enumerate(lengths):
  ... length.item()`) takes it on any device, and the members of an `nn.Sequential` of one project class are
  of that class, so each one's `forward` is read (deepspeech.pytorch's MaskConv and BatchRNN, given cpu lengths:
  2 false DEV102 once its model was built by `load_from_checkpoint`);
- an op whose result's size the data decides (`d[d < 0.5]`, `x.nonzero()`, `torch.masked_select`,
  `torch.unique`) makes the host wait for the GPU's queue, as `.item()` does: a clock read after it times the
  work (kornia's benchmarks: a false DEV301);
- missed: `copy.deepcopy(module)` is a module where the original is, another object (moved apart from it), and
  `policy.forward(state)` is the module's call (p-christ's Deep-Reinforcement-Learning-Algorithms-with-PyTorch
  A3C: `Worker(copy.deepcopy(self.net))` ... `policy.forward(state)` with a cpu state).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

LEGACY_INDEX = """
import torch
import torch.nn as nn
import matplotlib.pyplot as plt

model = nn.Linear(4, 2)
if torch.cuda.is_available():
    model = model.cuda()


def compute_loss():
    x = torch.randn(8, 4)
    if torch.cuda.is_available():
        x = x.cuda()
    return model(x).pow(2).mean()


losses = []
for step in range(10):
    losses.append({kept})
plt.plot(losses){mark}
"""

SPEECH = """
import torch
import torch.nn as nn
{base_import}

class Speech({base}):
    def __init__(self, hidden=16):
        super().__init__()
        self.rnn = nn.LSTM(8, hidden)

    def forward(self, x, lengths):
{body}
{classmethod}

def run(batch):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = {built}.to(device)
    x = torch.randn(5, 2, 8, device=device)
    lengths = torch.IntTensor([5, 5])
    return model(x, lengths){mark}
"""

PACKED = """\
        lengths = lengths.cpu().int()
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths)
        out, _ = self.rnn(packed)
        return nn.utils.rnn.pad_packed_sequence(out)[0]"""
MASKED = """\
        return self.rnn(x)[0] * lengths.view(1, -1, 1)"""

LOAD = """
    @classmethod
    def load(cls, path):
        model = cls()
        model.load_state_dict(torch.load(path, map_location="cpu"))
        return model
"""

RESTORED = """
import torch
import torch.nn as nn
from transformers import PreTrainedModel


class Net(PreTrainedModel):
    def __init__(self, config, hidden=16):
        super().__init__(config)
        self.fc = nn.Linear(8, hidden)

    def forward(self, x):
        return self.fc(x)


def run():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net.from_pretrained("net"{placed})
    return model(torch.randn(2, 8, device=device)){mark}
"""

ONE_SWITCH = """
import torch
import torch.nn as nn


class Loss(nn.Module):
    def __init__(self, cuda):
        super().__init__()
        self.cuda = cuda

    def forward(self, pred):
        target = torch.zeros(pred.shape)
        if self.{flag}:
            target = target.type_as(pred)
        return torch.max(pred, target).sum(){mark}
"""

WORKER = """
import copy
import numpy as np
import torch
import torch.nn as nn


class Agent:
    def __init__(self, use_gpu):
        self.device = "cuda:0" if use_gpu else "cpu"
        self.net = nn.Linear(4, 3).to(self.device)

    def run(self):
        return Worker(copy.deepcopy(self.net), self.device).step(np.zeros(4, dtype=np.float32))


class Worker:
    def __init__(self, local_model, device):
        self.local_model = local_model
        self.device = device

    def step(self, obs):
        policy = self.local_model
        state = torch.from_numpy(obs).unsqueeze(0){moved}
        return policy.forward(state){mark}


if __name__ == "__main__":
    print(Agent(use_gpu=torch.cuda.is_available()).run())
"""

SHADOW = """
import copy
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = nn.Linear(4, 3)
shadow = copy.deepcopy(net)
{moved}.to(device)
net(torch.randn(2, 4)){mark_net}
shadow(torch.randn(2, 4)){mark_shadow}
"""

PIPELINE = """
import torch
from diffusers import DiffusionPipeline


class Upscale(DiffusionPipeline):
    def __call__(self, image):
        return image


def main():
    pipe = Upscale.from_pretrained("upscaler", torch_dtype=torch.float16)
    pipe = pipe.{move}{mark}
    return pipe
"""

STACK = """
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.rnn = nn.LSTM(n, n)

    def forward(self, x, lengths):
{block}


class Masker(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3, padding=1)

    def forward(self, x, lengths):
        x = self.conv(x)
        for i, length in enumerate(lengths):
            {masked}
        return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.mask = Masker()
        self.rnns = nn.Sequential(Block(8), *(Block(8) for _ in range(2)))

    def forward(self, x, lengths):
        lengths = lengths.cpu().int()
        x = self.mask(x, lengths){mark_mask}
        for rnn in self.rnns:
            x = rnn(x, lengths){mark_rnn}
        return x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = Net().to(device)
net(torch.randn(5, 2, 8, device=device), torch.tensor([5, 4]))
"""
PACKS = """\
        x = nn.utils.rnn.pack_padded_sequence(x, lengths)
        x, _ = self.rnn(x)
        return nn.utils.rnn.pad_packed_sequence(x)[0]"""
SCALES = """\
        return self.rnn(x)[0] * lengths.view(-1, 1)"""

TIMED = """
import time
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = torch.randn(64, 8, device=device)
b = torch.randn(64, 8, device=device)
t0 = time.perf_counter()
d = torch.cdist(a, b)
kept = {kept}
ms = (time.perf_counter() - t0) * 1000{mark}
print(kept.cpu(), ms)
"""

STAGES = """
import torch
import torch.nn as nn


class Stage(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)

    def forward(self, x):
        return self.fc(x)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = []
        for _ in range(3):
            self.stages.append(Stage(8))
{wrap}
    def forward(self, x):
        for stage in self.stages:
            x = stage(x){mark}
        return x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = Backbone().to(device)
net(torch.randn(2, 8, device=device))
"""

CASES = {
    "a_legacy_index_of_a_0_dim_loss_is_a_number": LEGACY_INDEX.format(kept="compute_loss().data[0]", mark=""),
    "twin_the_0_dim_loss_itself_is_kept": LEGACY_INDEX.format(kept="compute_loss().data", mark="  # expect: DEV401"),
    "a_classmethod_builds_its_class": SPEECH.format(base_import="", base="nn.Module", body=PACKED,
                                                    classmethod=LOAD, built='Speech.load("speech.pt")', mark=""),
    "twin_a_forward_that_keeps_lengths_where_they_are": SPEECH.format(
        base_import="", base="nn.Module", body=MASKED, classmethod=LOAD, built='Speech.load("speech.pt")',
        mark="  # expect: DEV102"),
    "a_library_constructor_builds_the_class": SPEECH.format(
        base_import="import pytorch_lightning as pl\n", base="pl.LightningModule", body=PACKED, classmethod="",
        built='Speech.load_from_checkpoint("speech.ckpt", hidden=32)', mark=""),
    "twin_library_constructor_forward_keeps_lengths": SPEECH.format(
        base_import="import pytorch_lightning as pl\n", base="pl.LightningModule", body=MASKED, classmethod="",
        built='Speech.load_from_checkpoint("speech.ckpt", hidden=32)', mark="  # expect: DEV102"),
    "a_restored_model_is_on_the_cpu": RESTORED.format(placed="", mark="  # expect: DEV102"),
    "twin_a_restored_model_placed_by_the_call": RESTORED.format(placed=', device_map="auto"', mark=""),
    "one_switch_moves_the_target_beside_the_prediction": ONE_SWITCH.format(flag="cuda", mark=""),
    "twin_another_condition_moves_it": ONE_SWITCH.format(flag="training", mark="  # expect: DEV104"),
    "a_restored_object_moved_by_its_library_base_is_still_a_hardcoded_gpu": PIPELINE.format(
        move='to("cuda")', mark="  # expect: DEV204"),
    "twin_moved_to_the_cpu": PIPELINE.format(move='to("cpu")', mark=""),
    "lengths_read_on_the_host_and_packed_by_each_member_of_a_sequential": STACK.format(
        block=PACKS, masked="x[i, :, length.item():] = 0", mark_mask="", mark_rnn=""),
    "twin_each_member_computes_with_the_lengths": STACK.format(
        block=SCALES, masked="x[i, :, length.item():] = 0", mark_mask="", mark_rnn="  # expect: DEV102"),
    "twin_the_mask_scales_by_the_lengths_tensor": STACK.format(
        block=PACKS, masked="x = x * lengths.view(-1, 1, 1)", mark_mask="  # expect: DEV102", mark_rnn=""),
    "a_boolean_mask_waits_for_the_gpu": TIMED.format(kept="d[d < 0.5]", mark=""),
    "nonzero_waits_for_the_gpu": TIMED.format(kept="d.nonzero()", mark=""),
    "masked_select_waits_for_the_gpu": TIMED.format(kept="torch.masked_select(d, d < 0.5)", mark=""),
    "twin_an_index_tensor_does_not_wait": TIMED.format(kept="d[torch.arange(4, device=device)]",
                                                       mark="  # expect: DEV301"),
    "twin_a_comparison_alone_does_not_wait": TIMED.format(kept="d < 0.5", mark="  # expect: DEV301"),
    "members_of_a_plain_list_registered_by_a_module_list": STAGES.format(
        wrap="        self.stages = nn.ModuleList(self.stages)\n", mark=""),
    "twin_left_in_the_plain_list": STAGES.format(wrap="", mark="  # expect: DEV107"),
    "a_deep_copy_of_a_module_is_where_the_module_is": WORKER.format(moved="", mark="  # expect: DEV102"),
    "twin_the_input_moved_there": WORKER.format(moved=".to(self.device)", mark=""),
    "moving_the_original_leaves_its_copy": SHADOW.format(moved="net", mark_net="  # expect: DEV102",
                                                         mark_shadow=""),
    "moving_the_copy_leaves_the_original": SHADOW.format(moved="shadow", mark_net="",
                                                         mark_shadow="  # expect: DEV102"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
