"""Static and runtime agree on the packages whose bugs cross modules (fixtures/projects).

Each buggy package's entry script runs under `devlint --runtime --simulate-gpu --keep-going --confirm`:
every static finding in the files it runs through is seen at run time, and the run sees no device
problem the static half did not predict; the fixed twins run clean.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = ROOT / "fixtures" / "projects"
SCRIPTS = [("trainer_moves", "probe.py"), ("helper_tensors", "train.py"), ("base_class", "run.py")]


def run(script: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "devlint", "--runtime", "--simulate-gpu", "--keep-going",
                           "--confirm", script.name], capture_output=True, text=True, cwd=script.parent, env=env,
                          timeout=300)


@pytest.mark.parametrize("project, script", SCRIPTS)
def test_the_runtime_confirms_every_static_finding_of_a_buggy_package(project, script):
    result = run(PROJECTS / project / "bad" / script)
    assert result.returncode == 1, result.stderr
    summary = next(line for line in result.stderr.splitlines() if line.startswith("devlint confirm:"))
    seen = int(summary.split(":")[1].split()[0])
    assert seen >= 1 and " 0 not seen" in summary and " 0 runtime problem(s) no static rule predicted" in summary, \
        result.stderr


@pytest.mark.parametrize("project, script", SCRIPTS)
def test_the_fixed_twin_runs_clean(project, script):
    result = run(PROJECTS / project / "ok" / script)
    assert result.returncode == 0, result.stderr
    assert "0 runtime problem(s) no static rule predicted" in result.stderr, result.stderr
    assert not any(line.split()[:2] in (["seen", code] for code in ("DEV101", "DEV102", "DEV104", "DEV105", "DEV401"))
                   for line in result.stderr.splitlines()), result.stderr  # a transfer's cost (DEV501) may be
