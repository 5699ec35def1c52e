"""Where the run's files call a function of the project, read as text: the arguments of each call.

A function that its own file never calls is analysed on symbolic parameters (a parameter named `device` may be
a GPU). When the other files of the run are its callers, their arguments say more (motion-diffusion-model's
`Skeleton(offsets, chain, 'cpu')`, at every one of its seven construction sites). The files are read as text
once per run and indexed by the words they hold; a file that holds the name is tokenized (once per run) and
each call's arguments are parsed alone, never the whole file.
Anything that hides a caller (the name used without a call, a call that does not parse, too many calls)
gives no answer: the analysis then keeps its symbolic parameter.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, cast

import libcst as cst

from devlint.core.digests import digest_of

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_MOST_SITES = 40  # more calls than this: a utility everybody calls, not one whose callers agree
_MOST_FILES = 24  # files holding the name
_LONGEST_CALL = 100  # lines of one call's arguments


@dataclass(frozen=True)
class CallText:
    """One call of the function, in a file of the run."""

    path: str  # absolute
    line: int
    call: cst.Call  # parsed alone: its nodes belong to no tree of the run
    in_test: bool  # the file is a test (its callers exercise the function on whatever a test machine has)


@dataclass
class _RunText:
    """The run's files as text, and which of them hold each word."""

    words: dict[bytes, set[str]] = field(default_factory=dict)  # any word -> the files that hold it
    texts: dict[str, bytes] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)  # of each file's text, for the cache
    tokens: dict[str, Optional[_Tokens]] = field(default_factory=dict)


Read = Callable[[Path], bytes]
_Tokens = tuple[list[tokenize.TokenInfo], list[str], dict[str, list[int]]]
_RUN: list[Optional[object]] = [None, None]  # [the run's `checked` table, its _RunText]


def _run_text(checked: dict[str, str], read: Read) -> _RunText:
    if _RUN[0] is not checked:
        run = _RunText()
        for path in sorted(checked):
            data = run.texts[path] = read(Path(path))
            for word in set(_WORD.findall(data)):
                run.words.setdefault(word, set()).add(path)
        _RUN[:] = [checked, run]
    return cast(_RunText, _RUN[1])


def _digest(run: _RunText, path: str) -> str:
    if path not in run.digests:
        run.digests[path] = digest_of(run.texts[path])
    return run.digests[path]


def is_test_path(path: str) -> bool:
    parts = Path(path).parts
    name = parts[-1] if parts else ""
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or any(
        part in ("test", "tests") for part in parts[:-1])


def run_call_sites(checked: dict[str, str], read: Read, name: str, method: bool, own: str,
                   used: dict[str, str]) -> Optional[list[CallText]]:
    """Every call in the run of the function `name` (`method`: called as `x.name(...)`; a class's constructor is
    called by the class's name), or None where a caller may hide: the name used other than by a call. `used`
    gets the digest of each file read for it (the cache entry depends on them). Where no file but its own
    (`own`) names it, the walk of that file has what there is to know: None, without reading it again."""
    run = _run_text(checked, read)
    key = name.encode()
    sites: list[CallText] = []
    # every file that holds the name: a caller may import it through a package, or be handed an object of the
    # class without naming it; a function of the same name elsewhere makes the sites disagree, never agree wrongly
    holders = run.words.get(key, set())
    if len(holders) > _MOST_FILES or not holders - {own}:
        return None  # a name many files use: a common word (or a utility everybody calls), not read file by file
    for path in sorted(holders):
        data = run.texts[path]
        used[path] = _digest(run, path)
        found = _calls_by_text(data, key, method, path)
        if found is _UNSURE:  # the name met where only Python's tokenizer tells what it is (a docstring?)
            if path not in run.tokens:
                run.tokens[path] = _tokens(data)  # once per file and run: a file names many functions
            found = _calls_in(run.tokens[path], key, method=method, path=path)
        if found is None or len(sites) + len(found) > _MOST_SITES:
            return None
        sites.extend(found)
    return sites


_UNSURE: list[CallText] = []  # (by identity) the text alone does not tell
_SHORT_STRING = re.compile(rb"'[^'\\\n]*'|\"[^\"\\\n]*\"")
_LINE_HEAD = re.compile(rb"[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]+$|[ \t]*(?:from|import)[ \t]")


def _calls_by_text(data: bytes, key: bytes, method: bool, path: str) -> Optional[list[CallText]]:
    """The calls of `key` in one file, read as text where that is sure: each mention is its definition, an
    import on one line, or a call whose arguments parse; else _UNSURE (a mention in a string, a comment, a
    name passed on: the tokens tell which). A call-like mention inside a string is taken as a call: it can only
    make the sites disagree, or agree with the real ones."""
    found: list[CallText] = []
    for match in re.finditer(rb"(?<![A-Za-z0-9_])" + re.escape(key) + rb"(?![A-Za-z0-9_])", data):
        start, end = match.start(), match.end()
        line_start = data.rfind(b"\n", 0, start) + 1
        head = data[line_start:start]
        if _LINE_HEAD.match(head):
            continue  # its definition, an import of it
        bare = _SHORT_STRING.sub(b"", head)  # (the line's strings before it, closed on the line)
        if b"#" in bare:
            continue  # in a comment
        if b"'" in bare or b'"' in bare:
            return _UNSURE  # in a string, maybe: the tokens tell
        attribute = head.rstrip().endswith(b".")
        if method and not attribute:
            continue  # a function of the same name, not the method
        opened = re.match(rb"[ \t]*\(", data[end:end + 40])
        if opened is None:
            return None  # passed on, stored (or named in a docstring's line: either way, not read further)
        close = _closing(data, end + opened.end())
        call = _expression(data[end + opened.end():close].decode("utf-8", "replace")) if close is not None else None
        if call is None:
            return _UNSURE
        found.append(CallText(path=path, line=data.count(b"\n", 0, start) + 1, call=call, in_test=is_test_path(path)))
    return found


