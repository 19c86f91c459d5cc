"""JUnit XML: one test case per message kind (its errors are failures; never exercised is skipped), plus one
for capture-level findings (unparseable lines, unknown kinds). Written with the standard library."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TextIO

from wirecheck.check.result import BELOW_MIN_COVERAGE, CheckResult
from wirecheck.findings import Finding, Severity
from wirecheck.junit_xml import xml_document
from wirecheck.report.summary import finding_line


def _case(suite: ET.Element, result: CheckResult, name: str, findings: list[Finding], skipped: str | None) -> None:
    case = ET.SubElement(suite, "testcase", classname=result.release.name, name=name)
    failing = [f for f in findings if result.failing(f)]  # by the run's --fail-on
    rest = [f for f in findings if not result.failing(f) and f.severity is not Severity.INFO]
    if failing:
        severities = {f.severity.value for f in failing}
        what = severities.pop() if len(severities) == 1 else "finding"
        failure = ET.SubElement(case, "failure", message=f"{len(failing)} {what}(s)", type=failing[0].code)
        failure.text = "\n".join(finding_line(f) for f in failing)
    elif skipped:
        ET.SubElement(case, "skipped", message=skipped)
    if rest:
        out = ET.SubElement(case, "system-out")
        out.text = "\n".join(finding_line(f) for f in rest)


def write(result: CheckResult, out: TextIO) -> None:
    by_kind: dict[str | None, list[Finding]] = {}
    for finding in result.findings:
        by_kind.setdefault(finding.kind, []).append(finding)
    short = result.verdict == BELOW_MIN_COVERAGE
    suite = ET.Element(
        "testsuite",
        name=f"wirecheck {result.release.name}",
        tests=str(len(result.coverage) + 1 + (result.min_coverage is not None) + bool(result.unreadable_count)),
        failures=str(sum(1 for k in [*result.coverage, None] if any(map(result.failing, by_kind.get(k, []))))
                     + short + bool(result.unreadable_count)),
        skipped=str(len(result.not_exercised)),
    )
    for kind_id, cov in result.coverage.items():
        _case(suite, result, kind_id, by_kind.get(kind_id, []), None if cov.seen else "not exercised")
    _case(suite, result, "(capture)", by_kind.get(None, []), None)
    if result.min_coverage is not None:  # --min-coverage: its own case, so a short run is red in JUnit too
        case = ET.SubElement(suite, "testcase", classname=result.release.name, name="(coverage)")
        text = (f"{len(result.exercised)}/{len(result.coverage)} message kinds exercised; --min-coverage "
                f"{result.min_coverage:.0%}")
        if short:
            ET.SubElement(case, "failure", message=text, type="MIN_COVERAGE").text = (
                "not exercised: " + ", ".join(result.not_exercised))
        else:
            ET.SubElement(case, "system-out").text = text
    if result.unreadable_count:  # the run's verdict (exit 2): red in JUnit too, each capture with its reason
        case = ET.SubElement(suite, "testcase", classname=result.release.name, name="(unreadable captures)")
        ET.SubElement(case, "failure", message=f"{result.unreadable_count} of {result.capture_count} captures could "
                      "not be read", type="UNREADABLE").text = "\n".join(
            f"{c.file}: cannot read: {c.unreadable}" for c in result.unreadable)
    suites = ET.Element("testsuites", name="wirecheck", tests=suite.get("tests", "0"),
                        failures=suite.get("failures", "0"))
    suites.append(suite)
    out.write(xml_document(suites))
