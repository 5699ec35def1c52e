"""Where the run's files call a function of the project, read as text: the arguments of each call.

A function that its own file never calls is analysed on symbolic parameters (a parameter named `device` may be
a GPU). When the other files of the run are its callers, their arguments say more (motion-diffusion-model's
`Skeleton(offsets, chain, 'cpu')`, at every one of its seven construction sites). The files are read as text
once per run and indexed by the names they call; a call's arguments are parsed alone, never the whole file.
Anything that hides a caller (the name used without a call, a call that does not parse, too many calls)
gives no answer: the analysis then keeps its symbolic parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, cast

import libcst as cst

_IMPORT_LINE = re.compile(rb'^[ \t]*(?:from|import)[ \t]([^\n]*)', re.M)
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_MOST_SITES = 40  # more calls than this: a utility everybody calls, not one whose callers agree
_LONGEST_CALL = 4000  # characters of one call's arguments


@dataclass(frozen=True)
class CallText:
    """One call of the function, in a file of the run."""

    path: str  # absolute
    line: int
    call: cst.Call  # parsed alone: its nodes belong to no tree of the run
    in_test: bool  # the file is a test (its callers exercise the function on whatever a test machine has)


@dataclass
class _RunText:
    """The run's files as text, and who imports what."""

    imports: dict[bytes, set[str]] = field(default_factory=dict)  # a word of an import line -> the files
    texts: dict[str, bytes] = field(default_factory=dict)


Read = Callable[[Path], bytes]
_RUN: list[Optional[object]] = [None, None]  # [the run's `checked` table, its _RunText]


def _run_text(checked: dict[str, str], read: Read) -> _RunText:
    if _RUN[0] is not checked:
        run = _RunText()
        for path in sorted(checked):
            data = run.texts[path] = read(Path(path))
            for line in _IMPORT_LINE.findall(data):
                for word in set(_WORD.findall(line)):
                    run.imports.setdefault(word, set()).add(path)
        _RUN[:] = [checked, run]
    return cast(_RunText, _RUN[1])


def is_test_path(path: str) -> bool:
    parts = Path(path).parts
    name = parts[-1] if parts else ""
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or any(
        part in ("test", "tests") for part in parts[:-1])


def run_call_sites(checked: dict[str, str], read: Read, module: Path, name: str, owner: Optional[str],
                   used: dict[str, bytes]) -> Optional[list[CallText]]:
    """Every call in the run of `name` defined in `module` (`owner`: the class it is a method of; for a class's
    constructor, `name` is the class), or None where a caller may hide: the name used other than by a call in
    a file that imports the module. `used` gets the text of each file read for it (the cache depends on them)."""
    run = _run_text(checked, read)
    stem = (module.parent.name if module.stem == "__init__" else module.stem).encode()
    key, mine = name.encode(), str(module)
    # the files that may call it: those importing its module, or the name itself (a package re-exports it)
    callers = (run.imports.get(stem, set()) | {mine}) if owner is not None else \
        run.imports.get(stem, set()) | run.imports.get(key, set()) | {mine}
    sites: list[CallText] = []
    for path in sorted(callers):
        data = run.texts.get(path, b"")
        if key not in data or (owner is not None and path != mine and owner.encode() not in data):
            continue  # `x.decode(...)` in a file that never names the class: another class's method
        used[path] = data
        found = _calls_in(data, key, method=owner is not None, path=path)
        if found is None or len(sites) + len(found) > _MOST_SITES:
            return None
        sites.extend(found)
    return sites


def _calls_in(data: bytes, key: bytes, method: bool, path: str) -> Optional[list[CallText]]:
    """The calls of `key` in one file; None where the name is also used otherwise (or a call does not parse)."""
    word = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(key) + rb"(?![A-Za-z0-9_])")
    found: list[CallText] = []
    for match in word.finditer(data):
        start, end = match.start(), match.end()
        before = data[max(0, start - 80):start]
        line_start = data.rfind(b"\n", 0, start) + 1
        line_text = data[line_start:start]
        if re.search(rb"(?:^|\s)(?:def|class)\s+$", before) or _IMPORT_LINE.match(data, line_start) \
                or line_text.lstrip().startswith(b"#"):
            continue  # its definition, an import of it, a comment
        rest = re.match(rb"\s*\(", data[end:end + 40])
        attribute = before.endswith(b".")
        if rest is None or (method and not attribute):
            if method and not attribute:
                continue  # a function of the same name, not the method
            return None
        call = _parse_call(data, end + rest.end())
        if call is None:
            return None
        line = data.count(b"\n", 0, start) + 1
        found.append(CallText(path=path, line=line, call=call, in_test=is_test_path(path)))
    return found


def _parse_call(data: bytes, open_at: int) -> Optional[cst.Call]:
    """The call whose arguments start at `open_at` (just after its `(`), parsed alone."""
    close = _closing(data, open_at)
    if close is None:
        return None
    try:
        text = data[open_at:close].decode("utf-8")
        expression = cst.parse_expression("f(" + " ".join(text.split("\n")) + ")") if "#" not in text else \
            cst.parse_expression("f(\n" + text + "\n)")
    except Exception:  # noqa: BLE001 - a caller's text that does not parse hides its arguments
        return None
    return expression if isinstance(expression, cst.Call) else None


def _closing(data: bytes, at: int) -> Optional[int]:
    """The index of the `)` that closes the call opened just before `at` (strings and comments skipped)."""
    depth, i, end = 1, at, min(len(data), at + _LONGEST_CALL)
    while i < end:
        char = data[i:i + 1]
        if char in (b"'", b'"'):
            quote = data[i:i + 3] if data[i:i + 3] in (b"'''", b'"""') else char
            close = data.find(quote, i + len(quote))
            while close > 0 and _escaped(data, close):
                close = data.find(quote, close + 1)
            if close < 0:
                return None
            i = close + len(quote)
            continue
        if char == b"#":
            newline = data.find(b"\n", i)
            i = end if newline < 0 else newline
            continue
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _escaped(data: bytes, at: int) -> bool:
    """Is the quote at `at` escaped (an odd run of backslashes before it)?"""
    count = 0
    while at - count - 1 >= 0 and data[at - count - 1:at - count] == b"\\":
        count += 1
    return count % 2 == 1


def subclassed(checked: dict[str, str], read: Read, name: str, used: dict[str, bytes]) -> bool:
    """Does a class of the run derive from `name` (its `super().__init__(...)` then calls the constructor)?"""
    run = _run_text(checked, read)
    pattern = re.compile(rb"^[ \t]*class\s+\w+\s*\([^)]*(?<![A-Za-z0-9_])" + re.escape(name.encode())
                         + rb"(?![A-Za-z0-9_])", re.M)
    for path in sorted(run.texts):
        data = run.texts[path]
        if name.encode() in data and pattern.search(data):
            used[path] = data
            return True
    return False
