"""False findings of the fifty-second and fifty-third precision surveys (issue 17 item 9), and of earlier surveys'
leftovers, each beside a twin that must stay reported.

Leftovers of survey 50:
- `x1.new(slen, bs)`, the legacy constructor, is a tensor method: it shows `x1` is a tensor (so `x1.device` is
  where the caller's batch is, not a device a configuration chose) and makes its result where `x1` is (XLM's
  `concat_batches`, 1 DEV104).

Leftovers of survey 47, judged debatable there:
- A dtype cast that names no device (`self.quant_weight.to(dtype)`), thrown away, is a dead line, not a lost move
  (lit-llama's quantizer, 1 DEV103 error).

Survey 52 (NLP and multimodal fine-tuning code: 1 false error of 5, 12 false warnings of 40) and survey 53
(scientific and signal ML: 2 false errors of 3, 11 false warnings of 40), pinned to 46b8447:
- A method no tensor has, of a model moved to the GPU (`sbert.encode(sentence)`), given no tensor, is the model's own
  API: it places its inputs and may hand back numpy; a tensor there only where it is used as one (LM-BFF, 1 DEV401).
- A dict of losses without weights (`{"mse": SumMSE(), "l1": nn.L1Loss()}`) holds nothing to register: the join of
  its stateless members is stateless (pdearena, 1 DEV107).
- `if pivot is None: return` where the caller passed no `pivot` (the default None) always returns: what follows
  is not walked in that call (DiffDock's alignment helper, 1 DEV101).

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


ENCODER_API = """
import numpy as np
from sentence_transformers import SentenceTransformer


def embed_all(sentences):
    encoder = SentenceTransformer("all-MiniLM-L6-v2").cuda()
    vectors = []
    for s in sentences:
        vectors.append(encoder.{call}){mark}
    return np.stack(vectors)


embed_all(["a", "b"])
"""


@pytest.mark.parametrize("call, mark", [
    # a library model's own method given no tensor: it places its inputs and may hand back numpy (LM-BFF's
    # sentence embeddings, 1 DEV401 at `np.stack`)
    ("encode(s)", ""),
    ("encode(s).numpy()", "  # expect: DEV401"),  # (`.numpy()` of it: a tensor, where the model is)
])
def test_a_model_api_given_no_tensor_may_return_numpy(call, mark):
    source = ENCODER_API.format(call=call, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


METRICS = """
import torch
from torch import nn


class SumMSE(nn.Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, pred, target):
        return ((pred - target) ** 2).sum(dim=1).mean()


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.metrics = {{"mse": SumMSE(), "other": {other}}}

    def evaluate(self, x, y):
        pred = self.net(x)
        return {{name: fn(pred, y) for name, fn in self.metrics.items()}}{mark}


dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
Wrapper().to(dev).evaluate(torch.randn(2, 4, device=dev), torch.randn(2, 4, device=dev))
"""


@pytest.mark.parametrize("other, mark", [
    # losses without weights, in a plain dict: nothing to register (pdearena's metrics, 1 DEV107)
    ("nn.L1Loss()", ""),
    ("nn.Linear(4, 4)", "  # expect: DEV107"),
])
def test_a_dict_of_losses_holds_no_weights(other, mark):
    source = METRICS.format(other=other, mark=mark)
    assert found(source, ["DEV107"]) == expected_findings(source)


ALIGN = """
import torch


def kabsch(a, b):
    h = a @ b.T
    u, s, vt = torch.linalg.svd(h)
    flip = torch.diag(torch.tensor([1.0, 1.0, -1.0], device=a.device))
    return (vt.T @ flip) @ u.T{mark}


def align(pos, pivot=None):
    centred = pos - pos.mean(dim=0, keepdim=True)
    if pivot {test} None:
        return centred
    return kabsch(pivot.T, centred.T)


print(align(torch.randn(10, 3)))
"""


@pytest.mark.parametrize("test, mark", [
    # `pivot` is the default None in the only call: `if pivot is None: return` always returns (DiffDock, 1 DEV101)
    ("is", ""),
    # (the other way round, the caller's None reaches `kabsch`: `None.T` would raise first, but the walk goes on)
    ("is not", "  # expect: DEV101"),
])
def test_a_known_none_decides_its_branch(test, mark):
    source = ALIGN.format(test=test, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)
