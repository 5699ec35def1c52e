"""`devlint --watch`: a real process watching a real folder, edited under it, stopped with Ctrl-C."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest.importorskip("watchfiles", reason="--watch needs watchfiles (the `watch` extra)")

CLEAN = "import torch\n\nx = torch.zeros(3)\nprint(x.sum())\n"
OTHER = "import torch\n\nweights = torch.ones(2).cuda()\n"


class Lines:
    """The lines a process prints, read on a thread, so that waiting for one has a timeout."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self._queue.put(line)

    def wait_for(self, text: str, timeout: float = 60) -> list[str]:
        """The lines printed until one holding `text` (and that one)."""
        start, lines = time.monotonic(), []
        while time.monotonic() - start < timeout:
            try:
                line = self._queue.get(timeout=0.2)
            except queue.Empty:
                continue
            self.seen.append(line)
            lines.append(line)
            if text in line:
                return lines
        raise AssertionError(f"no line with {text!r} within {timeout} s; printed:\n{''.join(self.seen)}")


def test_watch_relints_the_changed_file_and_stops_on_ctrl_c(tmp_path: Path):
    (tmp_path / "train.py").write_text(CLEAN)
    (tmp_path / "other.py").write_text(OTHER)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", NO_COLOR="1")
    command = [sys.executable, "-m", "devlint", "--watch", "--format", "concise", "--no-cache", "."]
    # Ctrl-C reaches it as it reaches a program started from a terminal, even where these tests run in the
    # background (where the shell made the test process ignore SIGINT, and a child inherits that)
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        lines = Lines(process)
        first = lines.wait_for("Found 1 problem")
        assert any("other.py:3:11: DEV204" in line for line in first)
        time.sleep(0.5)  # the watcher is up once the first run has printed; give it a moment more
        (tmp_path / "train.py").write_text(CLEAN.replace("print(x.sum())", "print(x.cuda().numpy())"))
        second = lines.wait_for("Found ")
        assert any("File change detected: checking" in line and "train.py" in line for line in second)
        assert any("train.py:4:7: DEV401" in line for line in second)
        assert not any("other.py" in line for line in second if "DEV" in line)  # only the changed file again
        (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nignore = ["DEV204"]\n')
        third = lines.wait_for("Found ")
        assert any("Configuration changed: checking everything again" in line for line in third)
        assert [line.split(": ")[1].split()[0] for line in third if ": DEV" in line] == ["DEV401"]
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        lines.wait_for("Stopped watching.", timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


@pytest.mark.parametrize("args,message", [
    (["--watch", "--fix", "."], "--watch cannot be combined with --fix"),
    (["--watch", "-"], "--watch needs files or folders to watch (not stdin)"),
])
def test_watch_refuses_what_it_cannot_watch(args: list, message: str):
    done = subprocess.run([sys.executable, "-m", "devlint", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and f"devlint: error: {message}" in done.stderr


def test_dependents_of_the_changed_files_are_linted_again(tmp_path: Path):
    from devlint.cli.lint_run import LintOptions
    from devlint.cli.watch import _targets

    for name in ("model.py", "train.py", "notes.txt"):
        (tmp_path / name).write_text(CLEAN)
    options = LintOptions(paths=[str(tmp_path)])
    changed = [str(tmp_path / "model.py"), str(tmp_path / "notes.txt")]
    importers = {str(tmp_path / "model.py"): [str(tmp_path / "train.py")]}
    targets = _targets(options, changed, lambda files, _all: [d for f in files for d in importers.get(f, [])])
    assert targets == [str(tmp_path / "model.py"), str(tmp_path / "train.py")]  # not the .txt


def test_the_importers_of_a_changed_module_are_its_dependents(tmp_path: Path):
    from devlint.static.project.graph import dependents

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "masks.py").write_text("import torch\n")
    (tmp_path / "pkg" / "encoder.py").write_text("from .masks import *\n")
    (tmp_path / "train.py").write_text("import pkg.encoder as e\n")
    (tmp_path / "other.py").write_text("import torch\n")
    files = [str(tmp_path / n) for n in ("pkg/masks.py", "pkg/encoder.py", "train.py", "other.py")]
    assert dependents([files[0]], files) == [files[1], files[2]]  # through encoder.py, train.py too
