"""False findings of the fifty-second and fifty-third precision surveys (issue 17 item 9), and of earlier surveys'
leftovers, each beside a twin that must stay reported.

Leftovers of survey 50:
- `x1.new(slen, bs)`, the legacy constructor, is a tensor method: it shows `x1` is a tensor (so `x1.device` is
  where the caller's batch is, not a device a configuration chose) and makes its result where `x1` is (XLM's
  `concat_batches`, 1 DEV104).

Leftovers of survey 47, judged debatable there:
- A dtype cast that names no device (`self.quant_weight.to(dtype)`), thrown away, is a dead line, not a lost move
  (lit-llama's quantizer, 1 DEV103 error).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, infer

CONCAT_BATCHES = """
import torch


def concat_batches(x1, pad_idx):
    x = {made}
    positions = torch.arange(5).to(x1.device)
    return x, positions


class Trainer:
    def __init__(self, iterators):
        self.iterators = iterators

    def round_batch(self, positions, pad):
        return torch.arange(pad) + positions[-1]{mark}

    def step(self, name):
        x1 = next(self.iterators[name])
        x, positions = concat_batches(x1, 2)
        return self.round_batch(positions, 3)
"""


@pytest.mark.parametrize("made, mark", [
    # `x1.new(...)`: only a tensor has it, so `x1.device` is where the loader's batch is: unknown here
    ("x1.new(4, 2).fill_(pad_idx)", ""),
    # no sign that `x1` is a tensor: `x1.device` is read as a device the configuration chose (`args.device`)
    ("None", "  # expect: DEV104"),
])
def test_legacy_new_shows_a_tensor(made, mark):
    source = CONCAT_BATCHES.format(made=made, mark=mark)
    assert found(source) == expected_findings(source)


@pytest.mark.parametrize("receiver, where", [
    ("torch.zeros(2, device='cuda:1')", "cuda:1"),
    ("torch.zeros(2)", "cpu"),
])
def test_legacy_new_is_where_its_receiver_is(receiver, where):
    found_globals, _ = infer(f"import torch\nsource = {receiver}\nmade = source.new(3, 4)\n")
    assert str(found_globals["made"].where) == where


DEAD_CAST = """
import torch
from torch import nn


class Packed(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("weight", torch.zeros(4, dtype=torch.uint8))

    def unpacked(self, dtype=torch.float16):
        self.weight.{call}{mark}
        return self.weight >> 4
"""


@pytest.mark.parametrize("call, mark", [
    # a cast that names no device, thrown away: a dead line, not a lost move (lit-llama's quantizer)
    ("to(dtype)", ""),
    ("to(torch.float32)", ""),
    ("to(dtype=torch.float32)", ""),
    ("to(device='cuda', dtype=dtype)", "  # expect: DEV103"),
    ("cuda()", "  # expect: DEV103"),
])
def test_a_thrown_away_dtype_cast_is_no_lost_move(call, mark):
    source = DEAD_CAST.format(call=call, mark=mark)
    assert found(source, ["DEV103"]) == expected_findings(source)
