"""How much work devlint spends on one file, and what it says when a file asks for more.

Every limit is a constant here, so that the parser guard (devlint.static.prescan), the
engine and the analysis agree on them. A file past a limit is never a crash or a
hang: it gets one DEV005 finding that says which limit and why, and the findings
already made are kept.
"""

from __future__ import annotations

import sys

# Files larger than this are not parsed: libcst needs about 300-600 bytes of memory
# per byte of dense code (a 1.4 MB file takes 0.8 GB). `max-file-size` in
# [tool.devlint] overrides it.
DEFAULT_MAX_FILE_SIZE = 3 * 1024 * 1024
# A notebook's JSON carries its outputs (images, tables): it may be this many times
# larger; its code, as one program, is held to max-file-size.
NOTEBOOK_SIZE_FACTOR = 8

# Python's own tokenizer refuses more than 200 nested brackets ("too many nested
# parentheses"); libcst's parser segfaults near 2,000 and takes seconds per nest
# long before that.
MAX_BRACKET_DEPTH = 200

# How deep one expression or statement may nest (an `a + b + ...` chain of N terms,
# `a.b.c...`, `f()()...`, an `elif` ladder of N branches: N levels). Python 3.9 to 3.12
# compile a left-nested chain up to about 2,500 levels; libcst parses it in time
# quadratic in its length (3,000 terms: several seconds, 10,000: minutes) and needs a
# stack that deep. On Python 3.12 alone, libcst's code generation (positions of
# findings) recurses through C and meets the interpreter's fixed C recursion limit
# near 740 levels.
if (3, 12) <= sys.version_info < (3, 13):
    MAX_NESTING = 700
    NESTING_REASON = "Python 3.12's fixed C recursion limit stops libcst's code generation near 740"
else:
    MAX_NESTING = 3_000
    NESTING_REASON = "its parser, libcst, takes time quadratic in the depth"

# An upper bound on what parsing one file may cost, in squared nesting levels summed
# over its statements (libcst's time on a nested statement grows with the square of
# its depth: 0.2 to 1 microsecond per unit, so 5e6 is at most about 5 s). Real files
# stay far below: the heaviest in torch (common_methods_invocations.py) costs 3.4e5.
MAX_PARSE_COST = 5_000_000

# A backstop in time for whatever the step count misses: the analysis of one file is
# interrupted after this many seconds of its thread's CPU time (the findings made so
# far are kept). CPU, not wall, time: a loaded machine must not change the findings.
MAX_ANALYSIS_SECONDS = 60.0

# A worker process still on one file after this many wall seconds (a native hang: the
# parse is bounded by MAX_PARSE_COST, the analysis by MAX_ANALYSIS_SECONDS) is stopped;
# the file is reported, the others are checked.
MAX_FILE_SECONDS = 600.0

# Parsing and analysing a file recurses as deep as the file nests: both run on a
# thread with this much stack (reserved, not committed) and this recursion limit.
DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 60_000


_SIZE_UNITS = {"": 1, "B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3}


def parse_size(value: object) -> int:
    """Bytes from 3000000, "3MB" or "3 MiB" (ValueError for anything else)."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str):
        number = value.strip().upper().rstrip("BIKMG ")
        unit = value.strip().upper()[len(number):].strip()
        if unit in _SIZE_UNITS and number.replace(".", "", 1).isdigit() and float(number) > 0:
            return int(float(number) * _SIZE_UNITS[unit])
    raise ValueError(f'must be a positive number of bytes (like 3000000, "3MB" or "3MiB"), not {value!r}')


class AnalysisBudgetExceeded(BaseException):
    """Raised from inside the analysis when a file has used up its work budget.

    A BaseException, like KeyboardInterrupt, so that no `except Exception` in the
    analysis swallows it; the engine catches it, keeps the findings made so far and
    adds one "too complex to analyse, partially checked" finding.
    """

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason

