"""False findings of the twenty-ninth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- A module built where calls are no longer followed (six frames deep) is what its class makes of every instance:
  one whose `__init__` ends with `self.to(device)` may be anywhere, one that owns no weights has no device (2 false
  DEV102 in DeepCTR-Torch, whose poolings move themselves). One with weights and no move is still on the cpu. (One
  holding what it is handed, `self.module = module`, may own weights: the first version made deepspeech.pytorch's
  wrappers stateless layers, and then, making them unknown, lost 3D-ResNets' model device: the regression runs.)
- A holder moved after it was built moves its whole tree: a grandchild's own move in its `__init__` (`self.to(device)`
  with `device="cpu"` by default) is overridden by the top model's `self.to(device)` (1 false DEV102 in
  DeepCTR-Torch). A top model that never moves leaves its children on the cpu.
- A host copy of a part of a GPU value (`out.last_hidden_state[:, 0].cpu()`, `.item()`) waits for the GPU, as a
  copy of the value itself does, named first or not (`pooled = out.pooler_output` ... `pooled.cpu()`: a field of a
  model's output object is where the output is; 1 false DEV301 in SimCSE's demo). A loop that copies nothing leaves
  it queued.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

DEEP = """
import torch
import torch.nn as nn


class MaskedMean(nn.Module):
    def __init__(self, device="cpu"):
        super().__init__()
        {member}

    def forward(self, pair):
        values, mask = pair
        return (values * mask.float().unsqueeze(-1)).sum(dim=1)


def pool(emb, ids, device):
    return MaskedMean(device=device)([emb, ids != 0]){mark}


class Model(nn.Module):
    def __init__(self, device="cpu"):
        super().__init__()
        self.device = device
        self.table = nn.Embedding(100, 8)
        self.to(device)

    def forward(self, ids):
        return pool(self.table(ids), ids, self.device).sum(dim=1)


def step(model, ids):
    return model(ids.to(model.device))


def evaluate(model, ids):
    return step(model, ids).mean()


def epoch(model, ids):
    return evaluate(model, ids)


def fit(model, ids):
    return epoch(model, ids)


device = "cuda:0" if torch.cuda.is_available() else "cpu"
print(fit(Model(device=device), torch.randint(0, 100, (4, 6))))
"""

TREE = """
import torch
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self, dim, device="cpu"):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.to(device)

    def forward(self, x):
        return torch.relu(self.lin(x))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = Mlp(dim)

    def forward(self, x):
        return self.mlp(x)


class Net(nn.Module):
    def __init__(self, dim=8, device="cpu"):
        super().__init__()
        self.device = device
        self.block = Block(dim){move}

    def forward(self, x):
        return self.block(x.to(self.device)).sum(){mark}


device = "cuda:0" if torch.cuda.is_available() else "cpu"
print(Net(device=device)(torch.randn(4, 8)))
"""

ENCODE = """
import time

import torch
from transformers import AutoModel


class Encoder:
    def __init__(self, name):
        self.model = AutoModel.from_pretrained(name)
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model.to(self.device)

    def encode(self, batches):
        parts = []
        with torch.no_grad():
            for ids in batches:
                out = self.model(input_ids=ids.to(self.device))
                parts.append({keep})
        return parts


def timed_query(enc, batches):
    start = time.time()
    vecs = enc.encode(batches)
    span = time.time() - start{mark}
    return vecs, span


print(timed_query(Encoder("bert-base-uncased"), [torch.randint(0, 1000, (1, 8))])[1])
"""

POOLED = ENCODE.replace("""                parts.append({keep})""", """                pooled = out.pooler_output
                pooled = pooled / pooled.norm(dim=1, keepdim=True)
                parts.append({keep})""")

CASES = {
    "a_field_of_the_output_named_then_copied": POOLED.format(keep="pooled.cpu()", mark=""),
    "a_field_of_the_output_named_and_kept": POOLED.format(keep="pooled", mark="  # expect: DEV301"),
    "a_deep_module_that_moves_itself": DEEP.format(member="self.to(device)", mark=""),
    "a_deep_module_without_weights": DEEP.format(member="self.eps = 1e-8", mark=""),
    "a_deep_module_with_weights_never_moved": DEEP.format(member="self.scale = nn.Linear(8, 8)",
                                                          mark="  # expect: DEV102"),
    "a_grandchild_moved_again_with_the_tree": TREE.format(move="\n        self.to(device)", mark=""),
    "a_tree_never_moved": TREE.format(move="", mark="  # expect: DEV102"),
    "a_field_of_the_output_copied_to_the_host": ENCODE.format(keep="out.last_hidden_state[:, 0].cpu()", mark=""),
    "a_field_of_the_output_read_as_a_number": ENCODE.format(keep="out.last_hidden_state[:, 0].sum().item()",
                                                           mark=""),
    "a_field_of_the_output_kept_on_the_gpu": ENCODE.format(keep="out.last_hidden_state[:, 0]",
                                                          mark="  # expect: DEV301"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
