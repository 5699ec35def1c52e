"""What the runtime checker saw: problems, and the silent costs by call site."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Site:
    """Where in the user's code something happened (the first frame outside torch and devlint)."""

    filename: str
    line: int
    function: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"


@dataclass(frozen=True)
class Origin:
    """How a tensor got to its device: the call that created or moved it, and where."""

    site: Optional[Site]
    how: str  # "torch.zeros without device=", ".to(device)", "DataLoader batch"

    def __str__(self) -> str:
        where = str(self.site) if self.site else "an unknown place"
        return f"{where} ({self.how})"


class DeviceMismatchError(RuntimeError):
    """Raised at the first device problem: the message says which line put each operand where."""

    def __init__(self, message: str, code: str = "DEV101") -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Problem:
    code: str  # the static rule's code: DEV101, DEV102, DEV106, DEV401
    site: Optional[Site]
    message: str
    count: int = 1


@dataclass
class Counter:
    """One silent cost at one call site."""

    site: Optional[Site]
    what: str
    count: int = 0
    nbytes: int = 0


@dataclass
class Report:
    problems: list = field(default_factory=list)  # Problem, de-duplicated by site and code
    transfers: dict = field(default_factory=dict)  # (site, direction) -> Counter
    syncs: dict = field(default_factory=dict)  # (site, what) -> Counter
    lying_timers: dict = field(default_factory=dict)  # site -> Counter
    simulated: bool = False
    gpus: int = 0

    def add_problem(self, code: str, site: Optional[Site], message: str) -> None:
        for problem in self.problems:
            if problem.code == code and problem.site == site:
                problem.count += 1
                return
        self.problems.append(Problem(code, site, message))

    @staticmethod
    def _bump(table: dict, key: tuple, site: Optional[Site], what: str, nbytes: int = 0) -> None:
        counter = table.get(key)
        if counter is None:
            counter = table[key] = Counter(site, what)
        counter.count += 1
        counter.nbytes += nbytes

    def add_transfer(self, site: Optional[Site], direction: str, nbytes: int) -> None:
        self._bump(self.transfers, (site, direction), site, direction, nbytes)

    def add_sync(self, site: Optional[Site], what: str) -> None:
        self._bump(self.syncs, (site, what), site, what)

    def add_lying_timer(self, site: Optional[Site], clock: str) -> None:
        self._bump(self.lying_timers, (site, clock), site, clock)

    @property
    def clean(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        def site(s: Optional[Site]) -> Optional[dict]:
            return {"path": s.filename, "line": s.line, "function": s.function} if s else None

        def counters(table: dict, code: str) -> list:
            return [{"code": code, "site": site(c.site), "what": c.what, "count": c.count, "bytes": c.nbytes}
                    for c in sorted(table.values(), key=lambda c: (-c.count, -c.nbytes))]

        return {
            "simulated_gpu": self.simulated,
            "gpus": self.gpus,
            "problems": [{"code": p.code, "site": site(p.site), "message": p.message, "count": p.count}
                         for p in self.problems],
            "transfers": counters(self.transfers, "DEV501"),
            "syncs": counters(self.syncs, "DEV502"),
            "lying_timers": counters(self.lying_timers, "DEV301"),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def summary_table(self, limit: int = 10) -> str:
        """One table, worst first: what went wrong, then what cost time silently."""
        rows: list[tuple] = []
        for p in self.problems:
            rows.append((0, -p.count, p.code, "device mismatch", str(p.site or "?"), p.count, ""))
        for c in self.lying_timers.values():
            rows.append((1, -c.count, "DEV301", f"{c.what} read with GPU work queued", str(c.site or "?"), c.count, ""))
        for c in self.transfers.values():
            rows.append((2, -c.nbytes, "DEV501", f"transfer {c.what}", str(c.site or "?"), c.count, _size(c.nbytes)))
        for c in self.syncs.values():
            rows.append((3, -c.count, "DEV502", f"sync {c.what}", str(c.site or "?"), c.count, ""))
        rows.sort()
        shown = rows[:limit]
        mode = f"simulated GPU x{self.gpus}" if self.simulated else "real devices"
        if not rows:
            return f"devlint runtime ({mode}): no device problems, no transfers, no synchronizations"
        header = f"devlint runtime ({mode}): {len(self.problems)} device problem(s)"
        lines = [header, f"  {'code':<7} {'what':<40} {'where':<40} {'count':>6} {'bytes':>9}"]
        for _, _, code, what, where, count, size in shown:
            lines.append(f"  {code:<7} {what[:40]:<40} {where[-40:]:<40} {count:>6} {size:>9}")
        if len(rows) > limit:
            lines.append(f"  ... {len(rows) - limit} more (use --format json for all)")
        return "\n".join(lines)


def _size(nbytes: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024 or unit == "GiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return str(nbytes)
