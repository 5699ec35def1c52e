"""The rule catalogue, found by discovery: every `devNNN_*.py` module of this package holds one rule
class. Adding a rule: write its module (and run `devlint docs rules` for its page) and add its line to
devlint/static/rule_index.py (tests/test_rule_index.py prints it), nothing else."""

from __future__ import annotations

import importlib
import pkgutil
import re

from devlint.static.rules.base import Verdict, Rule

RULE_MODULE = re.compile(r"dev\d{3}_\w+")


def rule_modules() -> list[str]:
    """The names of this package's rule modules, `dev101_mixed_devices` ..."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if RULE_MODULE.fullmatch(info.name))


def rules_of(module_name: str) -> list[type[Rule]]:
    """The Rule classes a rule module defines (not those it imports from another one)."""
    module = importlib.import_module(f"{__name__}.{module_name}")
    return [obj for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, Rule) and obj.__module__ == module.__name__]


def discover() -> list[type[Rule]]:
    """Every rule of the package's rule modules, by code."""
    return sorted((rule for name in rule_modules() for rule in rules_of(name)), key=lambda rule: rule.code)


ALL_RULES: list[type[Rule]] = discover()
RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Verdict", "Rule"]
