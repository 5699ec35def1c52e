"""The GitHub Action (action.yml): its steps, run here as a runner would run them (a fresh venv
stands in for actions/setup-python), on a copy of this working tree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests import worktree
from tests.conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


def test_the_action_is_composite_and_documented():
    runs = ACTION["runs"]
    assert runs["using"] == "composite"
    assert runs["steps"][0]["uses"].startswith("actions/setup-python@")
    assert ACTION["inputs"]["args"]["default"] == "."
    run_step = runs["steps"][-1]
    assert run_step["run"] == "devlint --output-format github $DEVLINT_ARGS"
    assert run_step["env"] == {"DEVLINT_ARGS": "${{ inputs.args }}"}  # inputs never pasted into the script
    assert "uses: OWNER/devlint@REF" in (ROOT / "README.md").read_text()


def test_the_steps_install_and_run_devlint(tmp_path: Path):
    checkout = tmp_path / "action"
    checkout.mkdir()
    worktree.copy_working_tree(checkout)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = dict(os.environ, PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", GITHUB_ACTION_PATH=str(checkout),
               DEVLINT_ARGS="fixtures/host/bad_plot_cuda_tensor.py fixtures/host/ok_cpu_before_numpy.py")
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    install, run_step = ACTION["runs"]["steps"][1:]
    installed = subprocess.run(["bash", "-c", install["run"]], env=env, capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    result = subprocess.run(["bash", "-c", run_step["run"]], env=env, cwd=checkout, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 1, result.stderr
    [annotation] = result.stdout.splitlines()
    assert annotation.startswith("::error file=fixtures/host/bad_plot_cuda_tensor.py,line=26,col=1,")
    assert "title=DEV401 host-conversion::" in annotation and "%0Afix: bring it to the host first" in annotation
