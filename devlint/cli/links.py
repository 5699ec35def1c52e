"""Where each rule's page lives on the documentation site (outputs link to it without loading the rules)."""

from __future__ import annotations

from typing import Optional

from devlint.core.findings import FILE_ERRORS
from devlint.static.rule_index import INDEX_BY_CODE

# The documentation site: mkdocs.yml (at the top of the repository) builds rules/ (written by
# `devlint docs --out rules`) into it, one page per rule at DOCS_URL + "DEV101/".
DOCS_URL = "https://devlint.readthedocs.io/en/latest/"


def rule_url(code: str) -> Optional[str]:
    """The rule's page on the documentation site, or None for a code that names no rule. The one
    place that says where the pages live: JSON's `url`, SARIF's `helpUri`, the text output and the
    language server's `codeDescription` all come from here."""
    return f"{DOCS_URL}{code}/" if code in INDEX_BY_CODE or code in FILE_ERRORS else None
