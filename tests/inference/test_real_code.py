"""Mechanisms found by running devlint on real public code it had not seen (pyg's examples,
huggingface/accelerate, DETR, DINO, MAE...): each false positive or miss there became a general
rule, checked here on a small snippet written for it.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
    # `.to()` alone on an object of unknown class: it may move itself in place (BatchEncoding, PyG Data)
    "custom_collate_batch_moves_itself": """
import torch
from torch.utils.data import DataLoader
def main(dataset, tokenizer):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(4, 2).to(device)
    loader = DataLoader(dataset, collate_fn=lambda ex: tokenizer.pad(ex, return_tensors="pt"))
    for batch in loader:
        batch.to(device)
        out = model(**batch)
""",
    "default_collate_batch_move_thrown_away": """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
for (batch,) in loader:
    batch.to(device)  # expect: DEV103
    out = model(batch)  # expect: DEV102
""",
    "built_model_moved_in_place": """
import torch
from models import build_model
def main(args):
    device = torch.device(args.device)
    model, criterion, postprocessors = build_model(args)
    model.to(device)
    return sum(p.numel() for p in model.parameters())
""",
    # a Python number from a tensor waits for the GPU, whatever spelling: `float(t)` as `t.item()`
    "timing_ends_in_float_of_a_tensor": """
import time
import torch
import torch.nn.functional as F
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(16, 4).to(device)
def evaluate(loader):
    total = 0
    for data in loader:
        data = data.to(device)
        total += float(F.cross_entropy(model(data.x), data.y))
    return total
start = time.time()
loss = evaluate(train_loader)
print(time.time() - start)
""",
    "timing_ends_in_float_of_a_cpu_value": """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
w = torch.randn(64, 64, device=device)
steps = torch.zeros(())
start = time.time()
w = w @ w
count = float(steps)
print(time.time() - start)  # expect: DEV301
""",
    # `getattr(torch, device_type)` is the chosen device's backend module
    "synchronize_through_the_backend_module": """
import time
import torch
device_type = "cuda" if torch.cuda.is_available() else "cpu"
synchronize = getattr(torch, device_type, torch.cuda).synchronize
model = torch.nn.Linear(16, 4).to(device_type)
x = torch.randn(8, 16, device=device_type)
synchronize()
start = time.time()
out = model(x)
synchronize()
print(time.time() - start)
""",
    "mps_synchronize_leaves_cuda_running": """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(64, 64, device=device)
start = time.time()
y = x @ x
torch.mps.synchronize()
print(time.time() - start)  # expect: DEV301
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
