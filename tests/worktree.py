"""A copy of this checkout as it is now (tracked and new files, not ignored ones), for tests that
install devlint the way a user would (pre-commit, the GitHub Action)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import ROOT


def git(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
                       GIT_COMMITTER_EMAIL="t@example.com", **(env or {}))
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=environment, timeout=600)


def copy_working_tree(target: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def committed_working_tree(target: Path) -> str:
    """The copy, committed in a new repository at `target`; returns the commit."""
    copy_working_tree(target)
    git("init", "-q", cwd=target)
    git("add", "-A", cwd=target)
    git("commit", "-q", "-m", "snapshot", cwd=target)
    return git("rev-parse", "HEAD", cwd=target).stdout.strip()
