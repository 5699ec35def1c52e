"""A warm run reads what has not changed from the cache without reading the files: the cache trusts a file's
stat (size, mtime, inode as recorded: not read again), any change of them reads and hashes it (a touched file
with the same bytes is still a hit), and the run's real paths are found a folder at a time."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from devlint.cli import batch
from devlint.cli.batch import RunStats, check_files
from devlint.static.rule_index import RULE_INDEX

CODES = [info.code for info in RULE_INDEX if info.default_enabled]
HELPER = 'import torch\n\n\ndef make():\n    return torch.zeros(3, device="cpu" )\n'
HELPER_ON_GPU = HELPER.replace('"cpu" )', '"cuda")')  # the same size
TRAIN = 'import torch\nfrom helpers import make\n\nx = make() + torch.ones(3, device="cuda")\n'
NOTES = "print('nothing to see')\n"
_MINUTE = 60 * 10**9


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("DEVLINT_CACHE_DIR", str(tmp_path / "cache-home"))
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    for name, text in (("helpers.py", HELPER), ("train.py", TRAIN), ("notes.py", NOTES)):
        write(root / name, text)
    return root


def write(path: Path, text: str, minutes_ago: int = 10) -> None:
    """Written a while ago: a file changed within the last seconds has its stat left unrecorded."""
    path.write_text(text)
    then = time.time_ns() - minutes_ago * _MINUTE
    os.utime(path, ns=(then, then))


def lint(root: Path, *names: str) -> tuple[list[tuple[str, str]], RunStats]:
    stats = RunStats()
    findings = check_files([str(root / name) for name in names or ("train.py", "notes.py")], CODES, jobs=1,
                           cache_root=root, stats=stats)
    return sorted((Path(f.path).name, f.code) for f in findings), stats


def reads(monkeypatch) -> list[str]:
    """The paths the run reads (the files it must look at, not those it finds in the cache)."""
    read: list[str] = []
    original = batch._read_bytes

    def spy(path: str, max_file_size: int):
        read.append(Path(path).name)
        return original(path, max_file_size)
    monkeypatch.setattr(batch, "_read_bytes", spy)
    return read


def cache_file(root: Path) -> Path:
    [found] = (root.parent / "cache-home").glob("*/v*.json")
    return found


def test_an_unchanged_tree_is_not_read_again(project, monkeypatch):
    first, stats = lint(project)
    assert ("train.py", "DEV101") in first and stats.analysed == 1 and stats.skipped == 1
    read = reads(monkeypatch)
    again, stats = lint(project)
    assert again == first and read == []  # neither the checked file, nor the skipped one
    assert (stats.analysed, stats.cached, stats.skipped) == (0, 1, 1)


def test_an_edit_that_keeps_the_size_is_seen(project, monkeypatch):
    lint(project)
    text = TRAIN.replace('device="cuda")', 'device="cpu" )')  # the same size, a new mtime
    write(project / "train.py", text, minutes_ago=5)
    read = reads(monkeypatch)
    after, stats = lint(project)
    assert ("train.py", "DEV101") not in after and stats.analysed == 1 and set(read) == {"train.py"}


def test_an_edit_of_an_imported_module_rechecks_its_importer(project):
    assert ("train.py", "DEV101") in lint(project)[0]
    assert lint(project)[1].cached == 1  # the hit looked at helpers.py: its stat is recorded now
    assert str((project / "helpers.py").resolve()) in json.loads(cache_file(project).read_text())["stats"]
    write(project / "helpers.py", HELPER_ON_GPU, minutes_ago=5)  # same size: only the stat says it changed
    after, stats = lint(project)
    assert ("train.py", "DEV101") not in after and stats.analysed == 1


def test_a_touched_file_with_the_same_bytes_is_still_a_hit(project, monkeypatch):
    first, _ = lint(project)
    for name in ("train.py", "helpers.py", "notes.py"):
        os.utime(project / name, ns=(time.time_ns() - _MINUTE, time.time_ns() - _MINUTE))
    read = reads(monkeypatch)
    again, stats = lint(project)
    assert again == first and stats.analysed == 0 and sorted(read) == ["notes.py", "train.py"]
    read.clear()
    assert lint(project)[0] == first and read == []  # the new stats were recorded


def test_a_file_changed_seconds_ago_has_no_stat_recorded(project):
    write(project / "train.py", TRAIN, minutes_ago=0)
    lint(project)
    stats = json.loads(cache_file(project).read_text())["stats"]
    assert str(project / "notes.py") in stats and str(project / "train.py") not in stats


def test_a_file_whose_stat_fails_is_reported_not_raised(project):
    lint(project)
    (project / "train.py").unlink()
    (project / "train.py").symlink_to(project / "nowhere.py")  # a dangling link: stat and open fail
    after, _ = lint(project)
    assert after == [("train.py", "DEV002")]


def test_a_symlink_retargeted_to_a_file_of_the_same_size_is_read(project):
    write(project / "real_a.py", TRAIN)
    write(project / "real_b.py", TRAIN.replace('device="cuda")', 'device="cpu" )'))
    (project / "link.py").symlink_to(project / "real_a.py")
    assert ("link.py", "DEV101") in lint(project, "link.py")[0]
    (project / "link.py").unlink()
    (project / "link.py").symlink_to(project / "real_b.py")  # same size and mtime, another inode
    assert ("link.py", "DEV101") not in lint(project, "link.py")[0]


@pytest.mark.parametrize("stats", ['{"x": 1}', "[]", '"stats"', "{PATH: [1, 2]}", "{PATH: [1, 2, 3, 4]}",
                                   '{PATH: ["a", "b", "c", "d"]}'])
def test_malformed_stats_are_ignored(project, stats):
    first, _ = lint(project)
    file = cache_file(project)
    data = json.loads(file.read_text())
    data["stats"] = json.loads(stats.replace("PATH", json.dumps(str(project / "train.py"))))
    file.write_text(json.dumps(data))
    again, _ = lint(project)
    assert again == first


def test_a_cache_written_by_an_older_format_is_a_miss_and_replaced(project):
    first, _ = lint(project)
    file = cache_file(project)
    entries = json.loads(file.read_text())["entries"]
    file.write_text(json.dumps({"format": 2, "entries": entries}))  # devlint before file stats were kept
    again, stats = lint(project)
    assert again == first and stats.analysed == 1
    assert json.loads(file.read_text())["format"] == 4 and lint(project)[1].analysed == 0


def test_real_paths_are_realpath(tmp_path, monkeypatch):
    from devlint.cli.discovery import real_paths

    (tmp_path / "real" / "sub").mkdir(parents=True)
    for name in ("a.py", "sub/b.py"):
        (tmp_path / "real" / name).write_text("")
    (tmp_path / "linked").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "real" / "c.py").symlink_to(tmp_path / "real" / "sub" / "b.py")
    monkeypatch.chdir(tmp_path)
    paths = ["real/a.py", "linked/a.py", "linked/sub/b.py", "real/c.py", "linked/sub/../a.py", "./real/sub/b.py",
             str(tmp_path / "linked" / "c.py"), "real/missing.py"]
    assert real_paths(paths) == {os.path.realpath(path): path for path in paths}


def test_the_report_reads_a_cell_as_the_notebook_does():
    from devlint.static.notebooks import Notebook, code_cell_text

    cells = [{"cell_type": "markdown", "source": "# x"}, {"cell_type": "code", "source": ["import torch\n", "x = 1"]},
             {"cell_type": "code", "source": ""}, {"cell_type": "code", "source": "%%bash\nls"},
             {"cell_type": "code", "source": "!pip install torch\ny = torch.ones(2).cuda()"}]
    source = json.dumps({"cells": cells}).encode()
    notebook = Notebook.parse(source)
    for number in range(0, 7):
        expected = next((c.text for c in notebook.cells if c.number == number), "")
        assert code_cell_text(source, number) == expected, number
