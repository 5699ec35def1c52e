"""The output formats, on known findings; colors, statistics, quiet, and the progress bar."""

from __future__ import annotations

import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

from devlint.cli.docs import CATALOGUE
from devlint.core.findings import SAFE, UNSAFE, Edit, Finding
from devlint.cli.lint_run import use_color
from devlint.cli.output import FORMATS, Report, render_statistics
from devlint.cli.progress import Progress, wanted
from devlint.static.rules import ALL_RULES
from tests.test_cli import BUGGY, run

FINDINGS = [
    Finding(code="DEV301", severity="warning", path="bench/run.py", line=9, column=5, end_line=9, end_column=20,
            message="`time.time()` is read while GPU work may still be queued",
            why=("the measurement starts at line 7 `time.time()`", "GPU work at line 8 `model(x)`, 50%"),
            places=((("", 7, None),), (("", 8, None),)), name="unsynchronized-timing", edits=(Edit(9, 1, 9, 1, "torch.cuda.synchronize()\n"),),
            applicability=UNSAFE),
    Finding(code="DEV101", severity="error", path="train.py", line=3, column=5, end_line=3, end_column=10,
            message="`+` combines cpu and cuda", why=("`x` is on cpu: line 1 `x = torch.ones(3)`",
                                                     "`y` is on cuda: line 2 `y = x.cuda()`"),
            places=((("", 1, None),), (("", 2, None),)), name="mixed-devices", fix="move one operand"),
    Finding(code="DEV401", severity="error", path="train.py", line=4, column=1, end_line=4, end_column=10,
            message="`.numpy()` on cuda", name="host-conversion", fix="bring it to the host first",
            edits=(Edit(4, 2, 4, 2, ".detach().cpu()"),), applicability=SAFE),
    Finding(code="DEV001", severity="error", path="broken.py", line=2, column=7, end_line=2, end_column=7,
            message="syntax error: invalid syntax", name="syntax-error"),
]
SOURCE = {"train.py": ["x = torch.ones(3)", "y = x.cuda()", "z = x + y", "a.numpy()"]}


def report(findings=FINDINGS, **options) -> Report:
    options.setdefault("files_checked", 3)
    options.setdefault("rules", ALL_RULES)
    return Report(findings, source_line=lambda f, line: (SOURCE.get(f.path) or [None] * 99)[line - 1], **options)


def render(fmt: str, findings=FINDINGS, **options) -> str:
    return FORMATS[fmt](report(findings, **options))


def test_full_has_a_code_frame_with_a_caret_the_why_and_fixable_marks():
    lines = render("full").splitlines()
    head = lines.index("train.py:3:5: DEV101 `+` combines cpu and cuda")
    assert lines[head + 1:head + 4] == ["  |", "3 | z = x + y", "  |     ^^^^^"]
    assert "    `x` is on cpu: line 1 `x = torch.ones(3)`" in lines and "    fix: move one operand" in lines
    assert "train.py:4:1: DEV401 [*] `.numpy()` on cuda" in lines  # safe: fixable with --fix
    assert "bench/run.py:9:5: DEV301 `time.time()` is read while GPU work may still be queued" in lines
    assert "Found 4 problems (3 errors, 1 warning) in 3 of 3 files." in lines
    assert "[*] 1 fixable with `--fix` (1 more with `--unsafe-fixes`)." in lines
    assert "bench/run.py:9:5: DEV301 [*]" in render("full", unsafe_fixes=True)


def test_concise_is_one_line_each_and_quiet_drops_the_summary():
    lines = render("concise").splitlines()
    assert lines[:4] == [
        "bench/run.py:9:5: DEV301 `time.time()` is read while GPU work may still be queued",
        "broken.py:2:7: DEV001 syntax error: invalid syntax",
        "train.py:3:5: DEV101 `+` combines cpu and cuda",
        "train.py:4:1: DEV401 [*] `.numpy()` on cuda",
    ]
    assert render("concise", quiet=True).splitlines() == lines[:4]
    assert render("full", [], quiet=True) == ""
    assert render("full", [], files_checked=1).strip() == "All checked: 1 file, no problems."


def test_show_fixes_previews_each_fix():
    out = render("full", show_fixes=True)
    assert "    safe fix:" in out and "      - a.numpy()" in out and "      + a.detach().cpu().numpy()" in out


