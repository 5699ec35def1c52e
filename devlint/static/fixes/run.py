"""`--fix` and `--diff`: apply the fixes of one file, lint it again, repeat until nothing is left to fix.

A round whose result does not parse is thrown away (and reported): a fix never leaves a file
broken. Notebooks are fixed cell by cell and written back with their own JSON layout.
"""

from __future__ import annotations

import ast
import difflib
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from devlint.core.findings import Finding
from devlint.static.encoding import decode
from devlint.static.fixes.apply import applicable, apply_fixes, apply_to_documents

MAX_ROUNDS = 10
Lint = Callable[[bytes], list[Finding]]  # a document's bytes -> its findings


@dataclass
class FileFix:
    path: str
    before: bytes
    after: bytes
    fixed: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    error: Optional[str] = None

    @property
    def changed(self) -> bool:
        return self.after != self.before


def fix_file(path: str, source: bytes, findings: list[Finding], lint: Lint, unsafe: bool) -> FileFix:
    result = FileFix(path, source, source, remaining=findings)
    for _ in range(MAX_ROUNDS):
        todo = applicable(result.remaining, unsafe)
        if not todo:
            break
        step = apply_once(path, result.after, todo)
        if step is None:
            result.error = "a fix left the file unparseable: the file was left as it was (please report it)"
            break
        fixed_bytes, fixed = step
        if not fixed:
            break
        result.after, result.fixed = fixed_bytes, result.fixed + fixed
        result.remaining = lint(fixed_bytes)
    else:
        if applicable(result.remaining, unsafe):
            result.error = f"fixes did not settle after {MAX_ROUNDS} rounds"
    return result


def apply_once(path: str, source: bytes, findings: list[Finding]) -> Optional[tuple[bytes, list[Finding]]]:
    if path.endswith(".ipynb"):
        return _apply_notebook(source, findings)
    encoding, text = decode(source)
    new_text, fixed = apply_fixes(text, findings)
    if not _parses(new_text):
        return None
    return new_text.encode(encoding), fixed


def _apply_notebook(source: bytes, findings: list[Finding]) -> Optional[tuple[bytes, list[Finding]]]:
    from devlint.static.notebooks import Notebook

    notebook = Notebook.parse(source)
    texts, fixed = apply_to_documents({cell.number: cell.text for cell in notebook.cells}, findings)
    changed = {number: text for number, text in texts.items() if text != notebook.cell(number).text}
    new = Notebook.parse(notebook.with_cell_texts(changed))
    if new.program and not _parses(new.program):
        return None
    return new.source_text.encode("utf-8"), fixed


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    except (RecursionError, MemoryError):
        return True  # too deep for CPython's parser here, but the fix did not make it so
    return True


def unified_diff(fix: FileFix) -> str:
    """The change as a unified diff (a notebook: one per changed cell, `nb.ipynb:cell 3`)."""
    if fix.path.endswith(".ipynb"):
        from devlint.static.notebooks import Notebook

        before, after = Notebook.parse(fix.before), Notebook.parse(fix.after)
        parts = []
        for old, new in zip(before.cells, after.cells):
            if old.text != new.text:
                name = f"{fix.path}:cell {old.number}"
                parts.append(_diff(old.text, new.text, name))
        return "".join(parts)
    return _diff(decode(fix.before)[1], decode(fix.after)[1], fix.path)


def _diff(before: str, after: str, name: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=name, tofile=name)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def write_back(path: str, data: bytes) -> None:
    """Replace the file's content in one step, keeping its mode; never through a symlink."""
    target = Path(path)
    if target.is_symlink():
        raise OSError(f"{path} is a symbolic link: not rewritten")
    mode = stat.S_IMODE(target.stat().st_mode)
    handle, temporary = tempfile.mkstemp(dir=str(target.parent), prefix=f".{target.name}.", suffix=".devlint")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
