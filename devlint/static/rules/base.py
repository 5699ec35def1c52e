"""The shape every rule has.

A rule is one small class: its docstring is its documentation (a one-line
summary, then "What it does" and "Why is this bad?" sections), ``INVALID`` and
``VALID`` are code examples the test suite runs (an invalid example marks each
line it must be reported on with ``# expect: CODE``), ``FIXED`` holds what
``--fix --unsafe-fixes`` makes of each invalid example (the test suite checks it
too; ``# expect:`` markers left out), ``supersedes`` names the
codes its reports replace on the same node, and ``check`` turns one fact from
the interpreter into zero or more reports.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import ClassVar, Iterable, Optional

import libcst as cst

from devlint.static.file_context import FileContext
from devlint.core.findings import Severity
from devlint.static.rules.gpu_intent import GpuIntent
from devlint.static.fixes import Fix


@dataclass(frozen=True)
class Verdict:
    """A rule's verdict on a fact: where, what, and why."""

    node: cst.CSTNode
    message: str
    why: tuple[str, ...] = ()
    fix: str | None = None
    key: object = None  # reports of one rule with the same key are one bug: the first is kept
    autofix: Optional[Fix] = None  # edits that fix it (devlint.static.fixes), applied by --fix
    # where it shows in this file when `node` lies in another module of the project (a base class's
    # attribute, a constant of a config module): reported there, with no fix
    use: Optional[cst.CSTNode] = None
    # this report's severity where it is not the rule's: a mix whose other side is only on a parameter's device
    # (a caller's, or the module's) is a guess at what callers pass, a warning (measured: `Rule.guessed`)
    severity: Optional[Severity] = None


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = "error"
    default_enabled: ClassVar[bool] = True
    # The fact types (classes from devlint.core.facts) this rule wants to see.
    facts: ClassVar[tuple[type, ...]] = ()
    # Codes this rule's report replaces on the same node: a more specific story about the same
    # operation wins (DEV104 "created without device=" over the DEV101 mix it causes). The engine
    # drops a report whose code is superseded by another rule's report on that node.
    supersedes: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[str, ...]] = ()
    VALID: ClassVar[tuple[str, ...]] = ()
    # FIXED[i]: INVALID[i] after its fixes, unsafe ones included; None for an example no fix applies to.
    # A rule that fixes any of its invalid examples must show each result here.
    FIXED: ClassVar[tuple[Optional[str], ...]] = ()

    file: FileContext  # set by the engine for each file

    def check(self, fact: object) -> Iterable[Verdict]:
        raise NotImplementedError

    def release(self) -> None:
        """The file is done: drop what points into its tree, so that it is freed now, not during the next file."""
        self.file = None
        self._state_file = self._state = None

    def file_state(self) -> dict:
        """Scratch space for the file being checked (a rule object checks many files)."""
        if getattr(self, "_state_file", None) is not self.file:
            self._state_file, self._state = self.file, {}
        return self._state

    def gpu_intent(self) -> "GpuIntent":
        """What the file's GPU assumptions and FileIntent say of its design (rules that ask subscribe to
        FileIntent and GpuAssumption and hand both to `gpu_intent().observe`)."""
        state = self.file_state()
        if "intent" not in state:
            state["intent"] = GpuIntent()
        return state["intent"]

    def finish(self) -> Iterable[Verdict]:
        """After the whole file: verdicts that needed all of its facts (a file-level summary)."""
        return ()

    # --- helpers for the why of a report

    def where(self, value: object) -> str:
        """"cuda:0", "the selected device", "cpu when `args.fast` is false", "an unknown device"."""
        device = getattr(value, "device", None)
        if device is not None:
            return str(device)
        path = getattr(value, "cpu_path", None)
        if path is not None:
            return f"cpu when `{self.file.snippet(path[0], 40)}` is {path[1]}"
        return "an unknown device"

    def placed(self, label: str, value: object) -> str:
        """"`x` is on cuda:0: line 12 `x = x.to(device)`"."""
        where = self.where(value)
        chain = self.file.chain(value)
        return f"`{label}` is on {where}: {chain}" if chain else f"`{label}` is on {where}"

    @staticmethod
    def crash_clause(*devices: object) -> str:
        """": it crashes whenever `device` is a GPU" when one side is a device chosen at run time."""
        for device in devices:
            if getattr(device, "kind", None) == "selected":
                return f": it crashes whenever {device} is a GPU"
        for device, other in zip(devices, reversed(devices)):
            index = getattr(other, "index", None)
            if getattr(device, "ranked", False) and getattr(device, "name", None) and index is not None:
                return f": it crashes whenever `{getattr(device, 'name')}` is not {index}"
        return ""

    @staticmethod
    def guessed(value: object) -> Optional[Severity]:
        """"warning" where a value is only on a parameter's device (a caller's tensor no caller in the run
        shows, the module's own device): what callers pass is a guess. On unseen code (precision surveys 4-17,
        first readings) such DEV104 reports were 15 true, 25 false, 66 debatable; the ones whose other side had a
        known device, 6 true and 5 false."""
        device = getattr(value, "device", None)
        return "warning" if device is not None and device.kind == "param" else None

    def called_from(self, fact: object) -> tuple[str, ...]:
        context = getattr(fact, "context", None)
        return tuple(self.file.context_lines(context)) if context is not None else ()

    @classmethod
    def summary(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "").splitlines()[0]

    @classmethod
    def documentation(cls) -> str:
        """The docstring without its summary line."""
        lines = inspect.cleandoc(cls.__doc__ or "").splitlines()[1:]
        return "\n".join(lines).strip()
