"""`flake8 --select DEV` runs devlint's rules through the `flake8.extension` entry point."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from tests.test_cli import BUGGY, CLEAN


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_the_entry_point_is_installed():
    every = entry_points()
    found = every.select(group="flake8.extension") if hasattr(every, "select") else every["flake8.extension"]
    assert any(ep.name == "DEV" and ep.value == "devlint.cli.flake8_plugin:DevlintChecker" for ep in found)


def test_flake8_reports_devlint_findings(tmp_path: Path):
    (tmp_path / "buggy.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text(CLEAN)
    result = flake8("--select", "DEV", "buggy.py", "clean.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    [line] = result.stdout.splitlines()
    assert line.startswith("buggy.py:5:5: DEV101 `+` combines a tensor on cpu (`x`)")


def test_flake8_noqa_and_devlint_config(tmp_path: Path):
    (tmp_path / "a.py").write_text(BUGGY.replace("z = x + y", "z = x + y  # noqa: DEV101"))
    assert flake8("--select", "DEV", "a.py", cwd=tmp_path).returncode == 0
    (tmp_path / "b.py").write_text(BUGGY)
    (tmp_path / "pyproject.toml").write_text("[tool.devlint]\nignore = ['DEV1']\n")
    assert flake8("--select", "DEV", "b.py", cwd=tmp_path).returncode == 0  # devlint's own selection holds
    (tmp_path / "pyproject.toml").write_text("[tool.devlint]\nignore = 5\n")
    broken = flake8("--select", "DEV", "b.py", cwd=tmp_path)
    assert broken.returncode == 1 and "DEV003 devlint cannot read its configuration" in broken.stdout
