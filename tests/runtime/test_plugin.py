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
    # pytest's own short summary repeats the whole message when CI is set
    report = text.split("short test summary info")[0]
    assert report.count("cpu tensor from test_sample.py:9") == 1  # the story, once
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


SESSION = """
import pytest
import torch

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture
def model():
    return torch.nn.Linear(3, 2).to(DEVICE)


@pytest.fixture
def broken():
    return torch.zeros(2) + torch.ones(2, device=DEVICE)


def test_import_time_device():
    assert DEVICE == "cuda"


@pytest.mark.parametrize("device", DEVICES)
def test_each_device(device):
    assert torch.ones(1, device=device).device.type == device


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_gpu_only():
    assert torch.cuda.device_count() == 1


def test_unmoved_batch(model):
    model(torch.randn(4, 3))


def test_bug_in_a_fixture(broken):
    pass
"""


def test_the_whole_session_sees_the_simulated_gpu(pytester):
    """Import time, parametrize lists, skipif, fixtures: all of it runs on the simulated GPU."""
    pytester.makepyfile(test_session=SESSION)
    result = pytester.runpytest("--devlint-runtime", "-v")
    result.assert_outcomes(passed=4, failed=1, errors=1)
    result.stdout.fnmatch_lines(["*test_each_device?cuda? PASSED*", "*test_gpu_only PASSED*",
                                 "*test_unmoved_batch FAILED*", "*test_bug_in_a_fixture ERROR*"])
    result.stdout.fnmatch_lines(["*cpu tensor from test_session.py:33 (torch.randn without device=)*",
                                 "*test_session.py:15*"])


def test_keep_going_fails_a_test_with_every_problem(pytester):
    pytester.makepyfile(test_two="""
import torch

def test_two_problems():
    a = torch.ones(2, device="cuda")
    a + torch.zeros(2)
    a.numpy()
    assert True
""")
    result = pytester.runpytest("--devlint-runtime", "--devlint-simulate-gpu", "--devlint-keep-going")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*devlint DEV101 (1x at test_two.py:5)*", "*devlint DEV401 (1x at test_two.py:6)*"])


def test_runtime_options_without_runtime_are_a_usage_error(pytester):
    pytester.makepyfile(test_plain="def test_a():\n    pass\n")
    result = pytester.runpytest("--devlint-simulate-gpu")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--devlint-simulate-gpu only work(s) with --devlint-runtime*"])


def test_json_report(pytester, tmp_path):
    import json

    pytester.makepyfile(test_sample=TESTS)
    saved = tmp_path / "report.json"
    pytester.runpytest("--devlint-runtime", "--devlint-json", str(saved), "--devlint-gpus", "64")
    data = json.loads(saved.read_text())  # 64 GPUs asked, fewer here: simulated, without CUDA or with it
    assert [p["code"] for p in data["problems"]] == ["DEV101"] and data["simulated_gpu"] is True
    assert data["gpus"] == 64


ROOT_CONFTEST = """
import pytest
import torch

# chosen once, when pytest imports the root conftest: before any plugin's pytest_configure
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@pytest.fixture
def device():
    return DEVICE
"""

USES_ROOT_DEVICE = """
import torch

def test_conftest_chose_the_simulated_gpu(device):
    assert device == "cuda"

def test_mixed(device):
    weights = torch.ones(3, device=device)
    torch.zeros(3) + weights
"""


def test_a_device_chosen_in_the_root_conftest_is_simulated(pytester):
    """The checker starts in pytest_load_initial_conftests, as pytest-cov does: before the root conftest."""
    pytester.makeconftest(ROOT_CONFTEST)
    pytester.makepyfile(test_root_device=USES_ROOT_DEVICE)
    result = pytester.runpytest("--devlint-runtime", "--devlint-simulate-gpu", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_conftest_chose_the_simulated_gpu PASSED*", "*test_mixed FAILED*"])
    result.stdout.fnmatch_lines(["*cpu tensor from test_root_device.py:8 (torch.zeros without device=) and "
                                 "cuda:0 tensor from test_root_device.py:7 (torch.ones(device=cuda:0))*"])


def test_a_root_conftest_that_fails_to_import_leaves_torch_unpatched(pytester):
    import torch

    real_is_available = torch.cuda.is_available
    pytester.makeconftest("import torch\nraise RuntimeError('broken conftest')\n")
    pytester.makepyfile(test_x="def test_a():\n    pass\n")
    result = pytester.runpytest("--devlint-runtime", "--devlint-simulate-gpu")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert torch.cuda.is_available is real_is_available  # the session was stopped, its patches undone
