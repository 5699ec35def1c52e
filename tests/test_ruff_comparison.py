"""docs/ruff-comparison.md cannot drift: every command of its tables, Ruff's and devlint's, is run
in a fresh copy of the sample project it describes, and must exit as the table says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_cli import BUGGY

TABLE = (ROOT / "docs" / "ruff-comparison.md").read_text(encoding="utf-8")
CELL = re.compile(r"^`(?P<command>.+)` → (?P<code>\d+)$")
A_PY = "import os\n\n" + BUGGY.replace("import torch\n", "import torch\n\n", 1)  # F401 for Ruff, DEV101 for devlint


def _rows() -> list[list[str]]:
    rows = []
    for line in TABLE.splitlines():
        if line.startswith("| ") and not line.startswith("| what ") and not line.startswith("|---"):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append(cells)
    return rows


ROWS = _rows()
COMMANDS = [(row[0], tool, cell) for row in ROWS for tool, cell in (("ruff", row[1]), ("devlint", row[2]))]


def _sample(folder: Path) -> None:
    files = {
        "a.py": A_PY,
        "w.py": 'import torch\n\nstate = torch.load("w.pt")\n',
        "i.py": "import torch\n\nmodel = torch.nn.Linear(2, 2).cuda()\n",
        "docs/m.py": A_PY, "rule/m.py": A_PY,
        "sub/m.py": A_PY, "sub/devlint.toml": 'select = ["DEV3"]\n', "sub/ruff.toml": 'lint.select = ["E"]\n',
        "ext/m.py": A_PY, "ext/devlint.toml": 'extend = "../base.toml"\n',
        "ext/ruff.toml": 'extend = "../base-ruff.toml"\n',
        "base.toml": 'ignore = ["DEV101"]\n', "base-ruff.toml": 'lint.ignore = ["F401"]\n',
        "fmt.toml": 'output-format = "concise"\n',
        ".git/info/exclude": "",
    }
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def test_every_row_is_measured_and_every_no_says_why():
    assert len(ROWS) >= 50
    for row in ROWS:
        assert len(row) == 4, row
        assert CELL.match(row[1]) and CELL.match(row[2]), row
        verdict = row[3]
        assert verdict.startswith(("yes", "no")), row
        if verdict.startswith("no"):
            assert re.match(r"no(, not on this branch)?: \S.{20,}", verdict), f"a 'no' without a reason: {row}"


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory) -> Path:
    """`devlint` (this checkout's) and `ruff` (the one installed with the dev extra) on PATH."""
    folder = tmp_path_factory.mktemp("bin")
    shim = folder / "devlint"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m devlint "$@"\n')
    shim.chmod(0o755)
    from ruff.__main__ import find_ruff_bin  # the ruff of the dev extra, wherever its binary lies

    os.symlink(find_ruff_bin(), folder / "ruff")
    return folder


@pytest.mark.parametrize("what,tool,cell", COMMANDS, ids=[f"{tool}: {what}" for what, tool, _ in COMMANDS])
def test_the_command_exits_as_the_table_says(what: str, tool: str, cell: str, bin_dir: Path, tmp_path: Path):
    match = CELL.match(cell)
    assert match, cell
    _sample(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["RUFF_CACHE_DIR"] = str(tmp_path / ".ruff-cache")
    result = subprocess.run(["bash", "-c", match.group("command")], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == int(match.group("code")), f"{cell}\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
