"""The pytest plugin, through pytest's own pytester."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

TESTS = """
import time
import torch

def test_clean():
    x = torch.ones(3, device="cuda")
    assert x.sum().item() == 3

def test_mixed():
    a = torch.zeros(3)
    b = torch.ones(3, device="cuda")
    a + b

def test_timer():
    x = torch.randn(32, 32, device="cuda")
    start = time.perf_counter()
    x @ x
    elapsed = time.perf_counter() - start
"""


def test_device_error_fails_its_test_with_the_story(pytester):
    pytester.makepyfile(test_sample=TESTS)
    result = pytester.runpytest("--devlint-runtime", "--devlint-simulate-gpu")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*test_mixed*",
        "*cpu tensor from test_sample.py:9 (torch.zeros without device=) and "
        "cuda:0 tensor from test_sample.py:10 (torch.ones(device=cuda:0))*",
    ])
    text = result.stdout.str()
    assert text.count("cpu tensor from test_sample.py:9") == 1  # the story, once
    assert text.count("devlint runtime (simulated GPU x1)") == 1  # one summary, at the end
    assert "DEV301" in text and "DEV502" in text


def test_nothing_extra_for_passing_tests(pytester):
    pytester.makepyfile(test_fine="import torch\ndef test_a():\n    assert torch.ones(1, device='cuda').is_cuda\n")
    result = pytester.runpytest("--devlint-runtime", "--devlint-simulate-gpu")
    result.assert_outcomes(passed=1)
    assert "Expected all tensors" not in result.stdout.str()


def test_plugin_is_inert_without_the_option(pytester):
    pytester.makepyfile(test_plain="import torch\ndef test_a():\n    assert not torch.ones(1).is_cuda\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "devlint runtime" not in result.stdout.str()
