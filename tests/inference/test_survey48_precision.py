"""False findings of the forty-eighth and forty-ninth precision surveys (issue 17 item 9), and of earlier surveys'
leftovers, each beside a twin that must stay reported.

- A small helper is followed past the walk's call depth: asteroid's `get_device(wav)` six calls down from a CLI
  test, left unknown, made `input_device` read as a device chosen at run time, so the output moved back to it
  was taken to be on the GPU when `.numpy()` read it (1 DEV401). Its twin, the output left on the model's device,
  was missed at that depth before.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

DEEP_HELPER = """
import numpy as np
import torch


def get_device(obj, default="cpu"):
    if hasattr(obj, "device"):
        return obj.device
    return torch.device(default)


def separate_tensor(model, wav):
    input_device = get_device(wav)
    wav = wav.to(get_device(model))
    out = model(wav)
    return {returned}


def separate_numpy(model, wav):
    out = separate_tensor(model, torch.from_numpy(wav))
    return out.numpy(){mark}


def separate_file(model, name):
    return separate_numpy(model, np.load(name))


def separate(model, name):
    return separate_file(model, name)


def infer(device, name):
    model = torch.nn.Linear(2, 2).to(device)
    return separate(model, name)


def cli(argv):
    return infer(argv[0], argv[1])


def test_cli():
    cli(["cuda", "x.npy"])  # expect: DEV201
"""


@pytest.mark.parametrize("returned, mark", [
    ("out.to(input_device)", ""),
    ("out", "  # expect: DEV401"),
])
def test_a_small_helper_past_the_call_depth(returned, mark):
    source = DEEP_HELPER.format(returned=returned, mark=mark)
    assert found(source) == expected_findings(source)
