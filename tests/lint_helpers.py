"""Run the static linter in-process on source text (what the CLI does per file)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Iterable, Optional

from devlint.static.engine import check_source
from devlint.core.findings import Finding
from devlint.static.rules import ALL_RULES

# ../shared/realworld (the real excerpts a mechanism is named after), where this checkout has it beside it
REALWORLD: Optional[Path] = next((p / "shared" / "realworld" for p in Path(__file__).resolve().parents
                                  if (p / "shared" / "realworld").is_dir()), None)


def lint(source: str, codes: Optional[Iterable[str]] = None, path: str = "example.py") -> list[Finding]:
    if codes is None:
        rules = [r() for r in ALL_RULES if r.default_enabled]
    else:
        wanted = tuple(codes)
        rules = [r() for r in ALL_RULES if r.code.startswith(wanted)]
    return check_source(source.encode("utf-8"), path, rules)


def found(source: str, codes: Optional[Iterable[str]] = None) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in lint(source, codes)}


def infer(source: str) -> tuple[dict, list]:
    """Interpret `source`: its module-level names (abstract values) and the facts it emitted."""
    import textwrap

    import libcst as cst

    from devlint.static.analysis import Interpreter

    facts: list = []
    interp = Interpreter(cst.parse_module(textwrap.dedent(source)), facts.append)
    interp.run()
    return interp.frames.globals, facts


def write_files(root: Path, files: dict) -> None:
    """Write `files` (path relative to `root` -> source, dedented), making their folders."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def check_file(path: Path, isolated: bool = False, used: Optional[dict] = None,
               checked: Optional[dict] = None) -> list[Finding]:
    """Check one file as the CLI does, its project (the folders around it) read for summaries."""
    return check_source(path.read_bytes(), str(path), [r() for r in ALL_RULES if r.default_enabled],
                        isolated=isolated, used=used, checked=checked)


def file_found(path: Path, **kw) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in check_file(path, **kw)}


def lint_in_run(root: Path, files: dict, target: str) -> list[Finding]:
    """Write `files` (name -> source, dedented) under `root` and check `target` as one file of a run over them
    all, as `devlint .` in root would: the other files are its project and its callers."""
    write_files(root, files)
    checked = {str((root / name).resolve()): name for name in files}
    return check_file(root / target, checked=checked)
