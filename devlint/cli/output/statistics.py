"""`--statistics`: how many findings of each rule, most first (JSON with `--output-format json`)."""

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
        return json.dumps([{"code": code, "name": names[code], "count": n, "fixable": code in fixable}
                           for code, n in rows], indent=2) + "\n"
    width = max((len(str(n)) for _, n in rows), default=1)
    lines = [f"{n:>{width}}\t{code}\t{'[*]' if code in fixable else '   '} {names[code]}" for code, n in rows]
    return "\n".join(lines) + "\n" if lines else ""
