"""Configuration as Ruff users expect it: layered selection, excludes that are anchored gitignore
patterns, .gitignore, force-exclude, per-file-ignores, stdin, and one-line errors for bad files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from devlint.cli.config import ConfigError, Selection, load_config, select_rules
from devlint.cli.discovery import DEFAULT_EXCLUDES, FileFilter, discover
from tests.test_cli import BUGGY, CLEAN, ROOT, run


def codes(*layers: Selection) -> set[str]:
    return {r.code for r in select_rules(*layers)}


def test_selection_layers():
    defaults = codes()
    assert "DEV101" in defaults and "DEV501" not in defaults and "DEV004" not in defaults
    assert codes(Selection(select=["DEV1"], ignore=["DEV101"])) == {c for c in defaults if c.startswith("DEV1")} - {
        "DEV101"}
    assert "DEV101" in codes(Selection(select=["DEV101"], ignore=["DEV1"]))  # the more precise code wins
    file_layer = Selection(ignore=["DEV101"])
    assert "DEV101" not in codes(file_layer, Selection(extend_select=["DEV1"]))
    assert "DEV101" in codes(file_layer, Selection(extend_select=["DEV101"]))
    assert codes(file_layer, Selection(select=["DEV101"])) == {"DEV101"}
    assert codes(Selection(select=[])) == set()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_exclude_patterns_are_anchored_at_the_project_root(tmp_path: Path):
    for name in ("vendor/a.py", "src/vendor/b.py", "src/keep.py", "gen/x_generated.py", "notes.ipynb"):
        write(tmp_path, name, CLEAN if name.endswith(".py") else "{}")
    top = FileFilter(tmp_path, ["vendor/*", "*_generated.py"])
    found = sorted(Path(p).relative_to(tmp_path).as_posix() for p in discover([str(tmp_path)], top)[0])
    assert found == ["notes.ipynb", "src/keep.py", "src/vendor/b.py"]
    anywhere = FileFilter(tmp_path, ["vendor"])
    found = sorted(Path(p).relative_to(tmp_path).as_posix() for p in discover([str(tmp_path)], anywhere)[0])
    assert found == ["gen/x_generated.py", "notes.ipynb", "src/keep.py"]


def test_gitignore_is_respected(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "scratch/\n*.tmp.py\n")
    write(tmp_path, "pkg/.gitignore", "local_*.py\n!local_keep.py\n")
    for name in ("scratch/a.py", "b.tmp.py", "pkg/local_x.py", "pkg/local_keep.py", "pkg/mod.py"):
        write(tmp_path, name, CLEAN)
    found = sorted(Path(p).relative_to(tmp_path).as_posix()
                   for p in discover([str(tmp_path)], FileFilter(tmp_path, []))[0])
    assert found == ["pkg/local_keep.py", "pkg/mod.py"]
    every = FileFilter(tmp_path, [], respect_gitignore=False)
    assert len(discover([str(tmp_path)], every)[0]) == 5


def test_a_whitelist_gitignore_walks_every_folder(tmp_path: Path):
    """`*` then `!*/` and `!*.*` (ignore everything but files with a dot, in every folder), as git reads it."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "*\n!*/\n!*.*\n*.pyc\nlogs/\n")
    for name in ("train.py", "pytorch/main.py", "pytorch/models/net.py", "logs/run.py"):
        write(tmp_path, name, CLEAN)
    found = sorted(Path(p).relative_to(tmp_path).as_posix()
                   for p in discover([str(tmp_path)], FileFilter(tmp_path, []))[0])
    assert found == ["pytorch/main.py", "pytorch/models/net.py", "train.py"]


def test_named_files_are_checked_unless_force_exclude(tmp_path: Path):
    write(tmp_path, "pyproject.toml", "[tool.devlint]\nexclude = ['legacy/']\n")
    write(tmp_path, "legacy/old.py", BUGGY)
    assert run("--no-cache", "legacy/old.py", cwd=tmp_path).returncode == 1
    result = run("--no-cache", "--force-exclude", "legacy/old.py", cwd=tmp_path)
    assert result.returncode == 0 and "All checked: 0 files" in result.stdout
    write(tmp_path, "pyproject.toml", "[tool.devlint]\nexclude = ['legacy/']\nforce-exclude = true\n")
    assert run("--no-cache", "legacy/old.py", cwd=tmp_path).returncode == 0
    assert run("--no-cache", ".", cwd=tmp_path).returncode == 0  # walking skips it either way


def test_exclude_replaces_the_defaults_extend_exclude_adds(tmp_path: Path):
    write(tmp_path, "build/gen.py", BUGGY)
    write(tmp_path, "tools/x.py", BUGGY)
    assert run("--no-cache", "--output-format", "concise", ".", cwd=tmp_path).stdout.count("DEV101") == 1  # not build/
    assert run("--no-cache", "--extend-exclude", "tools", ".", cwd=tmp_path).returncode == 0
    assert run("--no-cache", "--exclude", "tools", ".", cwd=tmp_path).stdout.count("build/gen.py") == 1
    write(tmp_path, "pyproject.toml", "[tool.devlint]\nextend-exclude = ['tools/']\n")
    assert run("--no-cache", ".", cwd=tmp_path).returncode == 0


