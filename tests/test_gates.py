"""Severity gates and fix policy: --fail-on, fixable/unfixable, --fix-only, --exit-non-zero-on-fix,
output-format in the config, and --statistics agreeing with the findings' JSON on `fixable`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import BUGGY, run

INFO_ONLY = 'import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n'  # DEV204, an info, with an unsafe fix
WARNING = 'import torch\nstate = torch.load("w.pt")\n'  # DEV202, a warning, with a safe fix


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "info.py").write_text(INFO_ONLY)
    (tmp_path / "warn.py").write_text(WARNING)
    (tmp_path / "err.py").write_text(BUGGY)
    return tmp_path


def _codes(result) -> list[str]:
    return [f["code"] for f in json.loads(result.stdout)]


def test_infos_do_not_fail_unless_asked(files: Path):
    info = run("--no-cache", "info.py", cwd=files)
    assert info.returncode == 0 and "DEV204" in info.stdout  # reported, not failing
    assert run("--no-cache", "--fail-on", "info", "info.py", cwd=files).returncode == 1
    assert run("--no-cache", "warn.py", cwd=files).returncode == 1
    assert run("--no-cache", "--fail-on", "error", "warn.py", cwd=files).returncode == 0
    assert run("--no-cache", "--fail-on", "error", "err.py", cwd=files).returncode == 1
    (files / "pyproject.toml").write_text('[tool.devlint]\nfail-on = "error"\n')
    assert run("--no-cache", "warn.py", cwd=files).returncode == 0
    assert run("--no-cache", "--fail-on", "warning", "warn.py", cwd=files).returncode == 1  # the flag wins
    (files / "pyproject.toml").write_text('[tool.devlint]\nfail-on = "fatal"\n')
    bad = run("--no-cache", "warn.py", cwd=files)
    assert bad.returncode == 2 and "fail-on must be one of error, warning, info" in bad.stderr


def test_unfixable_rules_offer_no_fix(files: Path):
    offered = json.loads(run("--no-cache", "--format", "json", "warn.py", cwd=files).stdout)
    assert offered[0]["fixable"] is True
    withheld = json.loads(run("--no-cache", "--format", "json", "--unfixable", "DEV202", "warn.py", cwd=files).stdout)
    assert withheld[0]["code"] == "DEV202" and withheld[0]["fixable"] is False and withheld[0]["edits"] == []
    assert run("--no-cache", "--fix", "--unfixable", "DEV2", "warn.py", cwd=files).returncode == 1
    assert (files / "warn.py").read_text() == WARNING
    (files / "pyproject.toml").write_text('[tool.devlint]\nfixable = ["DEV101"]\n')
    assert run("--no-cache", "--fix", "warn.py", cwd=files).returncode == 1
    assert (files / "warn.py").read_text() == WARNING
    (files / "pyproject.toml").write_text('[tool.devlint]\nfixable = ["DEV101"]\nextend-fixable = ["DEV202"]\n')
    assert run("--no-cache", "--fix", "warn.py", cwd=files).returncode == 0
    assert "map_location" in (files / "warn.py").read_text()


def test_fix_only_and_exit_non_zero_on_fix(files: Path):
    only = run("--no-cache", "--fix-only", "warn.py", "err.py", cwd=files)
    assert only.returncode == 0 and "Fixed 1 problem." in only.stdout and "DEV101" not in only.stdout
    assert "map_location" in (files / "warn.py").read_text()
    (files / "warn.py").write_text(WARNING)
    flagged = run("--no-cache", "--fix-only", "--exit-non-zero-on-fix", "warn.py", cwd=files)
    assert flagged.returncode == 1
    assert run("--no-cache", "--fix-only", "--exit-non-zero-on-fix", "warn.py", cwd=files).returncode == 0
    (files / "warn.py").write_text(WARNING)
    fixed_clean = run("--no-cache", "--fix", "--exit-non-zero-on-fix", "warn.py", cwd=files)
    assert fixed_clean.returncode == 1 and "Fixed 1 problem" in fixed_clean.stdout
    assert run("--no-cache", "--fix", "warn.py", cwd=files).returncode == 0  # nothing left, nothing fixed


def test_output_format_in_the_config(files: Path):
    (files / "pyproject.toml").write_text('[tool.devlint]\noutput-format = "json"\n')
    assert _codes(run("--no-cache", "err.py", cwd=files)) == ["DEV101"]
    concise = run("--no-cache", "--output-format", "concise", "err.py", cwd=files)
    assert concise.stdout.startswith("err.py:5:5: DEV101")


def test_statistics_json_agrees_with_the_findings_on_fixable(files: Path):
    findings = json.loads(run("--no-cache", "--format", "json", "info.py", "warn.py", cwd=files).stdout)
    stats = json.loads(run("--no-cache", "--statistics", "--format", "json", "info.py", "warn.py", cwd=files).stdout)
    by_code = {row["code"]: row for row in stats}
    for finding in findings:
        assert by_code[finding["code"]]["fixable"] == finding["fixable"]
        assert by_code[finding["code"]]["applicability"] == finding["applicability"]
    assert by_code["DEV204"]["applicability"] == "unsafe" and by_code["DEV202"]["applicability"] == "safe"
    text = run("--no-cache", "--statistics", "info.py", "warn.py", cwd=files).stdout
    assert "[*] load-without-map-location" in text and "[*] gpu-only-file" not in text  # what --fix does now
