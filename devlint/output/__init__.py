"""Output formats: each renders the whole run's findings as one string."""

from __future__ import annotations

from typing import Callable

from devlint.output.github import render as render_github
from devlint.output.json_format import render as render_json
from devlint.output.sarif import render as render_sarif
from devlint.output.text import render as render_text

FORMATS: dict[str, Callable[..., str]] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}
