"""A rule's `supersedes` drops another rule's report on the same node: the engine reads it from the rules."""

from __future__ import annotations

from devlint.core.facts import Operation
from devlint.static.engine import check_source
from devlint.static.rules import ALL_RULES, RULES_BY_CODE
from devlint.static.rules.base import Rule, Verdict
from tests.lint_helpers import found

MIX = "import torch\nx = torch.ones(3).to('cuda')\ny = x + torch.zeros(3)\n"


class _Broad(Rule):
    code, name, facts = "DEV998", "broad", (Operation,)

    def check(self, fact):
        yield Verdict(fact.node, "broad story")


class _Specific(Rule):
    code, name, facts = "DEV999", "specific", (Operation,)
    supersedes = ("DEV998",)

    def check(self, fact):
        yield Verdict(fact.node, "specific story")


class _Unrelated(_Specific):
    code, name, supersedes = "DEV997", "unrelated", ()


def _codes(*rules: type[Rule]) -> list[str]:
    return [f.code for f in check_source(MIX.encode(), "mix.py", [r() for r in rules])]


def test_a_rule_declaring_supersedes_drops_the_other_report_on_the_same_node():
    assert _codes(_Broad, _Specific) == ["DEV999"]
    assert _codes(_Specific, _Broad) == ["DEV999"]  # whatever order the rules come in


def test_without_the_declaration_both_reports_stand():
    assert sorted(_codes(_Broad, _Unrelated)) == ["DEV997", "DEV998"]
    assert _codes(_Broad) == ["DEV998"]


def test_declared_codes_are_real_rules_and_never_the_rule_itself():
    for rule in ALL_RULES:
        assert isinstance(rule.supersedes, tuple)
        for code in rule.supersedes:
            assert code in RULES_BY_CODE and code != rule.code, (rule.code, code)
            assert rule.code not in RULES_BY_CODE[code].supersedes, "two rules may not supersede each other"


def test_module_in_plain_container_supersedes_the_module_input_report():
    source = """import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = [nn.Linear(3, 3)]
    def forward(self, x):
        return self.heads[0](x)
net = Net().to("cuda")
net(torch.ones(3).to("cuda"))
"""
    assert found(source, ["DEV102"]) == {(8, "DEV102")}
    assert found(source, ["DEV102", "DEV107"]) == {(8, "DEV107")}
