"""The analysis in progress: which functions are being walked, and where the walk is in them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from devlint.core.facts import Context

if TYPE_CHECKING:
    from pathlib import Path

    import libcst as cst

    from devlint.core.values import Value
    from devlint.static.analysis.state import LoopFrame, Returned


class Frames:
    """Where the walk is: the functions being analysed (a stack of calls), the loops and branches it is in,
    the module whose top level it walks. Everything here is saved on entering a frame and restored on
    leaving it, by its owners:

    - `functions.open_frame` / `close_frame` (entering and leaving a function): `stack`, `returns`,
      `context`, `current_function`, `loops`, `if_depth` (reset inside), `constructing`;
    - `statements.py` (the walk of one body): the current `loops` and `if_depth`, what `returns[-1]`
      collects (`expressions.py` too: a `yield`), and `globals` while it walks a module's top level;
    - `imports._walk_module` (another module's top level, walked for an import): `globals`, `importing`,
      and the rest saved and restored around it; `Interpreter.run` sets `globals` to the module's end.
    """

    def __init__(self) -> None:
        self.stack: list[int] = []  # id() of the functions (and lambdas) being analysed, the innermost last
        self.returns: list[list[Returned]] = []  # one list of Returned per function being analysed
        self.context = Context()  # the function being analysed and its callers, as the facts tell it
        self.current_function: Optional[cst.FunctionDef] = None
        self.loops: list[LoopFrame] = []  # the loops around the walk, in the current function
        self.if_depth = 0  # the branches around the walk, in the current function
        self.constructing = 0  # `__init__`s being analysed (and the helpers they call)
        self.globals: dict[str, Value] = {}  # the module-level names of the module being walked
        self.importing: Optional[Path] = None  # the file of the project module whose top level is being walked
