"""Real device bugs the seventy-third recall survey found missed (issue 17: bug reports from repositories nobody on
the team had used), each beside a twin.

- `torch.jit.load(path)` restores a TorchScript archive's tensors where they were saved, as `torch.load` does
  (MONAILabel's epistemic scoring, DEV202).
- `total = total + time.time() - t0` ends a measurement as `total += time.time() - t0` does (modyn's stopwatch,
  DEV301).
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

SCRIPTED = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def load_model(model_file):
    model = torch.jit.load(model_file{map_location}){mark}
    return model.to(device).eval()
"""


@pytest.mark.parametrize("map_location, mark", [
    ("", "  # expect: DEV202"),
    (", map_location=device", ""),
    (", map_location='cpu'", ""),
])
def test_a_torchscript_archive_is_a_checkpoint_too(map_location, mark):
    source = SCRIPTED.format(map_location=map_location, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


STOPWATCH = """
import time
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(64, 64).to(device)


def bench(batches):
    total = 0.0
    for x in batches:
        t0 = time.time()
        y = model(x){sync}
        total = {interval}{mark}
    print("forward s", total)
"""


@pytest.mark.parametrize("sync, interval, mark", [
    ("", "total + time.time() - t0", "  # expect: DEV301"),
    ("", "time.time() - t0 + total", "  # expect: DEV301"),
    ("\n        torch.cuda.synchronize()", "total + time.time() - t0", ""),
])
def test_a_running_total_that_adds_the_clock_ends_a_measurement(sync, interval, mark):
    source = STOPWATCH.format(sync=sync, interval=interval, mark=mark)
    assert found(source, ["DEV301"]) == expected_findings(source)


def test_a_torchscript_archive_this_file_wrote_loads_where_it_was_saved():
    """detectron2's `reload_script_model`: `torch.jit.save(module, buffer)` then `torch.jit.load(buffer)` reads back
    what this process wrote (read in the regression run, two warnings)."""
    source = """
import io
import torch


def reload_script_model(module):
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    buffer.seek(0)
    return torch.jit.load(buffer)


def reload_from(path, module):
    torch.jit.save(module, path)
    return torch.jit.load(path)
"""
    assert found(source, ["DEV202"]) == set()


BEST = """
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def fit(model, X, epochs=3):
    X = X.to(device)
    best_loss = float("inf")
    for _ in range(epochs):
        loss = torch.mean(torch.abs(model(X) - X)){item}
        if loss < best_loss:
            best_loss = loss
    if np.equal(best_loss, float("inf")):{mark}
        raise ValueError("training diverged")
"""


@pytest.mark.parametrize("item, mark", [
    ("", "  # expect: DEV401"),
    (".item()", ""),
])
def test_a_running_best_that_starts_as_a_float_becomes_the_tensor(item, mark):
    """PyPOTS' imputers: `best_loss = float("inf")`, replaced by the cuda validation loss, then handed to numpy."""
    source = BEST.format(item=item, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)

