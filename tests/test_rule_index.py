"""The light rule index (devlint.static.rule_index) says of each rule what its class says, and a run whose
every file is a cache hit never imports the rule classes, the analysis or libcst."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from devlint.static.rule_index import INDEX_BY_CODE, RULE_INDEX, RuleInfo
from devlint.static.rules import ALL_RULES
from tests.conftest import ROOT


def _info(rule) -> RuleInfo:
    return RuleInfo(rule.code, rule.name, rule.severity, rule.default_enabled, tuple(rule.supersedes),
                    rule.__module__.rsplit(".", 1)[1])


def test_the_index_is_the_rule_classes():
    expected = [_info(rule) for rule in ALL_RULES]
    missing = [info for info in expected if info not in RULE_INDEX]
    assert not missing, "add to RULE_INDEX in devlint/static/rule_index.py:\n" + "\n".join(map(repr, missing))
    assert list(RULE_INDEX) == expected
    assert all(INDEX_BY_CODE[rule.code].load() is rule for rule in ALL_RULES)


PROBE = """\
import sys
from devlint.cli.command import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
heavy = sorted(m for m in ("libcst", "devlint.static.engine", "devlint.static.rules") if m in sys.modules)
print("HEAVY", ",".join(heavy), file=sys.stderr)
sys.exit(code)
"""


def _run(project: Path, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), DEVLINT_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=project,
                          env=env, timeout=120)


def test_a_warm_run_loads_no_parser(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    (project / "train.py").write_text("import torch\nx = torch.ones(2).cuda() + torch.zeros(2)\n")
    (project / "notes.py").write_text("print('no device here')\n")
    cold = _run(project, tmp_path / "cache", ".")
    assert cold.returncode == 1 and "DEV101" in cold.stdout, cold.stderr
    assert "HEAVY devlint.static.engine,devlint.static.rules,libcst" in cold.stderr
    for args in ((".",), (".", "--format", "json"), (".", "--format", "concise"), (".", "--statistics")):
        warm = _run(project, tmp_path / "cache", *args)
        assert warm.returncode == 1, warm.stderr
        assert "HEAVY \n" in warm.stderr, (args, warm.stderr)
    assert _run(project, tmp_path / "cache", ".").stdout == cold.stdout
