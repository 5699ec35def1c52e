"""False errors of the fourth precision survey (issue 17 item 9), each with a buggy twin that must stay reported.

- a device move made to meet a sibling of a batch (`p.add_(stash.cuda())`) says that sibling is on the device:
  the "batch moved, so it is host data" inference must not put it on the cpu (NVIDIA/apex sparsity/asp.py);
- a method no tensor has (`ctx.save_for_backward(...)`) is not a tensor operation, whatever devlint guessed its
  receiver was (apex xentropy/softmax_xentropy.py), and the `__torch_function__` dispatch functions
  (`handle_torch_function`) combine nothing (fairseq attention_head_selection multihead_functional.py);
- a function that converts with `.numpy()`, never moving to the cpu, what it computed from a parameter says that
  parameter is host data: a tensor it creates on the cpu meets no GPU tensor (fairseq speech_synthesis
  data_utils.py extract_energy);
- a factory given `out=` writes into that tensor, so its result is where `out` is, and the DEV104 fix must not
  add `device=` beside `out=` (fairseq gslm tacotron2 utils.py get_mask_from_lengths).

Each case's `# expect:` markers are exactly the device errors (DEV1xx, DEV401) devlint must report (none: it
must stay silent); the GPU-assumption warnings are not what these cases are about."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
    # OpenNMT-py's greedy search (survey 5): `device=self.alive_seq.device`, where the class uses `alive_seq` as a
    # tensor, is wherever that tensor is (unknown in a method analysed alone), not a device the code chose
    "the_device_of_a_tensor_attribute_is_that_tensor_s": """
import torch


class Base:
    def initialize(self, device=None):
        if device is None:
            device = torch.device("cpu")
        self.tokens = torch.full((self.width, 1), 0, dtype=torch.long, device=device)


class Beam(Base):
    def source_device(self, memory):
        if isinstance(memory, tuple):
            return memory[0].device
        return memory.device

    def initialize(self, memory, lengths, device=None):
        self.width = lengths.size(0)
        self.lengths = lengths.repeat_interleave(1, 0)
        super().initialize(device if device is not None else self.source_device(memory))

    def keep_only(self, alive):
        chosen = torch.tensor(alive, device=self.tokens.device)
        self.lengths = self.lengths[chosen]
        self.tokens = self.tokens.index_select(0, chosen)


def test_beam():
    beam = Beam()
    beam.initialize(torch.zeros((1, 1)), torch.randint(1, 9, (4,)))
    beam.keep_only([0, 2])
""",
    "twin_a_configuration_s_device_is_the_chosen_one": """
import torch


class Search:
    def prune(self, alive):
        keep = torch.tensor(alive, device=self.cfg.device)
        return torch.arange(4)[keep]  # expect: DEV101
""",
    # a registry of (label, weight, host copy): the copy goes to the GPU to be added into its weight
    "a_move_made_to_meet_a_sibling_keeps_the_sibling_off_the_host": """
import torch
class Keeper:
    kept = []
    @classmethod
    def give_back(cls):
        for label, weight, spare in cls.kept:
            weight.sub_(spare.cuda())
            spare.fill_(0)
""",
    # twin: a batch whose input the code moves, and whose target it combines on the host with a device output
    "twin_an_unmet_sibling_of_a_moved_batch_member_is_on_the_host": """
import torch
from mydata import pairs
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(4, 1).to(device)
for inputs, target in pairs():
    guess = net(inputs.to(device))
    err = guess.sub(target)  # expect: DEV101
""",
    # twin: the move meets another value, not the sibling, which stays on the host
    "twin_a_move_that_meets_something_else": """
import torch
from mydata import pairs
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(4, 1).to(device)
for inputs, target in pairs():
    guess = net(inputs.to(device))
    guess.add_(inputs.to(device))
    err = guess.sub(target)  # expect: DEV101
""",
    # the context of an autograd Function stores a host constant next to a device input: no computation
    "a_method_no_tensor_has_combines_nothing": """
import torch
class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp, bound=1.0):
        ctx.save_for_backward(inp, torch.tensor([bound]))
        ctx.mark_non_differentiable(inp)
        return inp.clamp(-bound, bound)
