"""The GitHub Action (action.yml): its schema, and its shell steps run here as a runner would run
them, on a copy of this working tree: devlint in a venv of its own, the job's Python untouched."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests import worktree
from tests.conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}


def _check_schema(path: Path) -> subprocess.CompletedProcess:
    """check-jsonschema against the GitHub Action schema it ships (no network)."""
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-actions",
                           str(path)], capture_output=True, text=True, timeout=120)


def test_the_action_is_valid_against_the_action_schema(tmp_path: Path):
    checked = _check_schema(ROOT / "action.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    broken = dict(ACTION, runs={"using": "composite", "steps": [{"run": "devlint ."}]})  # no shell: invalid
    (tmp_path / "action.yml").write_text(yaml.safe_dump(broken))
    assert _check_schema(tmp_path / "action.yml").returncode == 1


def test_the_action_touches_nothing_else():
    runs = ACTION["runs"]
    assert runs["using"] == "composite"
    uses = [step["uses"].split("@")[0] for step in runs["steps"] if "uses" in step]
    assert uses == ["actions/cache", "github/codeql-action/upload-sarif"]  # no actions/setup-python
    for step in runs["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]  # inputs reach scripts through env only
    assert "$RUNNER_TEMP/devlint-venv" in STEPS["Install devlint in its own virtual environment"]["run"]
    assert set(ACTION["inputs"]) >= {"args", "version", "sarif"} and ACTION["inputs"]["args"]["default"] == "."
    assert STEPS["Upload SARIF to code scanning"]["if"] == "inputs.sarif == 'true'"
    assert "uses: OWNER/devlint@REF" in (ROOT / "README.md").read_text()


def _env(step: dict, values: dict[str, str]) -> dict[str, str]:
    """The step's env with its `${{ ... }}` expressions replaced by `values`."""
    out = {}
    for name, value in step.get("env", {}).items():
        out[name] = re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m.group(1)], str(value))
    return out


def _outputs(file: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in file.read_text().splitlines() if "=" in line)


@pytest.mark.parametrize("sarif", ["false", "true"])
def test_the_steps_install_and_run_devlint(tmp_path: Path, sarif: str):
    checkout = tmp_path / "action"
    checkout.mkdir()
    worktree.copy_working_tree(checkout)
    job = tmp_path / "job"  # the user's repository, devlint run from a folder inside it
    (job / ".git").mkdir(parents=True)
    (job / "src").mkdir()
    (job / "src" / "plot.py").write_text((ROOT / "fixtures/host/bad_plot_cuda_tensor.py").read_text())
    temp, output = tmp_path / "runner-temp", tmp_path / "github-output"
    temp.mkdir()
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    base.update(RUNNER_TEMP=str(temp), GITHUB_ACTION_PATH=str(checkout), GITHUB_OUTPUT=str(output))
    values = {"inputs.version": "", "inputs.python": sys.executable, "github.action_repository": "OWNER/devlint",
              "runner.temp": str(temp), "inputs.args": "plot.py", "inputs.sarif": sarif,
              "inputs.sarif-file": str(tmp_path / "devlint.sarif")}
    install = STEPS["Install devlint in its own virtual environment"]
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", install["run"]], env={**base, **_env(install, values)},
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    values["steps.install.outputs.devlint"] = _outputs(output)["devlint"]
    assert values["steps.install.outputs.devlint"].startswith(str(temp / "devlint-venv"))
    run_step = STEPS["Run devlint"]
    result = subprocess.run(["bash", "-eo", "pipefail", "-c", run_step["run"]], env={**base, **_env(run_step, values)},
                            cwd=job / "src", capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr  # the exit code waits for the last step
    assert _outputs(output)["exit-code"] == "1"
    if sarif == "true":
        log = (tmp_path / "devlint.sarif").read_text()
        assert '"ruleId": "DEV401"' in log and '"uri": "src/plot.py"' in log and result.stdout == ""
    else:
        [annotation] = result.stdout.splitlines()
        assert annotation.startswith("::error file=src/plot.py,line=26,col=1,")  # relative to the repository
        assert "title=DEV401 host-conversion::" in annotation and "%0Afix: bring it to the host first" in annotation
    last = STEPS["Exit as devlint did"]
    values["steps.run.outputs.exit-code"] = _outputs(output)["exit-code"]
    assert subprocess.run(["bash", "-c", last["run"]], env={**base, **_env(last, values)}).returncode == 1
