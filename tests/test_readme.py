"""The README cannot drift: every shell command it shows is run here (from the repository root, as
a reader runs it) and, where it shows the output, the output must be what it shows. The few
commands not run say why. The usage block lists every option; the config and hook snippets work."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from devlint.cli.command import lint
from devlint.cli.config import parse_table
from tests.conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```", README, re.M | re.S)
NOT_RUN = {
    "python -m pytest": "the test suite itself",
    ".ci/run": "CI itself: a fresh venv and the whole suite (minutes)",
    ".ci/run-oldest": "the same on Python 3.9 (minutes)",
    "devlint docs --out rules": "rewrites rules/; tests/test_docs_pages.py checks that the pages are current",
    "python benchmarks/speed.py": "a benchmark that takes minutes",
    "python benchmarks/runtime_overhead.py": "a benchmark",
    "../shared/tools/eval-realworld ../shared/realworld": "the shared real-world set lies outside the repository",
}
EXITS = {  # what the README says these commands exit with
    "devlint fixtures/mixed/bad_loader_batch_not_moved.py": 1,
    "devlint --output-format github fixtures/host/bad_plot_cuda_tensor.py": 1,
    "flake8 --select DEV fixtures/mixed/bad_add_cpu_and_cuda.py": 1,
}


def _strip_comment(line: str) -> str:
    return re.sub(r"\s+#\s.*$", "", line).strip()


def shell_commands() -> list[tuple[str, str | None]]:
    """(command, expected output or None) for each command in a bash block or a `$ ` line of a text block."""
    found = []
    for lang, body in BLOCKS:
        if lang == "bash":
            for line in body.splitlines():
                command = _strip_comment(line)
                if command and not command.startswith("#"):
                    found.append((command, None))
        elif lang == "text" and body.startswith("$ "):
            parts = re.split(r"^\$ (.*)\n", body, flags=re.M)
            for command, output in zip(parts[1::2], parts[2::2]):
                found.append((_strip_comment(command), output))
    return found


def _split_pip(command: str) -> tuple[list[str], str]:
    """The `pip install ...` parts of a `&&` chain, and what remains to run."""
    pips, rest = [], []
    for part in command.split("&&"):
        (pips if part.strip().startswith("pip install") else rest).append(part.strip())
    return pips, " && ".join(rest)


COMMANDS = shell_commands()
RUNNABLE = [(c, out) for c, out in COMMANDS if _split_pip(c)[1] and _split_pip(c)[1] not in NOT_RUN]


def _environment() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _same(got: str, shown: str) -> bool:
    def norm(text: str) -> list[str]:
        return [line.rstrip() for line in text.rstrip("\n").splitlines()]
    return norm(got) == norm(shown)


@pytest.mark.parametrize("command,shown", RUNNABLE, ids=[c for c, _ in RUNNABLE])
def test_readme_command_runs_as_shown(command: str, shown: str | None):
    _, rest = _split_pip(command)
    if "--runtime" in rest:
        pytest.importorskip("torch", reason="runtime mode needs torch (not installed for this Python)")
    if rest.startswith("python -m mypy"):
        pytest.importorskip("mypy", reason="the dev extra's mypy (2.x) needs Python 3.10 or newer")
    result = subprocess.run(rest, shell=True, cwd=ROOT, capture_output=True, text=True, env=_environment(),
                            timeout=300)
    if shown is not None:
        assert _same(result.stdout + result.stderr, shown), f"README shows:\n{shown}\nthe command printed:\n" \
                                                             f"{result.stdout}{result.stderr}"
    else:
        assert result.returncode == EXITS.get(command, EXITS.get(rest, 0)), result.stdout + result.stderr


def test_every_command_is_run_or_says_why_not():
    commands = {c for c, _ in COMMANDS} | {_split_pip(c)[1] for c, _ in COMMANDS}
    assert set(NOT_RUN) <= commands, f"NOT_RUN names commands the README no longer shows: {set(NOT_RUN) - commands}"
    assert set(EXITS) <= commands
    assert len(RUNNABLE) >= 6


def test_pip_lines_install_this_project():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pips = [p for c, _ in COMMANDS for p in _split_pip(c)[0]]
    pips += re.findall(r"`(pip install [^`]+)`", README)
    pips += [p for _, body in BLOCKS for p in _split_pip(" && ".join(body.splitlines()))[0]]
    assert pips
    for pip in pips:
        words = shlex.split(pip)
        if words[2:] == ["torch", "--index-url", "https://download.pytorch.org/whl/cpu"]:
            continue  # torch's CPU build, from PyTorch's own index
        target = words[-1]
        if target.startswith("git+"):
            continue  # this repository's URL, wherever it is hosted
        match = re.fullmatch(r"\.(?:\[([\w,]+)\])?", target)
        assert match, f"{pip!r} installs something else than this checkout"
        assert match.group(1) is None or set(match.group(1).split(",")) <= set(extras), f"{pip!r}: no such extra"
    assert "pip install devlint" not in README  # not on PyPI


def test_usage_block_lists_every_option():
    usage = next(body for lang, body in BLOCKS if lang == "text" and body.startswith("devlint [OPTIONS]"))
    for param in lint.params:
        for option in list(getattr(param, "opts", ())) + list(getattr(param, "secondary_opts", ())):
            if option.startswith("-"):
                assert re.search(rf"(^|[\s,]){re.escape(option)}\b", usage, re.M), f"{option} is not in the usage"
    for fmt in ("concise", "full", "json", "sarif", "github", "junit", "gitlab"):
        assert fmt in usage


def test_configuration_example_is_valid():
    [toml] = [body for lang, body in BLOCKS if lang == "toml"]
    config = parse_table(tomllib.loads(toml)["tool"]["devlint"], ROOT / "pyproject.toml")
    assert config.per_file_ignores and config.force_exclude


def test_hook_and_action_snippets_match_the_files():
    snippets = [yaml.safe_load(body) for lang, body in BLOCKS if lang == "yaml"]
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    [hook] = hooks
    repos = [s["repos"][0] for s in snippets if isinstance(s, dict)]
    local = next(r["hooks"][0] for r in repos if r["repo"] == "local")
    assert local["entry"] == hook["entry"] and local["types_or"] == hook["types_or"] == ["python", "jupyter"]
    remote = next(r for r in repos if r["repo"] != "local")
    assert remote["hooks"] == [{"id": hook["id"]}]
    steps = [step for s in snippets if isinstance(s, list) for step in s]
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert any(step.get("with", {}).get("args") for step in steps if "devlint@" in step.get("uses", ""))
    assert set(action["inputs"]) >= {"args"}
