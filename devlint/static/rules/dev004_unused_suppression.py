from __future__ import annotations

from typing import Iterable

from devlint.static.rules.base import Rule, Verdict


class UnusedSuppression(Rule):
    """A `# noqa: DEV...` or `# devlint: ignore` comment silences nothing.

    ## What it does
    Flags a suppression comment that names a devlint code when no finding of
    that code starts on its line: the bug it silenced was fixed, the line
    moved, or the code is misspelt. Codes of rules that are not enabled in
    this run are reported as such. A bare `# noqa` is left alone: flake8 and
    Ruff read it too. `--fix` removes the unused codes (or the whole comment).

    ## Why is this bad?
    A stale suppression hides the next real bug on that line. Off by default:
    enable it with `--extend-select DEV004`, as Ruff's RUF100.
    """

    code = "DEV004"
    name = "unused-suppression"
    severity = "warning"
    default_enabled = False
    facts = ()  # the engine runs it after the other rules: it judges their findings

    INVALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.zeros(3, device=device)  # noqa: DEV101  # expect: DEV004
""",
    )
    FIXED = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.zeros(3, device=device)
""",
    )
    VALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.zeros(3)
y = torch.ones(3).to(device)
z = x + y  # noqa: DEV101
""",
    )

    def check(self, fact: object) -> Iterable[Verdict]:
        return ()
