"""The `devlint` command as users run it: exit codes, messages, formats, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

BUGGY = """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.ones(3)
y = torch.ones(3).to(device)
z = x + y
"""
CLEAN = """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.ones(3, device=device)
"""


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str, cwd: Path | None = None, env: dict | None = None, input: str | None = None) -> Result:
    """`devlint ARGS` in this process (a new interpreter per call would cost half a second each)."""
    from click.testing import CliRunner

    from devlint.cli.command import main

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:  # click 8.2 keeps stderr apart anyway
        runner = CliRunner()
    environment = {"NO_COLOR": None, "FORCE_COLOR": None, **(env or {})}
    before = os.getcwd()
    os.chdir(cwd or before)
    try:
        result = runner.invoke(_Main(main), list(args), env=environment, input=input, catch_exceptions=False)
    finally:
        os.chdir(before)
    return Result(result.exit_code, result.stdout, result.stderr)


class _Main:
    """`devlint.cli.command.main` as CliRunner wants a command: something with `.main(args, ...)`."""

    def __init__(self, main) -> None:
        self.entry = main
        self.name = "devlint"

    def main(self, args=None, prog_name=None, standalone_mode=True, **extra) -> None:
        self.entry(args)


def run_process(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m devlint ARGS` in a new interpreter, as a user runs it."""
    clean = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment = dict(clean, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "devlint", *args], capture_output=True, text=True, cwd=cwd,
                          env=environment, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "buggy.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_findings_exit_1_with_why(project):
    result = run_process("--no-cache", "buggy.py", cwd=project)  # the real entry point, in a new process
    assert result.returncode == 1, result.stderr
    assert "buggy.py:5:5: DEV101" in result.stdout
    assert "`x` is on cpu: line 3" in result.stdout
    assert "line 4" in result.stdout and "crashes whenever `device` is a GPU" in result.stdout
    assert "Found 1 problem" in result.stdout.splitlines()[-1] or "1" in result.stdout.splitlines()[-1]


