"""devlint's static rules as a flake8 plugin: `flake8 --select DEV` (entry point `flake8.extension`).

The rules that run are the ones devlint itself would run here (its `[tool.devlint]` selection,
defaults otherwise); flake8 then filters by its own `--select`/`--ignore` and `# noqa`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, Optional, Sequence

from devlint import __version__
from devlint.core.findings import NOTICE


class DevlintChecker:
    name = "devlint"
    version = __version__
    _rules: Optional[tuple[str, list]] = None  # (the folder they were read for, rule classes)

    def __init__(self, tree: ast.AST, filename: str, lines: Sequence[str]) -> None:
        self.filename = filename
        self.lines = lines

    @classmethod
    def rules(cls) -> list:
        from devlint.cli.config import load_config, select_rules

        here = str(Path.cwd())
        if cls._rules is None or cls._rules[0] != here:
            cls._rules = (here, [info.load() for info in select_rules(load_config(None).selection())])
        return cls._rules[1]

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from devlint.cli.config import ConfigError
        from devlint.static.engine import check_source

        try:
            rules = [rule() for rule in self.rules()]
        except ConfigError as exc:
            yield 1, 0, f"DEV003 devlint cannot read its configuration: {exc}", type(self)
            return
        source = "".join(self.lines).encode("utf-8", "surrogateescape")
        for finding in check_source(source, self.filename, rules, notebook=False):
            if finding.code != NOTICE:
                yield finding.line, finding.column - 1, f"{finding.code} {finding.message}", type(self)
