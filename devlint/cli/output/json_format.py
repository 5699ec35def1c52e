"""A JSON array of findings (the schema is in README.md)."""

from __future__ import annotations

import json

from devlint.cli.links import rule_url
from devlint.cli.output.report import Report


def render(report: Report) -> str:
    out = []
    for finding in report.sorted():
        data = finding.to_dict()
        data["url"] = rule_url(finding.code)
        out.append(data)
    return json.dumps(out, indent=2) + "\n"
