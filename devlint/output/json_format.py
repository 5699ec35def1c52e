"""A JSON array of findings (the schema is in README.md)."""

from __future__ import annotations

import json
from typing import Sequence

from devlint.findings import Finding


def render(findings: Sequence[Finding], *, files_checked: int = 0, rules: Sequence = (), color: bool = False) -> str:
    return json.dumps([f.to_dict() for f in sorted(findings, key=Finding.sort_key)], indent=2) + "\n"