""",
    # twin: the same host constant used in the computation
    "twin_a_host_constant_combined_in_an_autograd_forward": """
import torch
class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp, bound=1.0):
        ctx.save_for_backward(inp)
        return torch.minimum(inp, torch.tensor([bound]))  # expect: DEV104
""",
    # a functional that hands the call to a __torch_function__ override, then computes on its inputs
    "the_torch_function_dispatch_combines_nothing": """
import torch
from torch import nn
from torch.nn.functional import handle_torch_function, has_torch_function
def project(q, w, spare):
    group = (q, w, spare)
    if has_torch_function(group):
        return handle_torch_function(project, group, q, w, spare)
    return q @ w
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))
    def forward(self, q):
        return project(q, self.w, torch.empty([0]))
""",
    # twin: the placeholder is computed with
    "twin_a_host_placeholder_that_is_computed_with": """
import torch
from torch import nn
from torch.nn.functional import handle_torch_function, has_torch_function
def project(q, w, spare):
    group = (q, w, spare)
    if has_torch_function(group):
        return handle_torch_function(project, group, q, w, spare)
    return q @ w + spare  # expect: DEV104
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))
    def forward(self, q):
        return project(q, self.w, torch.empty([0]))
""",
    # a tensor's own method, on a guessed input, still combines its arguments
    "twin_a_tensor_method_on_a_forward_input_still_combines": """
import torch
from torch import nn
class Shift(nn.Module):
    def forward(self, x):
        return x.add(torch.ones(4))  # expect: DEV104
""",
    # smoothing a signal with a kernel made on the cpu, handed back as a numpy array
    "a_function_ending_in_numpy_works_on_host_tensors": """
import numpy as np
import torch
import torch.nn.functional as F
def smooth(signal, width=5):
    signal = signal.view(1, 1, -1)
    kernel = torch.ones(1, 1, width) / width
    out = F.conv1d(signal, kernel, padding=width // 2)
    return out.squeeze().numpy()
""",
    # twin: the function moves the result to the cpu first, so it takes GPU signals too, and its kernel must follow
    "twin_a_function_that_moves_to_the_cpu_before_numpy": """
import numpy as np
import torch
import torch.nn.functional as F
def smooth(signal, width=5):
    signal = signal.view(1, 1, -1)
    kernel = torch.ones(1, 1, width) / width
    out = F.conv1d(signal, kernel, padding=width // 2)  # expect: DEV104
    return out.squeeze().cpu().numpy()
""",
    # twin: `.numpy()` of something the parameter does not flow into says nothing of the parameter
    "twin_numpy_of_an_unrelated_value": """
import numpy as np
import torch
import torch.nn.functional as F
def smooth(signal, width=5):
    kernel = torch.ones(1, 1, width) / width
    taps = kernel.numpy()
    out = F.conv1d(signal.view(1, 1, -1), kernel)  # expect: DEV104
    return out, taps
""",
    # positions written into a GPU buffer, compared with the caller's lengths
    "a_factory_written_into_out_is_where_out_is": """
import torch
def valid(lengths):
    longest = int(lengths.max().item())
    pos = torch.arange(longest, out=torch.cuda.LongTensor(longest))
    return pos[None, :] < lengths[:, None]
""",
    # twin: the buffer is made on the cpu, so the positions are too
    "twin_a_factory_written_into_a_cpu_buffer": """
import torch
def valid(lengths):
    longest = int(lengths.max().item())
    buf = torch.empty(longest, dtype=torch.long)
    pos = torch.arange(longest, out=buf)
    return pos[None, :] < lengths[:, None]  # expect: DEV104
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source, ("DEV1", "DEV4")) == expected_findings(source)


def test_the_fix_adds_no_device_beside_out():
    import libcst as cst

    from devlint.static.rules.dev104_created_without_device import _bare_factory

    assert _bare_factory(cst.parse_expression("torch.arange(0, n)"))
    assert not _bare_factory(cst.parse_expression("torch.arange(0, n, out=buf)"))
