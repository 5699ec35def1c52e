"""Limits as users meet them: max-file-size, the skipped-file rule, `(x): T = v`, a cache shared by runs."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from devlint.cli.batch import check_files
from devlint.cli.config import ConfigError, load_config
from devlint.static.engine import check_source
from devlint.core.limits import parse_size
from devlint.static.relevance import may_hold_device_bug
from devlint.static.rules import ALL_RULES
from tests.conftest import ROOT

CODES = [r.code for r in ALL_RULES if r.default_enabled]
BUG = "import torch\nx = torch.ones(3)\ny = torch.ones(3).to('cuda')\nz = x + y\n"


@pytest.mark.parametrize("value, size", [(3000000, 3000000), ("3MB", 3000000), ("3 MiB", 3 << 20),
                                         ("512KB", 512000), ("1.5MB", 1500000), ("10", 10)])
def test_sizes(value, size):
    assert parse_size(value) == size


@pytest.mark.parametrize("value", [0, -1, True, 3.5, "x", "MB", "3TB", [3]])
def test_bad_sizes(value):
    with pytest.raises(ValueError, match="positive number of bytes"):
        parse_size(value)


def test_max_file_size_in_the_config(tmp_path: Path):
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.devlint]\nmax-file-size = "1KB"\n')
    assert load_config(config).max_file_size == 1000
    config.write_text('[tool.devlint]\nmax-file-size = "lots"\n')
    with pytest.raises(ConfigError, match="max-file-size must be a positive number of bytes"):
        load_config(config)


def test_the_command_honours_max_file_size(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nmax-file-size = "1KB"\n')
    (tmp_path / "big.py").write_text(BUG + "# padding\n" * 200)
    (tmp_path / "small.py").write_text(BUG)
    (tmp_path / "plain.py").write_text("print('hello')\n" * 200)
    env = dict(os.environ, PYTHONPATH=str(ROOT), DEVLINT_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-m", "devlint", "--output-format", "concise", "."], cwd=tmp_path,
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "big.py:1:1: DEV005 not analysed: 2," in result.stdout and "more than max-file-size (1,000)" in result.stdout
    assert "small.py:4" in result.stdout and "plain.py" not in result.stdout
    assert "skipped 1 file(s)" in result.stderr


@pytest.mark.parametrize("text, relevant", [
    ("import torch\n", True), ("from lightning import Trainer  # accelerator='gpu'\n", True),
    ("x.to(DEVICE)\n", True), ("os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n", True), ("t.to('mps')\n", True),
    ("import numpy as np\nprint(np.ones(3))\n", False), ("import time\nstart = time.perf_counter()\n", False),
])
def test_what_can_hold_a_device_bug(text, relevant):
    assert may_hold_device_bug(text.encode()) is relevant


def test_parenthesised_annotated_targets_are_analysed_in_place():
    source = "import torch\n(x): torch.Tensor = torch.ones(3)\n( y ) : torch.Tensor = x.cuda()\n"
    findings = check_source(source.encode(), "t.py", [r() for r in ALL_RULES if r.default_enabled])
    column = source.splitlines()[2].index("x.cuda()") + 1  # where it is in the file as written
    assert [(f.line, f.column) for f in findings] == [(3, column)]  # a GPU assumed (DEV201 or DEV204)


def _lint_into_shared_cache(args: tuple) -> list:
    cache_dir, project, name = args
    os.environ["DEVLINT_CACHE_DIR"] = cache_dir
    return [f.to_dict() for f in check_files([str(Path(project) / name)], CODES, jobs=1,
                                             cache_root=Path(project))]


def test_runs_sharing_a_cache_never_corrupt_it(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    names = [f"bug_{i}.py" for i in range(8)]
    for name in names:
        (project / name).write_text(BUG)
    cache_dir = tmp_path / "cache"
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        runs = pool.map(_lint_into_shared_cache, [(str(cache_dir), str(project), n) for n in names * 2])
    assert all(any(f["code"] == "DEV101" and f["line"] == 4 for f in found) for found in runs)
    [cache_file] = cache_dir.glob("*/v*.json")
    entries = json.loads(cache_file.read_text())["entries"]  # whole, valid JSON after 16 racing writers
    assert 1 <= len(entries) <= len(names)
    again = _lint_into_shared_cache((str(cache_dir), str(project), names[0]))
    assert again == runs[0]
