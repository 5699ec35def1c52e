"""Where the run's files call a function of the project, read as text: the arguments of each call.

A function that its own file never calls is analysed on symbolic parameters (a parameter named `device` may be
a GPU). When the other files of the run are its callers, their arguments say more (motion-diffusion-model's
`Skeleton(offsets, chain, 'cpu')`, at every one of its seven construction sites). The files are read as text
once per run and indexed by the words they hold (`holding` answers the run's other text questions from the same
index); each mention of the name is read on its line (a definition,
an import, a comment, a string, a call), and a call's arguments are parsed alone when first asked, never the
whole file. Anything that may hide a caller (the name used without a call, a line the text does not make sure,
too many calls) gives no answer: the analysis then keeps its symbolic parameter. A call-like mention inside a
multi-line string (a docstring's example) is read as a call: it can only make the sites disagree, or agree with
the real ones.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, Optional, cast

import libcst as cst

from devlint.core.digests import digest_of
from devlint.core.torch_catalogue.views import SETS_DEFAULT_DEVICE

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_MOST_SITES = 40  # more calls than this: a utility everybody calls, not one whose callers agree
_MOST_FILES = 16  # files holding the name
_LONGEST_CALL = 20_000  # characters of one call's arguments


@dataclass
class CallText:
    """One call of the function, in a file of the run."""

    path: str  # absolute
    line: int
    arguments: str  # the text between its parentheses
    in_test: bool  # the file is a test (its callers exercise the function on whatever a test machine has)
    qualified: bool = False  # `x.name(...)`: in the function's own file, another object's (a kernel's `ext.nms(...)`)
    # its file names a call that makes another device the factories' default (`torch.set_default_device("cuda")`)
    switches_default: bool = False
    _parsed: Optional[tuple[Optional[cst.Call]]] = None
    _text: bytes = field(default=b"", repr=False)  # the file's text, and where the call's line starts in it
    _line_start: int = 0

    @property
    def call(self) -> Optional[cst.Call]:
        """The call, parsed alone when first asked (its nodes belong to no tree of the run); None if it does
        not parse. Most lookups stop at the first call whose argument is not evident: the rest stay text."""
        if self._parsed is None:
            self._parsed = (_expression(self.arguments),)
        return self._parsed[0]

    def binding(self, name: str) -> Optional[cst.BaseExpression]:
        """What `name` was last set to before the call, where the text makes sure of it: a one-line
        `name = <expr>` earlier in the call's own block, with nothing in between that may set it again."""
        text, end = self._text, self._line_start
        stop = text.find(b"\n", end)
        indent = _indent(text[end:stop if stop >= 0 else len(text)])
        pattern = re.compile(rb"(?<![A-Za-z0-9_.])" + re.escape(name.encode()) + rb"\s*(=(?!=)|[-+*/%&|^@]=|,|\))")
        for _ in range(_LOOK_BACK):
            if end <= 0:
                return None
            start = text.rfind(b"\n", 0, end - 1) + 1
            line, end = text[start:end].rstrip(b"\r\n"), start
            if not line.strip() or line.lstrip().startswith(b"#"):
                continue
            depth = _indent(line)
            if depth < indent:
                return None  # out of the block: its header, or a statement the call continues
            assigned = _ASSIGNED.match(line)
            if depth == indent and assigned is not None and assigned.group(1) == name.encode():
                return _right_side(assigned.group(2))
            if pattern.search(line):
                return None  # set some other way, or in a nested block: not sure
        return None


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _right_side(text: bytes) -> Optional[cst.BaseExpression]:
    try:
        return cst.parse_expression(text.decode("utf-8", "replace").strip())
    except Exception:  # noqa: BLE001 - a line that continues on the next is no expression alone
        return None


_LOOK_BACK = 200  # lines
_ASSIGNED = re.compile(rb"[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)(.*)$")


@dataclass
class _RunText:
    """The run's files as text, and which of them hold each word."""

    words: dict[bytes, set[str]] = field(default_factory=dict)  # any word -> the files that hold it
    texts: dict[str, bytes] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)  # of each file's text, for the cache
    # (name, method) -> (the sites or None, the digests of the files read for them)
    sites: dict[tuple[str, bool], tuple[Optional[list[CallText]], dict[str, str]]] = field(default_factory=dict)
    # needles -> the first file (path order) whose lowercased text holds one, or None
    mentions: dict[tuple[bytes, ...], Optional[str]] = field(default_factory=dict)
    # (word, pattern) -> the files that hold the word, where each matches the pattern; else None
    every: dict[tuple[bytes, bytes], Optional[list[str]]] = field(default_factory=dict)
    # (attribute, the file asking) -> the other files that set it on an object, with their digests
    assigned: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)


Read = Callable[[Path], bytes]
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


