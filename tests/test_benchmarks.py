"""The speed benchmark runs and prints every row (figures are its output, not asserted here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_speed_benchmark_prints_every_row(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(3).cuda()\ny = x + torch.ones(3)\n")
    (tmp_path / "plain.py").write_text("print('hello')\n")
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "speed.py"), str(tmp_path), "--runs", "1",
                             "--jobs", "1"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for row in ("libcst.parse_module, 1 process", "ast.parse", "devlint's analysis alone", "devlint -j1, cold cache",
                "devlint -j1, warm cache", "devlint -j1, each file alone"):
        assert row in result.stdout, result.stdout
    assert "devlint skipped 1" in result.stdout and "DEV101 1" in result.stdout, result.stdout
