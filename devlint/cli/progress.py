"""A progress bar on stderr for long runs: only on a terminal, never in CI or when piped, and
only once a run has taken DELAY seconds (a short run prints nothing)."""

from __future__ import annotations

import os
import sys
import time
from typing import Optional, TextIO

DELAY = 2.0
_CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD", "TEAMCITY_VERSION")


def wanted(stream: TextIO) -> bool:
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    in_ci = any(os.environ.get(name) for name in _CI_VARIABLES)
    return terminal and not in_ci and os.environ.get("TERM") != "dumb"


class Progress:
    def __init__(self, total: int, stream: Optional[TextIO] = None, delay: float = DELAY, width: int = 30) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.delay, self.width = delay, width
        self.drawn = False
        self.last_draw = 0.0

    def __call__(self, count: int) -> None:
        self.done += count
        now = time.monotonic()
        if now - self.start >= self.delay and (now - self.last_draw >= 0.1 or self.done >= self.total):
            self.last_draw = now
            self.draw(now)

    def draw(self, now: float) -> None:
        filled = int(self.width * self.done / self.total) if self.total else self.width
        rate = self.done / max(now - self.start, 1e-9)
        bar = "=" * filled + (">" if filled < self.width else "") + " " * max(self.width - filled - 1, 0)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} files, {rate:.0f} files/s")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:  # leave the terminal as it was: the bar is erased
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
