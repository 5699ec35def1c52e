"""False findings of the seventy-second precision survey (issue 17: LLM fine-tuning, diffusion, video, optical flow;
code nobody on the team had used), each beside a twin that must still be reported.

- `torch.tensor(sigma_min)` of a parameter annotated `float` is a 0-dim cpu tensor, which meets tensors on any device
  (k-diffusion's `sample_dpm_adaptive`, a false DEV101 error).
- A test's own double (`class FakeModel` inside `def test_...`) sees only the test's data: it is not walked on
  symbolic parameters (trl's tests, three false DEV104).
- A device string built with a number (`torch.device("cuda:{}".format(1))`, `f"cuda:{0}"`, `"cuda:%d" % 1`) is a
  hardcoded GPU, as `"cuda:1"` is: the function that moves its reward model there without a check assumes a GPU
  (DEV201), and its load is not reported again (trlx's summarize_rlhf scripts: two false DEV202). Built from a
  variable (`"cuda:{}".format(rank)`), it is the GPU a launcher chose, as before.
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

SIGMAS = """
import torch


def log_sigma(sigma):
    return -sigma.log()


def sample(x, sigma_min{annotation}, steps: int = 4):
    {check}
    t_end = log_sigma(torch.tensor(sigma_min))
    ts = torch.linspace(1.0, 0.0, steps + 1, device=x.device)
    for i in range(steps):
        t_next = torch.minimum(t_end, ts[i + 1]){mark}
        x = x * (-t_next).exp()
    return x
"""


@pytest.mark.parametrize("annotation, check, mark", [
    (": float", "pass", ""),
    (": int", "pass", ""),
    ("=0.01", "pass", ""),
    ("", "if sigma_min <= 0:\n        raise ValueError('sigma_min must be positive')", ""),
    ("", "if not 0 < sigma_min < 1:\n        raise ValueError('out of range')", ""),
    (": list", "pass", "  # expect: DEV101"),
    ("", "pass", "  # expect: DEV101"),  # (a parameter of unknown kind: maybe a list of sigmas)
])
def test_a_tensor_of_a_number_parameter_is_0_dim(annotation, check, mark):
    """k-diffusion's `sample_dpm_fast(model, x, sigma_min, sigma_max, ...)`: `if sigma_min <= 0 or sigma_max <= 0:
    raise ...` takes the truth of a comparison with a number, which only one value has."""
    source = SIGMAS.format(annotation=annotation, check=check, mark=mark)
    assert found(source, ["DEV101", "DEV104"]) == expected_findings(source)


DOUBLE = """
import torch
from mylib.generation import generate_within_budget


def {test}():
    class FakeModel:
        def generate(self, input_ids, attention_mask):
            completion = torch.tensor([[42]], dtype=torch.long)
            return torch.cat([input_ids, completion], dim=1){mark}

    prompts = torch.tensor([[0, 5, 13, 6]], dtype=torch.long)
    return generate_within_budget(FakeModel(), prompts, budget=2)
"""


@pytest.mark.parametrize("test, mark", [
    ("test_prompt_is_trimmed", ""),
    ("build_scorer", "  # expect: DEV104"),  # (a factory of the library's own: its model may be anywhere)
])
def test_a_tests_own_double_is_not_walked_alone(test, mark):
    source = DOUBLE.format(test=test, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


REWARD = """
import torch
from torch import nn


def main(rank=None):
    model = nn.Linear(2, 2)
    model.load_state_dict(torch.load("reward.pt")){load}
    device = torch.device({device}){assumed}
    model.to(device)
    return model


main()
"""


@pytest.mark.parametrize("device, built", [
    ('"cuda:{}".format(1)', True),
    ('f"cuda:{0}"', True),
    ('"cuda:%d" % 1', True),
    ('"cuda:1"', True),
    ('"cuda:{}".format(rank)', False),
    ('f"cuda:{rank}"', False),
])
def test_a_device_string_built_with_a_number_is_hardcoded(device, built):
    source = REWARD.format(device=device, load="" if built else "  # expect: DEV202",
                           assumed="  # expect: DEV201" if built else "")
    assert found(source, ["DEV201", "DEV202", "DEV204"]) == expected_findings(source)
