"""Options Ruff users reach for: --isolated, -o/--output-file, --cache-dir, --extend-fixable, -n, -e,
`devlint version`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli import BUGGY, run

WARNING = 'import torch\nstate = torch.load("w.pt")\n'  # DEV202, with a safe fix


def test_isolated_reads_no_config(tmp_path: Path):
    (tmp_path / "m.py").write_text(BUGGY)
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nignore = ["DEV101"]\n')
    assert run("-n", "m.py", cwd=tmp_path).returncode == 0
    isolated = run("-n", "--isolated", "m.py", cwd=tmp_path)
    assert isolated.returncode == 1 and "DEV101" in isolated.stdout
    (tmp_path / "pyproject.toml").write_text("not toml [")
    assert run("-n", "--isolated", "m.py", cwd=tmp_path).returncode == 1  # not even read
    both = run("--isolated", "--config", "pyproject.toml", "m.py", cwd=tmp_path)
    assert both.returncode == 2 and "--isolated reads no config file" in both.stderr


def test_output_file_and_short_options(tmp_path: Path):
    (tmp_path / "m.py").write_text(BUGGY)
    result = run("-n", "--format", "json", "-o", "out/report.json", "m.py", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    [finding] = json.loads((tmp_path / "out" / "report.json").read_text())
    assert finding["code"] == "DEV101"
    assert run("-n", "-e", "m.py", cwd=tmp_path).returncode == 0
    (tmp_path / "blocker").write_text("a file")
    blocked = run("-n", "-o", "blocker/report.txt", "m.py", cwd=tmp_path)
    assert blocked.returncode == 2 and "cannot write the report" in blocked.stderr


def test_cache_dir(tmp_path: Path):
    (tmp_path / "m.py").write_text(BUGGY)
    first = run("--cache-dir", "c", "m.py", cwd=tmp_path)
    assert first.returncode == 1 and list((tmp_path / "c").rglob("*.json"))


def test_extend_fixable(tmp_path: Path):
    (tmp_path / "w.py").write_text(WARNING)
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nfixable = ["DEV101"]\n')
    assert run("-n", "--fix", "w.py", cwd=tmp_path).returncode == 1
    assert "map_location" not in (tmp_path / "w.py").read_text()
    assert run("-n", "--fix", "--extend-fixable", "DEV202", "w.py", cwd=tmp_path).returncode == 0
    assert "map_location" in (tmp_path / "w.py").read_text()


def test_version_subcommand(tmp_path: Path):
    from devlint import __version__

    assert run("version", cwd=tmp_path).stdout == f"devlint {__version__}\n"
