"""SARIF 2.1.0, for GitHub code scanning and other CI dashboards.

Paths are relative to the repository root (`%SRCROOT%`), the why lines are related locations,
fixes are SARIF fixes. In a notebook, regions are within the cell (`properties.cell`), as in JSON.
"""

from __future__ import annotations

from dataclasses import replace

import json
import os
from pathlib import Path
from typing import Optional

from devlint import __version__
from devlint.cli.links import rule_url
from devlint.core.findings import Finding
from devlint.cli.output.report import Report

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def repository_root(start: Optional[Path] = None) -> Path:
    start = Path(os.path.abspath(start or Path.cwd()))
    return next((p for p in [start, *start.parents] if (p / ".git").exists()), start)


def _descriptor(rule) -> dict:
    data = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": rule.documentation()},
        "help": {"text": rule.documentation(), "markdown": rule.documentation()},
        "defaultConfiguration": {"level": _LEVELS[rule.severity], "enabled": rule.default_enabled},
    }
    uri = rule_url(rule.code)
    if uri:
        data["helpUri"] = uri
    return data


class _Paths:
    def __init__(self, root: Path) -> None:
        self.root = root

    def uri(self, path: str) -> str:
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            return absolute.as_uri()


def _region(line: int, column: int, end_line: int, end_column: int) -> dict:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _location(finding: Finding, paths: _Paths, region: dict) -> dict:
    location = {"physicalLocation": {"artifactLocation": {"uri": paths.uri(finding.path), "uriBaseId": "%SRCROOT%"},
                                     "region": region}}
    if finding.cell is not None:
        location["properties"] = {"cell": finding.cell}
    return location


def _related(finding: Finding, paths: _Paths) -> list[dict]:
    """A related location for each place a why entry names (carried by the finding, not read from its text)."""
    out = []
    for why, places in zip(finding.why, finding.places):
        for path, line, cell in places:
            related = _location(replace(finding, path=path or finding.path, cell=None), paths, {"startLine": line})
            if cell is not None:
                related["properties"] = {"cell": cell}
            related["id"] = len(out) + 1
            related["message"] = {"text": why}
            out.append(related)
    return out


def _fixes(finding: Finding, paths: _Paths) -> list[dict]:
    if not finding.edits or finding.cell is not None:
        return []
    replacements = [{"deletedRegion": _region(e.line, e.column, e.end_line, e.end_column),
                     "insertedContent": {"text": e.content}} for e in finding.edits]
    return [{"description": {"text": f"{finding.fix or 'fix'} ({finding.applicability})"},
             "artifactChanges": [{"artifactLocation": {"uri": paths.uri(finding.path), "uriBaseId": "%SRCROOT%"},
                                  "replacements": replacements}]}]


def render(report: Report) -> str:
    root = repository_root()
    paths = _Paths(root)
    from devlint.cli.docs import BY_CODE  # the rules' documentation: their classes

    rules = {r.code: BY_CODE[r.code] for r in report.rules}
    for finding in report.findings:
        if finding.code not in rules and finding.code in BY_CODE:
            rules[finding.code] = BY_CODE[finding.code]
    order = sorted(rules)
    results = []
    for f in report.sorted():
        result = {
            "ruleId": f.code,
            "level": _LEVELS.get(f.severity, "warning"),
            "message": {"text": f.message + ("\n" + "\n".join(f.why) if f.why else "")},
            "locations": [_location(f, paths, _region(f.line, f.column, f.end_line, f.end_column))],
        }
        if f.code in rules:
            result["ruleIndex"] = order.index(f.code)
        related = _related(f, paths)
        if related:
            result["relatedLocations"] = related
        fixes = _fixes(f, paths)
        if fixes:
            result["fixes"] = fixes
        results.append(result)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "devlint", "version": __version__,
                                "rules": [_descriptor(rules[code]) for code in order]}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"
