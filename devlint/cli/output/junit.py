"""JUnit XML: one test suite per file, one failing test case per finding (CI test-report views)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from devlint.cli.output.report import Report


def render(report: Report) -> str:
    findings = report.sorted()
    suites = ET.Element("testsuites", name="devlint", tests=str(max(len(findings), 1)),
                        failures=str(len(findings)), errors="0")
    if not findings:
        suite = ET.SubElement(suites, "testsuite", name="devlint", tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="No problems found", classname="devlint")
    by_path = defaultdict(list)
    for finding in findings:
        by_path[finding.path].append(finding)
    for path, in_file in by_path.items():
        suite = ET.SubElement(suites, "testsuite", name=path, tests=str(len(in_file)), failures=str(len(in_file)),
                              errors="0")
        for f in in_file:
            case = ET.SubElement(suite, "testcase", name=f"devlint.{f.code}", classname=path, line=str(f.line),
                                 column=str(f.column))
            where = f"cell {f.cell}, line {f.line}" if f.cell is not None else f"line {f.line}"
            failure = ET.SubElement(case, "failure", message=f"{f.code} {f.message}")
            failure.text = "\n".join([f"{where}, column {f.column}: {f.message}", *f.why]
                                     + ([f"fix: {f.fix}"] if f.fix else []))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