def _closing(data: bytes, at: int) -> Optional[int]:
    """The index of the `)` that closes the call opened just before `at`, or None where a string or a comment
    inside makes the text unsure."""
    depth, i, end = 1, at, min(len(data), at + 20_000)
    while i < end:
        char = data[i:i + 1]
        if char in (b"'", b'"'):  # a string on one line, without escapes or triple quotes: skipped
            line_end = data.find(b"\n", i)
            close = data.find(char, i + 1, line_end if line_end >= 0 else end)
            if close < 0 or data[i:i + 3] == char * 3 or b"\\" in data[i:close]:
                return None
            i = close + 1
            continue
        if char == b"#":
            return None
        if char in (b"(", b"[", b"{"):
            depth += 1
        elif char in (b")", b"]", b"}"):
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _calls_in(read: Optional[_Tokens], key: bytes, method: bool,
              path: str) -> Optional[list[CallText]]:
    """The calls of `key` in one file; None where the name is also used otherwise (or the file or a call does
    not read). Strings and comments that mention it do not count: the file is tokenized, as Python reads it."""
    if read is None:
        return None
    tokens, lines, names = read
    name, found = key.decode(), []
    for i in names.get(name, ()):
        token = tokens[i]
        before = _significant(tokens, i, -1)
        if before is not None and before.string in ("def", "class") or _in_import(tokens, i):
            continue  # its definition, an import of it
        attribute = before is not None and before.string == "."
        if method and not attribute:
            continue  # a function of the same name, not the method
        after = _significant(tokens, i, 1)
        if after is None or after.string != "(":
            return None  # passed on, stored: called where the text does not show
        call = _parse_call(tokens, tokens.index(after, i), lines)
        if call is None:
            return None
        found.append(CallText(path=path, line=token.start[0], call=call, in_test=is_test_path(path)))
    return found


_SKIPPED = (tokenize.NL, tokenize.COMMENT)
_STATEMENT_ENDS = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)


def _tokens(data: bytes) -> Optional[_Tokens]:
    """The file's tokens, its lines (a token's columns count characters of its line), where each name is."""
    try:
        text = data.decode("utf-8")
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    names: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):
        if token.type == tokenize.NAME:
            names.setdefault(token.string, []).append(i)
    return tokens, [line + "\n" for line in text.split("\n")], names


def _significant(tokens: list[tokenize.TokenInfo], i: int, step: int) -> Optional[tokenize.TokenInfo]:
    i += step
    while 0 <= i < len(tokens) and tokens[i].type in _SKIPPED:
        i += step
    return tokens[i] if 0 <= i < len(tokens) else None


def _in_import(tokens: list[tokenize.TokenInfo], i: int) -> bool:
    """Is token i part of an import statement?"""
    while i > 0 and tokens[i - 1].type not in _STATEMENT_ENDS and tokens[i - 1].string != ";":
        i -= 1
    while tokens[i].type in _SKIPPED:
        i += 1
    return tokens[i].string in ("import", "from")


def _parse_call(tokens: list[tokenize.TokenInfo], opened: int, lines: list[str]) -> Optional[cst.Call]:
    """The call whose `(` is token `opened`, its arguments parsed alone."""
    depth = 0
    for token in tokens[opened:]:
        if token.type != tokenize.OP:
            continue
        depth += token.string in "([{"
        depth -= token.string in ")]}"
        if depth == 0:
            (row, col), (end_row, end_col) = tokens[opened].end, token.start
            if end_row - row > _LONGEST_CALL:
                return None
            if row == end_row:
                return _expression(lines[row - 1][col:end_col])
            return _expression(lines[row - 1][col:] + "".join(lines[row:end_row - 1]) + lines[end_row - 1][:end_col])
    return None


def _expression(text: str) -> Optional[cst.Call]:
    try:
        expression = cst.parse_expression("f(\n" + text + "\n)")
    except Exception:  # noqa: BLE001 - a caller's text that does not parse hides its arguments
        return None
    return expression if isinstance(expression, cst.Call) else None


def subclassed(checked: dict[str, str], read: Read, name: str, used: dict[str, str]) -> bool:
    """Does a class of the run derive from `name` (its `super().__init__(...)` then calls the constructor)?"""
    run = _run_text(checked, read)
    pattern = re.compile(rb"^[ \t]*class\s+\w+\s*\([^)]*(?<![A-Za-z0-9_])" + re.escape(name.encode())
                         + rb"(?![A-Za-z0-9_])", re.M)
    for path in sorted(run.words.get(name.encode(), set())):
        data = run.texts[path]
        if pattern.search(data):
            used[path] = _digest(run, path)
            return True
    return False

