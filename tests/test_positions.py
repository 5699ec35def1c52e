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