"""What the parser cannot take, found before it is asked to.

libcst's native parser crashes the process on a few thousand nested brackets or
a 10,000-term chain, and takes time quadratic in how deep a statement nests. A
scan of the raw bytes (C-speed string operations, a few per cent of a parse)
bounds, for every statement, how deep it can nest and what it can cost to parse.
Only a file whose bound is high is looked at exactly, with CPython's own parser
(`ast`), and refused only when it really is too deep: valid code that Python
accepts up to limits.MAX_NESTING is parsed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from itertools import accumulate
from typing import Iterator, Optional

from devlint.core.limits import MAX_BRACKET_DEPTH, MAX_NESTING, MAX_PARSE_COST, NESTING_REASON

# String literals and comments, whose brackets and operators are not code. Each
# string form is an unrolled loop (no nested quantifier), so that an unterminated
# string costs one linear scan, never a backtracking blow-up.
_STRINGS_AND_COMMENTS = re.compile(
    rb"#[^\r\n]*"
    rb"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"
    rb'|"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""'
    rb"|'[^'\\\r\n]*(?:\\[\s\S][^'\\\r\n]*)*'"
    rb'|"[^"\\\r\n]*(?:\\[\s\S][^"\\\r\n]*)*"'
)
# Keywords that nest an expression one level each in libcst's tree (`for`: a comprehension's clauses).
_NESTING_KEYWORDS = re.compile(rb"\b(?:and|or|not|if|else|lambda|await|for)\b")
_OPEN, _CLOSE = b"([{", b")]}"
# What adds a level to libcst's tree: operators, attribute dots, brackets.
_NESTING_CHARS = b"+-*/%@&|^~<>.!" + _OPEN + _CLOSE
_BRACKETS_ONLY = bytes(range(256)).translate(None, _OPEN + _CLOSE)  # everything else, to delete
_DELTA = [0] * 256
for _char in _OPEN:
    _DELTA[_char] = 1
for _char in _CLOSE:
    _DELTA[_char] = -1
# Each nesting character becomes "+", brackets "(" and ")", and line ends stay.
_COMPACT_TABLE = bytes.maketrans(_NESTING_CHARS + b";", b"+" * 14 + b"(((" + b")))" + b"\n")
_COMPACT_DELETE = bytes(c for c in range(256) if c not in _NESTING_CHARS + b";\n")
# A bracket weighs more than an operator: libcst's parser backtracks at every open one.
_BRACKET_WEIGHT = 3


@dataclass(frozen=True)
class Refusal:
    """Why a file is not parsed: `syntax` when Python itself rejects it."""

    line: int
    message: str
    syntax: bool = False


def check_parsable(source: bytes) -> Optional[Refusal]:
    """None when libcst can be trusted with `source`; else why not.

    Call it where a deep recursion is safe (devlint.core.deep_stack): the exact check
    builds CPython's tree, which is as deep as the file.
    """
    skeleton = _STRINGS_AND_COMMENTS.sub(b" ", source)
    brackets = skeleton.translate(None, _BRACKETS_ONLY)
    if brackets and max(accumulate(map(_DELTA.__getitem__, brackets))) > MAX_BRACKET_DEPTH:
        return _exact(source)  # Python refuses it too, and names the line
    skeleton = _NESTING_KEYWORDS.sub(b"+", skeleton.replace(b"\\\r\n", b" ").replace(b"\\\n", b" "))
    if skeleton.count(b"elif") > MAX_NESTING:
        return _exact(source)  # an elif ladder nests one level per branch
    compact = skeleton.translate(_COMPACT_TABLE, _COMPACT_DELETE)
    if len(compact) <= MAX_NESTING:
        return None  # no statement can nest deeper than the file has operators (nor cost more than ~2 s)
    worst, cost = _statement_bounds(compact)
    if worst <= MAX_NESTING and cost <= MAX_PARSE_COST:
        return None
    return _exact(source)


def _statement_bounds(compact: bytes) -> tuple[int, int]:
    """(the heaviest statement's weight, the sum of squared weights): upper bounds of depth and cost."""
    worst = cost = weight = depth = 0
    for line in compact.split(b"\n"):
        if not line:
            if depth <= 0 and weight:
                worst, cost, weight = max(worst, weight), cost + weight * weight, 0
            continue
        opens = line.count(b"(")
        depth += opens - line.count(b")")
        weight += len(line) + (_BRACKET_WEIGHT - 1) * opens
        if depth <= 0:
            worst, cost, weight, depth = max(worst, weight), cost + weight * weight, 0, 0
    return max(worst, weight), cost + weight * weight


def _exact(source: bytes) -> Optional[Refusal]:
    """CPython's parser decides: its syntax errors, and the real depth of each statement."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return Refusal(exc.lineno or 1, exc.msg, syntax=True)
    except (RecursionError, MemoryError) as exc:
        return Refusal(1, f"nested too deeply for Python's own parser ({type(exc).__name__}); "
                          f"devlint analyses files up to {MAX_NESTING:,} levels deep")
    except ValueError:  # null bytes: libcst will say it properly
        return None
    cost = 0
    for statement, depth, weight, culprit in _statement_depths(tree):
        if depth > MAX_NESTING:
            return Refusal(getattr(culprit, "lineno", statement.lineno),
                           f"{_describe(culprit)} nests {depth:,} levels deep; devlint analyses up to "
                           f"{MAX_NESTING:,} ({NESTING_REASON})")
        cost += weight * weight
    if cost > MAX_PARSE_COST:
        return Refusal(1, f"too deeply nested as a whole to parse in reasonable time (the squared depths of its "
                          f"statements add up to {cost:,}; devlint's limit is {MAX_PARSE_COST:,})")
    return None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_BRACKETED = (ast.Call, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Subscript, *_COMPREHENSIONS)


def _statement_depths(tree: ast.AST) -> Iterator[tuple[ast.stmt, int, int, ast.AST]]:
    """(statement, depth, cost, head of its longest chain) for each statement, its header only.

    The depth is libcst's: a BoolOp of N values, a comprehension of N `for` clauses are
    N-1 levels there, each `elif` one more level of its `if`. The cost counts a bracket
    as _BRACKET_WEIGHT levels.
    """
    elifs: set[int] = set()  # the `if` of an `elif`: counted in its ladder's head (ast.walk visits it first)
    culprit: ast.AST
    for statement in ast.walk(tree):
        if not isinstance(statement, ast.stmt):
            continue
        deepest, heaviest, longest, culprit = 0, 0, 0, statement
        stack = [(child, 1, 1, child, 1) for child in _header_children(statement)]
        while stack:
            node, depth, weight, head, run = stack.pop()
            if isinstance(node, _LEAVES):
                continue
            if isinstance(node, (ast.BoolOp, *_COMPREHENSIONS)):
                extra = len(node.values if isinstance(node, ast.BoolOp) else node.generators) - 1
                depth, weight, run = depth + extra, weight + extra, run + extra
            if isinstance(node, _BRACKETED):
                weight += _BRACKET_WEIGHT - 1
            deepest, heaviest = max(deepest, depth), max(heaviest, weight)
            if run > longest:
                longest, culprit = run, head
            for child in ast.iter_child_nodes(node):
                same = type(child) is type(node)
                stack.append((child, depth + 1, weight + 1, head if same else child, run + 1 if same else 1))
        ladder = 0
        if isinstance(statement, ast.If) and id(statement) not in elifs:
            node = statement
            while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                ladder, node = ladder + 1, node.orelse[0]
                elifs.add(id(node))
            if ladder > longest:
                culprit = statement
        yield statement, deepest + ladder, heaviest + ladder, culprit


_LEAVES = (ast.stmt, ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)


def _header_children(statement: ast.stmt) -> list[ast.AST]:
    return [c for c in ast.iter_child_nodes(statement) if not isinstance(c, ast.stmt)]


def _describe(node: ast.AST) -> str:
    names = {ast.BinOp: "a chain of binary operators", ast.Attribute: "a chain of attribute accesses",
             ast.Call: "a chain of calls", ast.Subscript: "a chain of subscripts", ast.BoolOp: "an and/or chain",
             ast.UnaryOp: "a chain of unary operators", ast.IfExp: "a chain of conditional expressions",
             ast.Lambda: "a chain of lambdas", ast.Compare: "a comparison chain", ast.If: "an if/elif ladder",
             ast.ListComp: "a comprehension's chain of `for` clauses"}
    return names.get(type(node), f"a nested {type(node).__name__}")
