"""Every rule has a URL, in one place (devlint.cli.docs.DOCS_URL), and the mkdocs site built from
rules/ has a page at each: JSON's `url`, SARIF's `helpUri` and the text output all point there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from devlint.cli.docs import CATALOGUE, DOCS_URL, rule_url
from tests.conftest import ROOT
from tests.test_cli import BUGGY, run


def test_the_site_has_a_page_at_every_rules_url(tmp_path: Path):
    site = tmp_path / "site"
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert (site / "index.html").is_file()
    for rule in CATALOGUE:
        url = rule_url(rule.code)
        assert url == f"{DOCS_URL}{rule.code}/"
        page = site / url[len(DOCS_URL):] / "index.html"
        assert page.is_file(), url
        assert rule.name in page.read_text(encoding="utf-8")
    assert rule_url("DEV999") is None


def test_outputs_link_to_the_site(tmp_path: Path):
    (tmp_path / "m.py").write_text(BUGGY)
    [finding] = json.loads(run("--no-cache", "--format", "json", "m.py", cwd=tmp_path).stdout)
    assert finding["url"] == f"{DOCS_URL}DEV101/"
    sarif = json.loads(run("--no-cache", "--format", "sarif", "m.py", cwd=tmp_path).stdout)
    helps = {r["id"]: r["helpUri"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert helps["DEV101"] == f"{DOCS_URL}DEV101/" and all(u.startswith(DOCS_URL) for u in helps.values())
    text = run("--no-cache", "m.py", cwd=tmp_path).stdout
    assert f"Rule docs: {DOCS_URL}DEV101/ (or `devlint rule CODE`)." in text
    colored = run("--no-cache", "--color", "always", "m.py", cwd=tmp_path).stdout
    assert f"\x1b]8;;{DOCS_URL}DEV101/\x1b\\" in colored  # a terminal hyperlink on the code
