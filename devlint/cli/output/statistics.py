"""`--statistics`: how many findings of each rule, most first (JSON with `--output-format json`).

In JSON, `fixable` means what it means in a finding's JSON (a fix exists, safe or unsafe) and
`applicability` says which; the text's `[*]` marks what `--fix` would fix now, as in the findings."""

from __future__ import annotations

import json
from collections import Counter

from devlint.cli.output.report import Report


def render(report: Report, as_json: bool = False) -> str:
    counts = Counter(f.code for f in report.findings)
    names = {f.code: f.name for f in report.findings}
    fixable = {f.code for f in report.findings if report.applicable(f)}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if as_json:
        kinds: dict[str, set] = {}
        for f in report.findings:
            if f.fixable:
                kinds.setdefault(f.code, set()).add(f.applicability)
        return json.dumps([{"code": code, "name": names[code], "count": n, "fixable": code in kinds,
                            "applicability": _applicability(kinds.get(code))}
                           for code, n in rows], indent=2) + "\n"
    width = max((len(str(n)) for _, n in rows), default=1)
    lines = [f"{n:>{width}}\t{code}\t{'[*]' if code in fixable else '   '} {names[code]}" for code, n in rows]
    return "\n".join(lines) + "\n" if lines else ""


def _applicability(kinds) -> object:
    """"safe" or "unsafe" when every fix of the rule is so, "mixed" otherwise, None without fixes."""
    if not kinds:
        return None
    return next(iter(kinds)) if len(kinds) == 1 else "mixed"
