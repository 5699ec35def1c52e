"""False findings of the twenty-eighth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- A registered buffer assigned again (`self.queue = F.normalize(self.queue)`) stays a buffer: `Module.__setattr__`
  keeps it in `_buffers`, so `.to()` moves it (2 false errors). A plain attribute assigned so is still plain, and a
  buffer set again in `forward`, after the module moved, holds the new tensor where it was made (a true DEV104 in
  cyoon1729/Policy-Gradient-Methods' noisy layer, which the first version of this lost: caught by the regression run).
- An object of an unseen library that the module only asks for methods (`self.decoder.apply_deltas(...)`,
  detectron2's Box2BoxTransform) is a helper, not a layer: the module owns no weights and has no device (7 false
  DEV102 in Transfer-Learning-Library). One it calls (`self.conv(x)`) may be a layer with weights on the cpu.
- A parameter a forward hands to a tokenizer (`self.tokenizer(caption, return_tensors="pt")`) is text, which the
  caller keeps on the host: a DataLoader's batch of strings (BLIP's captions and questions); a count read element
  by element as a Python number (`[state[b]] * n`, BLIP's `n`) may stay anywhere.
- A loss class of the project's own that no walk could take (`.proxy_losses.ProxyNCALoss`, through the relative
  imports of a package too deep to walk) is its unseen code, which may align its inputs (pytorch-metric-learning's
  losses move the labels to the embeddings' device: 13 false DEV101). A loss of an unseen library computes where
  its inputs are, as torch's own do: cpu labels with GPU embeddings are still reported.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import libcst as cst
import pytest

from devlint.static.analysis.definitions import host_params
from tests.conftest import expected_findings
from tests.lint_helpers import found

QUEUE = """
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Queue(nn.Module):
    def __init__(self, dim=8, k=16):
        super().__init__()
        {store}
        self.queue = F.normalize(self.queue, dim=0){mark}

    def forward(self, q):
        return torch.einsum("nc,ck->nk", q, self.queue)


m = Queue().to(device)
print(m(torch.randn(4, 8).to(device)).shape)
"""

HELPER = """
import torch
import torch.nn as nn
from detectron2.modeling.box_regression import Box2BoxTransform

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class BoxHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = Box2BoxTransform(weights=(10.0, 10.0, 5.0, 5.0))

    def forward(self, deltas, boxes):
        return {use}


head = BoxHead()
pred = head(torch.randn(5, 4).to(device), torch.rand(5, 4).to(device)){mark}
"""

LOSS = """
import torch
from {module} import ProxyLoss

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def test_loss():
    loss_func = ProxyLoss(scale=2.0)
    embeddings = torch.randn(8, 2).to(device)
    labels = torch.randint(0, 10, (8,))
    return loss_func(embeddings, labels){mark}
"""

NOISY = """
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Noisy(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))
        self.register_buffer("eps", torch.randn(4))

    def forward(self, x):
        self.eps = torch.randn(4)
        return x * self.w * self.eps  # expect: DEV104


print(Noisy().to(device)(torch.randn(4, device=device)))
"""

CASES = {
    "a_buffer_set_again_after_the_move": NOISY,
    "a_loss_of_the_project": LOSS.format(module=".proxy_losses", mark=""),
    "a_loss_of_a_library": LOSS.format(module="metric_losses", mark="  # expect: DEV101"),
    "a_buffer_assigned_again": QUEUE.format(store='self.register_buffer("queue", torch.randn(dim, k))', mark=""),
    "a_plain_attribute_assigned_again": QUEUE.format(store="self.queue = torch.randn(dim, k)",
                                                     mark="  # expect: DEV105"),
    "a_helper_asked_for_methods": HELPER.format(use="self.decoder.apply_deltas(deltas, boxes)", mark=""),
    "a_layer_called": HELPER.format(use="self.decoder(deltas)", mark="  # expect: DEV102"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


def test_what_a_forward_tokenizes_or_counts_with_is_read_on_the_host():
    forward = cst.parse_module('''
def forward(self, image, caption, answers, n, ids):
    text = self.tokenizer(caption, padding="longest", return_tensors="pt").to(image.device)
    states = []
    for b, n in enumerate(n):
        states += [text.input_ids[b]] * n
    return self.embed(ids) + image
''').body[0]
    assert host_params(forward) == {"caption", "n"}