def test_colors():
    plain, colored = render("full"), render("full", color=True)
    assert "\x1b[" not in plain and "\x1b[31m" in colored  # errors in red
    assert "\x1b]8;;https://" in colored and "/DEV101/\x1b\\" in colored  # the code links to its page
    env = dict(os.environ)
    try:
        os.environ.pop("FORCE_COLOR", None)
        os.environ["NO_COLOR"] = "1"
        assert not use_color("auto", _Tty()) and use_color("always", io.StringIO())
        del os.environ["NO_COLOR"]
        os.environ["FORCE_COLOR"] = "1"
        assert use_color("auto", io.StringIO()) and not use_color("never", _Tty())
        del os.environ["FORCE_COLOR"]
        assert use_color("auto", _Tty()) and not use_color("auto", io.StringIO())
    finally:
        os.environ.clear()
        os.environ.update(env)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_color_from_the_command_line(tmp_path: Path):
    (tmp_path / "a.py").write_text(BUGGY)
    assert "\x1b[" not in run("--no-cache", "a.py", cwd=tmp_path).stdout  # a pipe: no color
    assert "\x1b[" in run("--no-cache", "--color", "always", "a.py", cwd=tmp_path).stdout
    forced = run("--no-cache", "a.py", cwd=tmp_path, env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" in forced
    assert "\x1b[" not in run("--no-cache", "a.py", cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout


def test_json_has_fix_edits_and_a_docs_link():
    data = json.loads(render("json"))
    assert [d["code"] for d in data] == ["DEV301", "DEV001", "DEV101", "DEV401"]  # sorted by path
    fixable = data[3]
    assert fixable["fixable"] is True and fixable["applicability"] == "safe"
    assert fixable["edits"] == [{"content": ".detach().cpu()", "location": {"row": 4, "column": 2},
                                 "end_location": {"row": 4, "column": 2}}]
    assert data[2]["fixable"] is False and data[2]["edits"] == []
    assert data[2]["url"].startswith("https://") and data[2]["url"].endswith("/DEV101/")
    assert json.loads(render("json", [])) == []


def test_sarif_rules_related_locations_fixes_and_relative_paths():
    log = json.loads(render("sarif"))
    assert log["version"] == "2.1.0" and "$schema" in log
    run_ = log["runs"][0]
    rule_ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert set(rule_ids) == {r.code for r in ALL_RULES} | {"DEV001"}  # every reported ruleId is described
    assert all(r["helpUri"].startswith("https://") and r["helpUri"].endswith(f"/{r['id']}/")
               for r in run_["tool"]["driver"]["rules"])
    error = next(r for r in run_["results"] if r["ruleId"] == "DEV101")
    assert rule_ids[error["ruleIndex"]] == "DEV101"
    location = error["locations"][0]["physicalLocation"]
    assert location["region"] == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 10}
    assert location["artifactLocation"] == {"uri": "train.py", "uriBaseId": "%SRCROOT%"}
    assert [r["physicalLocation"]["region"]["startLine"] for r in error["relatedLocations"]] == [1, 2]
    assert {r["physicalLocation"]["artifactLocation"]["uri"] for r in error["relatedLocations"]} == {"train.py"}
    assert error["relatedLocations"][0]["message"]["text"] == "`x` is on cpu: line 1 `x = torch.ones(3)`"
    fixed = next(r for r in run_["results"] if r["ruleId"] == "DEV401")
    replacement = fixed["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement == {"deletedRegion": {"startLine": 4, "startColumn": 2, "endLine": 4, "endColumn": 2},
                           "insertedContent": {"text": ".detach().cpu()"}}
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")


def test_sarif_validates_against_the_schema_shape():
    """The keys SARIF 2.1.0 requires, on a real run (the full schema is not vendored)."""
    log = json.loads(render("sarif"))
    for result in log["runs"][0]["results"]:
        assert {"ruleId", "level", "message", "locations"} <= set(result)
        assert result["level"] in ("error", "warning", "note")


def test_github_annotations_escape_their_data_and_carry_the_fix():
    lines = render("github").splitlines()
    assert lines[0].startswith("::warning file=bench/run.py,line=9,col=5,endLine=9,endColumn=20,")
    assert "title=DEV301 unsynchronized-timing::" in lines[0]
    assert "%0AGPU work at line 8 `model(x)`, 50%25" in lines[0]  # newline and percent escaped
    assert lines[2].startswith("::error file=train.py,") and lines[2].endswith("%0Afix: move one operand")
    assert render("github", []) == ""


def test_junit():
    root = ET.fromstring(render("junit"))
    assert root.tag == "testsuites" and root.get("failures") == "4"
    suites = {s.get("name"): s for s in root}
    assert set(suites) == {"bench/run.py", "broken.py", "train.py"}
    case = suites["train.py"].find("testcase")
    assert case.get("name") == "devlint.DEV101" and case.get("line") == "3"
    assert "`x` is on cpu" in case.find("failure").text
    clean = ET.fromstring(render("junit", []))
    assert clean.get("failures") == "0" and clean.find("testsuite/testcase").get("name") == "No problems found"


def test_gitlab_code_quality():
    data = json.loads(render("gitlab"))
    assert [d["severity"] for d in data] == ["minor", "major", "major", "major"]
    assert data[2]["location"] == {"path": "train.py", "lines": {"begin": 3, "end": 3}}
    assert data[2]["check_name"] == "DEV101 mixed-devices"
    fingerprints = [d["fingerprint"] for d in data]
    assert len(set(fingerprints)) == 4 and fingerprints == [d["fingerprint"] for d in json.loads(render("gitlab"))]


def test_statistics():
    text = render_statistics(report())
    assert text.splitlines()[0].split("\t")[1] in {"DEV001", "DEV101", "DEV301", "DEV401"}
    assert "DEV401\t[*] host-conversion" in text
    data = json.loads(render_statistics(report(), as_json=True))
    assert {d["code"]: d["count"] for d in data} == {"DEV001": 1, "DEV101": 1, "DEV301": 1, "DEV401": 1}


def test_statistics_from_the_command_line(tmp_path: Path):
    (tmp_path / "a.py").write_text(BUGGY)
    (tmp_path / "b.py").write_text(BUGGY)
    result = run("--no-cache", "--statistics", ".", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == "2\tDEV101\t    mixed-devices\n"


def test_every_code_has_a_page_and_an_explanation():
    for entry in CATALOGUE:
        assert (Path(__file__).parents[1] / "rules" / f"{entry.code}.md").is_file()


def test_progress_only_on_a_terminal_outside_ci():
    env = dict(os.environ)
    try:
        for name in ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD", "TEAMCITY_VERSION"):
            os.environ.pop(name, None)
        os.environ["TERM"] = "xterm"
        assert wanted(_Tty()) and not wanted(io.StringIO())
        os.environ["CI"] = "true"
        assert not wanted(_Tty())
    finally:
        os.environ.clear()
        os.environ.update(env)
    quick, slow = _Tty(), _Tty()
    bar = Progress(10, stream=quick, delay=60)
    bar(10)
    bar.close()
    assert quick.getvalue() == ""  # a short run prints nothing
    bar = Progress(4, stream=slow, delay=0)
    bar(1)
    bar.last_draw = 0
    bar(3)
    bar.close()
    assert "4/4 files" in slow.getvalue() and slow.getvalue().endswith("\r\x1b[2K")


def test_sarif_related_locations_come_from_the_places_a_finding_carries(tmp_path):
    """A why-chain step in another module of the project is a related location in that file (data, not text)."""
    (tmp_path / "masks.py").write_text("import torch\n\n\ndef make(n):\n    return torch.ones(n, n)\n")
    (tmp_path / "train.py").write_text("import torch\nfrom masks import make\n\n"
                                       "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                                       "y = torch.randn(3, 3).to(device) * make(3)\n")
    from devlint.static.engine import check_source
    from devlint.static.rules import ALL_RULES

    [finding] = check_source((tmp_path / "train.py").read_bytes(), str(tmp_path / "train.py"),
                             [r() for r in ALL_RULES if r.default_enabled])
    named = {(os.path.basename(path) or "train.py", line) for entry in finding.places for path, line, _ in entry}
    assert ("masks.py", 5) in named and ("train.py", 4) in named, finding.places
    assert len(finding.places) == len(finding.why)
