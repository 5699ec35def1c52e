"""Every rule's embedded examples are tests: INVALID ones are reported exactly on
their `# expect:` lines, VALID ones are clean under the default rules and their own,
and a fixable INVALID one becomes its FIXED code. Rules are found by discovery."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from devlint.static import rules as rules_package
from devlint.static.engine import check_source
from devlint.static.fixes.run import fix_file
from devlint.static.rules import ALL_RULES
from tests.conftest import expected_findings
from tests.lint_helpers import found

INVALID = [pytest.param(rule, i, id=f"{rule.code}-invalid-{i}") for rule in ALL_RULES for i in range(len(rule.INVALID))]
VALID = [pytest.param(rule, i, id=f"{rule.code}-valid-{i}") for rule in ALL_RULES for i in range(len(rule.VALID))]


@pytest.mark.parametrize("rule,index", INVALID)
def test_invalid_example_is_reported(rule, index):
    source = rule.INVALID[index]
    expected = {(line, code) for line, code in expected_findings(source) if code == rule.code}
    assert expected, "an invalid example must mark the line it is reported on"
    assert {(line, code) for line, code in found(source, [rule.code])} == expected


@pytest.mark.parametrize("rule,index", VALID)
def test_valid_example_is_clean(rule, index):
    defaults = [r.code for r in ALL_RULES if r.default_enabled]
    assert found(rule.VALID[index], defaults + [rule.code]) == set()


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_rule_is_documented(rule):
    doc = rule.documentation()
    assert rule.summary().endswith(".")
    assert "## What it does" in doc and "## Why is this bad?" in doc
    assert rule.INVALID and rule.VALID
    assert rule.code.startswith("DEV") and rule.name == rule.name.lower()


def test_codes_are_unique():
    codes = [r.code for r in ALL_RULES]
    names = [r.name for r in ALL_RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)


@pytest.mark.parametrize("rule,index", INVALID)
def test_fixed_example_is_what_the_fix_makes(rule, index):
    """A fixable example shows its fixed code in FIXED; the fix makes exactly that, and the rule is then quiet."""
    source = rule.INVALID[index].encode("utf-8")
    documented = rule.FIXED[index] if index < len(rule.FIXED) else None
    before = check_source(source, "example.py", [rule()])
    if not any(f.edits for f in before):
        assert documented is None, "FIXED shows a fix for an example that no fix applies to"
        return
    assert documented is not None, f"{rule.code}.INVALID[{index}] is fixable: show its fixed code in FIXED"
    result = fix_file("example.py", source, before, lambda data: check_source(data, "example.py", [rule()]), True)
    assert result.error is None and result.changed
    fixed = result.after.decode("utf-8")
    ast.parse(fixed)
    assert _without_markers(fixed) == documented
    assert not [f for f in result.remaining if f.code == rule.code], "the rule still reports the fixed code"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_fixed_examples_match_invalid_ones(rule):
    assert len(rule.FIXED) <= len(rule.INVALID)
    for fixed in rule.FIXED:
        assert fixed is None or ("# expect:" not in fixed and fixed.endswith("\n"))


def _without_markers(text: str) -> str:
    return "".join(re.sub(r"\s*# expect:.*$", "", line) + "\n" for line in text.splitlines())


def test_every_rule_module_is_discovered():
    folder = Path(rules_package.__file__).parent
    files = sorted(p.stem for p in folder.glob("dev[0-9][0-9][0-9]_*.py"))
    assert rules_package.rule_modules() == files and len(files) == len(ALL_RULES)
    for name in files:
        (rule,) = rules_package.rules_of(name)  # one rule class per module
        assert rule in ALL_RULES and name.startswith(rule.code.lower() + "_"), name
    assert [r.code for r in ALL_RULES] == sorted(r.code for r in ALL_RULES)


def test_a_rule_module_dropped_into_the_package_is_found(tmp_path, monkeypatch):
    (tmp_path / "dev999_probe.py").write_text(
        "from devlint.static.rules.base import Rule\n\n\n"
        "class Probe(Rule):\n    code = 'DEV999'\n    name = 'probe'\n", encoding="utf-8")
    (tmp_path / "helpers_not_a_rule.py").write_text("from devlint.static.rules.base import Rule\n", encoding="utf-8")
    monkeypatch.setattr(rules_package, "__path__", [*rules_package.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "devlint.static.rules.dev999_probe", raising=False)
    found = rules_package.discover()
    assert [r.code for r in found] == [r.code for r in ALL_RULES] + ["DEV999"]
    assert found[-1].__name__ == "Probe" and "helpers_not_a_rule" not in rules_package.rule_modules()
    sys.modules.pop("devlint.static.rules.dev999_probe", None)
