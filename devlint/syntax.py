"""Small helpers over libcst nodes, shared by the walk and the semantics handlers."""

from __future__ import annotations

from typing import Optional

import libcst as cst


def dotted(node: Optional[cst.CSTNode]) -> Optional[str]:
    """`a.b.c` for a chain of names, None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def attr_path(node: cst.CSTNode) -> str:
    """The dotted text of an import's module or name (`a.b.c`), "" for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{attr_path(node.value)}.{node.attr.value}"
    return ""


_OPERATORS = {
    "Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "FloorDivide": "//", "Modulo": "%",
    "Power": "**", "MatrixMultiply": "@", "BitAnd": "&", "BitOr": "|", "BitXor": "^", "LeftShift": "<<",
    "RightShift": ">>", "AddAssign": "+=", "SubtractAssign": "-=", "MultiplyAssign": "*=", "DivideAssign": "/=",
    "MatrixMultiplyAssign": "@=", "PowerAssign": "**=", "FloorDivideAssign": "//=", "ModuloAssign": "%=",
    "BitAndAssign": "&=", "BitOrAssign": "|=", "BitXorAssign": "^=", "LeftShiftAssign": "<<=",
    "RightShiftAssign": ">>=", "LessThan": "<", "GreaterThan": ">", "LessThanEqual": "<=",
    "GreaterThanEqual": ">=", "Equal": "==", "NotEqual": "!=",
}


def op_text(op: cst.CSTNode) -> str:
    """`+` for cst.Add, `+=` for cst.AddAssign."""
    return _OPERATORS.get(type(op).__name__, type(op).__name__)


class LazyCode(str):
    """A node's source, rendered on one line on first use: most operands are never reported."""

    def __new__(cls, module: cst.Module, node: cst.CSTNode) -> "LazyCode":
        obj = super().__new__(cls, "")
        obj._module, obj._node, obj._text = module, node, None
        return obj

    def render(self) -> str:
        if self._text is None:
            text = " ".join(self._module.code_for_node(self._node).split())
            self._text = text if len(text) <= 60 else text[:57] + "..."
        return self._text

    def __str__(self) -> str:
        return self.render()

    def __format__(self, spec: str) -> str:
        return format(self.render(), spec)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)
