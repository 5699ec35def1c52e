"""The output formats, on known findings."""

from __future__ import annotations

import json

from devlint.findings import Finding
from devlint.output import FORMATS
from devlint.rules import ALL_RULES

FINDINGS = [
    Finding(code="DEV301", severity="warning", path="bench/run.py", line=9, column=5, end_line=9, end_column=20,
            message="`time.time()` is read while GPU work may still be queued", why=("GPU work at line 8, 50%",),
            name="unsynchronized-timing"),
    Finding(code="DEV101", severity="error", path="train.py", line=3, column=1, end_line=3, end_column=6,
            message="`+` combines cpu and cuda", why=("`x` is on cpu: line 1", "`y` is on cuda: line 2"),
            name="mixed-devices", fix="move one operand"),
]


def render(fmt: str, findings=FINDINGS, files: int = 3) -> str:
    return FORMATS[fmt](findings, files_checked=files, rules=ALL_RULES)


def test_text_lists_findings_whys_and_a_summary():
    lines = render("text").splitlines()
    assert lines[0] == "bench/run.py:9:5: DEV301 `time.time()` is read while GPU work may still be queued"
    assert "    `x` is on cpu: line 1" in lines and "    fix: move one operand" in lines
    assert lines[-1] == "Found 2 problems (1 error, 1 warning) in 2 of 3 files."
    assert render("text", [], 1).strip() == "All checked: 1 file, no problems."


def test_json_is_the_documented_schema():
    data = json.loads(render("json"))
    assert [d["code"] for d in data] == ["DEV301", "DEV101"]  # sorted by path
    assert set(data[1]) == {"code", "name", "severity", "path", "line", "column", "end_line", "end_column",
                            "message", "why", "fix"}
    assert json.loads(render("json", [])) == []


def test_sarif_has_rules_results_and_regions():
    log = json.loads(render("sarif"))
    assert log["version"] == "2.1.0" and "$schema" in log
    run = log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids == [r.code for r in ALL_RULES]
    error = next(r for r in run["results"] if r["ruleId"] == "DEV101")
    assert error["level"] == "error"
    region = error["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 6}
    assert error["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train.py"
    assert "`y` is on cuda" in error["message"]["text"]
    warning = next(r for r in run["results"] if r["ruleId"] == "DEV301")
    assert warning["level"] == "warning"


def test_github_annotations_escape_their_data():
    lines = render("github").splitlines()
    assert lines[0].startswith("::warning file=bench/run.py,line=9,col=5,endLine=9,endColumn=20,")
    assert "title=DEV301 unsynchronized-timing::" in lines[0]
    assert "%0AGPU work at line 8, 50%25" in lines[0]  # newline and percent escaped in the message
    assert lines[1].startswith("::error file=train.py,")
    assert render("github", []) == ""
