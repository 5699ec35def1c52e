"""Every rule's embedded examples are tests: INVALID ones are reported exactly on
their `# expect:` lines, VALID ones are clean under the default rules and their own."""

from __future__ import annotations

import pytest

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
