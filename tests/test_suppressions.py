"""Suppression comments: which silence what, DEV004 for the ones that silence nothing, --add-noqa."""

from __future__ import annotations

import json
from pathlib import Path

from devlint.static.engine import check_source
from devlint.static.rules import ALL_RULES
from devlint.static.suppressions import suppressed
from tests.test_cli import BUGGY, CLEAN, run

WITH_DEV004 = [r() for r in ALL_RULES if r.default_enabled or r.code == "DEV004"]


def dev004(source: str) -> list:
    return [f for f in check_source(source.encode(), "a.py", WITH_DEV004) if f.code == "DEV004"]


def test_what_a_directive_silences():
    assert suppressed("x  # noqa", "DEV101") and suppressed("x  # noqa: DEV1", "DEV101")
    assert suppressed("x  # NOQA:DEV101,E501", "DEV101") and not suppressed("x  # noqa: DEV2", "DEV101")
    assert suppressed("x  # devlint: ignore", "DEV2") and suppressed("x  # devlint: ignore[DEV101, DEV2]", "DEV201")
    assert not suppressed("x  # devlint: ignore[DEV2]", "DEV101")


def test_unused_codes_are_reported_with_why():
    used = BUGGY.replace("z = x + y", "z = x + y  # noqa: DEV101")
    assert dev004(used) == []
    stale = CLEAN + "w = 1  # noqa: DEV101, E501\n"
    [finding] = dev004(stale)
    assert finding.line == 4 and "no DEV101 finding on this line" in finding.message
    assert dev004(CLEAN + "w = 1  # noqa\n") == []  # a bare noqa may be flake8's
    [blanket] = dev004(CLEAN + "w = 1  # devlint: ignore\n")
    assert "silences nothing" in blanket.message
    [off] = dev004(CLEAN + "w = 1  # noqa: DEV501\n")
    assert "DEV501 is not enabled" in off.message
    [unknown] = dev004(CLEAN + "w = 1  # noqa: DEV999\n")
    assert "DEV999 is not a rule" in unknown.message
    assert dev004(CLEAN + 'w = "# noqa: DEV101"\n') == []  # in a string, not a comment


def test_dev004_is_off_by_default_and_its_fix_removes_the_stale_code(tmp_path: Path):
    target = tmp_path / "a.py"
    target.write_text(CLEAN + "w = 1  # noqa: DEV101, E501\nv = 2  # noqa: DEV101\nu = 3  # devlint: ignore  # why\n")
    assert run("--no-cache", "a.py", cwd=tmp_path).returncode == 0
    result = run("--no-cache", "--extend-select", "DEV004", "a.py", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.count("DEV004 [*]") == 3
    assert run("--no-cache", "--extend-select", "DEV004", "--fix", "a.py", cwd=tmp_path).returncode == 0
    assert target.read_text() == CLEAN + "w = 1  # noqa: E501\nv = 2\nu = 3  # why\n"


def test_add_noqa_adopts_a_legacy_codebase(tmp_path: Path):
    (tmp_path / "a.py").write_text(BUGGY)
    (tmp_path / "b.py").write_text(BUGGY.replace("z = x + y", "z = x + y  # noqa: E501"))
    (tmp_path / "c.py").write_text(BUGGY.replace("z = x + y", 'z = x + y; s = """\nline\n"""'))
    result = run("--no-cache", "--add-noqa", ".", cwd=tmp_path)
    assert result.returncode == 0 and "Added 2 noqa directives." in result.stderr
    assert (tmp_path / "a.py").read_text() == BUGGY.replace("z = x + y", "z = x + y  # noqa: DEV101")
    assert (tmp_path / "b.py").read_text() == BUGGY.replace("z = x + y", "z = x + y  # noqa: E501, DEV101")
    assert "no room for a `# noqa`" in result.stderr and "c.py:5" in result.stderr
    after = json.loads(run("--no-cache", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert [Path(f["path"]).name for f in after] == ["c.py"]
    again = run("--no-cache", "--add-noqa", "a.py", "b.py", cwd=tmp_path)
    assert "Added 0 noqa directives." in again.stderr


def _findings(source: str, rules=WITH_DEV004) -> list:
    return check_source(source.encode(), "a.py", rules)


def test_a_file_level_noqa_silences_the_whole_file():
    assert [f.code for f in _findings(BUGGY)] == ["DEV101"]
    assert _findings("# devlint: noqa\n" + BUGGY) == []
    assert _findings(BUGGY + "  # devlint: noqa: DEV1\n") == []  # anywhere, indented, a prefix
    other = _findings("# devlint: noqa: DEV2\n" + BUGGY)  # another rule's code: DEV101 stays
    assert [f.code for f in other] == ["DEV004", "DEV101"] and "no DEV2 finding in this file" in other[0].message
    assert [f.code for f in _findings("x = 1  # devlint: noqa\n" + BUGGY)] == ["DEV101"]  # not alone on its line
    assert [f.code for f in _findings('s = """\n# devlint: noqa\n"""\n' + BUGGY)] == ["DEV101"]  # in a string


def test_an_unused_file_level_noqa_is_dev004_and_its_fix_drops_the_line():
    [unused] = [f for f in _findings("# devlint: noqa: DEV301\n" + BUGGY) if f.code == "DEV004"]
    assert unused.line == 1 and "no DEV301 finding in this file" in unused.message
    [edit] = unused.edits
    assert (edit.line, edit.column, edit.end_line, edit.end_column, edit.content) == (1, 1, 2, 1, "")
    [partly] = [f for f in _findings("# devlint: noqa: DEV101, DEV301\n" + BUGGY) if f.code == "DEV004"]
    assert partly.edits[0].content == "# devlint: noqa: DEV101"


def test_a_file_level_noqa_from_the_command_line(tmp_path: Path):
    (tmp_path / "m.py").write_text("# devlint: noqa\n" + BUGGY)
    result = run("--no-cache", "m.py", cwd=tmp_path)
    assert result.returncode == 0 and "no problems" in result.stdout


def test_thousands_of_unknown_codes_make_one_short_warning(tmp_path: Path):
    codes = ", ".join(f"DEV9{i:04d}" for i in range(5000))
    (tmp_path / "m.py").write_text(BUGGY.replace("z = x + y", f"z = x + y  # noqa: DEV101, {codes}"))
    result = run("--no-cache", "m.py", cwd=tmp_path)
    [warning] = [line for line in result.stderr.splitlines() if "unknown rule" in line]
    assert "unknown rule codes DEV90000, DEV90001" in warning and "and 4990 more" in warning
    assert len(result.stderr) < 600 and "DEV94999" not in result.stderr
    assert result.returncode == 0
    single = tmp_path / "one.py"
    single.write_text(CLEAN + "w = 1  # noqa: DEV999\n")
    assert "unknown rule code DEV999 in `# noqa: DEV999`" in run("--no-cache", "one.py", cwd=tmp_path).stderr
