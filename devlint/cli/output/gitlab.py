"""GitLab Code Quality JSON (a CI artifact of type `codequality`)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from devlint.cli.output.report import Report
from devlint.cli.output.sarif import repository_root

_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def render(report: Report) -> str:
    root = Path(os.environ.get("CI_PROJECT_DIR") or repository_root())
    seen: dict[str, int] = {}
    out = []
    for f in report.sorted():
        absolute = Path(os.path.abspath(f.path))
        try:
            path = absolute.relative_to(Path(os.path.abspath(root))).as_posix()
        except ValueError:
            path = absolute.as_posix()
        # stable across runs and line moves: the same finding keeps its fingerprint
        base = hashlib.blake2b(f"{f.code}|{path}|{f.message}".encode(), digest_size=16).hexdigest()
        seen[base] = seen.get(base, -1) + 1
        fingerprint = base if not seen[base] else hashlib.blake2b(f"{base}|{seen[base]}".encode(),
                                                                   digest_size=16).hexdigest()
        description = f"{f.code} {f.message}" + (f" (cell {f.cell})" if f.cell is not None else "")
        out.append({"description": description, "check_name": f"{f.code} {f.name}".strip(),
                    "fingerprint": fingerprint, "severity": _SEVERITY.get(f.severity, "minor"),
                    "location": {"path": path, "lines": {"begin": f.line, "end": f.end_line}}})
    return json.dumps(out, indent=2) + "\n"
