"""devlint.static.syntax: the trusted parse and the cached string literals."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from devlint.static.syntax import children, parse_module, string_value

ROOT = Path(__file__).resolve().parents[1]


def test_parse_module_builds_the_tree_libcst_builds() -> None:
    for path in sorted((ROOT / "devlint" / "analysis").glob("*.py")):
        source = path.read_bytes()
        assert parse_module(source).deep_equals(cst.parse_module(source)), path


def test_validation_is_back_after_the_parse_even_a_failed_one() -> None:
    parse_module(b"x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    with pytest.raises(cst.ParserSyntaxError):
        parse_module(b"def (:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


@pytest.mark.parametrize("literal, value", [
    ('"cuda"', "cuda"), ("'cuda:0'", "cuda:0"), ('r"\\d"', "\\d"), ("b'x'", b"x"), ('"""a\nb"""', "a\nb"),
    ('"\\t"', "\t"), ("u'é'", "é"), ('""', ""), ("\'\'\'\'\'\'", ""), ("'a\"'", 'a"'), ('"""a\r\nb"""', "a\nb"),
    ("R'x'", "x"), ("rb'\\d'", b"\\d"),
])
def test_string_value(literal: str, value: object) -> None:
    node = cst.parse_expression(literal)
    assert string_value(node) == value
    assert string_value(node) == value  # the second answer comes from the cache


def test_string_value_of_a_literal_python_rejects() -> None:
    node = cst.SimpleString('"\\N{NO SUCH NAME}"')
    with pytest.raises(ValueError):
        string_value(node)
    with pytest.raises(ValueError):
        string_value(node)  # cached as rejected


def test_children_skip_whitespace_but_keep_every_expression() -> None:
    call = cst.parse_expression("f( a , *b, k = c )")
    kinds = [type(child).__name__ for child in children(call)]
    assert kinds == ["Name", "Arg", "Arg", "Arg"]
    assert not any("Whitespace" in type(child).__name__ for arg in children(call)[1:] for child in children(arg))
