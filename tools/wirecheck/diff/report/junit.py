"""JUnit XML: one test suite per release pair, one test case per message kind; what fails the gate is a failure."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TextIO

from wirecheck.diff.report.common import breaks_text, gate_line, unique_witnesses, witness_text, witnessed_elsewhere
from wirecheck.junit_xml import xml_document


def _line(f) -> str:
    lines = [f"{f.rule} {f.path or '/'}: {f.message} [{breaks_text(f)}] #{f.fingerprint}"]
    lines += [f"  witness {witness_text(w)}" for w in unique_witnesses(f)]
    if f.witnessed_in is not None:
        lines.append(f"  {witnessed_elsewhere(f)}")
    return "\n".join(lines)


def write(run, out: TextIO) -> None:
    root = ET.Element("testsuites", name="wirecheck diff")
    failing = {id(f) for f in run.failing()}  # the gate's (diff/gate.py): what fails a test case fails the run

    def _errors(findings):
        return [f for f in findings if id(f) in failing]

    for result in run.results:
        if result.nothing_compared:
            suite = ET.SubElement(root, "testsuite", name=result.name, tests="1", failures="0", errors="1")
            case = ET.SubElement(suite, "testcase", classname=f"{result.package}.{result.new_version}",
                                 name="nothing compared")
            ET.SubElement(case, "error", message="nothing compared", type="USAGE").text = result.nothing_compared
            continue
        by_kind: dict[str, list] = {}
        for finding in result.findings:
            by_kind.setdefault(finding.kind, []).append(finding)
        for verdict in result.kinds:
            by_kind.setdefault(verdict.kind, [])
        suite = ET.SubElement(root, "testsuite", name=result.name, tests=str(len(by_kind)),
                              failures=str(sum(1 for fs in by_kind.values() if _errors(fs))))
        for kind, findings in sorted(by_kind.items()):
            case = ET.SubElement(suite, "testcase", classname=f"{result.package}.{result.new_version}", name=kind)
            errors = _errors(findings)
            if errors:
                failure = ET.SubElement(case, "failure", message=f"{len(errors)} breaking change(s)",
                                        type=errors[0].rule)
                failure.text = "\n".join(_line(f) for f in errors)
            rest = [f for f in findings if f not in errors]
            if rest:
                ET.SubElement(case, "system-out").text = "\n".join(_line(f) for f in rest)
    gate = ET.SubElement(root, "testsuite", name="gate", tests="1", failures=str(int(run.exit_code() != 0)))
    case = ET.SubElement(gate, "testcase", classname="wirecheck", name=f"--fail-on {run.fail_on}")
    if run.exit_code():  # the run's one gate decision: this case fails exactly when the command does
        ET.SubElement(case, "failure", message=gate_line(run), type="GATE")
    else:
        ET.SubElement(case, "system-out").text = gate_line(run)
    if run.waiver_findings:
        suite = ET.SubElement(root, "testsuite", name="waivers", tests="1", failures="1")
        case = ET.SubElement(suite, "testcase", classname="wirecheck", name="waivers")
        failure = ET.SubElement(case, "failure", message="stale or expired waivers", type="WAIVER")
        failure.text = "\n".join(f"{f.rule}: {f.message}" for f in run.waiver_findings)
    out.write(xml_document(root))

