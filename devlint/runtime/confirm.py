"""`devlint --runtime --confirm`: the static half's findings, checked against what the run saw.

The files the run went through are linted with every rule (through the static
engine's public API). A static finding is *seen* when a runtime event of the
same family (DEV1 mixed devices, DEV3 timing, DEV4 host conversion; DEV501 and
DEV502 by code) touched its line: the failing line, a caller, or a line where
one of the operands got its device. A runtime problem that no static finding
of its family touches is *unpredicted*: where the static half is blind.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Sequence

from devlint.runtime.report import Report, Site


@dataclass(frozen=True)
class Event:
    """Something the run saw, with every user line it involves."""

    code: str
    site: Optional[Site]
    lines: frozenset  # (absolute path, line)
    problem: bool  # a device problem or a lying timer (not a cost the code may accept)

    def to_dict(self) -> dict:
        return {"code": self.code, "path": self.site.filename if self.site else None,
                "line": self.site.line if self.site else None}


def _key(path: str, line: int) -> tuple:
    return os.path.realpath(path), line


def _family(code: str) -> str:
    return code if code.startswith("DEV5") else code[:4]


def events(report: Report) -> list:
    found = []
    for p in report.problems:
        sites = [s for s in (p.site, *p.sites) if s is not None]
        found.append(Event(p.code, p.site, frozenset(_key(s.filename, s.line) for s in sites), True))
    for code, table, problem in (("DEV301", report.lying_timers, True), ("DEV501", report.transfers, False),
                                 ("DEV502", report.syncs, False)):
        for counter in table.values():
            if counter.site is not None:
                found.append(Event(code, counter.site, frozenset({_key(counter.site.filename, counter.site.line)}),
                                   problem))
    return found


@dataclass
class Confirmation:
    seen: list = field(default_factory=list)  # (Finding, Event)
    not_seen: list = field(default_factory=list)  # Finding
    unpredicted: list = field(default_factory=list)  # Event
    files: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "files": self.files,
            "seen": [dict(f.to_dict(), runtime=e.to_dict()) for f, e in self.seen],
            "not_seen": [f.to_dict() for f in self.not_seen],
            "unpredicted": [e.to_dict() for e in self.unpredicted],
        }

    def text(self) -> str:
        lines = [f"devlint confirm: {len(self.seen)} static finding(s) seen at run time, {len(self.not_seen)} "
                 f"not seen, {len(self.unpredicted)} runtime problem(s) no static rule predicted"]
        for finding, event in self.seen:
            lines.append(f"  seen         {finding.code}  {finding.path}:{finding.line}  (at run time: "
                         f"{event.code} at {event.site})")
        for finding in self.not_seen:
            lines.append(f"  not seen     {finding.code}  {finding.path}:{finding.line}")
        for event in self.unpredicted:
            lines.append(f"  unpredicted  {event.code}  {event.site}")
        return "\n".join(lines)


def files_of(report: Report, programs: Iterable[str]) -> list:
    """The user's files the run went through: the programs and every file a site names."""
    paths = {p for p in programs if p}
    for event in events(report):
        paths.update(path for path, _ in event.lines)
    return sorted({os.path.relpath(p) if not os.path.relpath(p).startswith("..") else p
                   for p in paths if p.endswith(".py") and os.path.isfile(p)})


def confirm(report: Report, programs: Iterable[str], lint: Callable[[Sequence[str]], list]) -> Confirmation:
    """Hold the static findings of `lint(files)` against what the run saw."""
    files = files_of(report, programs)
    findings = lint(files) if files else []
    seen_events = events(report)
    result = Confirmation(files=files)
    predicted: set = set()
    for finding in findings:
        key, family = _key(finding.path, finding.line), _family(finding.code)
        match = next((e for e in seen_events if _family(e.code) == family and key in e.lines), None)
        if match is None:
            result.not_seen.append(finding)
        else:
            result.seen.append((finding, match))
            predicted.add(match)
    for event in seen_events:
        if event.problem and event not in predicted and not any(
                _family(f.code) == _family(event.code) and _key(f.path, f.line) in event.lines for f in findings):
            result.unpredicted.append(event)
    return result
