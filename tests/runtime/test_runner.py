"""`devlint --runtime`: scripts and pytest sessions under the checker, as users run them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "fixtures" / "training"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "devlint", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def test_buggy_training_script_fails_with_provenance():
    result = run("--runtime", "--simulate-gpu", str(TRAINING / "bad_train_batch_not_moved.py"))
    assert result.returncode == 1
    assert "Expected all tensors to be on the same device" in result.stderr
    assert "bad_train_batch_not_moved.py:24 (.to(cuda:0))" in result.stderr  # model.to(device)
    assert "bad_train_batch_not_moved.py:30" in result.stderr  # the call that failed
    assert "DEV102" in result.stderr and "Traceback" not in result.stderr


def test_correct_twin_runs_clean_with_the_output_of_a_plain_run():
    script = str(TRAINING / "ok_train_batch_moved.py")
    checked = run("--runtime", "--simulate-gpu", script)
    plain = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == plain.stdout and "epoch 2 loss" in plain.stdout


def test_script_arguments_and_exit_code(tmp_path):
    script = tmp_path / "args.py"
    script.write_text("import sys\nprint(sys.argv[1:])\nsys.exit(3)\n")
    result = run("--runtime", str(script), "--lr", "0.1")
    assert result.stdout.strip() == "['--lr', '0.1']" and result.returncode == 3


def test_simulation_is_announced_in_one_line(tmp_path):
    script = tmp_path / "noop.py"
    script.write_text("print('hi')\n")
    result = run("--runtime", str(script))
    assert result.returncode == 0 and result.stdout == "hi\n"
    assert result.stderr.count("\n") == 1 and "simulating 1 GPU" in result.stderr


def test_missing_script_is_a_usage_error():
    result = run("--runtime", "no_such_script.py")
    assert result.returncode == 2
    assert "no_such_script.py" in result.stderr and "Traceback" not in result.stderr
    result = run("--runtime")
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_pytest_face(tmp_path):
    (tmp_path / "test_devices.py").write_text(
        "import torch\n"
        "def test_ok():\n"
        "    assert torch.ones(2, device='cuda').is_cuda\n"
        "def test_mixed():\n"
        "    torch.zeros(2) + torch.ones(2, device='cuda')\n"
    )
    result = run("--runtime", "--", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 1
    assert "1 failed, 1 passed" in result.stdout
    assert "test_devices.py:5" in result.stdout and "devlint runtime" in result.stdout
