"""What `requires-python` promises holds: the dependencies older Pythons need are declared, the code
parses as Python 3.9, and a script runs the suite on 3.9 (`.ci/run-oldest`)."""

from __future__ import annotations

import ast
import os
import re
import sys

from tests.conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_tomli_is_declared_where_tomllib_is_missing():
    assert "tomli>=1.1; python_version < '3.11'" in PROJECT["dependencies"]  # config.py imports it there
    assert any(d.startswith("pathspec") for d in PROJECT["dependencies"])


def test_the_code_parses_on_the_oldest_python_claimed():
    oldest = tuple(int(x) for x in re.fullmatch(r">=(\d+)\.(\d+)", PROJECT["requires-python"]).groups())
    assert oldest == (3, 9)
    for path in sorted((ROOT / "devlint").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py")):
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=oldest)


def test_a_script_runs_the_suite_on_the_oldest_python():
    script = ROOT / ".ci" / "run-oldest"
    assert os.access(script, os.X_OK)
    text = script.read_text()
    assert "3.9" in text and "pip install -e '.[dev]' && python -m pytest" in text


def test_entry_points():
    assert PROJECT["scripts"] == {"devlint": "devlint.cli.command:main"}
    assert PROJECT["entry-points"]["flake8.extension"] == {"DEV": "devlint.cli.flake8_plugin:DevlintChecker"}
    assert PROJECT["entry-points"]["pytest11"] == {"devlint": "devlint.runtime.pytest_plugin"}


def test_without_torch_the_runtime_tests_skip_saying_why():
    """`.[dev]` installs no torch: the runtime tests must skip, each with its reason, not fail."""
    import subprocess

    code = ("import sys; sys.modules['torch'] = None\n"
            "import pytest; sys.exit(pytest.main(['-q', '-rs', '-p', 'no:cacheprovider', 'tests/runtime']))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode in (0, 5), result.stdout[-3000:]  # 5: every test skipped
    assert "could not import 'torch'" in result.stdout and " passed" not in result.stdout
    assert " failed" not in result.stdout and " error" not in result.stdout.lower()


def test_the_cache_folder_is_the_platforms(monkeypatch, tmp_path):
    from devlint.cli.cache import user_cache_dir

    monkeypatch.delenv("DEVLINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert user_cache_dir() == tmp_path / "devlint"
    monkeypatch.setenv("DEVLINT_CACHE_DIR", str(tmp_path / "mine"))
    assert user_cache_dir() == tmp_path / "mine"


def test_the_pre_commit_hook_runs_serially():
    """devlint starts its own worker processes: pre-commit must not start several devlints at once."""
    import yaml

    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["require_serial"] is True
