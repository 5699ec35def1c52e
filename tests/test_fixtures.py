"""devlint over every fixture: each `# expect: CODE` line is reported, nothing else is.

`fixtures/silent_cost/` is checked with every rule (DEV5xx is off by default);
the other folders with the default rules, as a user runs devlint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, expected_findings
from tests.lint_helpers import lint

# fixtures/gaps holds shapes of real bug reports (docs/bug-patterns.md) that the static
# analysis does not catch: their `# expect:` lines say what it should report one day.
# The runtime fixture test runs them (it catches most), so they are not dead weight.
NOT_YET = (ROOT / "fixtures" / "gaps",)
FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*.py") if not any(p.is_relative_to(d) for d in NOT_YET))


def _codes_for(path: Path):
    return ["DEV"] if "silent_cost" in path.parts else None


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_fixture(path: Path):
    source = path.read_text(encoding="utf-8")
    expected = expected_findings(source)
    findings = lint(source, _codes_for(path), path=str(path))
    got = {(f.line, f.code) for f in findings}
    missing = sorted(expected - got)
    unexpected = sorted(got - expected)
    details = "\n".join(f"  {f.line}: {f.code} {f.message}" for f in findings if (f.line, f.code) in unexpected)
    assert not missing and not unexpected, f"missing {missing}; unexpected {unexpected}\n{details}"


def test_enough_fixtures():
    single = [p for p in FIXTURES if "projects" not in p.relative_to(ROOT / "fixtures").parts]
    bad = [p for p in single if p.name.startswith("bad_")]
    ok = [p for p in single if p.name.startswith("ok_")]
    assert len(single) >= 40 and len(ok) * 2 >= len(single) - 2, (len(bad), len(ok))


def test_every_project_fixture_has_a_fixed_twin():
    """fixtures/projects/NAME/{bad,ok}: a package with bugs that cross modules, and the same package fixed."""
    projects = sorted(p for p in (ROOT / "fixtures" / "projects").iterdir() if p.is_dir())
    assert len(projects) >= 4
    for project in projects:
        bad = sorted(p.relative_to(project / "bad") for p in (project / "bad").rglob("*.py"))
        ok = sorted(p.relative_to(project / "ok") for p in (project / "ok").rglob("*.py"))
        assert bad == ok, project.name
        assert any(expected_findings(p.read_text()) for p in (project / "bad").rglob("*.py")), project.name
        assert not any(expected_findings(p.read_text()) for p in (project / "ok").rglob("*.py")), project.name


def test_every_finding_says_why():
    for path in FIXTURES:
        for finding in lint(path.read_text(encoding="utf-8"), _codes_for(path), path=str(path)):
            if finding.code in ("DEV101", "DEV102", "DEV104", "DEV105", "DEV401"):
                assert finding.why, f"{path}:{finding.line} {finding.code} has no why"
                assert any("line " in w for w in finding.why)
