"""The pre-commit hook, installed by `pre-commit` from this working tree into a throwaway repository:
a buggy commit is blocked, a clean one passes, an excluded file is skipped, a notebook is checked.

Slow (pre-commit builds devlint's environment, about a minute); it needs pre-commit (a test
dependency) and the package index that `pip install .` of this project needs anyway.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import worktree
from tests.test_cli import BUGGY, CLEAN
from tests.test_notebooks import BUGGY_NB


HOOK_ENV: dict = {}  # PRE_COMMIT_HOME for the commits: the hook finds the environment it installed


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return worktree.git(*args, cwd=cwd, env=HOOK_ENV)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    if shutil.which("git") is None:
        pytest.fail("git is needed for the pre-commit test")
    hooks = tmp_path_factory.mktemp("hook-repo")
    rev = worktree.committed_working_tree(hooks)
    work = tmp_path_factory.mktemp("work")
    git("init", "-q", cwd=work)
    (work / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: devlint\n")
    (work / "pyproject.toml").write_text("[tool.devlint]\nextend-exclude = ['legacy/']\n")
    git("add", "-A", cwd=work)
    assert git("commit", "-q", "-m", "config", cwd=work).returncode == 0
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")))
    installed = subprocess.run(["pre-commit", "install", "--install-hooks"], cwd=work, capture_output=True,
                               text=True, env=env, timeout=900)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    HOOK_ENV["PRE_COMMIT_HOME"] = env["PRE_COMMIT_HOME"]
    return work


def commit(work: Path, name: str, text: str) -> subprocess.CompletedProcess:
    path = work / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git("add", name, cwd=work)
    return git("commit", "-m", f"add {name}", cwd=work)


def test_a_buggy_commit_is_blocked(project: Path):
    result = commit(project, "train.py", BUGGY)
    assert result.returncode != 0
    assert "train.py:5:5: DEV101" in result.stdout + result.stderr
    git("reset", "-q", "HEAD", "train.py", cwd=project)
    (project / "train.py").unlink()


def test_a_clean_commit_passes(project: Path):
    result = commit(project, "model.py", CLEAN)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_excluded_file_is_skipped(project: Path):
    result = commit(project, "legacy/old_train.py", BUGGY)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_buggy_notebook_is_blocked(project: Path):
    result = commit(project, "explore.ipynb", BUGGY_NB)
    assert result.returncode != 0 and "explore.ipynb:cell 4:3:5: DEV101" in result.stdout + result.stderr
