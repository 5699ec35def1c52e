"""devlint.core.positions gives exactly what libcst's PositionProvider gives, for every node (it asks it)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from devlint.core.positions import Positions

ROOT = Path(__file__).resolve().parents[1]

SNIPPETS = {
    "crlf": "import torch\r\nx = torch.zeros(3)\r\nif x:\r\n    y = x.cuda()\r\n",
    "old mac line ends": "a = 1\rb = (a +\r  2)\r",
    "strings across lines": 's = """one\ntwo\r\nthree"""\nt = f"{s!r:>{10}}" \\\n    "tail"\n',
    "decorators and comments": "@d(1)\n# c\n@e\nclass A(B, metaclass=M):  # x\n\n    def f(self, *a, k=1, **kw) -> int:\n"
                               "        '''doc'''\n        return [i for i in a if i]  # y\n",
    "tabs and semicolons": "if a:\n\tb = 1; c = 2\n\tdel b\nelse:\n\tpass\n",
    "no trailing newline": "x = (1,\n     2)",
    "compound": "try:\n    with a as b, c:\n        async def f():\n            await g()\n"
                "except (E, F) as e:\n    raise\nfinally:\n    x: int = lambda q=1: q\n",
    "match": "match p:\n    case [1, *rest] if rest:\n        pass\n    case {'k': v, **kw}:\n        pass\n",
}


def _same(module: cst.Module) -> None:
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    mine = Positions(module)
    for node, code_range in expected.items():
        assert mine.get(node) == code_range, (type(node).__name__, code_range, mine.get(node))
    assert mine.get(cst.Name("elsewhere")) is None


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippets(name: str) -> None:
    _same(cst.parse_module(SNIPPETS[name]))


def test_real_files() -> None:
    files = sorted((ROOT / "devlint").rglob("*.py"))[:15] + sorted((ROOT / "fixtures").rglob("*.py"))[:15]
    assert files
    for path in files:
        _same(cst.parse_module(path.read_bytes()))


def test_a_node_of_another_tree_has_no_position() -> None:
    """Positions answer for their own tree's nodes only (a why-chain's node of another module is placed by its own)."""
    module = cst.parse_module("x = 1\n")
    other = cst.parse_module("x = 1\n")
    positions = Positions(module)
    assert positions.get(module.body[0]) is not None and positions.get(other.body[0]) is None

def _expressions(module: cst.Module) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Call, cst.BinaryOperation, cst.Subscript, cst.Attribute)):
            found.append(node)
        stack.extend(node.children)
    return found


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_a_node_found_by_its_text_is_where_positions_put_it(name: str, tmp_path: Path) -> None:
    """FileContext.line_column_in (another module's node, by its code in that file's text) agrees with the
    positions pass wherever it answers; it answers for every node whose first line is written once."""
    from devlint.static.file_context import FileContext

    files = [tmp_path / "snippet.py"] + sorted((ROOT / "fixtures" / "mixed").glob("*.py"))[:20]
    files[0].write_bytes(SNIPPETS[name].encode() + b"\nw = (x - (y + z)) * f(a)[0].b\n")
    for path in files:
        tree = cst.parse_module(path.read_bytes())
        text = path.read_bytes().decode("utf-8")
        here = FileContext(cst.parse_module("pass\n"), lambda: {str(path): tree})
        positions = Positions(tree)
        answered = 0
        for node in _expressions(tree):
            found = here.line_column_in(str(path), node)
            if text.count(tree.code_for_node(node).split("\n", 1)[0]) == 1:
                assert found is not None
            if found is not None:
                start = positions.get(node).start
                assert found == (start.line, start.column), (path, tree.code_for_node(node))
                answered += 1
        assert answered or not _expressions(tree)
