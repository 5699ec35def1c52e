"""What the runtime checker saw: problems, and the silent costs, by call site."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterable, Optional

from devlint.runtime.errors import DeviceMismatchError, HostConversionError
from devlint.runtime.origins import Origin, Site

__all__ = ["Report", "Problem", "Counter", "Site", "Origin", "DeviceMismatchError", "HostConversionError"]

# What each runtime code means in the summary table.
LABELS = {
    "DEV101": "tensors on different devices",
    "DEV102": "module input on another device",
    "DEV106": "cpu-only argument on a GPU",
    "DEV401": "GPU tensor handed to numpy",
}


@dataclass
class Problem:
    code: str  # the static rule's code: DEV101, DEV102, DEV106, DEV401
    site: Optional[Site]  # where it happened: the innermost user frame
    message: str
    count: int = 1
    sites: tuple = ()  # every user line of the story: the call chain and where each operand came from
    ranks: set = field(default_factory=set)  # distributed runs: the ranks that hit it

    @property
    def label(self) -> str:
        return LABELS.get(self.code, "device problem")


@dataclass
class Counter:
    """One silent cost at one call site."""

    site: Optional[Site]
    what: str
    count: int = 0
    nbytes: int = 0


def _site_dict(site: Optional[Site]) -> Optional[dict]:
    return {"path": site.filename, "line": site.line, "function": site.function} if site else None


def _site_from(data: Optional[dict]) -> Optional[Site]:
    return Site(data["path"], data["line"], data.get("function", "")) if data else None


@dataclass
class Report:
    problems: list = field(default_factory=list)  # Problem, de-duplicated by code and site
    transfers: dict = field(default_factory=dict)  # (site, direction) -> Counter
    syncs: dict = field(default_factory=dict)  # (site, what) -> Counter
    lying_timers: dict = field(default_factory=dict)  # (site, clock) -> Counter
    simulated: bool = False
    gpus: int = 0
    notices: list = field(default_factory=list)  # one-line remarks (a compiled region run eagerly...)

    def add_problem(self, code: str, site: Optional[Site], message: str, sites: Iterable = (),
                    count: int = 1, ranks: Iterable = ()) -> Problem:
        for problem in self.problems:
            if problem.code == code and problem.site == site:
                problem.count += count
                problem.ranks.update(ranks)
                return problem
        problem = Problem(code, site, message, count, tuple(sites), set(ranks))
        self.problems.append(problem)
        return problem

    @staticmethod
    def _bump(table: dict, key: tuple, site: Optional[Site], what: str, count: int = 1, nbytes: int = 0) -> None:
        counter = table.get(key)
        if counter is None:
            counter = table[key] = Counter(site, what)
        counter.count += count
        counter.nbytes += nbytes

    def add_transfer(self, site: Optional[Site], direction: str, nbytes: int, count: int = 1) -> None:
        self._bump(self.transfers, (site, direction), site, direction, count, nbytes)

    def add_sync(self, site: Optional[Site], what: str, count: int = 1) -> None:
        self._bump(self.syncs, (site, what), site, what, count)

    def add_lying_timer(self, site: Optional[Site], clock: str, count: int = 1) -> None:
        self._bump(self.lying_timers, (site, clock), site, clock, count)

    def note(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    def merge(self, other: "Report", rank: Optional[int] = None) -> "Report":
        """Add another report's problems and counts (another test, another rank) to this one."""
        for p in other.problems:
            self.add_problem(p.code, p.site, p.message, p.sites, p.count, p.ranks | ({rank} if rank is not None else set()))
        for c in other.transfers.values():
            self.add_transfer(c.site, c.what, c.nbytes, c.count)
        for c in other.syncs.values():
            self.add_sync(c.site, c.what, c.count)
        for c in other.lying_timers.values():
            self.add_lying_timer(c.site, c.what, c.count)
        for text in other.notices:
            self.note(text)
        return self

    @property
    def clean(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        def counters(table: dict, code: str) -> list:
            return [{"code": code, "site": _site_dict(c.site), "what": c.what, "count": c.count, "bytes": c.nbytes}
                    for c in sorted(table.values(), key=lambda c: (-c.count, -c.nbytes))]

        return {
            "simulated_gpu": self.simulated,
            "gpus": self.gpus,
            "problems": [{"code": p.code, "site": _site_dict(p.site), "message": p.message, "count": p.count,
                          "sites": [_site_dict(s) for s in p.sites], "ranks": sorted(p.ranks)}
                         for p in self.problems],
            "transfers": counters(self.transfers, "DEV501"),
            "syncs": counters(self.syncs, "DEV502"),
            "lying_timers": counters(self.lying_timers, "DEV301"),
            "notices": list(self.notices),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Report":
        """The inverse of `to_dict`: a rank's report read back by the process that launched it."""
        report = cls(simulated=data.get("simulated_gpu", False), gpus=data.get("gpus", 0))
        for p in data.get("problems", []):
            report.add_problem(p["code"], _site_from(p["site"]), p["message"],
                               [_site_from(s) for s in p.get("sites", [])], p["count"], p.get("ranks", []))
        for name, add in (("transfers", report.add_transfer), ("syncs", report.add_sync)):
            for c in data.get(name, []):
                if name == "transfers":
                    add(_site_from(c["site"]), c["what"], c["bytes"], c["count"])
                else:
                    add(_site_from(c["site"]), c["what"], c["count"])
        for c in data.get("lying_timers", []):
            report.add_lying_timer(_site_from(c["site"]), c["what"], c["count"])
        for text in data.get("notices", []):
            report.note(text)
        return report

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def summary_table(self, limit: int = 10) -> str:
        """One table, worst first: what went wrong, then what cost time silently."""
        rows: list[tuple] = []
        for p in self.problems:
            where = str(p.site or "?") + (f" [rank {','.join(map(str, sorted(p.ranks)))}]" if p.ranks else "")
            rows.append((0, -p.count, p.code, p.label, where, p.count, ""))
        for c in self.lying_timers.values():
            rows.append((1, -c.count, "DEV301", f"{c.what} read with GPU work queued", str(c.site or "?"), c.count, ""))
        for c in self.transfers.values():
            rows.append((2, -c.nbytes, "DEV501", f"transfer {c.what}", str(c.site or "?"), c.count, _size(c.nbytes)))
        for c in self.syncs.values():
            rows.append((3, -c.count, "DEV502", f"sync {c.what}", str(c.site or "?"), c.count, ""))
        rows.sort(key=lambda row: row[:2])
        mode = f"simulated GPU x{self.gpus}" if self.simulated else "real devices"
        if not rows:
            return f"devlint runtime ({mode}): no device problems, no transfers, no synchronizations"
        lines = [f"devlint runtime ({mode}): {len(self.problems)} device problem(s)",
                 f"  {'code':<7} {'what':<36} {'where':<44} {'count':>6} {'bytes':>9}"]
        for _, _, code, what, where, count, size in rows[:limit]:
            lines.append(f"  {code:<7} {_cut(what, 36):<36} {_cut(where, 44, left=True):<44} {count:>6} {size:>9}")
        if len(rows) > limit:
            lines.append(f"  ... {len(rows) - limit} more (use --format json for all)")
        return "\n".join(lines)


def _cut(text: str, width: int, left: bool = False) -> str:
    """Text that fits `width`, with '...' where it was cut (a path keeps its end: the file and line)."""
    if len(text) <= width:
        return text
    return "..." + text[-(width - 3):] if left else text[: width - 3] + "..."


def _size(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024 or unit == "GiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return str(nbytes)
