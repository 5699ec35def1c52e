"""The walk: a flow-sensitive abstract interpreter that infers on which device every value lives.

It knows Python (statements, expressions, scopes, functions, classes, guards);
what library calls do to devices it asks of devlint.static.semantics.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from devlint.static.analysis.project_imports import ProjectImports
from devlint.static.analysis.interpreter import Interpreter


def analyse(module: cst.Module, emit: Callable[[object], None], project: Optional[ProjectImports] = None) -> None:
    """Interpret `module`, sending each fact it observes to `emit`; `project`: its imports of the project."""
    Interpreter(module, emit, project).run()


__all__ = ["Interpreter", "ProjectImports", "analyse"]