def holding(checked: dict[str, str], read: Read, word: str) -> list[tuple[str, bytes, str]]:
    """(path, text, digest) of each file of the run that holds the word, in path order: the run's files are
    read once for every such question (an NCCL launcher, a CUDA default set, a function's callers)."""
    run = _run_text(checked, read)
    return [(path, run.texts[path], _digest(run, path)) for path in sorted(run.words.get(word.encode(), ()))]


def all_holders_match(checked: dict[str, str], read: Read, words: tuple[str, str], pattern: re.Pattern[bytes]
                      ) -> Optional[list[tuple[str, str]]]:
    """(path, digest) of the files of the run that hold both words, where there are some and each of them
    matches the pattern; None otherwise. Asked once per run."""
    run = _run_text(checked, read)
    key = (" ".join(words).encode(), pattern.pattern)
    if key not in run.every:
        holders = sorted(run.words.get(words[0].encode(), set()) & run.words.get(words[1].encode(), set()))
        run.every[key] = holders if holders and all(pattern.search(run.texts[p]) for p in holders) else None
    found = run.every[key]
    return [(path, _digest(run, path)) for path in found] if found is not None else None


def own_text(checked: dict[str, str], read: Read, path: Path) -> Optional[bytes]:
    """The run's text of one of its files (None: not a file of the run)."""
    return _run_text(checked, read).texts.get(str(path))


def mentioning(checked: dict[str, str], read: Read, needles: tuple[bytes, ...]) -> Optional[tuple[str, str]]:
    """(path, digest) of the first file of the run whose text, in lower case, holds one of `needles`."""
    run = _run_text(checked, read)
    if needles not in run.mentions:
        run.mentions[needles] = next((path for path in sorted(run.texts)
                                      if any(n in run.texts[path].lower() for n in needles)), None)
    found = run.mentions[needles]
    return (found, _digest(run, found)) if found is not None else None


def _digest(run: _RunText, path: str) -> str:
    if path not in run.digests:
        run.digests[path] = digest_of(run.texts[path])
    return run.digests[path]


def is_test_path(path: str) -> bool:
    parts = Path(path).parts
    name = parts[-1] if parts else ""
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or any(
        part in ("test", "tests") for part in parts[:-1])


def is_test_module(path: str, text: bytes) -> bool:
    """A module of tests: under a `tests/` folder, a conftest.py, or a file named as a test that uses a test
    framework (`tools/test_net.py`, an evaluation script that names none, is a script)."""
    parts = Path(path).parts
    return is_test_path(path) and (parts[-1:] == ("conftest.py",) or any(
        part in ("test", "tests") for part in parts[:-1]) or any(word in text for word in _TEST_FRAMEWORKS))


_TEST_FRAMEWORKS = (b"pytest", b"unittest")


def run_call_sites(checked: dict[str, str], read: Read, name: str, method: bool, own: str,
                   used: dict[str, str]) -> Optional[list[CallText]]:
    """Every call in the run of the function `name` (`method`: called as `x.name(...)`; a class's constructor is
    called by the class's name), or None where a caller may hide: the name used other than by a call. `used`
    gets the digest of each file read for it (the cache entry depends on them). Where no file but its own
    (`own`) names it, the walk of that file has what there is to know: None, without reading it again."""
    run = _run_text(checked, read)
    holders = run.words.get(name.encode(), set())
    if len(holders) > _MOST_FILES or not holders - {own}:
        return None  # a name many files use (a common word, a utility everybody calls), or its own file's alone
    memo = (name, method)
    if memo not in run.sites:  # (a name is asked again: a method of each class that has it, from each file)
        found: dict[str, str] = {}
        run.sites[memo] = (_sites(run, name, method, found), found)
    sites, read_for_it = run.sites[memo]
    used.update(read_for_it)
    return sites


def _sites(run: _RunText, name: str, method: bool, used: dict[str, str]) -> Optional[list[CallText]]:
    # every file that holds the name: a caller may import it through a package, or be handed an object of the
    # class without naming it; a function of the same name elsewhere makes the sites disagree, never agree wrongly
    key = name.encode()
    sites: list[CallText] = []
    for path in sorted(run.words.get(key, set())):
        data = run.texts[path]
        used[path] = _digest(run, path)
        found = _calls_in(data, key, method, path)
        if found is None or len(sites) + len(found) > _MOST_SITES:
            return None
        sites.extend(found)
    return sites


_FUNCTION_FACT = re.compile(rb"[ \t]*\.[ \t]*(?:cache_clear|cache_info|cache_parameters|__name__|__qualname__|__doc__|"
                            rb"__module__)\b")
_SHORT_STRING = re.compile(rb"'[^'\\\n]*'|\"[^\"\\\n]*\"")
_LINE_HEAD = re.compile(rb"[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]+$|[ \t]*(?:from|import)[ \t]")


