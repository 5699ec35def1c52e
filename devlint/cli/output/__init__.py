"""Output formats: each renders a whole run (a `Report`) as one string."""

from __future__ import annotations

from typing import Callable

from devlint.cli.output.github import render as render_github
from devlint.cli.output.gitlab import render as render_gitlab
from devlint.cli.output.json_format import render as render_json
from devlint.cli.output.junit import render as render_junit
from devlint.cli.output.report import Report, SourceLines
from devlint.cli.output.sarif import render as render_sarif
from devlint.cli.output.statistics import render as render_statistics
from devlint.cli.output.text import render_concise, render_full

FORMATS: dict[str, Callable[[Report], str]] = {
    "concise": render_concise,
    "full": render_full,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
    "junit": render_junit,
    "gitlab": render_gitlab,
}
ALIASES = {"text": "full"}  # the first version's name for the default

__all__ = ["ALIASES", "FORMATS", "Report", "SourceLines", "render_statistics"]
