"""A file's bytes as text, as Python reads them: UTF-8 (a BOM allowed), else the encoding its first
two lines declare. Kept apart from the engine so that the report can show source lines without a parser."""

from __future__ import annotations

import re
from typing import Optional

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def declared_encoding(source: bytes) -> Optional[str]:
    for line in source.splitlines()[:2]:
        match = _CODING.match(line)
        if match:
            return match.group(1).decode("ascii")
    return None


def decode(source: bytes) -> tuple[str, str]:
    """(encoding, text), as the engine decodes files; the BOM is kept as part of the encoding."""
    if source.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig", source.decode("utf-8-sig")
    try:
        return "utf-8", source.decode("utf-8")
    except UnicodeDecodeError:
        encoding = declared_encoding(source) or "utf-8"
        return encoding, source.decode(encoding)