def _calls_in(data: bytes, key: bytes, method: bool, path: str) -> Optional[list[CallText]]:
    """The calls of `key` in one file; None where a mention may be a use other than a call (the name passed
    on, stored) or a line the text does not make sure of."""
    found: list[CallText] = []
    counted, line = 0, 1  # lines counted up to `counted`: the matches come in order, the text is read once
    for start in _word_at(data, key):
        end = start + len(key)
        line_start = data.rfind(b"\n", 0, start) + 1
        head = data[line_start:start]
        if _LINE_HEAD.match(head):
            continue  # its definition, an import of it
        if b"\\" in head:
            return None  # an escape before it: where strings end is not sure
        bare = _SHORT_STRING.sub(b"", head)  # (the strings the line closes before it)
        if b"#" in bare or b"'" in bare or b'"' in bare:
            continue  # in a comment, in a string
        if method and not head.rstrip().endswith(b"."):
            continue  # a function of the same name, not the method
        opened = re.match(rb"[ \t]*\(", data[end:end + 40])
        begin = end + opened.end() if opened is not None else -1
        close = _closing(data, begin) if begin >= 0 else None
        if close is None and begin < 0 and (_in_long_string(data, start) or _FUNCTION_FACT.match(data, end)):
            # prose: a docstring that names the class ("This variant of RandomErasing ..."); or what the function
            # object tells of itself (`gaussian_map.cache_clear()` of an lru_cache, `fn.__name__`): no call of it
            continue
        if close is None:
            return None  # passed on, stored (or a call whose arguments hold what is not sure)
        line += data.count(b"\n", counted, start)
        counted = start
        found.append(CallText(path=path, line=line, arguments=data[begin:close].decode("utf-8", "replace"),
                              in_test=is_test_path(path) and is_test_module(path, data),
                              qualified=head.rstrip().endswith(b"."),
                              switches_default=_switches_default(data), _text=data, _line_start=line_start))
    return found


def _in_long_string(data: bytes, at: int) -> bool:
    """Is `at` inside a triple-quoted string?"""
    spans = _long_strings(data)
    index = bisect_right(spans, (at, _AFTER_ALL)) - 1
    return index >= 0 and spans[index][0] < at < spans[index][1]


_AFTER_ALL = 1 << 62


@lru_cache(maxsize=32)
def _switches_default(data: bytes) -> bool:
    """Does the file's text name a call that switches the factories' default device? (Once per text.)"""
    return any(name.encode() in data for name in SETS_DEFAULT_DEVICE)


@lru_cache(maxsize=32)
def _long_strings(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each triple-quoted string of the text, read from the top once per text (the same text is
    asked of every name its mentions hold; `bytes` keep their hash)."""
    spans: list[tuple[int, int]] = []
    position = 0
    while True:
        opened = min((found for found in (data.find(b'"""', position), data.find(b"'''", position)) if found >= 0),
                     default=-1)
        if opened < 0:
            return spans
        closed = data.find(data[opened:opened + 3], opened + 3)
        spans.append((opened, closed + 3 if closed >= 0 else len(data)))
        if closed < 0:
            return spans
        position = closed + 3


def _word_at(data: bytes, word: bytes) -> Iterator[int]:
    """Where `word` stands as a whole word in the text (`bytes.find`: a regular expression with a lookbehind
    scans a large module ten times slower)."""
    at, size = data.find(word), len(word)
    while at >= 0:
        if (at == 0 or data[at - 1] not in _WORD_BYTES) and data[at + size:at + size + 1] not in _WORD_CHARS:
            yield at
        at = data.find(word, at + size)


_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_WORD_CHARS = frozenset(bytes([b]) for b in _WORD_BYTES)


def _closing(data: bytes, at: int) -> Optional[int]:
    """The index of the `)` that closes the call opened just before `at`, or None where a string or a comment
    inside makes the text unsure."""
    depth, i, end = 1, at, min(len(data), at + _LONGEST_CALL)
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


def _expression(text: str) -> Optional[cst.Call]:
    try:
        expression = cst.parse_expression("f(\n" + text + "\n)")
    except Exception:  # noqa: BLE001 - a caller's text that does not parse hides its arguments
        return None
    return expression if isinstance(expression, cst.Call) else None


def assigned_elsewhere(checked: dict[str, str], read: Read, name: str, own: str, used: dict[str, str]) -> bool:
    """Does a file of the run other than `own` set the attribute `name` on an object not its own
    (`t.inner.net = t.inner.net.to(device)`, an entry script placing a member of the library's object)?"""
    run = _run_text(checked, read)
    memo = (name, own)
    if memo not in run.assigned:
        pattern = re.compile(rb"(?<![A-Za-z0-9_.])(?!self\b)[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
                             rb"\.[ \t]*" + re.escape(name.encode()) + rb"[ \t]*=(?!=)")
        setters = {path: _digest(run, path) for path in sorted(run.words.get(name.encode(), set()) - {own})
                   if pattern.search(run.texts[path])}
        run.assigned[memo] = setters
    setters = run.assigned[memo]
    used.update(setters)
    return bool(setters)


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

