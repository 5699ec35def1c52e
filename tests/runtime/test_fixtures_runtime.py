"""Every fixture under the runtime checker, on a simulated GPU.

A buggy fixture with a `# runtime-error: L1, L2` header must fail, naming each
of those lines; a correct one must run clean. `# runtime: skip` marks
fixtures that cannot run here (a second GPU, matplotlib, a test module).
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from devlint.runtime.runner import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures").rglob("*.py"))


def header(path: Path, key: str) -> str | None:
    for line in path.read_text(encoding="utf-8").splitlines()[:12]:
        match = re.match(rf"#\s*{key}:\s*(.*)", line)
        if match:
            return match.group(1).strip()
    return None


def run_under_checker(path: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main([str(path)], simulate_gpu=True)
    finally:
        torch.set_default_device(None)  # a fixture may have set it
    return code, out.getvalue(), err.getvalue()


BUGGY = [p for p in FIXTURES if p.name.startswith("bad_") and header(p, "runtime-error")]
CORRECT = [p for p in FIXTURES if p.name.startswith("ok_") and not (header(p, "runtime") or "").startswith("skip")]


@pytest.mark.parametrize("path", BUGGY, ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_buggy_fixture_fails_naming_its_lines(path: Path, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, _, err = run_under_checker(path)
    assert code == 1, err
    for line in header(path, "runtime-error").split(","):
        assert f"{path.name}:{line.strip()}" in err, f"line {line} not named in:\n{err}"


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_correct_fixture_runs_clean(path: Path, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, _, err = run_under_checker(path)
    assert code == 0, err


def test_there_are_enough_runtime_fixtures():
    assert len(BUGGY) >= 25 and len(CORRECT) >= 40