def test_clean_exit_0(project):
    result = run("--no-cache", "clean.py", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr


def test_json_schema(project):
    result = run("--no-cache", "--output-format", "json", ".", cwd=project)
    assert result.returncode == 1
    findings = json.loads(result.stdout)
    assert len(findings) == 1
    finding = findings[0]
    assert set(finding) == {"code", "name", "severity", "path", "line", "column", "end_line", "end_column",
                            "message", "why", "fix", "fixable", "applicability", "edits", "cell", "url"}
    assert finding["code"] == "DEV101" and finding["line"] == 5 and isinstance(finding["why"], list)
    assert finding["fixable"] is False and finding["cell"] is None
    assert json.loads(run("--no-cache", "--format", "json", ".", cwd=project).stdout) == findings  # the alias


def test_missing_path_is_one_line_and_exit_2(project):
    result = run("--no-cache", "nope.py", "buggy.py", cwd=project)
    assert result.returncode == 2
    assert "nope.py" in result.stderr and "Traceback" not in result.stderr
    assert "DEV101" in result.stdout  # the other files are still checked
    assert "1 path not found" in result.stdout


def test_missing_path_alone_does_not_say_all_checked(project):
    result = run("--no-cache", "nope.py", cwd=project)
    assert result.returncode == 2
    assert "All checked" not in result.stdout and "no problems" not in result.stdout
    assert result.stdout.strip() == "Nothing checked: 1 path not found."


def test_exit_zero_covers_files_that_cannot_be_analysed(project):
    (project / "broken.py").write_text("import torch\ndef f(:\n")
    assert run("--no-cache", "broken.py", cwd=project).returncode == 2
    result = run("--no-cache", "--exit-zero", "broken.py", "buggy.py", cwd=project)
    assert result.returncode == 0 and "DEV001" in result.stdout and "DEV101" in result.stdout
    assert run("--no-cache", "--exit-zero", "nope.py", cwd=project).returncode == 2  # a usage error stays one


def test_explain_the_file_problems():
    for code in ("DEV001", "DEV002", "DEV003"):
        result = run("explain", code)
        assert result.returncode == 0 and result.stdout.startswith(f"# {code}:"), result.stderr
    assert "DEV001" in run("rules", "--all").stdout


def test_unknown_code_in_noqa_is_a_warning(project):
    (project / "a.py").write_text(BUGGY.replace("z = x + y", "z = x + y  # noqa: DEV999"))
    result = run("--no-cache", "a.py", cwd=project)
    assert result.returncode == 1 and "DEV101" in result.stdout  # DEV999 silences nothing
    assert "warning: a.py:5:1: unknown rule code DEV999 in `# noqa: DEV999`" in result.stderr
    (project / "b.py").write_text(CLEAN + "y = 1  # noqa: E501\n")  # another tool's code: no warning
    assert "warning" not in run("--no-cache", "b.py", cwd=project).stderr


def test_empty_select_is_a_warning(project):
    (project / "pyproject.toml").write_text("[tool.devlint]\nselect = []\n")
    result = run("--no-cache", "buggy.py", cwd=project)
    assert result.returncode == 0 and "select is empty: no rule is enabled" in result.stderr


def test_unknown_rule_code(project):
    result = run("--select", "DEV999", "buggy.py", cwd=project)
    assert result.returncode == 2
    assert "DEV999" in result.stderr and "Traceback" not in result.stderr


def test_select_and_ignore_prefixes(project):
    assert run("--no-cache", "--ignore", "DEV1", "buggy.py", cwd=project).returncode == 0
    assert run("--no-cache", "--select", "DEV2", "buggy.py", cwd=project).returncode == 0
    assert run("--no-cache", "--select", "DEV101", "buggy.py", cwd=project).returncode == 1


def test_syntax_error_is_a_finding_with_its_line(project):
    (project / "broken.py").write_text("import torch\n\ndef f(:\n    pass\n")
    result = run("--no-cache", "broken.py", "buggy.py", cwd=project)
    assert result.returncode == 2
    assert "broken.py:3" in result.stdout and "DEV001" in result.stdout
    assert "DEV101" in result.stdout and "Traceback" not in result.stderr


def test_undecodable_file_is_reported_once(project):
    (project / "latin.py").write_bytes(b"import torch\nx = '\xe9t\xe9'\n")
    result = run("--no-cache", "latin.py", cwd=project)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    both = result.stdout + result.stderr
    assert both.count("latin.py:1:1: DEV002") == 1 and "UTF-8" in both
    assert both.count("cannot decode") == 1  # it was printed twice: in the output and on stderr


def test_declared_encoding_is_honoured(project):
    (project / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nx = '\xe9t\xe9'\n")
    assert run("--no-cache", "latin.py", cwd=project).returncode == 0


def test_tool_that_is_not_a_table(project):
    for value in ("5", '"x"', "[1, 2]"):
        (project / "pyproject.toml").write_text(f"tool = {value}\n")
        result = run("buggy.py", cwd=project)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1 and "`tool` must be a table" in result.stderr


def test_toml_nested_too_deeply(project):
    (project / "pyproject.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    result = run("buggy.py", cwd=project)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "nested too deeply" in result.stderr


def test_config_file_that_is_not_a_pyproject(project):
    (project / "lint.toml").write_text("[tool.devlint]\nignore = ['DEV101']\n")
    assert run("--no-cache", "--config", "lint.toml", "buggy.py", cwd=project).returncode == 0
    (project / "devlint.toml").write_text("ignore = ['DEV101']\n")  # devlint's keys at the top level
    assert run("--no-cache", "--config", "devlint.toml", "buggy.py", cwd=project).returncode == 0
    (project / "other.toml").write_text("[tool.black]\nline-length = 100\n")
    result = run("--config", "other.toml", "buggy.py", cwd=project)
    assert result.returncode == 2 and "no [tool.devlint] table" in result.stderr


def test_command_line_select_replaces_the_file_selection(project):
    (project / "pyproject.toml").write_text("[tool.devlint]\nselect = ['DEV2']\nignore = ['DEV101']\n")
    assert run("--no-cache", "buggy.py", cwd=project).returncode == 0  # the file's selection
    assert run("--no-cache", "--extend-select", "DEV1", "buggy.py", cwd=project).returncode == 0  # its ignore holds
    assert run("--no-cache", "--select", "DEV101", "buggy.py", cwd=project).returncode == 1  # starts over
    (project / "pyproject.toml").write_text("[tool.devlint]\nselect = ['DEV1']\n")
    assert run("--no-cache", "--ignore", "DEV101", "buggy.py", cwd=project).returncode == 0  # adds to the file's
    assert run("--no-cache", "--extend-ignore", "DEV1", "buggy.py", cwd=project).returncode == 0


def test_bad_config(project):
    (project / "pyproject.toml").write_text("[tool.devlint]\nselect = ['DEV1']\ncolour = true\n")
    result = run("buggy.py", cwd=project)
    assert result.returncode == 2 and "colour" in result.stderr and "Traceback" not in result.stderr
    (project / "pyproject.toml").write_text("[tool.devlint]\nselect = 'DEV1'\n")
    result = run("buggy.py", cwd=project)
    assert result.returncode == 2 and "list of strings" in result.stderr
    (project / "pyproject.toml").write_text("[tool.devlint\n")
    result = run("buggy.py", cwd=project)
    assert result.returncode == 2 and "invalid TOML" in result.stderr


def test_config_ignore(project):
    (project / "pyproject.toml").write_text("[tool.devlint]\nignore = ['DEV101']\n")
    assert run("--no-cache", "buggy.py", cwd=project).returncode == 0


def test_noqa_and_devlint_ignore(project):
    (project / "a.py").write_text(BUGGY.replace("z = x + y", "z = x + y  # noqa: DEV101"))
    (project / "b.py").write_text(BUGGY.replace("z = x + y", "z = x + y  # devlint: ignore[DEV101]"))
    (project / "c.py").write_text(BUGGY.replace("z = x + y", "z = x + y  # noqa"))
    (project / "d.py").write_text(BUGGY.replace("z = x + y", "z = x + y  # noqa: DEV201"))
    assert run("--no-cache", "a.py", "b.py", "c.py", cwd=project).returncode == 0
    assert run("--no-cache", "d.py", cwd=project).returncode == 1


def test_folder_walk_skips_venvs_and_build(project):
    for skipped in ("build", ".git", "env_x"):
        (project / skipped).mkdir()
        (project / skipped / "bug.py").write_text(BUGGY)
    (project / "env_x" / "pyvenv.cfg").write_text("home = /usr\n")
    (project / "pkg").mkdir()
    (project / "pkg" / "bug.py").write_text(BUGGY)
    result = run("--no-cache", "--format", "json", ".", cwd=project)
    paths = sorted(Path(f["path"]).as_posix() for f in json.loads(result.stdout))
    assert paths == ["buggy.py", "pkg/bug.py"] or [p.lstrip("./") for p in paths] == ["buggy.py", "pkg/bug.py"]


def test_cache_gives_same_answer(project, tmp_path_factory, monkeypatch):
    cache_dir = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("DEVLINT_CACHE_DIR", str(cache_dir))
    first = run("--format", "json", ".", cwd=project)
    assert list(cache_dir.glob("*/v*.json")) and not (project / ".devlint_cache").exists()  # nothing in the tree
    second = run("--format", "json", ".", cwd=project)
    assert json.loads(first.stdout) == json.loads(second.stdout)
    (project / "clean.py").write_text(BUGGY)  # a changed file is analysed again
    third = run("--format", "json", ".", cwd=project)
    assert len(json.loads(third.stdout)) == 2


def test_rules_and_explain_and_version(tmp_path):
    rules = run("rules", cwd=tmp_path)  # not where a rules/ folder would be linted
    assert rules.returncode == 0 and "DEV101" in rules.stdout and "DEV502" in rules.stdout
    explain = run("explain", "DEV301")
    assert explain.returncode == 0 and "Why is this bad?" in explain.stdout and "synchronize" in explain.stdout
    unknown = run("explain", "DEV999")
    assert unknown.returncode == 2 and "DEV999" in unknown.stderr
    version = run("--version")
    assert version.returncode == 0 and "devlint" in version.stdout


def test_no_paths_is_a_usage_error():
    result = run()
    assert result.returncode == 2 and "no paths" in result.stderr


def test_static_mode_never_imports_torch(project):
    code = ("import sys; sys.modules['torch'] = None\n"
            "from devlint.cli.command import main\n"
            "main(['--no-cache', 'buggy.py'])\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project, env=env)
    assert result.returncode == 1, result.stderr
    assert "DEV101" in result.stdout


def test_parallel_jobs_agree(project):
    for i in range(30):
        (project / f"m{i}.py").write_text(BUGGY if i % 3 == 0 else CLEAN)
    serial = json.loads(run("--no-cache", "-j", "1", "--format", "json", ".", cwd=project).stdout)
    parallel = json.loads(run("--no-cache", "-j", "2", "--format", "json", ".", cwd=project).stdout)
    assert serial == parallel and len(serial) == 11


def test_fixtures_folder_prints_findings_with_why():
    result = run("--no-cache", str(ROOT / "fixtures"))
    assert result.returncode == 1
    assert "DEV101" in result.stdout and "    `" in result.stdout


def test_a_process_that_ends_without_teardown_still_says_everything(tmp_path):
    """`python -m devlint` ends its process at once after a lint run (freeing what the run kept costs more
    than some analyses): its output is flushed first and its exit code kept, even on a closed pipe."""
    for index in range(40):
        (tmp_path / f"m{index}.py").write_text(BUGGY)
    result = run_process("--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert len(json.loads(result.stdout)) == 40  # all of it, not a buffer's worth
    clean = run_process("--no-cache", "m0.py", "--ignore", "DEV101", cwd=tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    reader = subprocess.Popen([sys.executable, "-m", "devlint", "--no-cache", "."], cwd=tmp_path, env=environment,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stdout.readline()
    reader.stdout.close()  # `devlint . | head -1`
    _, errors = reader.communicate(timeout=120)
    assert b"Traceback" not in errors and reader.returncode == 1, (reader.returncode, errors)


GPU_ONLY_SCRIPT = "import torch\nx = torch.zeros(2).cuda()\ntorch.cuda.synchronize()\n"
PORTABLE_SCRIPT = ("import torch\nDEVICE = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                   "x = torch.zeros(2).to(DEVICE)\ny = torch.ones(2).cuda()\n")


@pytest.mark.parametrize("gpu_only_files, hinted", [(5, True), (4, False)])
def test_a_mostly_gpu_only_project_is_asked_once_whether_it_is_gpu_only(tmp_path, gpu_only_files, hinted):
    """nanotron, apex, jukebox: most files assume a GPU throughout (one DEV204 each) and a few lines elsewhere are
    told one by one; one line after the report says how to declare the project GPU-only. Fewer such files, or
    `--quiet`, or a machine-readable format: no such line."""
    for i in range(gpu_only_files):
        (tmp_path / f"kernel_{i}.py").write_text(GPU_ONLY_SCRIPT)
    (tmp_path / "train.py").write_text(PORTABLE_SCRIPT)
    result = run("--no-cache", ".", cwd=tmp_path)
    assert result.returncode == 1 and "DEV201" in result.stdout
    assert ("assume-gpu = true" in result.stderr) is hinted
    if hinted:
        assert f"{gpu_only_files} files assume a GPU throughout (DEV204), 1 more assume one on 1 line" in result.stderr
        assert "assume-gpu" not in run("--no-cache", "--quiet", ".", cwd=tmp_path).stderr
        assert "assume-gpu" not in run("--no-cache", "--output-format", "json", ".", cwd=tmp_path).stderr
