"""Where tensors got their devices: the user's frames, and each tensor's story.

A frame belongs to the user unless it is library code: torch, devlint, the
standard library, anything installed in site-packages (numpy, click, pytest...).
What a frame is gets decided once per file. Tensors' stories are kept as raw
(code, line) pairs and turned into `Site`s only when a problem is reported, so
that recording one costs a tuple, not a path computation.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any, Optional


@dataclass(frozen=True)
class Site:
    """A line of the user's code."""

    filename: str
    line: int
    function: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"


@dataclass(frozen=True)
class Origin:
    """How a tensor got to its device: the call that created or moved it, and where."""

    where: Optional[tuple]  # (code, line) of the user's frame, made into a Site on demand
    how: str  # "torch.zeros without device=", ".to(cuda:0)", "a module parameter, created on the cpu"
    default: bool = False  # made on the default device, no device asked for: known even inside backward

    @property
    def site(self) -> Optional[Site]:
        return site_of(self.where)

    def __str__(self) -> str:
        site = self.site
        return f"{site or 'an unknown place'} ({self.how})"


def _library_dirs() -> tuple:
    import torch

    paths = sysconfig.get_paths()
    dirs = {os.path.dirname(torch.__file__), os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
            paths["stdlib"], paths["platstdlib"], paths["purelib"], paths["platlib"],
            os.path.dirname(os.__file__)}
    return tuple(sorted(os.path.join(d, "") for d in dirs if d))


_LIBRARY_DIRS = _library_dirs()
_INSTALLED = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


class _LibraryFiles(dict):
    """filename -> whether it is library code, decided on first sight (a subscript: the hot path's test)."""

    def __missing__(self, filename: str) -> bool:
        if filename.startswith("<"):  # <frozen runpy>, <string> (a spawned child's entry): not the user's
            known = not filename.startswith(("<stdin>", "<ipython-input"))
        else:
            known = filename.startswith(_LIBRARY_DIRS) or any(part in filename for part in _INSTALLED)
        self[filename] = known
        return known


_library_files = _LibraryFiles()


def is_library(filename: str) -> bool:
    """torch, devlint, the standard library, installed packages: code that is not the user's."""
    return _library_files[filename]


_displayed: dict = {}


def display(filename: str) -> str:
    """A path as the user would write it: relative to the working directory when inside it."""
    shown = _displayed.get(filename)
    if shown is None:
        try:
            relative = os.path.relpath(filename)
            shown = relative if not relative.startswith("..") else filename
        except ValueError:
            shown = filename
        _displayed[filename] = shown
    return shown


def _user_frame(frame: Optional[FrameType]) -> Optional[FrameType]:
    library = _library_files
    while frame is not None and library[frame.f_code.co_filename]:
        frame = frame.f_back
    return frame


_OWN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
_last_walk: list = [(None, None)]  # (library frame, the user's (code, line) above it): the last walk
_sites: dict = {}  # id(code) ^ (instruction offset << 48) -> (code, line): one tuple per call site
_MAX_SITES = 1 << 16


def _site(frame: FrameType) -> tuple:
    """(code, line) of a frame stopped at a call. `f_lineno` scans the code's line table from its start
    (microseconds at the end of a long script), so each call site's line is computed once."""
    code = frame.f_code
    key = id(code) ^ (frame.f_lasti << 48)
    site = _sites.get(key)
    if site is None or site[0] is not code:  # new, or another code object under the same key
        if len(_sites) >= _MAX_SITES:
            _sites.clear()  # code made at run time (exec, generated functions) must not grow it forever
        site = _sites[key] = (code, frame.f_lineno)
    return site


def where_of(frame: FrameType) -> Optional[tuple]:
    """(code, line) of the first user frame at or above `frame`: cheap enough to take on every operation.

    A torch call made from library code (a module's forward, gradcheck...) walks up to the user's
    frame; while that library frame runs, the answer cannot change, so the last walk is kept
    (holding the frame itself: a frame's id could be reused, the frame cannot).
    """
    library = _library_files
    if not library[frame.f_code.co_filename]:
        return _site(frame)
    last = _last_walk[0]
    if last[0] is frame:
        return last[1]
    user = _user_frame(frame.f_back)
    where = _site(user) if user is not None else None
    _last_walk[0] = (frame, where)
    return where


def user_where(depth: int = 2) -> Optional[tuple]:
    """(code, line) of the first user frame above the caller (devlint's own frames skipped)."""
    frame: Optional[FrameType] = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename.startswith(_OWN_DIR):
        frame = frame.f_back  # devlint's own frames: the checker's dispatch
    return where_of(frame) if frame is not None else None


def site_of(where: Optional[tuple]) -> Optional[Site]:
    if where is None:
        return None
    code, line = where
    return Site(display(code.co_filename), line, code.co_name)


def user_stack(limit: int = 3, depth: int = 2) -> list:
    """The user's frames, innermost first: where a failing operation sits and who called it."""
    frame, sites = _user_frame(sys._getframe(depth)), []
    while frame is not None and len(sites) < limit:
        code: CodeType = frame.f_code
        sites.append(Site(display(code.co_filename), frame.f_lineno, code.co_name))
        if code.co_name == "<module>":
            break  # the script's top level: nothing above it is the user's
        frame = _user_frame(frame.f_back)
    return sites


def called_from_user(depth: int = 2) -> bool:
    """Whether the caller's caller is user code (a clock read by torch or a library does not count)."""
    return not is_library(sys._getframe(depth).f_code.co_filename)


def describe_stack(sites: list) -> str:
    if not sites:
        return ""
    head = f"\n  at {sites[0]}" + (f" in {sites[0].function}()" if sites[0].function != "<module>" else "")
    return head + "".join(f", called from {s}" for s in sites[1:])


def story(record: Any, base_record: Any = None) -> str:
    """Where a tensor was computed and where its device was decided, for a mismatch message."""
    origin = record.origin if record is not None else None
    if origin is None and base_record is not None:
        origin = base_record.origin  # a view: its base's story
    made, before = (record.made if record is not None and record.made else (None, None))
    made_site, before_site = site_of(made), site_of(before)
    where = f"{made_site} (from {before_site})" if made_site and before_site else str(made_site)
    if origin is None:
        return f"{where} (its device was set outside the checked code)" if made_site else \
            "an unknown place (created outside the checked code)"
    if made_site is not None and made_site != origin.site:
        return f"{where}, on that device since {origin}"
    return str(origin)


def story_sites(record: Any) -> list:
    """The user's lines in a tensor's story (to match static findings against)."""
    if record is None:
        return []
    wheres = [*(record.made or ()), record.origin.where if record.origin else None]
    return [site for site in map(site_of, wheres) if site is not None]
