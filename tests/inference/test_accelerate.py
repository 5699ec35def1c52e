"""Hugging Face Accelerate: `accelerator.prepare(model, optimizer, loader)` places the model on `accelerator.device`
(the GPU where there is one) and sends the loader's batches there; a tensor the loop makes itself stays on the cpu.
Accelerate is how much of today's training code runs (recall surveys 66-73 met it in several missed bugs)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

LOOP = """
import torch
from torch import nn
from accelerate import Accelerator


def train(dataset):
    accelerator = Accelerator({options})
    model = nn.Linear(4, 2)
    optimizer = torch.optim.AdamW(model.parameters())
    loader = torch.utils.data.DataLoader(dataset, batch_size=8)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    weights = torch.ones(2{weights_device})
    for x, y in loader:
        out = model(x)
        loss = ((out - y) ** 2 * weights).mean(){mark}
        accelerator.backward(loss)
        optimizer.step()
"""


@pytest.mark.parametrize("options, weights_device, mark", [
    ("", "", "  # expect: DEV101"),
    ("mixed_precision='fp16'", "", "  # expect: DEV101"),
    ("", ", device=accelerator.device", ""),
    ("cpu=True", "", ""),  # everything on the cpu
    ("device_placement=False", "", ""),  # nothing placed: the loop's own business
    ("cpu=args.cpu", "", ""),  # (a flag the walk cannot read)
])
def test_a_tensor_the_loop_makes_meets_what_prepare_placed(options, weights_device, mark):
    source = LOOP.format(options=options, weights_device=weights_device, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


SAMPLE = """
import torch
from torch import nn
from accelerate import Accelerator


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(128, 784)

    def forward(self, z):
        return self.net(z)


accelerator = Accelerator()
generator = Generator()
generator = accelerator.prepare(generator)
noise = torch.randn(16, 128){move}
images = accelerator.unwrap_model(generator)(noise){mark}
"""


@pytest.mark.parametrize("move, mark", [
    ("", "  # expect: DEV102"),
    (".to(accelerator.device)", ""),
])
def test_a_prepared_model_takes_its_inputs_on_the_accelerators_device(move, mark):
    source = SAMPLE.format(move=move, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)
