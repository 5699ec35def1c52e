"""Config per file: the closest .devlint.toml / devlint.toml / pyproject.toml ([tool.devlint]) above
each file decides for it; `extend`; --config for all; --show-settings, --show-files; .git/info/exclude."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import BUGGY, run

TIMING = ("import time\nimport torch\nx = torch.ones(3, device='cuda' if torch.cuda.is_available() else 'cpu')\n"
          "t = time.time()\ny = x * 2\nprint(time.time() - t)\n")


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    """proj/pyproject.toml ignores DEV101 in tests/; proj/sub/devlint.toml selects DEV3 only."""
    root = tmp_path / "proj"
    write(root, "pyproject.toml", '[tool.devlint]\n[tool.devlint.per-file-ignores]\n"tests/**" = ["DEV101"]\n')
    write(root, "tests/test_t.py", BUGGY)
    write(root, "src/m.py", BUGGY)
    write(root, "sub/devlint.toml", 'select = ["DEV3"]\n')
    write(root, "sub/m.py", BUGGY)
    write(root, "sub/t.py", TIMING)
    return tmp_path


def _found(result) -> set[tuple[str, str]]:
    return {(Path(f["path"]).as_posix(), f["code"]) for f in json.loads(result.stdout)}


def test_each_file_is_decided_by_its_closest_config(proj: Path):
    outside = run("--no-cache", "--format", "json", "proj", cwd=proj)  # from outside the project
    assert _found(outside) == {("proj/src/m.py", "DEV101"), ("proj/sub/t.py", "DEV301")}, outside.stdout
    named = run("--no-cache", "--format", "json", "proj/tests/test_t.py", cwd=proj)
    assert named.returncode == 0 and _found(named) == set()
    inside = run("--no-cache", "--format", "json", ".", cwd=proj / "proj" / "sub")
    assert _found(inside) == {("t.py", "DEV301")}


def test_dot_devlint_toml_comes_before_devlint_toml_and_pyproject(proj: Path):
    write(proj / "proj" / "sub", ".devlint.toml", 'select = ["DEV1"]\n')
    result = run("--no-cache", "--format", "json", "proj/sub", cwd=proj)
    assert _found(result) == {("proj/sub/m.py", "DEV101")}


def test_config_overrides_for_every_file(proj: Path):
    write(proj, "all.toml", 'select = ["DEV101"]\n')
    result = run("--no-cache", "--format", "json", "--config", "all.toml", "proj", cwd=proj)
    assert _found(result) == {("proj/src/m.py", "DEV101"), ("proj/sub/m.py", "DEV101"),
                              ("proj/tests/test_t.py", "DEV101")}


def test_extend_builds_on_another_file(proj: Path):
    write(proj / "proj" / "sub", "devlint.toml", 'extend = "../pyproject.toml"\nextend-select = ["DEV5"]\n')
    write(proj / "proj" / "sub" / "tests", "test_x.py", BUGGY)
    write(proj / "proj", "pyproject.toml", '[tool.devlint]\nignore = ["DEV301"]\n'
                                            '[tool.devlint.per-file-ignores]\n"tests/**" = ["DEV101"]\n')
    result = run("--no-cache", "--format", "json", "proj/sub", cwd=proj)
    # the base's ignore holds; its per-file-ignores are anchored at the extending file's folder
    assert _found(result) == {("proj/sub/m.py", "DEV101"), ("proj/sub/m.py", "DEV501"),
                              ("proj/sub/tests/test_x.py", "DEV501")}, result.stdout
    shown = run("--show-settings", "proj/sub/m.py", cwd=proj).stdout
    assert "extends: " in shown and "proj/sub/../pyproject.toml" in shown
    write(proj / "proj", "pyproject.toml", '[tool.devlint]\nextend = "sub/devlint.toml"\n')
    circle = run("--no-cache", "proj/sub", cwd=proj)
    assert circle.returncode == 2 and "goes round in a circle" in circle.stderr


def test_show_settings_and_show_files(proj: Path):
    shown = run("--show-settings", "proj/tests/test_t.py", cwd=proj)
    assert shown.returncode == 0
    lines = dict(line.split(": ", 1) for line in shown.stdout.splitlines())
    assert lines["config"].endswith("proj/pyproject.toml") and "DEV101" not in lines["rules"].split(", ")
    assert "tests/** -> ['DEV101']" in lines["per-file-ignores"] and lines["fail-on"] == "warning"
    sub = dict(line.split(": ", 1) for line in run("--show-settings", "proj/sub/m.py", cwd=proj).stdout.splitlines())
    assert sub["config"].endswith("sub/devlint.toml") and sub["rules"] == "DEV301, DEV302"
    listed = run("--show-files", "proj", cwd=proj)
    assert listed.returncode == 0
    rows = dict(line.split("\t") for line in listed.stdout.splitlines())
    assert set(rows) == {"proj/src/m.py", "proj/sub/m.py", "proj/sub/t.py", "proj/tests/test_t.py"}
    assert rows["proj/sub/t.py"].endswith("devlint.toml") and rows["proj/src/m.py"].endswith("pyproject.toml")


def test_a_subprojects_exclude_holds_for_what_is_walked(proj: Path):
    write(proj / "proj" / "sub", "devlint.toml", 'select = ["DEV3"]\nextend-exclude = ["t.py"]\n')
    listed = run("--show-files", "proj", cwd=proj).stdout
    assert "proj/sub/t.py" not in listed and "proj/sub/m.py" in listed
    assert "proj/sub/t.py" in run("--show-files", "proj/sub/t.py", cwd=proj).stdout  # named: checked


def test_git_info_exclude_is_respected(tmp_path: Path):
    write(tmp_path, ".git/info/exclude", "scratch/\n")
    write(tmp_path, "scratch/m.py", BUGGY)
    write(tmp_path, "m.py", BUGGY)
    listed = run("--show-files", ".", cwd=tmp_path).stdout
    assert listed.splitlines() and "scratch" not in listed and "m.py" in listed
    write(tmp_path, ".gitignore", "!scratch/\n")  # the .gitignore has the last word, as in git
    assert "scratch/m.py" in run("--show-files", ".", cwd=tmp_path).stdout
    assert "scratch" in run("--show-files", "--no-respect-gitignore", ".", cwd=tmp_path).stdout
