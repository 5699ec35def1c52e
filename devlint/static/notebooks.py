"""Jupyter notebooks: the code cells, in order, checked as one program; findings placed back in
their cells. No cell is ever executed.

Cells are numbered as Ruff numbers them: the Nth code cell is `cell N` (markdown and raw cells
are not counted), lines and columns within the cell, 1-based. IPython lines (`%magic`,
`!shell`, `x = !cmd`, `obj?`) are blanked out in cells that are not plain Python; a cell
magic other than `%%time`, `%%timeit`, `%%capture` or `%%prun` makes the whole cell non-Python.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from devlint.core.findings import DECODE_ERROR, SYNTAX_ERROR, Edit, Finding, file_error
from devlint.static.rules.dev103_discarded_move import ThrownAwayMove

PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
_ESCAPE = re.compile(r"^\s*(?:[%!?]|[\w.\[\], ]+=\s*[%!]|[\w.*]+\?\??\s*$)")  # (`torch.*Tensor?`: a wildcard search)
# IPython's automagic: a line that starts with a line magic's or a shell alias' name, then no operator, runs as
# that magic (`pip install -r requirements.txt`, `cd data`); only read in a cell Python cannot parse
_AUTOMAGIC = re.compile(r"^\s*(?:pip|conda|mamba|cd|ls|ll|pwd|mkdir|rmdir|rm|mv|cp|cat|env|matplotlib|load_ext|"
                        r"reload_ext|autoreload|run|time|timeit|who|whos|history|config)(?:\s+(?:[^\s=(\[.,:+*/%<>&|^-]|[.-]\S)|\s*$)")
# What a line opens or closes, its strings and comment dropped: a `%` that starts a line inside an open bracket
# is Python's formatting operator, not a magic (IPython takes escapes at the start of a logical line only)
_STRINGS_AND_COMMENT = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|#.*")


class NotebookError(ValueError):
    """Not a notebook devlint can read."""


@dataclass
class Cell:
    index: int  # in the notebook's cell list
    number: int  # 1-based among code cells
    text: str  # the cell's source as written
    first_line: int  # where it starts in the program (1-based)
    line_count: int
    # the indent of its first line, which IPython strips from every line that has it before it runs the cell
    # (and we did too); `kept`: the lines (1-based) that did not have it
    indent: int = 0
    kept: frozenset[int] = frozenset()


class Notebook:
    def __init__(self, raw: dict, source_text: str) -> None:
        self.raw = raw
        self.source_text = source_text
        self.cells: list[Cell] = []
        # cells that are not Python even with IPython's escapes blanked: (cell, line, column, why). Jupyter
        # runs each cell alone, so one such cell fails alone: it is blank in the program, the rest is checked
        self.broken: list[tuple[Cell, int, int, str]] = []
        program: list[str] = []
        number = 0
        for index, cell in enumerate(raw["cells"]):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            number += 1
            text = cell_text(cell)
            lines = python_lines(text)
            if not lines:
                continue
            indent = _leading_indent(lines) if _syntax_error(lines) is not None else ""
            stripped = [line[len(indent):] if line.startswith(indent) else line for line in lines]
            kept: frozenset[int] = frozenset()
            if indent and _syntax_error(stripped) is None:
                kept = frozenset(i for i, line in enumerate(lines, 1) if not line.startswith(indent))
                lines = stripped  # IPython's leading-indent cleanup
            else:
                indent = ""
            cell_entry = Cell(index, number, text, len(program) + 1, len(lines), len(indent), kept)
            self.cells.append(cell_entry)
            error = _syntax_error(lines)
            if error is not None:
                self.broken.append((cell_entry, *error))
                lines = [""] * len(lines)
            program.extend(lines)
        self.program = "\n".join(program) + "\n" if program else ""

    @classmethod
    def parse(cls, source: bytes) -> "Notebook":
        return cls(*_load(source))

    def locate(self, line: int) -> tuple[Optional[Cell], int]:
        """(cell, line in the cell) of a program line; past the end: the last cell's next line."""
        for cell in self.cells:
            if cell.first_line <= line < cell.first_line + cell.line_count:
                return cell, line - cell.first_line + 1
        if self.cells and line >= self.cells[-1].first_line:
            last = self.cells[-1]
            return last, line - last.first_line + 1
        return None, line

    def place(self, finding: Finding) -> Finding:
        cell, line = self.locate(finding.line)
        if cell is None:
            return finding
        end_cell, end_line = self.locate(finding.end_line)
        end_column = finding.end_column
        if end_cell is not cell:  # a span across cells ends with the first cell
            end_line, end_column = cell.line_count, len(cell.text.splitlines()[-1] if cell.text else "") + 1
        edits = tuple(self._edit(e) for e in finding.edits) if not cell.indent else ()
        if any(e is None for e in edits):
            edits = ()
        why, places = self._why_in_cells(finding)
        column = finding.column + (cell.indent if line not in cell.kept else 0)
        end_column += cell.indent if end_cell is cell and end_line not in cell.kept else 0
        return replace(finding, line=line, column=column, end_line=end_line, end_column=end_column, cell=cell.number,
                       why=why, places=places, edits=edits, applicability=finding.applicability if edits else None)

    def mentions_in_cells(self, finding: Finding, path: str) -> Finding:
        """A finding told at another file's line whose why-chain names this notebook's program lines
        (`path:12`): those as cells and lines within them."""
        why, places = self._why_in_cells(finding, path)
        return replace(finding, why=why, places=places)

    def _why_in_cells(self, finding: Finding, named: str = "") -> tuple:
        """The why-chain's lines of the program (carried in `places`) as cells and lines within them; `named`:
        the notebook's path where the finding is another file's (its lines are written `path:line`)."""
        whys, all_places = [], []
        for index, text in enumerate(finding.why):
            placed = []
            for path, program_line, cell_number in (finding.places[index] if index < len(finding.places) else ()):
                ours = path == named and cell_number is None
                cell, line = self.locate(program_line) if ours else (None, program_line)
                if cell is not None:
                    written = f"{named}:{program_line} `" if named else f"line {program_line} `"
                    shown = f"{named} cell {cell.number}, line {line} `" if named else f"cell {cell.number}, line {line} `"
                    text = text.replace(written, shown, 1)
                    placed.append((path, line, cell.number))
                else:
                    placed.append((path, program_line, cell_number))
            whys.append(text)
            all_places.append(tuple(placed))
        return tuple(whys), tuple(all_places)

    def _edit(self, edit: Edit) -> Optional[Edit]:
        cell, line = self.locate(edit.line)
        end_cell, end_line = self.locate(edit.end_line)
        if cell is None or end_cell is not cell:
            return None
        return Edit(line, edit.column, end_line, edit.end_column, edit.content, cell=cell.number)

    # --- writing fixes back

    def with_cell_texts(self, texts: dict[int, str]) -> bytes:
        """The notebook's bytes with the code cells numbered in `texts` replaced, the rest as it was."""
        for cell_number, text in texts.items():
            cell = next(c for c in self.cells if c.number == cell_number)
            raw_cell = self.raw["cells"][cell.index]
            raw_cell["source"] = text.splitlines(keepends=True) if isinstance(raw_cell.get("source"), list) else text
        return dump(self.raw, self.source_text).encode("utf-8")

    def cell(self, number: int) -> Cell:
        return next(c for c in self.cells if c.number == number)