def test_per_file_ignores(tmp_path: Path):
    write(tmp_path, "pyproject.toml",
          "[tool.devlint.per-file-ignores]\n'tests/**' = ['DEV1']\n'scripts/*.py' = ['DEV101']\n")
    write(tmp_path, "tests/deep/test_a.py", BUGGY)
    write(tmp_path, "scripts/run.py", BUGGY)
    write(tmp_path, "src/scripts/run.py", BUGGY)  # `scripts/*.py` is anchored at the root
    result = run("--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    assert [Path(f["path"]).as_posix() for f in json.loads(result.stdout)] == ["src/scripts/run.py"]
    write(tmp_path, "pyproject.toml", "[tool.devlint.per-file-ignores]\n'a.py' = ['DEV999']\n")
    result = run(".", cwd=tmp_path)
    assert result.returncode == 2 and "DEV999" in result.stderr and "Traceback" not in result.stderr


def test_bad_values_are_one_line_errors(tmp_path: Path):
    for text, words in (("[tool.devlint]\nforce-exclude = 'yes'\n", "true or false"),
                        ("[tool.devlint]\nper-file-ignores = ['a']\n", "per-file-ignores"),
                        ("[tool]\ndevlint = 3\n", "must be a table")):
        write(tmp_path, "pyproject.toml", text)
        with pytest.raises(ConfigError, match=words):
            load_config(tmp_path / "pyproject.toml")


def test_stdin_with_a_filename(tmp_path: Path):
    write(tmp_path, "pyproject.toml",
          "[tool.devlint]\nextend-exclude = ['gen/']\nper-file-ignores = {'t/*' = ['DEV1']}\n")

    def stdin(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "devlint", *args], input=BUGGY, capture_output=True, text=True,
                              cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=60)

    result = stdin("-", "--stdin-filename", "train.py")
    assert result.returncode == 1 and result.stdout.startswith("train.py:5:5: DEV101")
    assert stdin("-").stdout.startswith("-:5:5: DEV101")
    assert stdin("-", "--stdin-filename", "t/x.py").returncode == 0  # per-file-ignores see the name
    assert stdin("-", "--stdin-filename", "gen/x.py", "--force-exclude").stdout == ""
    fixed = subprocess.run([sys.executable, "-m", "devlint", "--fix", "-", "--stdin-filename", "a.py"],
                           input="import torch\nstate = torch.load('m.pt')\n", capture_output=True, text=True,
                           cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=60)
    assert fixed.stdout == "import torch\nstate = torch.load('m.pt', map_location=\"cpu\")\n"
    assert "Fixed 1 problem" in fixed.stderr and fixed.returncode == 0
    assert stdin("-", "x.py").returncode == 2  # stdin is the only path


def test_a_folder_named_explicitly_is_walked_even_under_an_excluded_one(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", ".venv/\n")
    write(tmp_path, ".venv/lib/site-packages/pkg/mod.py", CLEAN)
    write(tmp_path, ".venv/lib/site-packages/pkg/build/gen.py", CLEAN)
    file_filter = FileFilter(tmp_path, list(DEFAULT_EXCLUDES))
    found = discover([str(tmp_path / ".venv/lib/site-packages/pkg")], file_filter)[0]
    assert [Path(p).name for p in found] == ["mod.py"]  # its own `build/` is still skipped
    assert discover([str(tmp_path)], file_filter)[0] == []


def test_gitignore_quick_refusal_decides_as_the_spec_does():
    """discovery._Patterns refuses a path with one search of all patterns at once; where a pattern
    matches, the spec decides. Same verdicts as pathspec alone, `!` re-includes and folders too."""
    import itertools

    import pathspec

    from devlint.cli.discovery import _Patterns

    lines = ["*.pyc", "build/", "/dist", "!keep.pyc", "docs/**/x", "data*", "!data_ok/", "a/b/", "**/tmp",
             "\\#odd", "sp ace", "[ab]c?.py", "# a comment", "", "!/top.py", "top.py"]
    names = ["m.py", "m.pyc", "keep.pyc", "build", "dist", "docs/p/q/x", "data1.py", "data_ok", "a/b", "x/tmp",
             "#odd", "sp ace", "ac1.py", "bcd.py", "top.py", "sub/top.py", "sub/build", "sub/dist"]
    for size in (1, 3, len(lines)):
        for chosen in itertools.islice(itertools.combinations(lines, size), 40):
            spec = pathspec.GitIgnoreSpec.from_lines(list(chosen))
            quick = _Patterns(spec)
            for name, slash in itertools.product(names, ("", "/")):
                assert quick.decides(name + slash) == spec.check_file(name + slash).include, (chosen, name + slash)


def test_a_folder_outside_the_working_folder_keeps_its_gitignore(tmp_path: Path, monkeypatch):
    """`devlint /path/to/repo` run from elsewhere reads what it reads from inside: the repository's .gitignore
    (PyTorch's Korean tutorials ignore their generated `/unstable` copies: they were linted from /tmp only)."""
    repo = tmp_path / "repo"
    write(repo, ".gitignore", "/unstable\n")
    write(repo, "unstable/copy.py", CLEAN)
    write(repo, "src/keep.py", CLEAN)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for cwd in (repo, elsewhere, tmp_path):
        monkeypatch.chdir(cwd)
        found = sorted(Path(p).relative_to(repo).as_posix() for p in discover([str(repo)])[0])
        assert found == ["src/keep.py"], cwd
    (repo / ".git").mkdir()
    monkeypatch.chdir(elsewhere)
    assert [Path(p).name for p in discover([str(repo / "src")])[0]] == ["keep.py"]
    # an ignored folder named on the command line is walked, wherever devlint runs
    for cwd in (repo, elsewhere):
        monkeypatch.chdir(cwd)
        assert [Path(p).name for p in discover([str(repo / "unstable")])[0]] == ["copy.py"], cwd
