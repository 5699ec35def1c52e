"""`devlint` as a click.Group: `check` is the default subcommand, and a subcommand's name that is
also an existing path is linted as a path unless what follows shows the subcommand is meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_cli import BUGGY, run


@pytest.fixture
def shadowed(tmp_path: Path) -> Path:
    """A project with folders named like subcommands, each holding one buggy file."""
    for name in ("docs", "check", "rule", "rules"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text(BUGGY)
    return tmp_path


def test_check_and_bare_paths_agree(tmp_path: Path):
    (tmp_path / "m.py").write_text(BUGGY)
    bare = run("--no-cache", "--format", "json", "m.py", cwd=tmp_path)
    check = run("check", "--no-cache", "--format", "json", "m.py", cwd=tmp_path)
    assert bare.returncode == check.returncode == 1 and bare.stdout == check.stdout and '"DEV101"' in bare.stdout


def test_subcommands_when_no_path_shadows_them(tmp_path: Path):
    rule = run("rule", "DEV301", cwd=tmp_path)
    assert rule.returncode == 0 and rule.stdout.startswith("# DEV301: unsynchronized-timing")
    assert run("explain", "DEV301", cwd=tmp_path).stdout == rule.stdout
    assert run("rule", "unsynchronized-timing", cwd=tmp_path).stdout == rule.stdout
    assert "DEV401" in run("rules", cwd=tmp_path).stdout
    help_text = run("--help", cwd=tmp_path).stdout
    assert all(name in help_text for name in ("check", "rules", "rule", "docs"))
    assert "runtime" not in help_text.split("Commands:")[1]  # reached as `devlint --runtime`


def test_docs_never_writes_unasked(tmp_path: Path):
    result = run("docs", cwd=tmp_path)
    assert result.returncode == 2 and "devlint docs --out DIR" in result.stderr
    assert list(tmp_path.iterdir()) == []
    written = run("docs", "--out", "site", cwd=tmp_path)
    assert written.returncode == 0 and (tmp_path / "site" / "DEV101.md").is_file()
    assert run("docs", "--out", "site", "--check", cwd=tmp_path).returncode == 0
    (tmp_path / "site" / "DEV101.md").write_text("old")
    stale = run("docs", "--check", "--out", "site", cwd=tmp_path)
    assert stale.returncode == 1 and "DEV101.md: missing or stale" in stale.stdout


@pytest.mark.parametrize("name", ["docs", "check", "rule", "rules"])
def test_a_path_named_like_a_subcommand_is_linted(shadowed: Path, name: str):
    result = run(name, "--no-cache", cwd=shadowed)
    assert result.returncode == 1 and f"{name}/m.py:5:5: DEV101" in result.stdout, result.stdout + result.stderr
    assert not (shadowed / "site").exists()
    if name != "check":
        assert f"note: `{name}` is linted as the path" in result.stderr


def test_the_subcommand_wins_when_what_follows_is_its_own(shadowed: Path):
    docs = run("docs", "--out", "site", cwd=shadowed)
    assert docs.returncode == 0 and (shadowed / "site" / "DEV101.md").is_file()
    rule = run("rule", "DEV101", cwd=shadowed)  # DEV101 is no path: the subcommand is meant
    assert rule.returncode == 0 and rule.stdout.startswith("# DEV101")
    rules = run("rules", "--all", cwd=shadowed)
    assert rules.returncode == 0 and "DEV001" in rules.stdout
    both = run("docs", "check", "--no-cache", "--format", "concise", cwd=shadowed)  # paths only: linted
    assert both.returncode == 1 and "docs/m.py" in both.stdout and "check/m.py" in both.stdout
    shared = run("docs", "--no-cache", "--select", "DEV1", cwd=shadowed)  # a lint option: still the path
    assert shared.returncode == 1 and "docs/m.py:5:5: DEV101" in shared.stdout


def test_runtime_flag_still_routes_to_the_runtime_checker(tmp_path: Path):
    result = run("--runtime", "--help", cwd=tmp_path)
    assert result.returncode == 0 and "--simulate-gpu" in result.stdout and "Usage: devlint --runtime" in result.stdout
    missing = run("--runtime", cwd=tmp_path)
    assert missing.returncode == 2 and "--runtime needs a script" in missing.stderr


def test_registration_point_for_subcommands_in_modules_of_their_own(monkeypatch, tmp_path: Path):
    from devlint.cli import command

    monkeypatch.setitem(command.LAZY_COMMANDS, "catalogue", "devlint.cli.command:rules_command")
    result = run("catalogue", cwd=tmp_path)
    assert result.returncode == 0 and "DEV101" in result.stdout
    monkeypatch.setitem(command.LAZY_COMMANDS, "broken", "devlint.cli.no_such_module:command")
    broken = run("broken", "--some-option", cwd=tmp_path)
    assert broken.returncode == 2 and "`devlint broken` is not available" in broken.stderr
    listed = run("--help", cwd=tmp_path)  # a subcommand that cannot import never breaks the help
    assert listed.returncode == 0 and "broken" in listed.stdout and "catalogue" in listed.stdout
