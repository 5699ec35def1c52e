"""SARIF 2.1.0, for GitHub code scanning and other CI dashboards."""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Sequence

from devlint import __version__
from devlint.findings import Finding

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _rule(rule) -> dict:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": rule.documentation()},
        "help": {"text": rule.documentation(), "markdown": rule.documentation()},
        "defaultConfiguration": {"level": _LEVELS[rule.severity], "enabled": rule.default_enabled},
    }


def _uri(path: str) -> str:
    return PurePath(path).as_posix().removeprefix("./")


def render(findings: Sequence[Finding], *, files_checked: int = 0, rules: Sequence = (), color: bool = False) -> str:
    results = []
    for f in sorted(findings, key=Finding.sort_key):
        text = f.message + ("\n" + "\n".join(f.why) if f.why else "")
        results.append({
            "ruleId": f.code,
            "level": _LEVELS.get(f.severity, "warning"),
            "message": {"text": text},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.path)},
                    "region": {"startLine": f.line, "startColumn": f.column, "endLine": f.end_line,
                               "endColumn": f.end_column},
                }
            }],
        })
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "devlint", "version": __version__,
                                "informationUri": "https://pypi.org/project/devlint/",
                                "rules": [_rule(r) for r in rules]}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"