def _load(source: bytes) -> tuple[dict, str]:
    """(the notebook's JSON, its text); NotebookError or UnicodeError when it is not a notebook devlint reads."""
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnicodeError(f"cannot decode as UTF-8 (byte 0x{source[exc.start]:02x} at offset {exc.start})") \
            from None
    try:
        raw = json.loads(text)
    except RecursionError:
        raise NotebookError("its JSON nests too deeply") from None
    except ValueError as exc:
        raise NotebookError(f"invalid JSON: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        raise NotebookError("no list of cells (is it a Jupyter notebook, nbformat 4?)")
    for cell in raw["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code" and not isinstance(
                cell.get("source", ""), (str, list)):
            raise NotebookError("a code cell's source is neither a string nor a list of strings")
    return raw, text


def code_cell_text(source: bytes, number: int) -> str:
    """The text of the notebook's code cell `number` (1-based; "" past the last), without building the
    program and checking each cell's syntax as `Notebook` does: what the report shows a finding's line from."""
    cells = [cell for cell in _load(source)[0]["cells"]
             if isinstance(cell, dict) and cell.get("cell_type") == "code"]
    return cell_text(cells[number - 1]) if 0 < number <= len(cells) else ""


def cell_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else source


def python_lines(text: str) -> list[str]:
    """The cell's lines as Python sees them: IPython escapes blanked, in a cell that needs it."""
    lines = text.splitlines()
    if not lines:
        return []
    try:
        ast.parse(text)
        return lines
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    if lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(maxsplit=1)[0] if lines[first].strip() != "%%" else ""
        if magic not in PYTHON_CELL_MAGICS:
            return [""] * len(lines)  # %%bash, %%writefile...: not Python
        lines = lines[:first] + [""] + lines[first + 1:]
    out, continued, indent, depth = [], False, "", 0
    for line in lines:
        if continued or depth <= 0 and (_ESCAPE.search(line) or _AUTOMAGIC.search(line)):
            if not continued:  # the shell or magic line's own indent: its continuation lines are part of it
                indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + "pass" if indent else "")
            continued = line.rstrip().endswith("\\")
        else:
            out.append(line)
            code = _STRINGS_AND_COMMENT.sub("", line)
            depth = max(0, depth + sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}"))
    return out


def _leading_indent(lines: list[str]) -> str:
    """The indent of the cell's first written line (IPython drops the blank lines before it)."""
    written = next((line for line in lines if line.strip()), "")
    return written[: len(written) - len(written.lstrip())]


def _syntax_error(lines: list[str]) -> Optional[tuple[int, int, str]]:
    """(line, column, message) when the lines are not Python."""
    try:
        ast.parse("\n".join(lines))
    except SyntaxError as exc:
        return max(1, min(exc.lineno or 1, len(lines))), max(1, exc.offset or 1), exc.msg
    except (ValueError, RecursionError, MemoryError) as exc:
        return 1, 1, str(exc) or type(exc).__name__
    return None


def dump(raw: dict, original: str) -> str:
    """JSON as the notebook was written: its indent, its escaping, its final newline."""
    second = original.split("\n", 2)[1] if original.count("\n") >= 1 else ""
    indent = len(second) - len(second.lstrip(" ")) or None
    ascii_only = original.isascii() and "\\u" in original
    text = json.dumps(raw, indent=indent, ensure_ascii=ascii_only)
    return text + "\n" if original.endswith("\n") else text


def check_notebook(source: bytes, path: str, rules: Sequence, check) -> list[Finding]:
    """Check a notebook's code cells as one program with `check(program_bytes)`, placed in their cells."""
    try:
        notebook = Notebook.parse(source)
    except UnicodeError as exc:
        return [file_error(DECODE_ERROR, path, 1, 1, str(exc))]
    except NotebookError as exc:
        return [file_error(SYNTAX_ERROR, path, 1, 1, f"not a notebook devlint can read: {exc}")]
    broken = [replace(file_error(SYNTAX_ERROR, path, line, column, f"syntax error: {message}"), cell=cell.number)
              for cell, line, column, message in notebook.broken]
    if not notebook.program.strip():
        return broken
    # a finding told at another file's line (a project module the notebook calls) is placed in that file
    placed = [notebook.place(f) if f.path == path else notebook.mentions_in_cells(f, path)
              for f in check(notebook.program.encode("utf-8"))]
    return broken + [f for f in placed if not (f.code == ThrownAwayMove.code and _displayed(notebook, f))]


def _displayed(notebook: Notebook, finding: Finding) -> bool:
    """On its cell's last line, an expression whose value Jupyter shows (`m.to(device)` to show the moved copy):
    the result is used, not thrown away."""
    cell = next((c for c in notebook.cells if c.number == finding.cell), None)
    if cell is None:
        return False
    lines = cell.text.splitlines()
    last = max((i for i, line in enumerate(lines, 1) if line.strip() and not line.lstrip().startswith("#")), default=0)
    return finding.line == finding.end_line == last and not lines[last - 1].rstrip().endswith(";")
