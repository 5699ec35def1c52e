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


# What a simulation reproduces is a cpu run: the plain runs it is compared with hide any real GPU
CPU_ONLY = {"CUDA_VISIBLE_DEVICES": ""}


def run(*args: str, cwd: Path = ROOT, **extra_env: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **extra_env)
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
    plain = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=ROOT, timeout=300,
                           env=dict(os.environ, **CPU_ONLY))
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
    result = run("--runtime", str(script), **CPU_ONLY)
    assert result.returncode == 0 and result.stdout == "hi\n"
    assert result.stderr.count("\n") == 1 and "no CUDA here: simulating 1 GPU" in result.stderr
    result = run("--runtime", "--gpus", "64", str(script))  # more than any machine has, this one too
    assert result.returncode == 0 and result.stdout == "hi\n"
    assert result.stderr.count("\n") == 1 and "simulating 64 GPU(s)" in result.stderr


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
    # devlint's own launcher stays out of the user's session: no warning about its modules
    assert "cannot be rewritten" not in result.stdout + result.stderr


def plain_run(script: Path, *python_options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *python_options, str(script)], capture_output=True, text=True,
                          cwd=script.parent, timeout=300)


def test_the_users_exception_shows_the_users_frames_only(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text("def inner():\n    raise ValueError('boom')\n\n\ndef outer():\n    inner()\n\n\nouter()\n")
    checked = run("--runtime", str(script), cwd=tmp_path)
    assert checked.returncode == 1
    traceback = checked.stderr[checked.stderr.index("Traceback"):]
    assert traceback == plain_run(script).stderr  # what Python itself prints, frame for frame


def test_ctrl_c_ends_the_run_as_it_ends_python(tmp_path):
    script = tmp_path / "interrupted.py"
    script.write_text("print('working')\nraise KeyboardInterrupt\n")
    checked, plain = run("--runtime", str(script), cwd=tmp_path), plain_run(script)
    assert checked.returncode == plain.returncode != 1  # killed by SIGINT: the shell says 130
    assert "Aborted!" not in checked.stderr and checked.stderr.rstrip().endswith("KeyboardInterrupt")
    assert checked.stdout == plain.stdout == "working\n"


def test_torch_warnings_name_the_users_line_and_no_cudnn_warning(tmp_path):
    script = tmp_path / "warns.py"
    script.write_text(
        "import torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "rnn = torch.nn.LSTM(4, 4).to(device)\n"
        "rnn(torch.randn(2, 3, 4, device=device))\n"
        "torch.nn.functional.softmax(torch.randn(2, 3, device=device))\n"
    )
    checked = run("--runtime", str(script), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert "warns.py:5: UserWarning: Implicit dimension choice for softmax" in checked.stderr
    assert "cuDNN" not in checked.stderr and "checker.py" not in checked.stderr
    strict = subprocess.run([sys.executable, "-W", "error::UserWarning:", "-m", "devlint", "--runtime", str(script)],
                            capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                            timeout=300)
    assert "softmax" in strict.stderr and "cuDNN" not in strict.stderr  # the user's warning, not the simulation's


def test_json_report_on_stdout_alone(tmp_path):
    import json

    script = tmp_path / "mixed.py"
    script.write_text("import torch\nprint('hello')\ntorch.zeros(2) + torch.ones(2, device='cuda')\n")
    checked = run("--runtime", "--format", "json", str(script), cwd=tmp_path)
    assert checked.returncode == 1
    data = json.loads(checked.stdout)  # nothing else on stdout: the program's print went to stderr
    assert data["problems"][0]["code"] == "DEV101" and data["problems"][0]["site"]["line"] == 3
    assert "hello" in checked.stderr
    report = tmp_path / "report.json"
    checked = run("--runtime", "--format", "json", "--output-file", str(report), str(script), cwd=tmp_path)
    assert checked.stdout == "hello\n" and json.loads(report.read_text())["problems"][0]["count"] == 1


def test_keep_going_and_confirm(tmp_path):
    script = tmp_path / "two_bugs.py"
    script.write_text(
        "import numpy as np\n"
        "import torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "weights = torch.randn(3, device=device)\n"
        "for step in range(4):\n"
        "    scale = torch.ones(3)\n"
        "    print((weights * scale).sum().item() > -100)\n"
        "stash = [weights]\n"
        "print(np.asarray(stash.pop()).shape)\n"
    )
    checked = run("--runtime", "--simulate-gpu", "--keep-going", "--confirm", str(script), cwd=tmp_path)
    assert checked.returncode == 1
    assert checked.stdout == "True\n" * 4 + "(3,)\n"  # it ran to its end
    assert "DEV101  tensors on different devices         two_bugs.py:7" in checked.stderr
    row = next(line for line in checked.stderr.splitlines() if "two_bugs.py:7" in line and "DEV101" in line)
    assert row.split()[-1] == "4"  # one row for the call site, counted
    assert "seen         DEV10" in checked.stderr  # the static half predicted the mixed devices...
    assert "unpredicted  DEV401  two_bugs.py:9" in checked.stderr  # ...not a GPU tensor popped from a list
